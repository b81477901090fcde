//! A move written out for people and records.

use xq_rules::chinese::Chinese;
use xq_rules::wxf::Wxf;
use xq_rules::{Move, Position};

/// A move in the notations clients show. More notations join as fields, so the struct is
/// non-exhaustive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MoveText {
    /// ICCS coordinates (`h2e2`).
    pub iccs: String,
    /// WXF notation (`C2=5`), as Fairy-Stockfish writes it.
    pub wxf: String,
    /// Chinese notation (`炮二平五`).
    pub chinese: String,
}

impl MoveText {
    /// Writes `mv`, a legal move in `pos` (the descriptive notations depend on the position).
    #[must_use]
    pub fn new(pos: &Position, mv: Move) -> Self {
        Self {
            iccs: mv.to_string(),
            wxf: Wxf::from_move(pos, mv).to_string(),
            chinese: Chinese::from_move(pos, mv).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xq_rules::Square;

    #[test]
    fn every_notation_is_written() {
        let text = MoveText::new(&Position::startpos(), Move::new(Square::H2, Square::E2));
        assert_eq!((text.iccs.as_str(), text.wxf.as_str()), ("h2e2", "C2=5"));
        assert_eq!(text.chinese, "炮二平五");
    }
}
