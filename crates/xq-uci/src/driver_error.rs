//! Why driving an engine failed.

use std::io;

use xq_rules::IllegalMove;

use crate::{Dialect, HistoryError};

/// Why the driver could not get an answer from an engine.
///
/// [`DriverError::IllegalMove`] means the engine forfeits the game but still runs; after
/// [`Exited`](DriverError::Exited) or [`Hung`](DriverError::Hung) the engine is gone (a hung
/// engine is killed), and every later request gives [`Closed`](DriverError::Closed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// The program could not be started.
    #[error("cannot start engine {program:?}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The engine exited (or closed its output) while the driver was waiting for it.
    #[error("the engine exited during {during} (exit status {})", fmt_status(*.status))]
    Exited {
        /// Its exit code; `None` if a signal ended it.
        status: Option<i32>,
        /// What the driver was doing: "the handshake", "isready", "a search" or "idle".
        during: &'static str,
    },
    /// The engine did not answer in time (for a search: its deadline, `stop`, then the grace
    /// period), and was killed.
    #[error("the engine sent no {waiting_for} in time")]
    Hung {
        /// The answer that did not come: "uciok", "readyok" or "bestmove".
        waiting_for: &'static str,
    },
    /// The engine's `bestmove` is not a legal move in the position: it forfeits.
    #[error("the engine played {text:?}: {reason}")]
    IllegalMove {
        /// The move as the engine wrote it.
        text: String,
        /// Why it is refused.
        reason: MoveRefusal,
    },
    /// The engine declares `UCI_Variant` without `xiangqi`: it plays other games.
    #[error("the engine's UCI_Variant has no xiangqi")]
    NoXiangqi,
    /// A move of the history given to a search is illegal (the caller's mistake, not the
    /// engine's): nothing was sent.
    #[error(transparent)]
    BadHistory(#[from] HistoryError),
    /// The position to search has no legal move: the game is over, nothing was sent.
    #[error("the position has no legal move")]
    NoLegalMoves,
    /// A request came while another is under way (only the sans-IO core can be misused so).
    #[error("the engine is busy with another request")]
    Busy,
    /// The engine failed earlier or was told to quit.
    #[error("the engine is gone")]
    Closed,
    /// Talking to the process failed.
    #[error("engine io: {0}")]
    Io(#[from] io::Error),
}

/// Why an engine's `bestmove` is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefusal {
    /// The text is no move in the engine's dialect.
    #[error("not a move in the {0} dialect")]
    Unreadable(Dialect),
    /// The move breaks a rule.
    #[error(transparent)]
    Illegal(IllegalMove),
    /// `bestmove (none)` in a position with legal moves.
    #[error("no move, though the position has legal moves")]
    NoMove,
}

fn fmt_status(status: Option<i32>) -> String {
    status.map_or_else(
        || "none: killed by a signal".into(),
        |code| code.to_string(),
    )
}
