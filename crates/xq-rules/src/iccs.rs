//! ICCS coordinates (`h2e2`): the origin and destination squares, context-free like UCI.

use std::fmt;
use std::str::FromStr;

use crate::{IllegalMove, Move, Position, Square};

/// A move written as two ICCS squares, such as `h2e2`. Parsing needs no position; whether the
/// move is legal is checked by [`Iccs::to_move`].
///
/// # Examples
///
/// ```
/// use xq_rules::{Position, Square, iccs::Iccs};
///
/// let iccs: Iccs = "H2-E2".parse()?;
/// assert_eq!(iccs.to_string(), "h2e2");
/// let mv = iccs.to_move(&Position::startpos())?;
/// assert_eq!(mv.from, Square::H2);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Iccs {
    /// Origin.
    pub from: Square,
    /// Destination.
    pub to: Square,
}

/// A text that is not an ICCS move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid iccs move (expected four characters like h2e2)")]
pub struct ParseIccsError;

impl Iccs {
    /// The move, if it is legal in `pos`.
    ///
    /// # Errors
    ///
    /// The reason the move is illegal.
    pub fn to_move(self, pos: &Position) -> Result<Move, IllegalMove> {
        let mv = Move::new(self.from, self.to);
        pos.check_move(mv).map(|()| mv)
    }
}

impl From<Move> for Iccs {
    fn from(mv: Move) -> Self {
        Self {
            from: mv.from,
            to: mv.to,
        }
    }
}

impl FromStr for Iccs {
    type Err = ParseIccsError;

    /// Parses `h2e2`; upper case and a dash between the squares (`H2-E2`) are accepted too.
    fn from_str(s: &str) -> Result<Self, ParseIccsError> {
        let (from, to) = match s.len() {
            4 => (s.get(..2), s.get(2..)),
            5 if s.as_bytes()[2] == b'-' => (s.get(..2), s.get(3..)),
            _ => return Err(ParseIccsError),
        };
        match (from.map(str::parse), to.map(str::parse)) {
            (Some(Ok(from)), Some(Ok(to))) => Ok(Self { from, to }),
            _ => Err(ParseIccsError),
        }
    }
}

impl fmt::Display for Iccs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        let iccs: Iccs = "h2e2".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((iccs.from, iccs.to), (Square::H2, Square::E2));
        assert_eq!(iccs.to_string(), "h2e2");
        assert_eq!(
            "B0-C2".parse::<Iccs>().map(|m| m.to_string()),
            Ok("b0c2".into())
        );
    }

    #[test]
    fn refuses_malformed_text() {
        for bad in ["", "h2e", "h2e22", "h2xe2", "j2e2", "h2e×", "h2—e2", "ééé"] {
            assert_eq!(bad.parse::<Iccs>(), Err(ParseIccsError), "{bad:?}");
        }
    }

    #[test]
    fn to_move_checks_legality() {
        let pos = Position::startpos();
        let ok = Iccs {
            from: Square::H2,
            to: Square::E2,
        };
        assert_eq!(ok.to_move(&pos), Ok(Move::new(Square::H2, Square::E2)));
        let blocked = Iccs {
            from: Square::B0,
            to: Square::D1,
        };
        assert!(blocked.to_move(&pos).is_err());
        let theirs = Iccs {
            from: Square::H7,
            to: Square::E7,
        };
        assert_eq!(
            theirs.to_move(&pos),
            Err(IllegalMove::NotYourPiece(Square::H7))
        );
    }
}
