use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use xq_rules::fen::Fen;
use xq_rules::{ByColor, Color, Move, Position, Square};
use xq_session::{
    Action as SessionAction, Command, MatchConfig, Record, Status, TimeControl, Timestamp,
    UndoRequest,
};

use super::*;
use crate::{
    Action, BackendError, Click, Cue, Dialog, GameBackend, LocalGame, Notation, Presence, Step,
    Update,
};

const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

/// A local game seated as the test says, recording every command it is sent: how a remote game
/// looks to the view (one colour played from here), with who is connected as the test sets it.
struct Seated {
    game: LocalGame,
    seats: ByColor<bool>,
    sent: Rc<RefCell<Vec<Command>>>,
    presence: Rc<Cell<Option<Presence>>>,
}

impl GameBackend for Seated {
    fn seats(&self) -> ByColor<bool> {
        self.seats
    }
    fn position(&self) -> &Position {
        self.game.position()
    }
    fn status(&self) -> Status {
        self.game.status()
    }
    fn pending_undo(&self) -> Option<UndoRequest> {
        self.game.pending_undo()
    }
    fn pending_draw(&self) -> Option<Color> {
        self.game.pending_draw()
    }
    fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        self.game.clocks(now)
    }
    fn record(&self) -> Record {
        self.game.record()
    }
    fn check(&self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        self.game.check(now, command)
    }
    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        self.sent.borrow_mut().push(command);
        self.game.send(now, command)
    }
    fn poll_event(&mut self, now: Timestamp) -> Option<Update> {
        self.game.poll_event(now)
    }
    fn presence(&self) -> Option<Presence> {
        self.presence.get()
    }
    fn check_rematch(&self) -> Result<(), BackendError> {
        self.game.check_rematch()
    }
    fn rematch(&mut self, now: Timestamp) -> Result<(), BackendError> {
        self.game.rematch(now)
    }
}

const BOTH: ByColor<bool> = ByColor {
    red: true,
    black: true,
};
const RED: ByColor<bool> = ByColor {
    red: true,
    black: false,
};
const BLACK: ByColor<bool> = ByColor {
    red: false,
    black: true,
};

/// A view of a new game played from here for `seats`, and the log of commands it sends.
fn seated(seats: ByColor<bool>, config: MatchConfig) -> (ViewModel, Rc<RefCell<Vec<Command>>>) {
    seated_in(seats, LocalGame::new(config, ms(0)))
}

/// A view of `game`, as it stands, played from here for `seats`.
fn seated_in(seats: ByColor<bool>, game: LocalGame) -> (ViewModel, Rc<RefCell<Vec<Command>>>) {
    let sent = Rc::default();
    let game = Seated {
        game,
        seats,
        sent: Rc::clone(&sent),
        presence: Rc::default(),
    };
    let mut view = ViewModel::new();
    view.start(ms(0), Box::new(game));
    (view, sent)
}

/// A view of a new game on a relay played from here for `seats`, and the switch of who is
/// connected to it.
fn on_relay(seats: ByColor<bool>, presence: Presence) -> (ViewModel, Rc<Cell<Option<Presence>>>) {
    let presence = Rc::new(Cell::new(Some(presence)));
    let game = Seated {
        game: LocalGame::new(MatchConfig::default(), ms(0)),
        seats,
        sent: Rc::default(),
        presence: Rc::clone(&presence),
    };
    let mut view = ViewModel::new();
    view.start(ms(0), Box::new(game));
    (view, presence)
}

/// Plays `iccs` for `by` in the view's game directly, as a remote opponent would, unseen by
/// the view until its next tick.
fn opponent_plays(view: &mut ViewModel, by: Color, iccs: &str) {
    let Some(game) = view.game.as_mut() else {
        panic!("a game is on");
    };
    let (from, to) = iccs.split_at(2);
    let (Ok(from), Ok(to)) = (from.parse::<Square>(), to.parse::<Square>()) else {
        panic!("bad test move {iccs}");
    };
    let played = game.send(ms(0), SessionAction::Play(Move::new(from, to)).by(by));
    assert_eq!(played, Ok(()), "{iccs}");
}

