//! Why a line is not a UCI message.

use xq_rules::fen::ParseFenError;

/// Why a line does not parse as a [`crate::Command`] or an [`crate::EngineMessage`]. Parsing
/// is total: every `&str` gives a message or one of these, never a panic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The line holds no token.
    #[error("empty line")]
    Empty,
    /// No token of the line is a command (the first token is named).
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// A keyword that needs a value ends the line.
    #[error("{0} needs a value")]
    MissingValue(&'static str),
    /// A number field holds something else.
    #[error("invalid number for {field}: {text:?}")]
    BadNumber {
        /// The field.
        field: &'static str,
        /// What it holds.
        text: String,
    },
    /// A field holds a value outside its set (`debug maybe`, `default yes` for a check).
    #[error("invalid value for {field}: {text:?}")]
    BadValue {
        /// The field.
        field: &'static str,
        /// What it holds.
        text: String,
    },
    /// `position` names neither `startpos` nor `fen`.
    #[error("position needs startpos or fen")]
    MissingStart,
    /// The FEN of `position fen` does not parse.
    #[error("invalid fen: {0}")]
    BadFen(#[from] ParseFenError),
    /// A move text does not parse in the dialect.
    #[error("invalid move text {0:?}")]
    BadMove(String),
    /// An `option` line declares a type UCI does not have.
    #[error("unknown option type {0:?}")]
    UnknownOptionType(String),
}
