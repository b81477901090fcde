//! Unvalidated positions, as notations produce them.

use std::num::NonZeroU32;

use crate::{Board, Color};

/// A position as read from FEN or built by hand, not yet checked against the rules.
/// [`crate::Position::from_setup`] is the only way to turn it into something playable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Piece placement.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Plies since the last capture (the FEN "halfmove" field, as Pikafish counts it).
    pub halfmoves: u32,
    /// The move number, starting at 1 and increasing after each Black move.
    pub fullmoves: NonZeroU32,
}

impl Setup {
    /// The standard starting position, Red to move.
    #[must_use]
    pub fn startpos() -> Self {
        Self {
            board: Board::startpos(),
            turn: Color::Red,
            halfmoves: 0,
            fullmoves: NonZeroU32::MIN,
        }
    }
}

impl Default for Setup {
    fn default() -> Self {
        Self::startpos()
    }
}
