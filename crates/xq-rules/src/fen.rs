//! FEN in the dialect of Pikafish and Fairy-Stockfish.
//!
//! `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`: ranks from Black's
//! back rank (9) down to Red's (0), Red in upper case, letters `K A B N R C P`; then the side to
//! move, two unused fields (`-`), the plies since the last capture, and the move number.
//!
//! The parser is relaxed: it accepts `r` as well as `w` for Red, the letters `E`/`H` for
//! elephant and horse, and leaves out trailing fields (they default to `w - - 0 1`). Output is
//! always the canonical form above.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use crate::{Board, Color, File, Piece, Position, PositionError, Rank, Setup, Square};

/// A position in FEN: a [`Setup`] that may or may not be legal.
///
/// # Examples
///
/// ```
/// use xq_rules::{Position, fen::Fen};
///
/// let fen: Fen = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r".parse()?;
/// let pos = fen.into_position()?;
/// assert_eq!(pos, Position::startpos());
/// assert_eq!(
///     Fen::from_position(&pos).to_string(),
///     "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
/// );
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fen(Setup);

/// Why a text is not FEN; one variant per field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// The text is empty.
    #[error("empty fen")]
    Empty,
    /// The placement field is malformed: not ten ranks of nine points, or an unknown letter.
    #[error("invalid board part in fen")]
    InvalidBoard,
    /// The side to move is not `w`, `r` or `b`.
    #[error("invalid side to move in fen")]
    InvalidTurn,
    /// The third field (castling in chess) is not `-`.
    #[error("invalid castling part in fen (xiangqi has none: expected '-')")]
    InvalidCastling,
    /// The fourth field (en passant in chess) is not `-`.
    #[error("invalid en passant part in fen (xiangqi has none: expected '-')")]
    InvalidEnPassant,
    /// The halfmove field is not a number.
    #[error("invalid halfmove clock in fen")]
    InvalidHalfmoves,
    /// The move number is not a number.
    #[error("invalid move number in fen")]
    InvalidFullmoves,
    /// Something follows the move number.
    #[error("unexpected text after the fen")]
    TrailingText,
}

impl Fen {
    /// Wraps a setup.
    #[must_use]
    pub const fn from_setup(setup: Setup) -> Self {
        Self(setup)
    }

    /// The FEN of a position.
    #[must_use]
    pub fn from_position(pos: &Position) -> Self {
        Self(pos.to_setup())
    }

    /// The setup this FEN describes.
    #[must_use]
    pub const fn as_setup(&self) -> &Setup {
        &self.0
    }

    /// Unwraps the setup.
    #[must_use]
    pub fn into_setup(self) -> Setup {
        self.0
    }

    /// Validates the setup.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] if the placement breaks a rule (see [`Position::from_setup`]).
    pub fn into_position(self) -> Result<Position, PositionError> {
        Position::from_setup(self.0)
    }
}

fn parse_board(text: &str) -> Result<Board, ParseFenError> {
    let mut board = Board::empty();
    let mut rows = text.split('/');
    for rank in Rank::ALL.iter().rev() {
        let row = rows.next().ok_or(ParseFenError::InvalidBoard)?;
        let mut file = 0u8;
        for ch in row.chars() {
            if let Some(skip) = ch.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += skip as u8;
            } else {
                let piece = Piece::from_char(ch).ok_or(ParseFenError::InvalidBoard)?;
                let square =
                    Square::new(File::new(file).ok_or(ParseFenError::InvalidBoard)?, *rank);
                board.set_piece_at(square, Some(piece));
                file += 1;
            }
            if file > 9 {
                return Err(ParseFenError::InvalidBoard);
            }
        }
        if file != 9 {
            return Err(ParseFenError::InvalidBoard);
        }
    }
    match rows.next() {
        Some(_) => Err(ParseFenError::InvalidBoard),
        None => Ok(board),
    }
}

impl FromStr for Fen {
    type Err = ParseFenError;

