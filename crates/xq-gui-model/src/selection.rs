//! The piece the player has picked up, and what a click on the board means.

use xq_rules::{Color, Move, MoveList, Position, Square};

/// The piece a player has picked up and the points it may go to.
///
/// The targets come from [`Position::legal_moves_from`], so the highlights and the moves a click
/// can make are exactly the legal ones; no rule is coded here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    picked: Option<Picked>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Picked {
    square: Square,
    moves: MoveList,
}

/// What a click on the board does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Click {
    /// A piece of the mover was picked up (or another one instead of the first).
    Selected(Square),
    /// The piece was put back: the player clicked it again, or a point it cannot reach.
    Deselected,
    /// The picked-up piece goes to the clicked point: the move to send.
    Move(Move),
    /// Nothing happens: no piece was picked up and the click is not on one of the mover's.
    Ignored,
}

impl Selection {
    /// The square of the picked-up piece.
    #[must_use]
    pub fn square(&self) -> Option<Square> {
        self.picked.as_ref().map(|picked| picked.square)
    }

    /// The points the picked-up piece may legally move to (none when nothing is picked up).
    pub fn targets(&self) -> impl Iterator<Item = Square> + '_ {
        self.picked
            .iter()
            .flat_map(|picked| picked.moves.iter().map(|mv| mv.to))
    }

    /// Puts the piece back.
    pub fn clear(&mut self) {
        self.picked = None;
    }

    /// Handles a click on `square` (`None`: off the board) in `pos`, where the player may move
    /// for `mover` (`None`: not now, e.g. while the opponent is on move or the game is over).
    ///
    /// Clicking a legal target yields the move and puts the piece down; clicking one of the
    /// mover's pieces picks it up (clicking it again puts it back); any other click puts a
    /// picked-up piece back and is otherwise ignored, so an illegal click never does harm.
    pub fn click(&mut self, pos: &Position, mover: Option<Color>, square: Option<Square>) -> Click {
        let Some(mover) = mover.filter(|&color| color == pos.turn()) else {
            return self.put_back();
        };
        let Some(square) = square else {
            return self.put_back();
        };
        if let Some(picked) = &self.picked {
            if picked.square == square {
                return self.put_back();
            }
            if let Some(&mv) = picked.moves.iter().find(|mv| mv.to == square) {
                self.picked = None;
                return Click::Move(mv);
            }
        }
        if pos
            .board()
            .piece_at(square)
            .is_some_and(|piece| piece.color == mover)
        {
            self.picked = Some(Picked {
                square,
                moves: pos.legal_moves_from(square),
            });
            return Click::Selected(square);
        }
        self.put_back()
    }

    fn put_back(&mut self) -> Click {
        if self.picked.take().is_some() {
            Click::Deselected
        } else {
            Click::Ignored
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(selection: &Selection) -> Vec<Square> {
        let mut targets: Vec<_> = selection.targets().collect();
        targets.sort();
        targets
    }

    #[test]
    fn picking_up_a_piece_shows_its_legal_targets() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::B0)),
            Click::Selected(Square::B0)
        );
        assert_eq!(sel.square(), Some(Square::B0));
        assert_eq!(targets(&sel), [Square::A2, Square::C2]);
    }

    #[test]
    fn a_blocked_piece_can_be_picked_up_but_has_no_targets() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        // At the start the advisor and the general can each go only to e1.
        sel.click(&pos, Some(Color::Red), Some(Square::D0));
        assert_eq!(targets(&sel), [Square::E1]);
        sel.click(&pos, Some(Color::Red), Some(Square::E0));
        assert_eq!(targets(&sel), [Square::E1]);
    }

    #[test]
    fn clicking_the_piece_again_puts_it_back() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::H2)),
            Click::Deselected
        );
        assert_eq!(sel.square(), None);
        assert_eq!(targets(&sel), []);
    }

    #[test]
    fn clicking_another_own_piece_picks_that_one_up() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::B2)),
            Click::Selected(Square::B2)
        );
        assert!(targets(&sel).contains(&Square::E2));
        assert!(!targets(&sel).contains(&Square::H1));
    }

    #[test]
    fn clicking_a_target_makes_the_move() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::E2)),
            Click::Move(Move::new(Square::H2, Square::E2))
        );
        assert_eq!(sel.square(), None);
    }

    #[test]
    fn illegal_clicks_do_no_harm() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        // Nothing picked up: empty points, the opponent's pieces and the margin are ignored.
        for square in [Some(Square::E4), Some(Square::E9), None] {
            assert_eq!(sel.click(&pos, Some(Color::Red), square), Click::Ignored);
        }
        // A point the piece cannot reach puts it back rather than moving it.
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::E4)),
            Click::Deselected
        );
        // The opponent's piece that is not a capture target too.
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::E9)),
            Click::Deselected
        );
    }

    #[test]
    fn only_the_mover_may_pick_up_pieces() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        assert_eq!(
            sel.click(&pos, Some(Color::Black), Some(Square::H7)),
            Click::Ignored
        );
        assert_eq!(sel.click(&pos, None, Some(Square::H2)), Click::Ignored);
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        assert_eq!(sel.click(&pos, None, Some(Square::E2)), Click::Deselected);
    }

    #[test]
    fn a_capture_is_a_target() {
        let pos = Position::startpos();
        let mut sel = Selection::default();
        sel.click(&pos, Some(Color::Red), Some(Square::H2));
        // The cannon jumps Black's cannon on h7 and takes the horse on h9.
        assert!(targets(&sel).contains(&Square::H9));
        assert_eq!(
            sel.click(&pos, Some(Color::Red), Some(Square::H9)),
            Click::Move(Move::new(Square::H2, Square::H9))
        );
    }
}