/// Every cue waiting in `view`, oldest first.
fn cues(view: &mut ViewModel) -> Vec<Cue> {
    std::iter::from_fn(|| view.poll_cue()).collect()
}

fn local() -> (ViewModel, Rc<RefCell<Vec<Command>>>) {
    seated(BOTH, MatchConfig::default())
}

/// Plays `moves` (ICCS) by clicking the piece and then its target.
fn play(view: &mut ViewModel, now: Timestamp, moves: &str) {
    for iccs in moves.split_whitespace() {
        let (from, to) = iccs.split_at(2);
        let (Ok(from), Ok(to)) = (from.parse::<Square>(), to.parse::<Square>()) else {
            panic!("bad test move {iccs}");
        };
        assert_eq!(
            view.click(now, Some(from)),
            Ok(Click::Selected(from)),
            "{iccs}"
        );
        assert_eq!(
            view.click(now, Some(to)),
            Ok(Click::Move(Move::new(from, to))),
            "{iccs}"
        );
    }
}

#[test]
fn an_idle_view_shows_the_start_position_and_ignores_clicks() {
    let mut view = ViewModel::new();
    assert_eq!(view.position(), &Position::startpos());
    assert_eq!(view.click(ms(0), Some(Square::H2)), Ok(Click::Ignored));
    assert_eq!(view.act(ms(0), Action::Resign), Err(ActionError::NoGame));
    assert_eq!(view.buttons(), Buttons::default());
    assert_eq!(view.save_pgn(), None);
    assert_eq!(
        view.status_line(),
        "Start a local game, play on a relay, or open a record"
    );
}

#[test]
fn a_click_sequence_sends_the_move() {
    let (mut view, sent) = local();
    assert_eq!(
        view.click(ms(0), Some(Square::H2)),
        Ok(Click::Selected(Square::H2))
    );
    assert_eq!(view.selection().square(), Some(Square::H2));
    // An illegal target puts the piece back and sends nothing.
    assert_eq!(view.click(ms(0), Some(Square::D4)), Ok(Click::Deselected));
    assert!(sent.borrow().is_empty());
    // Reselect another piece, then move it.
    view.click(ms(0), Some(Square::H2)).ok();
    assert_eq!(
        view.click(ms(0), Some(Square::B2)),
        Ok(Click::Selected(Square::B2))
    );
    let mv = Move::new(Square::B2, Square::E2);
    assert_eq!(view.click(ms(500), Some(Square::E2)), Ok(Click::Move(mv)));
    assert_eq!(
        sent.borrow().as_slice(),
        [SessionAction::Play(mv).by(Color::Red)]
    );
    assert_eq!(view.last_move(), Some(mv));
    assert_eq!(view.selection().square(), None);
    assert_eq!(view.ply(), 1);
    // In a local game the other side moves next, from the same screen.
    play(&mut view, ms(900), "h9g7");
    assert_eq!(view.move_rows().len(), 1);
    assert_eq!(view.status_line(), "Red to move");
}

#[test]
fn a_player_of_one_side_cannot_move_the_other() {
    let (mut view, sent) = seated(RED, MatchConfig::default());
    play(&mut view, ms(0), "h2e2");
    assert_eq!(view.click(ms(0), Some(Square::H7)), Ok(Click::Ignored));
    assert_eq!(view.click(ms(0), Some(Square::E2)), Ok(Click::Ignored));
    assert_eq!(sent.borrow().len(), 1);
}

#[test]
fn the_board_turns_for_black_and_on_request() {
    let (mut view, _) = seated(BLACK, MatchConfig::default());
    assert_eq!(view.orientation().bottom, Color::Black);
    view.flip();
    assert_eq!(view.orientation().bottom, Color::Red);
    let (mut local, _) = local();
    assert_eq!(local.orientation().bottom, Color::Red);
    local.flip();
    assert_eq!(local.orientation().bottom, Color::Black);
}

