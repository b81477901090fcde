//! The notations the move list can be written in.

use xq_rules::chinese::Chinese;
use xq_rules::iccs::Iccs;
use xq_rules::wxf::Wxf;
use xq_rules::{Move, Position};

/// How the move list writes moves. All three come from `xq-rules`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Chinese notation (`炮二平五`), as Chinese players and books write it.
    #[default]
    Chinese,
    /// WXF notation (`C2=5`), the English-speaking players' version of the same idea.
    Wxf,
    /// ICCS coordinates (`h2e2`), as engines and PGN files write them.
    Iccs,
}

impl Notation {
    /// Every notation, in the order the UI offers them.
    pub const ALL: [Self; 3] = [Self::Chinese, Self::Wxf, Self::Iccs];

    /// The notation's name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Chinese => "Chinese",
            Self::Wxf => "WXF",
            Self::Iccs => "ICCS",
        }
    }

    /// Writes `mv`, a legal move in `pos`.
    #[must_use]
    pub fn write(self, pos: &Position, mv: Move) -> String {
        match self {
            Self::Chinese => Chinese::from_move(pos, mv).to_string(),
            Self::Wxf => Wxf::from_move(pos, mv).to_string(),
            Self::Iccs => Iccs::from(mv).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::Square;

    use super::*;

    #[test]
    fn the_central_cannon_in_each_notation() {
        let pos = Position::startpos();
        let mv = Move::new(Square::H2, Square::E2);
        let written: Vec<_> = Notation::ALL.iter().map(|n| n.write(&pos, mv)).collect();
        assert_eq!(written, ["炮二平五", "C2=5", "h2e2"]);
    }
}
