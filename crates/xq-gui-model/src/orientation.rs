//! Which side of the board faces the player, and the grid cells squares are drawn at.

use xq_rules::{Color, File, Rank, Square};

/// How the board is turned on screen: the colour whose side is at the bottom.
///
/// Screen cells count columns `0..9` from the left and rows `0..10` from the top. With Red at
/// the bottom, file `a` is the left column and rank `9` the top row; with Black at the bottom the
/// board is given a half turn, so each player sees its own pieces close and its left file on
/// the left, as over a real board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Orientation {
    /// The colour whose pieces start at the bottom of the screen.
    pub bottom: Color,
}

/// A point of the grid as the screen shows it: `col` from the left, `row` from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// `0..9`, from the left.
    pub col: u8,
    /// `0..10`, from the top.
    pub row: u8,
}

impl Orientation {
    /// Red at the bottom: the usual diagram.
    pub const RED_BOTTOM: Self = Self { bottom: Color::Red };

    /// The cell where `square` is drawn.
    #[must_use]
    pub const fn cell(self, square: Square) -> Cell {
        let seen = match self.bottom {
            Color::Red => square,
            Color::Black => square.flip(),
        };
        Cell {
            col: seen.file().index(),
            row: 9 - seen.rank().index(),
        }
    }

    /// The square drawn at `cell`, if the cell is on the board.
    #[must_use]
    pub fn square(self, cell: Cell) -> Option<Square> {
        let file = File::new(cell.col)?;
        let rank = Rank::new(9_u8.checked_sub(cell.row)?)?;
        let seen = Square::new(file, rank);
        Some(match self.bottom {
            Color::Red => seen,
            Color::Black => seen.flip(),
        })
    }

    /// The board given a half turn.
    #[must_use]
    pub const fn flipped(self) -> Self {
        Self {
            bottom: self.bottom.other(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn red_at_the_bottom_is_the_usual_diagram() {
        let o = Orientation::RED_BOTTOM;
        assert_eq!(o.cell(Square::A0), Cell { col: 0, row: 9 });
        assert_eq!(o.cell(Square::I9), Cell { col: 8, row: 0 });
        assert_eq!(o.cell(Square::E0), Cell { col: 4, row: 9 });
    }

    #[test]
    fn black_at_the_bottom_turns_the_board_around() {
        let o = Orientation::RED_BOTTOM.flipped();
        assert_eq!(o.bottom, Color::Black);
        // Black's general sits at the bottom centre, Black's right-hand chariot (a9) at the
        // bottom right.
        assert_eq!(o.cell(Square::E9), Cell { col: 4, row: 9 });
        assert_eq!(o.cell(Square::A9), Cell { col: 8, row: 9 });
        assert_eq!(o.cell(Square::I0), Cell { col: 0, row: 0 });
    }

    #[test]
    fn cells_and_squares_are_inverse() {
        for o in [Orientation::RED_BOTTOM, Orientation::RED_BOTTOM.flipped()] {
            for square in Square::all() {
                assert_eq!(o.square(o.cell(square)), Some(square));
            }
            assert_eq!(o.square(Cell { col: 9, row: 0 }), None);
            assert_eq!(o.square(Cell { col: 0, row: 10 }), None);
        }
    }
}
