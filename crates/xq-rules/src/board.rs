//! Piece placement.

use crate::{Color, Piece, Role, Square};

/// What stands on each of the 90 points. Any placement can be represented, legal or not: a
/// [`crate::Position`] is the validated form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    squares: [Option<Piece>; Square::COUNT],
}

impl Board {
    /// A board with no pieces.
    #[must_use]
    pub const fn empty() -> Self {
        Self {
            squares: [None; Square::COUNT],
        }
    }

    /// The standard starting placement.
    #[must_use]
    pub fn startpos() -> Self {
        use Role::*;
        let mut board = Self::empty();
        let back = [
            Chariot, Horse, Elephant, Advisor, General, Advisor, Elephant, Horse, Chariot,
        ];
        for (file, role) in back.into_iter().enumerate() {
            board.put(file as u8, Piece::new(Color::Red, role));
        }
        for (file, role) in [(1, Cannon), (7, Cannon)] {
            board.put(2 * 9 + file, Piece::new(Color::Red, role));
        }
        for file in (0..9).step_by(2) {
            board.put(3 * 9 + file, Piece::new(Color::Red, Soldier));
        }
        // Black's set is Red's turned half way round.
        for sq in Square::all().take(45) {
            if let Some(piece) = board.piece_at(sq) {
                board.set_piece_at(sq.flip(), Some(Piece::new(Color::Black, piece.role)));
            }
        }
        board
    }

    /// The piece on `square`, if any.
    #[must_use]
    pub const fn piece_at(&self, square: Square) -> Option<Piece> {
        self.squares[square.index() as usize]
    }

    /// Puts `piece` (or nothing) on `square` and returns what stood there.
    pub fn set_piece_at(&mut self, square: Square, piece: Option<Piece>) -> Option<Piece> {
        std::mem::replace(&mut self.squares[square.index() as usize], piece)
    }

    /// Every piece with its square, in square-index order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// The piece at a square index already known to be on the board (hot paths only).
    #[inline]
    pub(crate) const fn at(&self, index: u8) -> Option<Piece> {
        self.squares[index as usize]
    }

    fn put(&mut self, index: u8, piece: Piece) {
        self.squares[index as usize] = Some(piece);
    }
}

impl Default for Board {
    fn default() -> Self {
        Self::empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_has_two_full_sets_mirrored() {
        let board = Board::startpos();
        assert_eq!(board.pieces().count(), 32);
        assert_eq!(
            board.piece_at(Square::E0),
            Some(Piece::new(Color::Red, Role::General))
        );
        assert_eq!(
            board.piece_at(Square::H7),
            Some(Piece::new(Color::Black, Role::Cannon))
        );
        assert_eq!(
            board.piece_at(Square::I6),
            Some(Piece::new(Color::Black, Role::Soldier))
        );
        for (sq, piece) in board.pieces() {
            let mirror = board.piece_at(sq.flip()).map(|p| (p.color, p.role));
            assert_eq!(mirror, Some((!piece.color, piece.role)));
        }
    }

    #[test]
    fn set_returns_what_stood_there() {
        let mut board = Board::empty();
        let red_horse = Piece::new(Color::Red, Role::Horse);
        assert_eq!(board.set_piece_at(Square::B0, Some(red_horse)), None);
        assert_eq!(board.set_piece_at(Square::B0, None), Some(red_horse));
        assert_eq!(board, Board::empty());
    }
}
