//! Outputs of a match, for the players and the relay.

use std::time::Duration;

use xq_rules::{ByColor, Color, Move, Piece};

use crate::{GameResult, MoveText, UndoRequest};

/// Something that happened in a match, to be passed on to both seats. Drain them with
/// [`crate::Match::poll_event`] after every input.
///
/// Clock readings are the time each side had left at that moment (`None` in an untimed
/// match); a client counts the side to move down from there until the next event.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Event {
    /// A move was played.
    MovePlayed {
        /// The side that moved.
        by: Color,
        /// The move.
        mv: Move,
        /// The move written out.
        text: MoveText,
        /// The piece it captured, if any.
        captured: Option<Piece>,
        /// Whether it leaves the opponent in check (to announce "check").
        gives_check: bool,
        /// The number of plies played so far, this one included.
        ply: usize,
        /// The clocks after the move, the mover's increment included.
        clocks: Option<ByColor<Duration>>,
    },
    /// A seat asked to take moves back; its opponent should answer.
    UndoRequested(UndoRequest),
    /// The requester withdrew its undo request.
    UndoWithdrawn {
        /// The requester.
        by: Color,
    },
    /// The opponent declined the undo request.
    UndoDeclined {
        /// The seat that declined.
        by: Color,
    },
    /// The pending undo request lapsed unanswered, because a move was played or the game ended.
    UndoLapsed,
    /// Moves were taken back; clients pop them from their own boards.
    UndoApplied {
        /// The seat whose request was granted; it is on move now.
        by: Color,
        /// How many plies were taken back (1 or 2).
        plies: usize,
        /// The clocks, which an undo does not turn back: the increments the taken-back moves
        /// earned stay.
        clocks: Option<ByColor<Duration>>,
    },
    /// A seat offered a draw.
    DrawOffered {
        /// The seat offering.
        by: Color,
    },
    /// The offerer withdrew its draw offer.
    DrawWithdrawn {
        /// The offerer.
        by: Color,
    },
    /// The opponent declined the draw offer.
    DrawDeclined {
        /// The seat that declined.
        by: Color,
    },
    /// The pending draw offer lapsed unanswered: the opponent moved instead, moves were taken
    /// back, or the game ended otherwise.
    DrawLapsed,
    /// The relay stopped the clocks.
    ClocksPaused {
        /// The clocks when stopped.
        clocks: ByColor<Duration>,
    },
    /// The relay restarted the clock of the side to move.
    ClocksResumed {
        /// The clocks when restarted.
        clocks: ByColor<Duration>,
    },
    /// The game is over. Always the last event of a match.
    GameOver(GameResult),
}
