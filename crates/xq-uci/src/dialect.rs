//! The two ways Xiangqi engines write a move's coordinates.

use std::fmt;

use xq_rules::{File, Move, Rank, Square};

use crate::ParseError;

/// How an engine numbers the ranks in its move text. Files are `a`..`i` from Red's left in
/// both; the ranks count from Red's back rank.
///
/// # Examples
///
/// ```
/// use xq_rules::{Move, Square};
/// use xq_uci::Dialect;
///
/// let mv = Move::new(Square::A9, Square::A8);
/// assert_eq!(Dialect::Iccs.format_move(mv), "a9a8");
/// assert_eq!(Dialect::OneBased.format_move(mv), "a10a9");
/// assert_eq!(Dialect::OneBased.parse_move("a10a9")?, mv);
/// # Ok::<_, xq_uci::ParseMoveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// ICCS: ranks `0`..`9` (Pikafish, and this workspace's own notation).
    #[default]
    Iccs,
    /// Ranks `1`..`10`, as chess counts them (Fairy-Stockfish with `UCI_Variant xiangqi`).
    OneBased,
}

/// A text that is not a move in the dialect it was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid move text for the {0} dialect")]
pub struct ParseMoveError(pub Dialect);

impl Dialect {
    /// How the engine writes "no move" (`bestmove (none)`); `0000` is read as well.
    pub const NO_MOVE: &'static str = "(none)";

    /// Reads a move such as `h2e2` (ICCS) or `h3e3` (one-based). Upper-case files are accepted.
    ///
    /// # Errors
    ///
    /// [`ParseMoveError`] if the text is not two squares of this dialect.
    pub fn parse_move(self, text: &str) -> Result<Move, ParseMoveError> {
        let err = ParseMoveError(self);
        let (from, rest) = self.parse_square(text.as_bytes()).ok_or(err)?;
        match self.parse_square(rest) {
            Some((to, [])) => Ok(Move::new(from, to)),
            _ => Err(err),
        }
    }

    /// Reads a move or one of the texts for no move, `(none)` and `0000`.
    ///
    /// # Errors
    ///
    /// [`ParseMoveError`] if the text is neither.
    pub fn parse_move_or_none(self, text: &str) -> Result<Option<Move>, ParseMoveError> {
        match text {
            Self::NO_MOVE | "0000" => Ok(None),
            _ => self.parse_move(text).map(Some),
        }
    }

    /// Writes a move in this dialect.
    #[must_use]
    pub fn format_move(self, mv: Move) -> String {
        let mut out = String::with_capacity(6);
        self.write_move(&mut out, mv);
        out
    }

    /// [`Dialect::parse_move`] for a token of a line, whose error names the text.
    pub(crate) fn read_move(self, text: &str) -> Result<Move, ParseError> {
        self.parse_move(text)
            .map_err(|_| ParseError::BadMove(text.to_owned()))
    }

    pub(crate) fn write_move(self, out: &mut String, mv: Move) {
        for square in [mv.from, mv.to] {
            out.push(square.file().char());
            let rank = square.rank().index();
            match self {
                Self::Iccs => out.push(char::from(b'0' + rank)),
                Self::OneBased if rank == 9 => out.push_str("10"),
                Self::OneBased => out.push(char::from(b'1' + rank)),
            }
        }
    }

    /// One square from the front of `text`, and what follows it.
    fn parse_square(self, text: &[u8]) -> Option<(Square, &[u8])> {
        let (&file, rest) = text.split_first()?;
        let file = File::from_char(char::from(file))?;
        let (rank, rest) = match (self, rest) {
            (Self::Iccs, [d @ b'0'..=b'9', rest @ ..]) => (d - b'0', rest),
            (Self::OneBased, [b'1', b'0', rest @ ..]) => (9, rest),
            (Self::OneBased, [d @ b'1'..=b'9', rest @ ..]) => (d - b'1', rest),
            _ => return None,
        };
        Some((Square::new(file, Rank::new(rank)?), rest))
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Iccs => "iccs",
            Self::OneBased => "one-based",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_round_trip_every_square() {
        for from in Square::all() {
            for to in [Square::A0, Square::I9, Square::E4] {
                let mv = Move::new(from, to);
                for dialect in [Dialect::Iccs, Dialect::OneBased] {
                    let text = dialect.format_move(mv);
                    assert_eq!(dialect.parse_move(&text), Ok(mv), "{text}");
                }
            }
        }
    }

    #[test]
    fn ranks_differ_by_one() {
        let mv = Move::new(Square::H2, Square::E2);
        assert_eq!(Dialect::Iccs.format_move(mv), "h2e2");
        assert_eq!(Dialect::OneBased.format_move(mv), "h3e3");
        assert_eq!(Dialect::OneBased.parse_move("H3E3"), Ok(mv));
    }

    #[test]
    fn refuses_the_other_dialects_texts_where_they_cannot_be_read() {
        assert!(Dialect::Iccs.parse_move("a10a9").is_err());
        assert!(Dialect::OneBased.parse_move("a0a1").is_err());
        for bad in [
            "", "a", "a0", "a0a", "j0a1", "a0a1x", "a11a1", "é0a1", "(none)",
        ] {
            assert!(Dialect::Iccs.parse_move(bad).is_err(), "{bad}");
            assert!(Dialect::OneBased.parse_move(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn no_move() {
        assert_eq!(Dialect::Iccs.parse_move_or_none("(none)"), Ok(None));
        assert_eq!(Dialect::OneBased.parse_move_or_none("0000"), Ok(None));
        assert!(Dialect::Iccs.parse_move_or_none("none").is_err());
    }
}
