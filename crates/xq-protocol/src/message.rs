//! The two message enums.

use serde::{Deserialize, Serialize};
use xq_rules::Color;
use xq_session::{Action, Event};

use crate::{DisconnectReason, ErrorCode, ResumeToken, RoomCode, RoomOptions, Snapshot};

/// What a client sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ClientMsg {
    /// The first message on every connection.
    Hello {
        /// The client's [`crate::PROTOCOL_VERSION`].
        version: u8,
        /// A free-form client name, for logs.
        client: String,
        /// A token from an earlier [`ServerMsg::Joined`], to take back a seat after a
        /// disconnect.
        resume: Option<ResumeToken>,
    },
    /// Creates a room and takes a seat in it.
    CreateRoom(RoomOptions),
    /// Takes the free seat of the room with this code.
    JoinRoom {
        /// The code the creator shared.
        code: RoomCode,
    },
    /// Waits to be paired with the next player who asks for the same clocks and undo policy
    /// (the seat is drawn).
    QuickMatch(RoomOptions),
    /// Watches a room: a snapshot, then every event; no actions.
    Spectate {
        /// The room's code.
        code: RoomCode,
    },
    /// A player's action in its match. It names no colour: the relay hands it to the match as
    /// the action of the sender's seat, and the match checks the rest.
    Act(Action),
    /// Asks for (or agrees to) a rematch once the game is over: when both seats have asked, a
    /// new match starts in the same room with the colours swapped.
    Rematch,
    /// Asks for a [`ServerMsg::Pong`] with the same nonce (latency and liveness).
    Ping {
        /// Echoed back.
        nonce: u64,
    },
    /// Leaves the room; the seat is kept until the reconnect grace period ends. A room whose
    /// second seat nobody has taken yet closes instead, as it does when its creator's
    /// connection drops.
    Leave,
}

/// What the relay sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ServerMsg {
    /// The answer to a compatible [`ClientMsg::Hello`].
    Welcome {
        /// The relay's [`crate::PROTOCOL_VERSION`].
        version: u8,
        /// The relay's name and version, for logs.
        server: String,
    },
    /// The client is in a room now: as a player with a seat, or as a spectator.
    Joined {
        /// The room's join code.
        code: RoomCode,
        /// The seat's colour; `None` for a spectator.
        seat: Option<Color>,
        /// Present for players: the token that takes the seat back after a disconnect.
        resume: Option<ResumeToken>,
    },
    /// Quick match: waiting for an opponent.
    Queued,
    /// The whole state of the room, sent on join, on resume and when a match (re)starts.
    /// Events that follow carry sequence numbers after [`Snapshot::next_seq`].
    Snapshot(Box<Snapshot>),
    /// A session event, numbered so a resuming client can tell what it has already seen.
    Event {
        /// This event's sequence number in the room's current match.
        seq: u64,
        /// What happened.
        event: Event,
    },
    /// The seat of this colour lost or regained its connection.
    Presence {
        /// The seat.
        seat: Color,
        /// Whether it is connected now.
        connected: bool,
    },
    /// The seat of this colour asked for a rematch.
    RematchRequested {
        /// Who asked.
        by: Color,
    },
    /// The answer to a [`ClientMsg::Ping`].
    Pong {
        /// The ping's nonce.
        nonce: u64,
    },
    /// A request was refused; nothing changed. Only the sender receives it.
    Error {
        /// What went wrong, for programs.
        code: ErrorCode,
        /// What went wrong, for people.
        message: String,
    },
    /// The relay is closing this connection.
    Disconnect {
        /// Why.
        reason: DisconnectReason,
        /// Details for people.
        message: String,
    },
}
