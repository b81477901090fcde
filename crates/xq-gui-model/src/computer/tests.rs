use xq_engine::Level;
use xq_rules::{Color, Move, Square};
use xq_session::{Action as SessionAction, Event, MatchConfig, Timestamp};

use super::*;
use crate::thinker::testing::EngineThinker;

const NOW: Timestamp = Timestamp::from_millis(0);

fn level(n: u8) -> Level {
    Level::new(n).unwrap_or_else(|e| panic!("{e}"))
}

fn game(
    person: Color,
) -> (
    ComputerGame,
    std::rc::Rc<std::cell::RefCell<crate::thinker::testing::Desk>>,
) {
    let (thinker, desk) = EngineThinker::new();
    let setup = ComputerSetup {
        person,
        level: level(2),
    };
    (
        ComputerGame::new(MatchConfig::default(), setup, 42, thinker, NOW),
        desk,
    )
}

fn drain(game: &mut ComputerGame) -> Vec<Update> {
    std::iter::from_fn(|| game.poll_event(NOW)).collect()
}

fn play(game: &mut ComputerGame, by: Color, from: Square, to: Square) {
    game.send(NOW, SessionAction::Play(Move::new(from, to)).by(by))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_computer_replies_with_a_legal_move_and_its_evaluation() {
    let (mut game, desk) = game(Color::Red);
    assert_eq!(
        game.seats(),
        ByColor {
            red: true,
            black: false
        }
    );
    assert!(!game.thinking(), "Red moves first: the person");
    play(&mut game, Color::Red, Square::H2, Square::E2);
    assert!(game.thinking());
    let asked = desk.borrow().started.clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].moves, [Move::new(Square::H2, Square::E2)]);
    assert_eq!(
        asked[0].goal,
        Goal::Play {
            level: level(2),
            seed: 42
        }
    );
    let updates = drain(&mut game);
    let moves: Vec<Color> = updates
        .iter()
        .filter_map(|update| match update {
            Update::Game(Event::MovePlayed { by, .. }) => Some(*by),
            _ => None,
        })
        .collect();
    assert_eq!(moves, [Color::Red, Color::Black], "{updates:?}");
    assert!(
        matches!(updates.last(), Some(Update::Evaluated(_))),
        "{updates:?}"
    );
    assert_eq!(game.record().moves().len(), 2);
    assert_eq!(game.position().turn(), Color::Red);
    assert!(!game.thinking());
}

#[test]
fn the_person_cannot_move_for_the_computer() {
    let (mut game, _desk) = game(Color::Red);
    let black = SessionAction::Play(Move::new(Square::H7, Square::E7)).by(Color::Black);
    assert_eq!(game.check(NOW, black), Err(BackendError::NotYourSeat));
    assert_eq!(game.send(NOW, black), Err(BackendError::NotYourSeat));
    assert_eq!(
        game.send(NOW, Command::PauseClocks),
        Err(BackendError::Reserved)
    );
    assert!(game.record().moves().is_empty());
}

#[test]
fn the_computer_opens_when_it_plays_red() {
    let (mut game, desk) = game(Color::Black);
    assert!(game.thinking());
    assert_eq!(desk.borrow().started.len(), 1);
    drain(&mut game);
    assert_eq!(game.record().moves().len(), 1);
    assert_eq!(game.position().turn(), Color::Black);
}

#[test]
fn undo_takes_back_the_person_s_move_and_the_reply_at_once() {
    let (mut game, _desk) = game(Color::Red);
    play(&mut game, Color::Red, Square::H2, Square::E2);
    drain(&mut game);
    assert_eq!(game.record().moves().len(), 2);
    game.send(NOW, SessionAction::RequestUndo.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    let updates = drain(&mut game);
    assert!(
        updates
            .iter()
            .any(|u| matches!(u, Update::Game(Event::UndoApplied { plies: 2, .. }))),
        "{updates:?}"
    );
    assert!(game.record().moves().is_empty());
    assert_eq!(game.pending_undo(), None);
    assert!(!game.thinking());
}

#[test]
fn undo_while_the_computer_thinks_drops_its_search() {
    let (mut game, desk) = game(Color::Red);
    desk.borrow_mut().hold = true;
    play(&mut game, Color::Red, Square::H2, Square::E2);
    assert!(game.thinking());
    game.send(NOW, SessionAction::RequestUndo.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!game.thinking());
    assert_eq!(desk.borrow().cancelled, 1);
    desk.borrow_mut().hold = false;
    drain(&mut game);
    assert!(
        game.record().moves().is_empty(),
        "the late answer is not played"
    );
    assert_eq!(game.position().turn(), Color::Red);
}

#[test]
fn a_late_answer_to_a_replaced_request_is_not_played() {
    let (mut game, desk) = game(Color::Red);
    desk.borrow_mut().hold = true;
    play(&mut game, Color::Red, Square::H2, Square::E2);
    // An answer that names an old request, as a slow worker's would.
    let stale = desk.borrow().started[0].clone();
    game.send(NOW, SessionAction::RequestUndo.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    play(&mut game, Color::Red, Square::B2, Square::E2);
    let fresh = desk.borrow().started[1].id;
    assert_ne!(stale.id, fresh);
    desk.borrow_mut().current = Some(stale);
    desk.borrow_mut().hold = false;
    drain(&mut game);
    assert_eq!(
        game.record().moves().len(),
        1,
        "the stale answer is dropped"
    );
    assert!(game.thinking(), "still waiting for the fresh one");
}

#[test]
fn a_draw_offer_is_declined_when_the_computer_stands_better() {
    // Black (the computer) has an extra chariot: Red took its own off the board.
    let pos = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1"
        .parse::<xq_rules::fen::Fen>()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_position()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut config = MatchConfig::default();
    config.start = std::sync::Arc::new(pos);
    let (thinker, _desk) = EngineThinker::new();
    let mut game = ComputerGame::new(config, ComputerSetup::default(), 1, thinker, NOW);
    game.send(NOW, SessionAction::OfferDraw.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    let updates = drain(&mut game);
    assert!(
        updates
            .iter()
            .any(|u| matches!(u, Update::Game(Event::DrawDeclined { by: Color::Black }))),
        "{updates:?}"
    );
    assert!(game.status().is_ongoing());
}

#[test]
fn a_draw_offer_is_accepted_when_the_computer_stands_worse() {
    // Red (the person) has both chariots, Black none.
    let pos = "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
        .parse::<xq_rules::fen::Fen>()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_position()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut config = MatchConfig::default();
    config.start = std::sync::Arc::new(pos);
    let (thinker, _desk) = EngineThinker::new();
    let mut game = ComputerGame::new(config, ComputerSetup::default(), 1, thinker, NOW);
    game.send(NOW, SessionAction::OfferDraw.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    drain(&mut game);
    assert!(!game.status().is_ongoing(), "drawn by agreement");
}

#[test]
fn a_rematch_swaps_sides_and_the_computer_opens() {
    let (mut game, _desk) = game(Color::Red);
    game.send(NOW, SessionAction::Resign.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    drain(&mut game);
    assert!(game.check_rematch().is_ok());
    game.rematch(NOW).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(game.setup().person, Color::Black);
    assert_eq!(
        game.seats(),
        ByColor {
            red: false,
            black: true
        }
    );
    assert!(game.thinking());
    drain(&mut game);
    assert_eq!(game.record().moves().len(), 1);
}
