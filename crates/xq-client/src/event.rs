//! What a client tells its owner.

use xq_protocol::{ErrorCode, RoomCode};
use xq_rules::Color;
use xq_session::Event;

use crate::ClientError;

/// Something that happened, in the order it happened; read them with
/// [`crate::Client::next_event`]. The [`crate::Mirror`] already reflects each one when it is
/// read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientEvent {
    /// A match event, applied to the mirror. Each one is reported once, even when the relay
    /// sends it again after a resume.
    Match {
        /// Its number in the match.
        seq: u64,
        /// What happened.
        event: Event,
    },
    /// Quick match: the relay is looking for an opponent.
    Queued,
    /// The room's second seat was taken: the match begins, and the mirror shows it.
    ///
    /// Both players are told, once: the creator when the opponent joins, and the joiner or a
    /// quick-matched player as its request is answered (the event is waiting when
    /// [`crate::Client::join`] or [`crate::Client::quick_match`] returns). A spectator is told
    /// if it was watching the room before the match began; one that comes later finds the
    /// match under way in its mirror. A rematch is [`ClientEvent::RematchStarted`] instead.
    MatchStarted,
    /// Both players asked for a rematch: a new match began with the colours swapped, and the
    /// mirror shows it.
    RematchStarted {
        /// This client's colour in the new match (`None` for a spectator).
        seat: Option<Color>,
    },
    /// The player of this colour asked for a rematch.
    RematchRequested {
        /// Who asked.
        by: Color,
    },
    /// The player of this colour lost or regained its connection.
    Presence {
        /// The seat.
        seat: Color,
        /// Whether it is connected now.
        connected: bool,
    },
    /// The relay refused one of this client's commands; nothing changed.
    Rejected {
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// The connection failed; the client is restoring it. Commands fail with
    /// [`ClientError::NotConnected`] until [`ClientEvent::Reconnected`].
    Reconnecting {
        /// Why the connection failed.
        cause: ClientError,
    },
    /// The connection is back and the room resumed: the mirror was rebuilt from the relay's
    /// snapshot, so read it again (events missed while away are in it, not in this stream).
    Reconnected,
    /// The connection ended for good; this is the last event.
    Disconnected {
        /// Why: the relay's reason, a refused resume, or the last error once the reconnect
        /// period ran out.
        cause: ClientError,
    },
}

/// The room a client is in, and its part in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    /// The room's join code, to share with the opponent or spectators.
    pub code: RoomCode,
    /// The colour this client plays; `None` for a spectator.
    pub seat: Option<Color>,
}