#[test]
fn buttons_follow_what_the_session_accepts() {
    let (mut view, _) = local();
    let start = view.buttons();
    assert!(!start.request_undo, "nothing to take back yet");
    assert!(start.offer_draw && start.resign && !start.rematch);
    play(&mut view, ms(0), "h2e2");
    assert!(view.buttons().request_undo);
    assert_eq!(
        view.act(ms(0), Action::OfferDraw),
        Ok(SessionAction::OfferDraw.by(Color::Black))
    );
    assert!(!view.buttons().offer_draw, "one offer at a time");
}

#[test]
fn an_undo_request_opens_a_dialog_and_accepting_takes_the_move_back() {
    let (mut view, sent) = local();
    play(&mut view, ms(0), "h2e2");
    assert_eq!(view.dialog(), None);
    // Right after its move, Red asks to take it back.
    assert_eq!(
        view.act(ms(100), Action::RequestUndo),
        Ok(SessionAction::RequestUndo.by(Color::Red))
    );
    let request = UndoRequest {
        by: Color::Red,
        plies: 1,
    };
    assert_eq!(view.dialog(), Some(Dialog::Undo(request)));
    assert_eq!(view.notice(), Some("Red asked to take back"));
    assert!(!view.buttons().request_undo);
    // Black, at the same screen, accepts.
    assert_eq!(
        view.answer(ms(200), true),
        Ok(SessionAction::AnswerUndo { accept: true }.by(Color::Black))
    );
    assert_eq!(sent.borrow().len(), 3);
    assert_eq!(view.dialog(), None);
    assert_eq!(view.position(), &Position::startpos());
    assert_eq!(view.last_move(), None);
    assert_eq!(view.notice(), Some("One move taken back"));
    assert!(view.move_rows().is_empty());
}

#[test]
fn a_declined_undo_leaves_the_game_as_it_was() {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2 h9g7");
    // At one screen the side that just moved (Black) asks, to take back its one move.
    view.act(ms(0), Action::RequestUndo).ok();
    assert_eq!(view.dialog().map(Dialog::from), Some(Color::Black));
    assert_eq!(
        view.answer(ms(0), false),
        Ok(SessionAction::AnswerUndo { accept: false }.by(Color::Red))
    );
    assert_eq!(view.notice(), Some("Red declined the undo request"));
    assert_eq!(view.ply(), 2);
    assert_eq!(view.answer(ms(0), true), Err(ActionError::NothingToAnswer));
}

#[test]
fn a_remote_request_opens_a_dialog_only_for_the_side_asked() {
    // Red plays here; Black (the "remote" side, driven directly) asks for an undo.
    let (mut view, sent) = seated(RED, MatchConfig::default());
    play(&mut view, ms(0), "h2e2");
    let Some(game) = view.game.as_mut() else {
        panic!("a game is on");
    };
    game.send(
        ms(0),
        SessionAction::Play(Move::new(Square::H9, Square::G7)).by(Color::Black),
    )
    .ok();
    game.send(ms(0), SessionAction::RequestUndo.by(Color::Black))
        .ok();
    view.tick(ms(10));
    assert_eq!(view.dialog().map(Dialog::from), Some(Color::Black));
    assert_eq!(
        view.answer(ms(20), true),
        Ok(SessionAction::AnswerUndo { accept: true }.by(Color::Red))
    );
    assert_eq!(
        sent.borrow().last(),
        Some(&SessionAction::AnswerUndo { accept: true }.by(Color::Red))
    );
    assert_eq!(view.status_line(), "Black to move");
    // Red's own draw offer opens no dialog here, but the status line says it waits.
    view.act(ms(30), Action::OfferDraw).ok();
    assert_eq!(view.dialog(), None);
    assert_eq!(
        view.status_line(),
        "Black to move; Black is considering a draw offer"
    );
}

