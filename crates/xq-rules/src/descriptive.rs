//! What WXF and Chinese notation have in common.
//!
//! Both describe a move from the mover's seat instead of by coordinates: which piece moves (its
//! kind and the file it stands on, or its place among pieces of its kind sharing a file), which
//! way it goes, and a number. Files are numbered 1–9 from the mover's own right, so one number
//! names mirrored files for Red and Black. The number after the direction is the file the piece
//! lands on when it changes file (sideways moves, and every move of the horse, elephant and
//! advisor), and the distance it travels when it moves along its file.
//!
//! The two notations differ only in spelling and in when they name a piece by its place on a
//! file, so this module holds the geometry and the move lookup, and each notation its own
//! policy.

use crate::{Board, Color, File, Move, Piece, Position, Rank, Role, Square};

/// Which way a move goes, seen from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// Towards the opponent (`+`, 进).
    Forward,
    /// Towards the mover's own back rank (`-`, 退).
    Backward,
    /// Along the rank (`=`, 平).
    Sideways,
}

/// The number of `file` as `color` counts it: 1–9 from that side's right.
pub(crate) const fn file_number(color: Color, file: File) -> u8 {
    match color {
        Color::Red => 9 - file.index(),
        Color::Black => file.index() + 1,
    }
}

/// The direction of `mv` for `color` and the number written after it.
pub(crate) fn motion(color: Color, mv: Move) -> (Direction, u8) {
    let (from, to) = (mv.from.rank(), mv.to.rank());
    let direction = if from == to {
        Direction::Sideways
    } else if (to > from) == (color == Color::Red) {
        Direction::Forward
    } else {
        Direction::Backward
    };
    let number = if mv.from.file() == mv.to.file() {
        from.index().abs_diff(to.index())
    } else {
        file_number(color, mv.to.file())
    };
    (direction, number)
}

/// Where a piece stands among the pieces of its kind and colour on its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tandem {
    /// Its place counted from the front (the end nearest the opponent), 0 for the front piece.
    pub(crate) index: u8,
    /// How many pieces of its kind stand on its file, itself included.
    pub(crate) count: u8,
    /// Whether its side has two or more pieces of its kind on more than one file (only
    /// soldiers are numerous enough).
    pub(crate) several_files: bool,
}

impl Tandem {
    /// The tandem of `piece`, standing on `square`.
    pub(crate) fn of(board: &Board, piece: Piece, square: Square) -> Self {
        let ranks_on = |file: File| {
            Rank::ALL
                .into_iter()
                .filter(move |&rank| board.piece_at(Square::new(file, rank)) == Some(piece))
        };
        let ahead = |rank: Rank| match piece.color {
            Color::Red => rank > square.rank(),
            Color::Black => rank < square.rank(),
        };
        // Only soldiers, five of a kind, can stand two deep on two files: the other kinds are
        // spared the scan of the whole board.
        let several_files = piece.role == Role::Soldier
            && File::ALL
                .into_iter()
                .filter(|&file| ranks_on(file).nth(1).is_some())
                .nth(1)
                .is_some();
        // At most ten pieces fit on a file, so the counts fit in a u8.
        Self {
            index: ranks_on(square.file()).filter(|&r| ahead(r)).count() as u8,
            count: ranks_on(square.file()).count() as u8,
            several_files,
        }
    }

    /// Whether it is the last piece counted from the front.
    pub(crate) const fn is_rear(self) -> bool {
        self.index + 1 == self.count
    }
}

/// The facts about a move that both notations draw on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The kind of piece that moves.
    pub(crate) role: Role,
    /// The number of the file it stands on.
    pub(crate) file: u8,
    /// Its place among pieces of its kind on that file.
    pub(crate) tandem: Tandem,
    /// Which way it goes.
    pub(crate) direction: Direction,
    /// The number written after the direction.
    pub(crate) number: u8,
}

