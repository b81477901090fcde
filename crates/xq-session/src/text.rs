//! A move written out for people and records.

use xq_rules::{Move, Position};

/// A move in the notations clients show. More notations join as fields, so the struct is
/// non-exhaustive.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct MoveText {
    /// ICCS coordinates (`h2e2`).
    pub iccs: String,
}

impl MoveText {
    /// Writes `mv`, a legal move in `pos`. The position is part of the signature because
    /// descriptive notations (WXF, Chinese) depend on it; ICCS does not.
    #[must_use]
    pub fn new(pos: &Position, mv: Move) -> Self {
        let _ = pos;
        Self {
            iccs: mv.to_string(),
        }
    }
}
