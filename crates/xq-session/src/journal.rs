//! The inputs a match accepted: enough to rebuild it exactly.

use crate::{Command, CommandError, MatchConfig, Seat, Timestamp};

/// Everything that made a match what it is. A match is a pure function of its journal:
/// [`crate::Match::from_journal`] replays the entries through the same code that handled them
/// the first time and gets an equal match back (events aside: the past is not news).
///
/// The relay persists it (with the `serde` feature) after each accepted input and rebuilds
/// the match from it after a restart, then sends [`Command::ResumeClocks`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Journal {
    /// The rules of the match.
    pub config: MatchConfig,
    /// The seat playing Red.
    pub red: Seat,
    /// When the match was created; the side to move's clock runs from here.
    pub started: Timestamp,
    /// The accepted inputs, oldest first.
    pub entries: Vec<Entry>,
}

/// One accepted input and when it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Entry {
    /// When.
    pub at: Timestamp,
    /// What.
    pub input: Input,
}

/// An input that changed a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Input {
    /// A command that was accepted.
    Command(Command),
    /// A call to [`crate::Match::handle_timeout`] (or a command arriving late) that found a
    /// flag down. Timeouts that changed nothing are not recorded.
    Flag,
}

/// Why a journal does not replay: it was edited, or written under different rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RebuildError {
    /// An entry's command is refused on replay.
    #[error("journal entry {index}: {error}")]
    Refused {
        /// The entry's index.
        index: usize,
        /// Why the command is refused.
        error: CommandError,
    },
    /// An entry records a flag fall, but no flag is down at its time.
    #[error("journal entry {index}: no flag falls at that time")]
    NoFlag {
        /// The entry's index.
        index: usize,
    },
}
