//! Strength levels for people.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::Limits;

/// A playing strength from 1 (a beginner's) to 10 (the engine's full strength). Lower levels
/// search fewer nodes and choose among the moves near the best at random (seeded, so a game
/// can be replayed); the top level searches for its time with no node cap and no randomness.
///
/// # Examples
///
/// ```
/// use xq_engine::Level;
///
/// let level: Level = "3".parse()?;
/// assert!(level < Level::MAX);
/// assert!(Level::new(11).is_err());
/// # Ok::<_, xq_engine::LevelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

/// Not a level from 1 to 10.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// A number outside 1..=10.
    #[error("level {0} is out of range (1 to 10)")]
    OutOfRange(u8),
    /// A text that is no number from 1 to 10.
    #[error("invalid level {0:?} (1 to 10)")]
    Invalid(String),
}

/// Nodes searched at each level below the top.
const NODES: [u64; 9] = [
    300, 1_000, 3_000, 8_000, 20_000, 50_000, 120_000, 300_000, 800_000,
];

/// At each level, how far below the best score (centipawns) a move may be and still be
/// chosen, at most.
const SPREAD: [u32; 10] = [220, 160, 120, 90, 65, 45, 30, 18, 8, 0];

impl Level {
    /// The weakest level.
    pub const MIN: Self = Self(1);
    /// Full strength.
    pub const MAX: Self = Self(10);
    /// The time every level may think at most (the top level takes all of it).
    pub const TIME: Duration = Duration::from_secs(1);

    /// The level `n`.
    ///
    /// # Errors
    ///
    /// [`LevelError::OutOfRange`] unless `1 <= n <= 10`.
    pub const fn new(n: u8) -> Result<Self, LevelError> {
        if n >= Self::MIN.0 && n <= Self::MAX.0 {
            Ok(Self(n))
        } else {
            Err(LevelError::OutOfRange(n))
        }
    }

    /// The level's number.
    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// What the level searches: a node budget below the top, and [`Level::TIME`] at most.
    #[must_use]
    pub const fn limits(&self) -> Limits {
        let index = self.0 as usize - 1;
        Limits {
            depth: None,
            nodes: if index < NODES.len() {
                Some(NODES[index])
            } else {
                None
            },
            deadline: Some(Self::TIME),
            soft_deadline: None,
        }
    }

    /// How many centipawns below the best a move may score and still be picked at random.
    pub(crate) const fn spread(self) -> u32 {
        SPREAD[self.0 as usize - 1]
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for Level {
    type Err = LevelError;

    fn from_str(text: &str) -> Result<Self, LevelError> {
        let n = text
            .trim()
            .parse::<u8>()
            .map_err(|_| LevelError::Invalid(text.to_owned()))?;
        Self::new(n)
    }
}

impl TryFrom<u8> for Level {
    type Error = LevelError;

    fn try_from(n: u8) -> Result<Self, LevelError> {
        Self::new(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_grow_in_budget_and_shrink_in_spread() {
        let levels: Vec<Level> = (1..=10).filter_map(|n| Level::new(n).ok()).collect();
        assert_eq!(levels.len(), 10);
        for pair in levels.windows(2) {
            let (a, b) = (pair[0].limits().nodes, pair[1].limits().nodes);
            assert!(b.is_none() || a < b);
            assert!(pair[0].spread() > pair[1].spread());
        }
        assert_eq!(Level::MAX.limits().nodes, None);
        assert_eq!(Level::new(0), Err(LevelError::OutOfRange(0)));
        assert!("x".parse::<Level>().is_err());
        assert_eq!("10".parse::<Level>(), Ok(Level::MAX));
    }
}
