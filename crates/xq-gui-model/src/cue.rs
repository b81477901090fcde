//! What the board sounds when a move is played: the view-model decides, the app plays it.

use xq_session::Event;

/// The sound of one move, drained from [`crate::ViewModel::poll_cue`]. The view-model makes
/// one for every move played at this screen or received from the opponent, and none for what
/// only changes the board shown: an undo, stepping through a replay, or a game's position when
/// the view starts showing it. The app turns each into a short tone, unless muted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cue {
    /// A move that took nothing and gives no check.
    Move,
    /// A move that took a piece.
    Capture,
    /// A move that gives check, whether or not it took a piece: the most urgent news, so the
    /// one heard.
    Check,
}

impl Cue {
    /// The cue of a match event: `Some` for a move played, `None` for every other event.
    #[must_use]
    pub(crate) const fn of(event: &Event) -> Option<Self> {
        match event {
            Event::MovePlayed {
                gives_check: true, ..
            } => Some(Self::Check),
            Event::MovePlayed {
                captured: Some(_), ..
            } => Some(Self::Capture),
            Event::MovePlayed { .. } => Some(Self::Move),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::{Color, Move, Piece, Position, Role, Square};
    use xq_session::MoveText;

    use super::*;

    fn played(captured: Option<Piece>, gives_check: bool) -> Event {
        let mv = Move::new(Square::H2, Square::E2);
        Event::MovePlayed {
            by: Color::Red,
            mv,
            text: MoveText::new(&Position::startpos(), mv),
            captured,
            gives_check,
            ply: 1,
            clocks: None,
        }
    }

    #[test]
    fn check_beats_capture_beats_move() {
        let soldier = Some(Piece::new(Color::Black, Role::Soldier));
        assert_eq!(Cue::of(&played(None, false)), Some(Cue::Move));
        assert_eq!(Cue::of(&played(soldier, false)), Some(Cue::Capture));
        assert_eq!(Cue::of(&played(None, true)), Some(Cue::Check));
        assert_eq!(Cue::of(&played(soldier, true)), Some(Cue::Check));
    }

    #[test]
    fn only_moves_sound() {
        assert_eq!(Cue::of(&Event::DrawOffered { by: Color::Red }), None);
        let undo = Event::UndoApplied {
            by: Color::Red,
            plies: 1,
            clocks: None,
        };
        assert_eq!(Cue::of(&undo), None);
    }
}
