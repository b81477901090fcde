//! Scores as the search sees them and as it reports them.

use std::fmt;

/// The largest score: mate on the board, before the ply count is taken off.
pub(crate) const MATE: i32 = 30_000;
/// Scores at least this far from zero are mates (or wins by rule) within the search's reach.
pub(crate) const MATE_BOUND: i32 = MATE - 1_000;
/// Above every score the search can return.
pub(crate) const INFINITY: i32 = MATE + 1;

/// How good a position is for the side to move.
///
/// Displays as UCI writes it: `cp 35`, `mate 3`, `mate -2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// An evaluation in centipawns (a soldier before the river is about 30, a chariot 600;
    /// see [`crate::evaluate`]).
    Centipawns(i32),
    /// A forced win in `n` moves of the side to move (`n > 0`), or a forced loss in `-n`
    /// (`n < 0`; `0` when it has already lost). A win by the repetition rule (the opponent
    /// must break a perpetual check or chase) counts as a mate where it happens.
    Mate(i32),
}

impl Score {
    /// The score of an internal value at the root, where mates count plies from the root.
    pub(crate) const fn from_internal(value: i32) -> Self {
        if value >= MATE_BOUND {
            Self::Mate((MATE - value + 1) / 2)
        } else if value <= -MATE_BOUND {
            Self::Mate(-(MATE + value) / 2)
        } else {
            Self::Centipawns(value)
        }
    }

    /// Whether the score is a forced win or loss.
    #[must_use]
    pub const fn is_mate(self) -> bool {
        matches!(self, Self::Mate(_))
    }
}

impl Score {
    /// The score as an internal value: the order of scores.
    const fn to_internal(self) -> i32 {
        match self {
            Self::Centipawns(cp) => cp,
            Self::Mate(n) if n > 0 => MATE - 2 * n + 1,
            Self::Mate(n) => -MATE - 2 * n,
        }
    }
}

/// Better for the side to move is greater: a nearer mate above a farther one, above every
/// evaluation, above every loss, a farther loss above a nearer one.
impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_internal().cmp(&other.to_internal())
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Centipawns(cp) => write!(f, "cp {cp}"),
            Self::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// `value` as stored in the transposition table: mate scores count plies from the node, not
/// the root, so that they stay true when the node is reached along another path.
pub(crate) const fn to_table(value: i32, ply: usize) -> i32 {
    if value >= MATE_BOUND {
        value + ply as i32
    } else if value <= -MATE_BOUND {
        value - ply as i32
    } else {
        value
    }
}

/// A stored value back in the root's terms: [`to_table`] undone.
pub(crate) const fn from_table(value: i32, ply: usize) -> i32 {
    if value >= MATE_BOUND {
        value - ply as i32
    } else if value <= -MATE_BOUND {
        value + ply as i32
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mates_count_moves_not_plies() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
        assert_eq!(Score::from_internal(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(-(MATE - 4)), Score::Mate(-2));
        assert_eq!(Score::from_internal(35), Score::Centipawns(35));
        assert_eq!(Score::Mate(-3).to_string(), "mate -3");
        assert_eq!(Score::Centipawns(35).to_string(), "cp 35");
    }

    #[test]
    fn scores_order_from_worst_to_best() {
        let order = [
            Score::Mate(0),
            Score::Mate(-1),
            Score::Mate(-4),
            Score::Centipawns(-500),
            Score::Centipawns(20),
            Score::Mate(3),
            Score::Mate(1),
        ];
        for pair in order.windows(2) {
            assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
        }
        for value in [MATE - 1, MATE - 5, -MATE, -(MATE - 4), 77] {
            assert_eq!(Score::from_internal(value).to_internal(), value);
        }
    }

    #[test]
    fn table_values_round_trip() {
        for value in [MATE - 5, -(MATE - 8), 120, -7] {
            assert_eq!(from_table(to_table(value, 4), 4), value);
        }
        assert_eq!(from_table(to_table(MATE - 5, 3), 1), MATE - 3);
    }
}
