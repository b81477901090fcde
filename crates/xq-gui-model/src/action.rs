//! The game buttons: what each sends, for which side, and whether it is available.

use xq_rules::{ByColor, Color};
use xq_session::{Action as SessionAction, Command};

/// A game button next to the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Ask the opponent to take back the player's last move.
    RequestUndo,
    /// Offer a draw.
    OfferDraw,
    /// Give the game up.
    Resign,
}

/// Which game buttons are enabled: the game would accept what they send right now, as
/// [`GameBackend::check`](crate::GameBackend::check) and
/// [`GameBackend::check_rematch`](crate::GameBackend::check_rematch) tell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Buttons {
    /// "Request undo".
    pub request_undo: bool,
    /// "Offer draw".
    pub offer_draw: bool,
    /// "Resign".
    pub resign: bool,
    /// "Rematch".
    pub rematch: bool,
}

impl Action {
    /// Every action, in button order.
    pub const ALL: [Self; 3] = [Self::RequestUndo, Self::OfferDraw, Self::Resign];

    /// The button's label.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::RequestUndo => "Request undo",
            Self::OfferDraw => "Offer draw",
            Self::Resign => "Resign",
        }
    }

    /// The side the action is taken for, when the player at this screen plays `seats` and
    /// `turn` is to move; `None` for a spectator.
    ///
    /// Playing one side, that side acts. Playing both (two players at one screen), the side
    /// that just moved asks for its move back, so that "Request undo" right after a blunder
    /// takes back that one move; offers and resignations come from the side to move, whose turn
    /// it is to think.
    #[must_use]
    pub fn actor(self, seats: ByColor<bool>, turn: Color) -> Option<Color> {
        match (seats.red, seats.black) {
            (true, true) => Some(match self {
                Self::RequestUndo => !turn,
                Self::OfferDraw | Self::Resign => turn,
            }),
            (true, false) => Some(Color::Red),
            (false, true) => Some(Color::Black),
            (false, false) => None,
        }
    }

    /// The command the action sends for `by`.
    #[must_use]
    pub const fn command(self, by: Color) -> Command {
        match self {
            Self::RequestUndo => SessionAction::RequestUndo.by(by),
            Self::OfferDraw => SessionAction::OfferDraw.by(by),
            Self::Resign => SessionAction::Resign.by(by),
        }
    }
}

impl Buttons {
    /// Whether `action`'s button is enabled.
    #[must_use]
    pub const fn enabled(self, action: Action) -> bool {
        match action {
            Action::RequestUndo => self.request_undo,
            Action::OfferDraw => self.offer_draw,
            Action::Resign => self.resign,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: ByColor<bool> = ByColor {
        red: true,
        black: true,
    };

    #[test]
    fn at_one_screen_undo_is_asked_by_the_side_that_just_moved() {
        let turn = Color::Black;
        assert_eq!(Action::RequestUndo.actor(BOTH, turn), Some(Color::Red));
        assert_eq!(Action::OfferDraw.actor(BOTH, turn), Some(Color::Black));
        assert_eq!(Action::Resign.actor(BOTH, turn), Some(Color::Black));
    }

    #[test]
    fn a_player_of_one_side_always_acts_for_it() {
        let black = ByColor {
            red: false,
            black: true,
        };
        for action in Action::ALL {
            for turn in [Color::Red, Color::Black] {
                assert_eq!(action.actor(black, turn), Some(Color::Black));
            }
        }
        assert_eq!(Action::Resign.actor(ByColor::default(), Color::Red), None);
    }
}