impl Facts {
    /// The facts about `mv`, a move of the side to move in `pos`. (A move from an empty point
    /// is taken for a soldier's: it resolves to nothing.)
    pub(crate) fn of(pos: &Position, mv: Move) -> Self {
        let color = pos.turn();
        let role = pos
            .board()
            .piece_at(mv.from)
            .map_or(Role::Soldier, |p| p.role);
        let (direction, number) = motion(color, mv);
        Self {
            role,
            file: file_number(color, mv.from.file()),
            tandem: Tandem::of(pos.board(), Piece::new(color, role), mv.from),
            direction,
            number,
        }
    }
}

/// Why a description picks out no single legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unresolved {
    /// No legal move fits.
    NoMove,
    /// Several legal moves fit.
    SeveralMoves,
}

/// The legal move of a `role` piece of the side to move that goes `direction` and `number`, from
/// a square that `origin` accepts (given the square's file number and the piece's tandem).
pub(crate) fn resolve(
    pos: &Position,
    role: Role,
    direction: Direction,
    number: u8,
    origin: impl Fn(u8, Tandem) -> bool,
) -> Result<Move, Unresolved> {
    let piece = Piece::new(pos.turn(), role);
    let mut found = None;
    for mv in pos.legal_moves() {
        if pos.board().piece_at(mv.from) == Some(piece)
            && motion(piece.color, mv) == (direction, number)
            && origin(
                file_number(piece.color, mv.from.file()),
                Tandem::of(pos.board(), piece, mv.from),
            )
            && found.replace(mv).is_some()
        {
            return Err(Unresolved::SeveralMoves);
        }
    }
    found.ok_or(Unresolved::NoMove)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_numbered_from_each_sides_right() {
        assert_eq!(file_number(Color::Red, File::I), 1);
        assert_eq!(file_number(Color::Red, File::A), 9);
        assert_eq!(file_number(Color::Black, File::A), 1);
        assert_eq!(file_number(Color::Black, File::I), 9);
    }

    #[test]
    fn motion_is_seen_from_the_mover() {
        use Direction::*;
        let cases = [
            (Color::Red, Square::H2, Square::E2, (Sideways, 5)),
            (Color::Red, Square::H2, Square::H9, (Forward, 7)),
            (Color::Red, Square::B0, Square::C2, (Forward, 7)),
            (Color::Red, Square::E2, Square::G0, (Backward, 3)),
            (Color::Black, Square::H9, Square::G7, (Forward, 7)),
            (Color::Black, Square::A6, Square::A8, (Backward, 2)),
            (Color::Black, Square::B7, Square::E7, (Sideways, 5)),
        ];
        for (color, from, to, expected) in cases {
            assert_eq!(motion(color, Move::new(from, to)), expected, "{from}{to}");
        }
    }

    #[test]
    fn tandems_count_from_the_front() {
        let mut board = Board::empty();
        let red = Piece::new(Color::Red, Role::Soldier);
        let black = Piece::new(Color::Black, Role::Soldier);
        for sq in [Square::C5, Square::C6, Square::C8, Square::G5] {
            board.set_piece_at(sq, Some(red));
        }
        for sq in [Square::A4, Square::A3] {
            board.set_piece_at(sq, Some(black));
        }
        let t = |board: &Board, piece, sq| Tandem::of(board, piece, sq);
        assert_eq!(
            t(&board, red, Square::C8),
            Tandem {
                index: 0,
                count: 3,
                several_files: false
            }
        );
        assert_eq!(t(&board, red, Square::C5).index, 2);
        assert!(t(&board, red, Square::C5).is_rear());
        assert_eq!(t(&board, red, Square::G5).count, 1);
        assert_eq!(t(&board, black, Square::A3).index, 0);
        assert!(t(&board, black, Square::A4).is_rear());
        board.set_piece_at(Square::G6, Some(red));
        assert!(t(&board, red, Square::G5).several_files);
    }
}
