//! The whole state of a room, for joins and resumes.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use xq_rules::{ByColor, Color, Move};
use xq_session::{MatchConfig, Standing, Status, UndoRequest};

use crate::RoomCode;

/// Everything a client needs to mirror a room: the match's [`Standing`] (replaying `moves`
/// from `config.start` gives the position) with the room's seats, and events numbered from
/// `next_seq` on continue from it.
///
/// The standing's fields are written out here, rather than the [`Standing`] nested, so that
/// the list of moves is decoded with the codec's bound on claimed lengths.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The room's join code.
    pub code: RoomCode,
    /// The match's configuration, including its start position.
    pub config: MatchConfig,
    /// The moves played so far, in order.
    #[serde(deserialize_with = "crate::codec::bounded_vec")]
    pub moves: Vec<Move>,
    /// Time left on each clock when the snapshot was taken (`None` for untimed matches).
    pub clocks: Option<ByColor<Duration>>,
    /// Whether the clock of the side to move is running.
    pub clocks_running: bool,
    /// How many undo requests each side has had granted.
    pub undos_granted: ByColor<u32>,
    /// An undo request waiting for an answer.
    pub pending_undo: Option<UndoRequest>,
    /// The colour whose draw offer waits for an answer.
    pub pending_draw: Option<Color>,
    /// Whether the game goes on, and its result if not.
    pub status: Status,
    /// Who sits where.
    pub seats: ByColor<SeatInfo>,
    /// The colour that has asked for a rematch, if one has.
    pub rematch_requested: Option<Color>,
    /// The sequence number the next event will carry.
    pub next_seq: u64,
}

impl Snapshot {
    /// The snapshot of a room with this `code` whose match stands at `standing`.
    #[must_use]
    pub fn new(
        code: RoomCode,
        standing: Standing,
        seats: ByColor<SeatInfo>,
        rematch_requested: Option<Color>,
        next_seq: u64,
    ) -> Self {
        let Standing {
            config,
            moves,
            clocks,
            clocks_running,
            undos_granted,
            pending_undo,
            pending_draw,
            status,
        } = standing;
        Self {
            code,
            config,
            moves,
            clocks,
            clocks_running,
            undos_granted,
            pending_undo,
            pending_draw,
            status,
            seats,
            rematch_requested,
            next_seq,
        }
    }

    /// The match's standing, for [`xq_session::MatchState::follow`].
    #[must_use]
    pub fn standing(&self) -> Standing {
        Standing {
            config: self.config.clone(),
            moves: self.moves.clone(),
            clocks: self.clocks,
            clocks_running: self.clocks_running,
            undos_granted: self.undos_granted,
            pending_undo: self.pending_undo,
            pending_draw: self.pending_draw,
            status: self.status,
        }
    }
}

/// One seat of a room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// Whether a player holds the seat.
    pub taken: bool,
    /// Whether that player is connected now.
    pub connected: bool,
}