#[test]
fn a_draw_offer_accepted_ends_the_game_and_allows_a_rematch() {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2");
    view.act(ms(0), Action::OfferDraw).ok();
    assert_eq!(view.dialog(), Some(Dialog::Draw { by: Color::Black }));
    view.answer(ms(0), true).ok();
    assert_eq!(view.status_line(), "Draw by agreement");
    let buttons = view.buttons();
    assert!(!buttons.request_undo && !buttons.offer_draw && !buttons.resign);
    assert!(buttons.rematch);
    // The board is frozen once the game is over.
    assert_eq!(view.click(ms(0), Some(Square::E3)), Ok(Click::Ignored));
    assert_eq!(view.rematch(ms(0)), Ok(()));
    assert_eq!(view.position(), &Position::startpos());
    assert_eq!(view.status_line(), "Red to move");
    assert!(!view.buttons().rematch);
}

#[test]
fn resigning_ends_the_game_and_a_rematch_before_the_end_is_refused() {
    let (mut view, _) = local();
    assert!(view.rematch(ms(0)).is_err());
    assert_eq!(view.notice(), Some("the game is not over"));
    assert_eq!(
        view.act(ms(0), Action::Resign),
        Ok(SessionAction::Resign.by(Color::Red))
    );
    assert_eq!(view.status_line(), "Black wins by resignation");
    assert_eq!(view.notice(), None);
}

#[test]
fn check_is_announced() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = MatchConfig::default();
    config.start = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1"
        .parse::<Fen>()?
        .into_position()?
        .into();
    let (mut view, _) = seated(BOTH, config);
    assert_eq!(view.checked_general(), None);
    play(&mut view, ms(0), "i0i9");
    assert_eq!(view.checked_general(), Some(Square::D9));
    play(&mut view, ms(0), "d9d8");
    assert_eq!(view.checked_general(), None);
    Ok(())
}

#[test]
fn clocks_count_down_and_a_flag_ends_the_game() {
    let mut config = MatchConfig::default();
    config.time_control = TimeControl::Increment {
        base: Duration::from_secs(60),
        increment: Duration::ZERO,
    };
    let (mut view, _) = seated(BOTH, config);
    play(&mut view, ms(5_000), "h2e2");
    let clocks = view.clocks(ms(15_000));
    assert_eq!(
        clocks,
        Some(ByColor {
            red: "0:55".to_owned(),
            black: "0:50".to_owned()
        })
    );
    assert!(view.clock_running(ms(15_000)));
    view.tick(ms(70_000));
    assert_eq!(view.status_line(), "Red wins by time forfeit");
    assert!(!view.clock_running(ms(70_000)));
}

#[test]
fn a_spectator_cannot_act() {
    let (mut view, _) = seated(ByColor::default(), MatchConfig::default());
    assert_eq!(
        view.act(ms(0), Action::Resign),
        Err(ActionError::Spectating)
    );
    assert_eq!(view.notice(), None, "nothing was attempted");
    assert_eq!(view.click(ms(0), Some(Square::H2)), Ok(Click::Ignored));
}