    fn from_str(text: &str) -> Result<Self, ParseFenError> {
        let mut fields = text.split_ascii_whitespace();
        let board = parse_board(fields.next().ok_or(ParseFenError::Empty)?)?;
        let turn = match fields.next() {
            None | Some("w" | "r" | "W" | "R") => Color::Red,
            Some("b" | "B") => Color::Black,
            Some(_) => return Err(ParseFenError::InvalidTurn),
        };
        if fields.next().is_some_and(|f| f != "-") {
            return Err(ParseFenError::InvalidCastling);
        }
        if fields.next().is_some_and(|f| f != "-") {
            return Err(ParseFenError::InvalidEnPassant);
        }
        let halfmoves = match fields.next() {
            None => 0,
            Some(f) => f.parse().map_err(|_| ParseFenError::InvalidHalfmoves)?,
        };
        let fullmoves = match fields.next() {
            None => NonZeroU32::MIN,
            // Some tools write move number 0; read it as the first move.
            Some(f) => f
                .parse::<u32>()
                .map(|n| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN))
                .map_err(|_| ParseFenError::InvalidFullmoves)?,
        };
        if fields.next().is_some() {
            return Err(ParseFenError::TrailingText);
        }
        Ok(Self(Setup {
            board,
            turn,
            halfmoves,
            fullmoves,
        }))
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let setup = &self.0;
        for (i, rank) in Rank::ALL.iter().rev().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            let mut empty = 0;
            for file in File::ALL {
                match setup.board.piece_at(Square::new(file, *rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", piece.char())?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        write!(
            f,
            " {} - - {} {}",
            setup.turn.fen_char(),
            setup.halfmoves,
            setup.fullmoves
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

    #[test]
    fn start_position_round_trips() -> Result<(), Box<dyn std::error::Error>> {
        let fen: Fen = START.parse()?;
        assert_eq!(fen.as_setup(), &Setup::startpos());
        assert_eq!(fen.to_string(), START);
        assert_eq!(fen.into_position()?, Position::startpos());
        Ok(())
    }

    #[test]
    fn relaxed_input_gives_canonical_output() -> Result<(), ParseFenError> {
        for text in [
            "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r - - 0 1",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 0",
            "  rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR   w - -  0 1 ",
        ] {
            assert_eq!(text.parse::<Fen>()?.to_string(), START, "{text}");
        }
        let black = "4k4/9/9/9/9/9/9/9/9/3K5 b - - 17 42".parse::<Fen>()?;
        assert_eq!(black.as_setup().turn, Color::Black);
        assert_eq!(black.as_setup().halfmoves, 17);
        assert_eq!(black.to_string(), "4k4/9/9/9/9/9/9/9/9/3K5 b - - 17 42");
        Ok(())
    }

    #[test]
    fn each_field_has_its_own_error() {
        let cases = [
            ("", ParseFenError::Empty),
            ("   ", ParseFenError::Empty),
            ("9/9/9/9/9/9/9/9/9", ParseFenError::InvalidBoard),
            ("9/9/9/9/9/9/9/9/9/9/9", ParseFenError::InvalidBoard),
            ("4k4/9/9/9/9/9/9/9/9/3K4", ParseFenError::InvalidBoard),
            ("4k5/9/9/9/9/9/9/9/9/3K5", ParseFenError::InvalidBoard),
            ("4x4/9/9/9/9/9/9/9/9/3K5", ParseFenError::InvalidBoard),
            ("4k4/9/9/9/9/9/9/9/9/3K05", ParseFenError::InvalidBoard),
            ("4k4/9/9/9/9/9/9/9/9/3K5 x", ParseFenError::InvalidTurn),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w KQ",
                ParseFenError::InvalidCastling,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w - e3",
                ParseFenError::InvalidEnPassant,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w - - x",
                ParseFenError::InvalidHalfmoves,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w - - -1",
                ParseFenError::InvalidHalfmoves,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 y",
                ParseFenError::InvalidFullmoves,
            ),
            (
                "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 z",
                ParseFenError::TrailingText,
            ),
        ];
        for (text, err) in cases {
            assert_eq!(text.parse::<Fen>(), Err(err), "{text:?}");
        }
    }
}
