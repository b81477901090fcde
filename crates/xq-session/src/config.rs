//! What a match is played under, fixed when it is created.

use std::num::NonZeroU32;
use std::sync::{Arc, LazyLock};

use xq_rules::Position;

use crate::{RepetitionRule, TimeControl, UndoPolicy};

/// The rules a match is played under. A rematch keeps them.
///
/// Build one from [`MatchConfig::default`] (the standard position, no clocks, unlimited undo, a
/// 120-ply move limit, the Asian repetition rules) and change the fields that differ.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MatchConfig {
    /// The position the game starts from: the standard one, or a set-up position (serialized
    /// as FEN).
    ///
    /// Shared rather than owned: a relay holds thousands of matches, nearly all from the
    /// standard position, and each match's history keeps its own copy of the start anyway.
    /// Every [`MatchConfig::default`] shares one standard position.
    #[cfg_attr(feature = "serde", serde(with = "fen"))]
    pub start: Arc<Position>,
    /// The clocks.
    pub time_control: TimeControl,
    /// Whether undo requests are allowed and how many.
    pub undo: UndoPolicy,
    /// The natural move limit: the game is drawn once this many plies pass without a capture
    /// (`None`: no limit). Xiangqi rules use 60 moves, 120 plies.
    pub move_limit: Option<NonZeroU32>,
    /// How a threefold repetition is judged: by the Asian rules on perpetual check and chase,
    /// or on perpetual check alone.
    pub repetition: RepetitionRule,
}

impl MatchConfig {
    /// The default natural move limit: 60 moves by each side without a capture.
    // Evaluated at compile time: a zero here would fail the build, not a match.
    pub const DEFAULT_MOVE_LIMIT: NonZeroU32 = NonZeroU32::new(120).expect("120 is not zero");
}

/// The standard start position that every default configuration shares.
static STANDARD_START: LazyLock<Arc<Position>> = LazyLock::new(|| Arc::new(Position::startpos()));

impl Default for MatchConfig {
    fn default() -> Self {
        Self {
            start: Arc::clone(&STANDARD_START),
            time_control: TimeControl::Untimed,
            undo: UndoPolicy::Unlimited,
            move_limit: Some(Self::DEFAULT_MOVE_LIMIT),
            repetition: RepetitionRule::Asian,
        }
    }
}

/// Positions travel as FEN text and are validated again on the way in.
#[cfg(feature = "serde")]
mod fen {
    use std::sync::Arc;

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use xq_rules::{Position, fen::Fen};

    pub(super) fn serialize<S: Serializer>(pos: &Position, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Fen::from_position(pos))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Position>, D::Error> {
        let text = String::deserialize(d)?;
        let fen: Fen = text.parse().map_err(D::Error::custom)?;
        fen.into_position().map(Arc::new).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_configurations_share_one_standard_start() {
        let (a, b) = (MatchConfig::default(), MatchConfig::default());
        assert!(Arc::ptr_eq(&a.start, &b.start));
        assert_eq!(*a.start, Position::startpos());
    }
}
