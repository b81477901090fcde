//! What the relay asks its storage to keep, and what it gets back after a restart.

use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
use xq_session::{Entry, Record, Seat, Timestamp};

/// A change to the relay's durable state: enough, replayed in order, to rebuild every match
/// (each one is a pure function of its journal) and the seats' resume tokens, and to archive
/// every finished game.
///
/// Rooms still waiting for their second player are not recorded: they hold no move.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Persist {
    /// A match began in a room (its first, or a rematch, which replaces the one before).
    MatchStarted {
        /// The room.
        code: RoomCode,
        /// How the room plays; the match's config follows from it.
        options: RoomOptions,
        /// The seat playing Red.
        red: Seat,
        /// When the match started on the relay's clock.
        started: Timestamp,
        /// The token of [`Seat::First`].
        first_token: ResumeToken,
        /// The token of [`Seat::Second`].
        second_token: ResumeToken,
    },
    /// The room's match accepted an input: the next entry of its journal.
    Entry {
        /// The room.
        code: RoomCode,
        /// The entry's number in the match's journal, from 0.
        seq: u64,
        /// The input and its time.
        entry: Entry,
    },
    /// The room's match has just ended (by the entry before this change): its record goes to
    /// the archive. The room stays open, for a rematch or until its players leave.
    MatchOver {
        /// The room.
        code: RoomCode,
        /// The finished game, as the match wrote it.
        record: Box<Record>,
    },
    /// A seat's player stayed away past the grace period: the seat is lost and its token
    /// void, after a restart too. (A match still on was lost by abandonment, or drawn if both
    /// seats were lost at the same moment: an entry of its own.)
    SeatLost {
        /// The room.
        code: RoomCode,
        /// The seat.
        seat: Seat,
    },
    /// The room is gone (nobody holds a seat any more): its journal is dropped.
    RoomClosed {
        /// The room.
        code: RoomCode,
    },
}

/// A room whose match was open at the last commit: what the relay needs to rebuild the match
/// and to seat its players again when they resume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenRoom {
    /// The room.
    pub code: RoomCode,
    /// How the room plays.
    pub options: RoomOptions,
    /// The seat playing Red in the current match.
    pub red: Seat,
    /// When the current match started on the relay's clock of that time (before the restart).
    pub started: Timestamp,
    /// The token of [`Seat::First`].
    pub first_token: ResumeToken,
    /// The token of [`Seat::Second`].
    pub second_token: ResumeToken,
    /// The seats lost to the grace period ([`Persist::SeatLost`]), whose tokens are void.
    pub lost: Vec<Seat>,
    /// The current match's journal entries, oldest first.
    pub entries: Vec<Entry>,
}
