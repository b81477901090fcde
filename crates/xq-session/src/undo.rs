//! Taking moves back by consent: who may ask, how often, and how far back it goes.
//!
//! A seat requests an undo; the opponent accepts or declines. If the requester made the last
//! move, one ply is taken back; if the opponent has moved since, two, so that the requester is
//! on move again. Only one request is pending at a time, and it lapses when anyone moves, when
//! the game ends, or when the requester withdraws it.

use xq_rules::Color;

use crate::CommandError;

/// Whether undo requests are allowed, and how many each seat may have granted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum UndoPolicy {
    /// No undo: requests are refused with [`CommandError::UndoNotAllowed`] (rated games).
    Forbidden,
    /// Each seat may have any number of requests granted.
    #[default]
    Unlimited,
    /// Each seat may have this many requests granted; declined requests do not count.
    PerSeat(u32),
}

/// A pending undo request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct UndoRequest {
    /// The seat that asked.
    pub by: Color,
    /// How many plies accepting it takes back: 1 if the requester moved last, otherwise 2.
    pub plies: usize,
}

impl UndoPolicy {
    /// Whether a seat that has had `granted` undos may ask for another.
    pub(crate) const fn check(self, granted: u32) -> Result<(), CommandError> {
        match self {
            Self::Forbidden => Err(CommandError::UndoNotAllowed),
            Self::PerSeat(allowance) if granted >= allowance => {
                Err(CommandError::UndoAllowanceUsed)
            }
            Self::PerSeat(_) | Self::Unlimited => Ok(()),
        }
    }
}

impl UndoRequest {
    /// The request `by` would make with `turn` to move after `played` plies, or `None` when
    /// the requester has no move of its own to take back.
    pub(crate) fn new(by: Color, turn: Color, played: usize) -> Option<Self> {
        let plies = if turn == by { 2 } else { 1 };
        (played >= plies).then_some(Self { by, plies })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_back_until_the_requester_is_on_move() {
        // Red moved last: one ply.
        assert_eq!(
            UndoRequest::new(Color::Red, Color::Black, 1).map(|r| r.plies),
            Some(1)
        );
        // Black has replied since: two plies.
        assert_eq!(
            UndoRequest::new(Color::Red, Color::Red, 2).map(|r| r.plies),
            Some(2)
        );
        // Nothing of the requester's own to take back.
        assert_eq!(UndoRequest::new(Color::Red, Color::Red, 0), None);
        assert_eq!(UndoRequest::new(Color::Black, Color::Black, 1), None);
    }

    #[test]
    fn allowance_counts_granted_requests() {
        assert_eq!(UndoPolicy::Unlimited.check(1_000), Ok(()));
        assert_eq!(
            UndoPolicy::Forbidden.check(0),
            Err(CommandError::UndoNotAllowed)
        );
        assert_eq!(UndoPolicy::PerSeat(2).check(1), Ok(()));
        assert_eq!(
            UndoPolicy::PerSeat(2).check(2),
            Err(CommandError::UndoAllowanceUsed)
        );
    }
}