#[test]
fn a_saved_record_opens_and_steps_move_by_move() -> Result<(), PgnError> {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2 h9g7 h0g2 i9h9");
    view.act(ms(0), Action::Resign).ok();
    let Some(text) = view.save_pgn() else {
        panic!("a game is on");
    };
    assert!(text.contains("1. h2e2 h9g7 2. h0g2 i9h9 0-1"), "{text}");
    let final_position = view.position().clone();

    view.open_pgn(ms(0), &text)?;
    let Some(replay) = view.replay() else {
        panic!("the replay is open");
    };
    assert_eq!(replay.len(), 4);
    assert_eq!(view.position(), &Position::startpos());
    assert_eq!(view.status_line(), "Replay: move 0 of 4");
    assert_eq!(view.move_rows().len(), 2);
    // The board cannot be played on, and the game buttons are off.
    assert_eq!(view.click(ms(0), Some(Square::H2)), Ok(Click::Ignored));
    assert_eq!(view.act(ms(0), Action::Resign), Err(ActionError::Replaying));
    assert!(!view.buttons().rematch);

    assert!(!view.step(Step::Back));
    assert!(view.step(Step::Forward));
    assert_eq!(view.last_move(), Some(Move::new(Square::H2, Square::E2)));
    assert_eq!(view.ply(), 1);
    assert!(view.step(Step::End));
    assert!(!view.step(Step::Forward));
    assert_eq!(view.position(), &final_position);
    assert_eq!(
        view.status_line(),
        "Replay: move 4 of 4. Black wins by resignation"
    );
    assert!(view.step(Step::Back));
    assert_eq!(view.last_move(), Some(Move::new(Square::H0, Square::G2)));
    assert!(view.seek(1));
    assert!(!view.seek(5));
    assert!(view.step(Step::Start));
    assert_eq!(view.last_move(), None);

    // The record saved from the replay is the one opened.
    assert_eq!(view.save_pgn().as_deref(), Some(text.as_str()));
    view.close_replay(ms(0));
    assert_eq!(view.replay().map(|r| r.len()), None);
    assert_eq!(view.position(), &final_position);
    assert!(view.buttons().rematch);
    Ok(())
}

#[test]
fn a_broken_record_changes_nothing() {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2");
    assert!(view.open_pgn(ms(0), "1. h2e2 h2e3 *").is_err());
    assert!(view.replay().is_none());
    assert_eq!(view.ply(), 1);
}

#[test]
fn a_record_opens_without_a_game() -> Result<(), PgnError> {
    let mut view = ViewModel::new();
    view.open_pgn(ms(0), "1. h2e2 h9g7 1/2-1/2")?;
    assert_eq!(view.move_rows().len(), 1);
    assert!(view.step(Step::End));
    assert_eq!(view.status_line(), "Replay: move 2 of 2. Draw");
    view.close_replay(ms(0));
    assert!(view.move_rows().is_empty());
    Ok(())
}

#[test]
fn the_move_list_switches_notation() {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2 h9g7");
    let texts = |view: &ViewModel| {
        let row = &view.move_rows()[0];
        [&row.red, &row.black].map(|entry| entry.as_ref().map(|e| e.text.clone()))
    };
    assert_eq!(view.notation(), Notation::Chinese);
    assert_eq!(
        texts(&view),
        [Some("炮二平五".to_owned()), Some("马８进７".to_owned())]
    );
    view.set_notation(ms(0), Notation::Wxf);
    assert_eq!(
        texts(&view),
        [Some("C2=5".to_owned()), Some("H8+7".to_owned())]
    );
}

#[test]
fn a_request_is_answered_while_a_replay_is_open() -> Result<(), PgnError> {
    let (mut view, sent) = local();
    play(&mut view, ms(0), "h2e2");
    view.act(ms(0), Action::RequestUndo).ok();
    view.open_pgn(ms(0), "1. h2e2 h9g7 *")?;
    // The opponent waits for the answer, so the dialog stays over the replay.
    assert!(view.dialog().is_some());
    let accept = SessionAction::AnswerUndo { accept: true }.by(Color::Black);
    assert_eq!(view.answer(ms(0), true), Ok(accept));
    assert_eq!(sent.borrow().last(), Some(&accept));
    assert_eq!(view.dialog(), None);
    // The replay stays open and unchanged; the game behind it took the move back.
    assert_eq!(view.status_line(), "Replay: move 0 of 2");
    view.close_replay(ms(0));
    assert_eq!(view.ply(), 0);
    Ok(())
}

#[test]
fn a_perpetual_chase_names_the_side_that_loses() {
    let (mut view, _) = local();
    // Red's horse chases Black's cannon back and forth until the position comes round a
    // third time: under the Asian rules the chaser loses.
    play(&mut view, ms(0), "b2b3 c6c5 b3b5 h7c7 g0i2 c7c3");
    let cycle = "b0a2 c3c2 a2b0 c2c3";
    play(&mut view, ms(0), &format!("{cycle} {cycle}"));
    assert_eq!(view.status_line(), "Perpetual chase: Red loses");
}

