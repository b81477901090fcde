//! Piece placement.

use std::fmt;

use crate::{Color, Piece, Role, Square};

/// What stands on each of the 90 points. Any placement can be represented, legal or not: a
/// [`crate::Position`] is the validated form.
///
/// Each point takes one byte (a piece code), half of what an `Option<Piece>` takes: a
/// position is copied on every move and kept for every ply of a game's history.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    squares: [u8; Square::COUNT],
}

/// A point's byte: 0 when empty, else the piece's role + 1 in the low three bits and 8 for
/// Black.
const fn encode(piece: Option<Piece>) -> u8 {
    match piece {
        None => 0,
        Some(piece) => ((piece.color as u8) << 3) | (piece.role as u8 + 1),
    }
}

/// [`encode`] undone, for every byte value, so that decoding is one load with no bounds check
/// (values no point holds decode to nothing).
const DECODE: [Option<Piece>; 256] = {
    let mut table = [None; 256];
    let mut color = 0;
    while color < Color::ALL.len() {
        let mut role = 0;
        while role < Role::ALL.len() {
            let piece = Piece::new(Color::ALL[color], Role::ALL[role]);
            table[encode(Some(piece)) as usize] = Some(piece);
            role += 1;
        }
        color += 1;
    }
    table
};

impl Board {
    /// A board with no pieces.
    #[must_use]
    pub const fn empty() -> Self {
        Self {
            squares: [0; Square::COUNT],
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
        self.at(square.index())
    }

    /// Puts `piece` (or nothing) on `square` and returns what stood there.
    pub fn set_piece_at(&mut self, square: Square, piece: Option<Piece>) -> Option<Piece> {
        let old = std::mem::replace(&mut self.squares[square.index() as usize], encode(piece));
        DECODE[old as usize]
    }

    /// Every piece with its square, in square-index order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// The piece at a square index already known to be on the board.
    #[inline]
    const fn at(&self, index: u8) -> Option<Piece> {
        DECODE[self.squares[index as usize] as usize]
    }

    fn put(&mut self, index: u8, piece: Piece) {
        self.squares[index as usize] = encode(Some(piece));
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.pieces()).finish()
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
    fn every_piece_survives_its_encoding() {
        let mut board = Board::empty();
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                board.set_piece_at(Square::E4, Some(piece));
                assert_eq!(board.piece_at(Square::E4), Some(piece));
            }
        }
        assert_eq!(size_of::<Board>(), Square::COUNT);
        // A relay keeps one position per ply of every match it hosts: the mailbox, the
        // bitboards move generation runs on (nine of 16 bytes), the hash and the clocks.
        assert!(size_of::<crate::Position>() <= 256);
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
