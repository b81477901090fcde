//! Requests from the opponent that wait for the player's answer.

use xq_rules::Color;
use xq_session::{Action as SessionAction, Command, UndoRequest};

use crate::text::side_name;

/// A question the player must answer: the opponent asked to take back moves or offered a
/// draw. The view shows it with Accept and Decline buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialog {
    /// The opponent asks to take moves back.
    Undo(UndoRequest),
    /// The opponent offers a draw.
    Draw {
        /// The side offering.
        by: Color,
    },
}

impl Dialog {
    /// The dialog the player at this screen must answer, if any: a pending request from a
    /// side it does not play, to a side it plays. An undo request comes first, since accepting
    /// it lapses a draw offer anyway.
    #[must_use]
    pub(crate) fn incoming(
        plays: impl Fn(Color) -> bool,
        undo: Option<UndoRequest>,
        draw: Option<Color>,
    ) -> Option<Self> {
        let undo = undo.filter(|request| plays(!request.by)).map(Self::Undo);
        undo.or_else(|| draw.filter(|&by| plays(!by)).map(|by| Self::Draw { by }))
    }

    /// The side that asked.
    #[must_use]
    pub const fn from(self) -> Color {
        match self {
            Self::Undo(request) => request.by,
            Self::Draw { by } => by,
        }
    }

    /// The dialog's title.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Self::Undo(_) => "Take back?",
            Self::Draw { .. } => "Draw offered",
        }
    }

    /// The question, in words.
    #[must_use]
    pub fn question(self) -> String {
        let from = side_name(self.from());
        match self {
            Self::Undo(UndoRequest { plies: 1, .. }) => {
                format!("{from} asks to take back its last move.")
            }
            Self::Undo(_) => format!(
                "{from} asks to take back its last move and {}'s reply.",
                side_name(!self.from())
            ),
            Self::Draw { .. } => format!("{from} offers a draw."),
        }
    }

    /// The command that answers it: sent by the side asked.
    #[must_use]
    pub fn answer(self, accept: bool) -> Command {
        let by = !self.from();
        match self {
            Self::Undo(_) => SessionAction::AnswerUndo { accept }.by(by),
            Self::Draw { .. } => SessionAction::AnswerDraw { accept }.by(by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED_UNDO: UndoRequest = UndoRequest {
        by: Color::Red,
        plies: 1,
    };

    #[test]
    fn requests_to_a_side_the_player_plays_open_a_dialog() {
        let black = |color| color == Color::Black;
        let dialog = Dialog::incoming(black, Some(RED_UNDO), None);
        assert_eq!(dialog, Some(Dialog::Undo(RED_UNDO)));
        let dialog = Dialog::incoming(black, None, Some(Color::Red));
        assert_eq!(dialog, Some(Dialog::Draw { by: Color::Red }));
    }

    #[test]
    fn the_players_own_requests_open_none() {
        let red = |color| color == Color::Red;
        assert_eq!(
            Dialog::incoming(red, Some(RED_UNDO), Some(Color::Red)),
            None
        );
    }

    #[test]
    fn undo_comes_before_a_draw_offer() {
        let both = |_| true;
        let dialog = Dialog::incoming(both, Some(RED_UNDO), Some(Color::Black));
        assert_eq!(dialog, Some(Dialog::Undo(RED_UNDO)));
    }

    #[test]
    fn answers_come_from_the_side_asked() {
        assert_eq!(
            Dialog::Undo(RED_UNDO).answer(true),
            SessionAction::AnswerUndo { accept: true }.by(Color::Black)
        );
        let draw = Dialog::Draw { by: Color::Black };
        assert_eq!(
            draw.answer(false),
            SessionAction::AnswerDraw { accept: false }.by(Color::Red)
        );
        assert_eq!(draw.question(), "Black offers a draw.");
    }
}