#[test]
fn each_move_played_sounds_once_check_before_capture_before_move() {
    let (mut view, _) = local();
    assert_eq!(view.poll_cue(), None);
    // A quiet move, then Red's cannon takes the central soldier with check over e7's cannon.
    play(&mut view, ms(0), "h2e2 h7e7");
    assert_eq!(cues(&mut view), [Cue::Move, Cue::Move]);
    play(&mut view, ms(0), "e2e6");
    assert_eq!(cues(&mut view), [Cue::Check]);
    assert_eq!(view.poll_cue(), None, "drained");
    // A capture without check: Red's cannon jumps Black's on h7 and takes the horse on h9.
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2h9");
    assert_eq!(cues(&mut view), [Cue::Capture]);
}

#[test]
fn undos_replays_seeks_and_rematches_are_silent() -> Result<(), PgnError> {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2");
    assert_eq!(cues(&mut view), [Cue::Move]);
    view.act(ms(0), Action::RequestUndo).ok();
    assert_eq!(view.answer(ms(0), true).map(|_| ()), Ok(()));
    assert_eq!(view.ply(), 0);
    assert_eq!(cues(&mut view), []);

    view.open_pgn(ms(0), "1. h2e2 h9g7 2. h0g2 *")?;
    assert!(view.step(Step::Forward));
    assert!(view.step(Step::End));
    assert!(view.seek(1));
    view.close_replay(ms(0));
    assert_eq!(cues(&mut view), []);

    view.act(ms(0), Action::Resign).ok();
    assert_eq!(view.rematch(ms(0)), Ok(()));
    assert_eq!(cues(&mut view), []);
    Ok(())
}

#[test]
fn a_received_move_sounds_and_a_game_joined_midway_does_not() {
    // The game had three moves before this screen saw it: a snapshot, not news.
    let mut game = LocalGame::new(MatchConfig::default(), ms(0));
    for iccs in ["h2e2", "h9g7", "h0g2"] {
        let (from, to) = iccs.split_at(2);
        let (Ok(from), Ok(to)) = (from.parse::<Square>(), to.parse::<Square>()) else {
            panic!("bad test move {iccs}");
        };
        let by = game.position().turn();
        assert_eq!(
            game.send(ms(0), SessionAction::Play(Move::new(from, to)).by(by)),
            Ok(())
        );
    }
    while game.poll_event(ms(0)).is_some() {}
    let (mut view, _) = seated_in(BLACK, game);
    view.tick(ms(10));
    assert_eq!(view.ply(), 3);
    assert_eq!(cues(&mut view), []);
    // Black plays here; Red's answer arrives from the other side; both sound, once each.
    play(&mut view, ms(20), "b9c7");
    opponent_plays(&mut view, Color::Red, "e2e6");
    view.tick(ms(30));
    assert_eq!(cues(&mut view), [Cue::Move, Cue::Capture]);
}

#[test]
fn a_move_received_behind_a_replay_still_sounds() -> Result<(), PgnError> {
    let (mut view, _) = seated(BLACK, MatchConfig::default());
    view.open_pgn(ms(0), "1. h2e2 *")?;
    opponent_plays(&mut view, Color::Red, "h2e2");
    view.tick(ms(10));
    assert_eq!(cues(&mut view), [Cue::Move]);
    Ok(())
}

#[test]
fn a_new_game_drops_the_last_ones_cues() {
    let (mut view, _) = local();
    play(&mut view, ms(0), "h2e2");
    view.start(
        ms(0),
        Box::new(LocalGame::new(MatchConfig::default(), ms(0))),
    );
    assert_eq!(view.poll_cue(), None);
}

