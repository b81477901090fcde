//! Moves.

use std::fmt;

use crate::Square;

/// A move from one point to another. Xiangqi has no promotion, castling or drops, so two squares
/// say everything; it displays in ICCS coordinates (`h2e2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Move {
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes (and what it captures, if anything stands there).
    pub to: Square,
}

impl Move {
    /// Builds a move. Whether it is legal depends on a position: see [`crate::Position::is_legal`].
    #[must_use]
    pub const fn new(from: Square, to: Square) -> Self {
        Self { from, to }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// The legal moves of a position. No position has more than 128 (a full set has at most 119
/// pseudo-legal moves), so the list lives on the stack.
pub type MoveList = arrayvec::ArrayVec<Move, 128>;