#[test]
fn whose_turn_it_is_reads_from_this_screens_side() {
    let (mut view, _) = local();
    assert_eq!(view.to_move(), Some(Color::Red));
    assert_eq!(view.turn_line().as_deref(), Some("Red's turn"));
    play(&mut view, ms(0), "h2e2");
    assert_eq!(view.to_move(), Some(Color::Black));
    assert_eq!(view.turn_line().as_deref(), Some("Black's turn"));

    let (mut view, _) = on_relay(RED, Presence::Connected);
    assert_eq!(view.turn_line().as_deref(), Some("Your turn (Red)"));
    play(&mut view, ms(0), "h2e2");
    assert_eq!(view.to_move(), Some(Color::Black));
    assert_eq!(view.turn_line().as_deref(), Some("Opponent's turn (Black)"));

    let (view, _) = on_relay(ByColor::default(), Presence::Connected);
    assert_eq!(view.turn_line().as_deref(), Some("Red's turn"));
    assert_eq!(ViewModel::new().to_move(), None);
}

#[test]
fn no_side_is_to_move_before_the_opponent_comes_behind_a_replay_or_after_the_end()
-> Result<(), PgnError> {
    let (mut view, presence) = on_relay(RED, Presence::Waiting);
    assert_eq!(view.to_move(), None);
    assert_eq!(view.turn_line(), None);
    presence.set(Some(Presence::Connected));
    assert_eq!(view.to_move(), Some(Color::Red));
    view.open_pgn(ms(0), "1. h2e2 *")?;
    assert_eq!(view.to_move(), None);
    view.close_replay(ms(0));
    view.act(ms(0), Action::Resign).ok();
    assert_eq!(view.to_move(), None);
    assert_eq!(view.turn_line(), None);
    Ok(())
}

#[test]
fn the_opponents_connection_is_shown() {
    let (mut view, presence) = on_relay(BLACK, Presence::Waiting);
    assert_eq!(view.presence(), Some(Presence::Waiting));
    assert_eq!(
        view.presence_line().as_deref(),
        Some("Waiting for an opponent")
    );
    presence.set(Some(Presence::Connected));
    view.tick(ms(0));
    assert_eq!(view.presence_line().as_deref(), Some("Opponent connected"));
    assert_eq!(view.status_line(), "Red to move · opponent connected");
    presence.set(Some(Presence::Away(Color::Red)));
    assert_eq!(
        view.presence_line().as_deref(),
        Some("Opponent disconnected")
    );
    // The opponent's clock runs while it is away: it is still its turn.
    assert_eq!(view.turn_line().as_deref(), Some("Opponent's turn (Red)"));
    presence.set(Some(Presence::Offline));
    assert_eq!(
        view.presence_line().as_deref(),
        Some("Disconnected from the relay")
    );
    let (view, _) = on_relay(ByColor::default(), Presence::Away(Color::Black));
    assert_eq!(view.presence_line().as_deref(), Some("Black disconnected"));
    let (view, _) = local();
    assert_eq!(view.presence(), None);
    assert_eq!(view.presence_line(), None);
}

#[test]
fn a_finished_network_game_shows_its_result_and_saves_as_pgn() {
    let (mut view, presence) = on_relay(RED, Presence::Connected);
    assert_eq!(view.result_line(), None);
    play(&mut view, ms(0), "h2e2");
    let Some(game) = view.game.as_mut() else {
        panic!("a game is on");
    };
    assert_eq!(
        game.send(ms(0), SessionAction::Resign.by(Color::Black)),
        Ok(())
    );
    view.tick(ms(10));
    assert_eq!(
        view.result_line().as_deref(),
        Some("Game over: Red wins by resignation")
    );
    // The relay may close the room at the end: the record is still the game's.
    presence.set(Some(Presence::Offline));
    let Some(text) = view.save_pgn() else {
        panic!("a finished game saves");
    };
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(text.ends_with("1. h2e2 1-0\n"), "{text}");
}

/// A view of a new local game with a hint thinker, and the thinker's desk.
fn hinted() -> (ViewModel, Rc<RefCell<crate::thinker::testing::Desk>>) {
    let (thinker, desk) = crate::thinker::testing::EngineThinker::new();
    let mut view = ViewModel::new();
    view.set_analyst(thinker);
    view.start(
        ms(0),
        Box::new(LocalGame::new(MatchConfig::default(), ms(0))),
    );
    (view, desk)
}

#[test]
fn a_hint_marks_a_legal_move_of_the_side_to_move_until_a_move_is_played() {
    let (mut view, desk) = hinted();
    play(&mut view, ms(0), "h2e2");
    assert!(view.can_hint());
    assert_eq!(view.evaluation(), None);
    assert_eq!(view.hint(), Ok(()));
    assert!(view.hinting());
    assert!(!view.can_hint(), "one hint at a time");
    assert_eq!(view.hint(), Err(ActionError::NoHint));
    assert_eq!(desk.borrow().started.len(), 1);
    assert_eq!(desk.borrow().started[0].goal, Goal::HINT);
    view.tick(ms(0));
    let Some(hint) = view.hint_move() else {
        panic!("no hint shown");
    };
    assert!(view.position().is_legal(hint), "{hint}");
    assert_eq!(view.position().turn(), Color::Black);
    assert!(
        view.evaluation().is_some(),
        "the hint's search scored the game"
    );
    // Playing the hint (or any move) takes the mark off; the evaluation stays.
    play(&mut view, ms(0), &hint.to_string());
    assert_eq!(view.hint_move(), None);
    assert!(view.evaluation().is_some());
}

#[test]
fn a_hint_still_on_its_way_is_dropped_by_a_move() {
    let (mut view, desk) = hinted();
    desk.borrow_mut().hold = true;
    assert_eq!(view.hint(), Ok(()));
    play(&mut view, ms(0), "h2e2");
    assert_eq!(desk.borrow().cancelled, 1);
    desk.borrow_mut().hold = false;
    view.tick(ms(0));
    assert_eq!(view.hint_move(), None);
    assert!(!view.hinting());
    assert!(view.can_hint());
}

#[test]
fn no_hints_on_a_relay_or_without_a_thinker() {
    let (mut view, _presence) = on_relay(RED, Presence::Connected);
    assert!(!view.can_hint(), "no thinker");
    let (thinker, _desk) = crate::thinker::testing::EngineThinker::new();
    view.set_analyst(thinker);
    assert!(!view.can_hint(), "a game on a relay");
    assert_eq!(view.hint(), Err(ActionError::NoHint));
}

#[test]
fn against_the_computer_the_reply_comes_by_tick_with_its_evaluation() {
    let (thinker, _desk) = crate::thinker::testing::EngineThinker::new();
    let game = crate::ComputerGame::new(
        MatchConfig::default(),
        crate::ComputerSetup::default(),
        7,
        thinker,
        ms(0),
    );
    let mut view = ViewModel::new();
    view.start(ms(0), Box::new(game));
    assert_eq!(view.turn_line().as_deref(), Some("Your turn (Red)"));
    assert_eq!(view.click(ms(0), Some(Square::H7)), Ok(Click::Ignored));
    play(&mut view, ms(0), "h2e2");
    // The reply was found as the move was taken in; a frame later it is on the board.
    view.tick(ms(10));
    assert_eq!(view.move_rows().len(), 1);
    assert_eq!(view.ply(), 2);
    assert!(!view.thinking());
    assert_eq!(view.turn_line().as_deref(), Some("Your turn (Red)"));
    let evaluation = view.evaluation().map(|e| e.to_string());
    assert!(
        evaluation
            .as_deref()
            .is_some_and(|text| text.starts_with("Evaluation") || text.contains("mates")),
        "{evaluation:?}"
    );
    // Undo takes back both moves at once, with no dialog.
    assert_eq!(view.act(ms(20), Action::RequestUndo).map(|_| ()), Ok(()));
    assert_eq!(view.dialog(), None);
    assert_eq!(view.ply(), 0);
}
