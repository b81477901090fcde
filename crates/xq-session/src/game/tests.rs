//! Match rules, driven through a harness with a virtual clock.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::{ByColor, Color, IllegalMove, Piece, Role, Square};

use super::*;
use crate::{TimeControl, UndoPolicy, pgn};

const RED: Color = Color::Red;
const BLACK: Color = Color::Black;

/// Red's chariot can check Black's general on rank 9 (from a9) and rank 8 (from a8).
const RED_CHECKS: &str = "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1";
/// Black's chariot can check Red's general on rank 0 (from a0) and rank 1 (from a1).
const BLACK_CHECKS: &str = "3k5/9/9/9/9/9/9/9/r8/4K4 b - - 0 1";
/// Bare generals on different files.
const BARE: &str = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1";
/// Red's chariot can check from b9 and retreat to b7 without checking.
const SOMETIMES_CHECKS: &str = "4k4/9/1R7/9/9/9/9/9/9/3K5 w - - 0 1";

fn mv(text: &str) -> Move {
    let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    Move::new(iccs.from, iccs.to)
}

fn fen(text: &str) -> Arc<Position> {
    let fen: Fen = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    fen.into_position()
        .map(Arc::new)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn timed(base_secs: u64, increment_secs: u64) -> MatchConfig {
    MatchConfig {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(base_secs),
            increment: Duration::from_secs(increment_secs),
        },
        ..MatchConfig::default()
    }
}

fn secs(red: u64, black: u64) -> Option<ByColor<Duration>> {
    Some(ByColor {
        red: Duration::from_secs(red),
        black: Duration::from_secs(black),
    })
}

/// A match on a virtual clock. Every refused command is checked to have changed nothing.
struct Harness {
    game: Match,
    now: u64,
}

impl Harness {
    fn new(config: MatchConfig) -> Self {
        Self {
            game: Match::new(config, Timestamp::from_millis(0)),
            now: 0,
        }
    }

    fn from_fen(text: &str) -> Self {
        Self::new(MatchConfig {
            start: fen(text),
            ..MatchConfig::default()
        })
    }

    const fn at(&self) -> Timestamp {
        Timestamp::from_millis(self.now)
    }

    fn advance_to(&mut self, millis: u64) {
        self.now = millis;
    }

    /// Handles `command` now and returns its result; the events stay queued.
    fn try_cmd(&mut self, command: Command) -> Result<(), CommandError> {
        let now = self.at();
        // Time passes first, as in `handle`; then a refusal must leave the match untouched.
        self.game.handle_timeout(now);
        let before = self.game.clone();
        let result = self.game.handle(now, command);
        if result.is_err() {
            assert_eq!(
                self.game, before,
                "{command:?} was refused but changed the match"
            );
        }
        result
    }

    fn cmd(&mut self, command: Command) {
        self.try_cmd(command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    }

    /// `by` asks for an undo and its opponent grants it.
    fn undo_granted(&mut self, by: Color) {
        self.cmd(Action::RequestUndo.by(by));
        self.cmd(Action::AnswerUndo { accept: true }.by(!by));
    }

    /// Plays ICCS moves, each by the side to move.
    fn play(&mut self, moves: &str) {
        for text in moves.split_whitespace() {
            let by = self.game.turn();
            self.cmd(Action::Play(mv(text)).by(by));
        }
    }

    fn events(&mut self) -> Vec<Event> {
        std::iter::from_fn(|| self.game.poll_event()).collect()
    }

    fn result(&self) -> Option<GameResult> {
        self.game.status().result()
    }
}

fn win(winner: Color, reason: WinReason) -> Option<GameResult> {
    Some(GameResult::Win { winner, reason })
}

fn draw(reason: DrawReason) -> Option<GameResult> {
    Some(GameResult::Draw { reason })
}

#[test]
fn only_the_side_to_move_plays_legal_moves() {
    let mut h = Harness::new(MatchConfig::default());
    let cannon = Action::Play(mv("h7e7")).by(BLACK);
    assert_eq!(h.try_cmd(cannon), Err(CommandError::NotYourTurn));
    let blocked = Action::Play(mv("a0a5")).by(RED);
    assert_eq!(
        h.try_cmd(blocked),
        Err(CommandError::IllegalMove(IllegalMove::CannotMoveThere(
            Role::Chariot
        )))
    );
    h.play("h2e2");
    assert_eq!(
        h.events(),
        [Event::MovePlayed {
            by: RED,
            mv: mv("h2e2"),
            text: MoveText::new(&Position::startpos(), mv("h2e2")),
            captured: None,
            gives_check: false,
            ply: 1,
            clocks: None,
        }]
    );
    assert_eq!(h.game.turn(), BLACK);
    assert_eq!(
        h.try_cmd(Action::Play(mv("b2e2")).by(RED)),
        Err(CommandError::NotYourTurn)
    );
    h.play("h9g7");
    assert_eq!(h.game.moves().len(), 2);
    assert_eq!(h.game.moves()[1].by, BLACK);
}

#[test]
fn checkmate_ends_the_game_and_announces_check() {
    let mut h = Harness::from_fen("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1");
    h.play("b0b9");
    let events = h.events();
    assert!(
        matches!(
            events[0],
            Event::MovePlayed {
                gives_check: true,
                ..
            }
        ),
        "{events:?}"
    );
    assert_eq!(
        events[1..],
        [Event::GameOver(GameResult::Win {
            winner: RED,
            reason: WinReason::Checkmate
        })]
    );
    assert_eq!(h.result(), win(RED, WinReason::Checkmate));
}

#[test]
fn stalemate_loses() {
    let mut h = Harness::from_fen("3k5/9/4P4/9/9/9/9/9/9/4K4 w - - 0 1");
    h.play("e7e8");
    assert_eq!(h.result(), win(RED, WinReason::Stalemate));
}

#[test]
fn commands_after_the_game_are_refused() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2 h9g7");
    h.cmd(Action::Resign.by(BLACK));
    for command in [
        Action::Play(mv("h0g2")).by(RED),
        Action::RequestUndo.by(RED),
        Action::AnswerUndo { accept: true }.by(BLACK),
        Action::WithdrawUndo.by(RED),
        Action::OfferDraw.by(RED),
        Action::AnswerDraw { accept: true }.by(BLACK),
        Action::WithdrawDraw.by(RED),
        Action::Resign.by(RED),
        Command::Abandon { by: BLACK },
        Command::PauseClocks,
        Command::ResumeClocks,
        Command::AbandonBoth,
    ] {
        assert_eq!(
            h.try_cmd(command),
            Err(CommandError::GameFinished),
            "{command:?}"
        );
    }
}

#[test]
fn undo_takes_back_one_ply_when_the_requester_moved_last() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2 h9g7 h0g2");
    let before = h.game.state().history().position_at(2).cloned();
    h.events();
    h.cmd(Action::RequestUndo.by(RED));
    assert_eq!(
        h.game.pending_undo(),
        Some(UndoRequest { by: RED, plies: 1 })
    );
    h.cmd(Action::AnswerUndo { accept: true }.by(BLACK));
    assert_eq!(
        h.events(),
        [
            Event::UndoRequested(UndoRequest { by: RED, plies: 1 }),
            Event::UndoApplied {
                by: RED,
                plies: 1,
                clocks: None
            }
        ]
    );
    assert_eq!(Some(h.game.position().clone()), before);
    assert_eq!(h.game.turn(), RED);
    assert_eq!(h.game.moves().len(), 2);
    assert_eq!(h.game.pending_undo(), None);
    assert_eq!(h.game.undos_granted(RED), 1);
}

#[test]
fn undo_takes_back_two_plies_when_the_opponent_replied() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2 h9g7 h0g2 i9h9");
    h.cmd(Action::RequestUndo.by(RED));
    assert_eq!(h.game.pending_undo().map(|r| r.plies), Some(2));
    h.cmd(Action::AnswerUndo { accept: true }.by(BLACK));
    assert_eq!(h.game.moves().len(), 2);
    assert_eq!(h.game.turn(), RED);
    h.play("h0g2");
    assert_eq!(h.game.moves().len(), 3);
}

#[test]
fn undo_restores_the_captured_piece_and_the_exact_hash() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2 h9g7");
    let before = h.game.position().clone();
    h.play("e2e6");
    assert_eq!(
        h.game.moves()[2].captured,
        Some(Piece::new(BLACK, Role::Soldier))
    );
    assert_eq!(h.game.position().halfmoves(), 0);
    h.undo_granted(RED);
    let after = h.game.position();
    assert_eq!(*after, before);
    assert_eq!(after.zobrist_hash(), before.zobrist_hash());
    assert_eq!(after.halfmoves(), 2);
    assert_eq!(
        after.board().piece_at(Square::E6),
        Some(Piece::new(BLACK, Role::Soldier))
    );
}

#[test]
fn declined_and_withdrawn_requests_change_no_move() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2");
    h.cmd(Action::RequestUndo.by(RED));
    h.cmd(Action::AnswerUndo { accept: false }.by(BLACK));
    h.cmd(Action::RequestUndo.by(RED));
    assert_eq!(
        h.try_cmd(Action::WithdrawUndo.by(BLACK)),
        Err(CommandError::NotYourRequest)
    );
    h.cmd(Action::WithdrawUndo.by(RED));
    assert_eq!(
        h.events()[1..],
        [
            Event::UndoRequested(UndoRequest { by: RED, plies: 1 }),
            Event::UndoDeclined { by: BLACK },
            Event::UndoRequested(UndoRequest { by: RED, plies: 1 }),
            Event::UndoWithdrawn { by: RED },
        ]
    );
    assert_eq!(h.game.moves().len(), 1);
    assert_eq!(h.game.undos_granted(RED), 0);
    assert_eq!(
        h.try_cmd(Action::AnswerUndo { accept: true }.by(BLACK)),
        Err(CommandError::NoPendingUndo)
    );
    assert_eq!(
        h.try_cmd(Action::WithdrawUndo.by(RED)),
        Err(CommandError::NoPendingUndo)
    );
}

#[test]
fn a_request_lapses_when_anyone_moves_or_the_game_ends() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2");
    h.cmd(Action::RequestUndo.by(RED));
    h.play("h9g7");
    assert_eq!(h.game.pending_undo(), None);
    assert!(h.events().ends_with(&[Event::UndoLapsed]));
    assert_eq!(
        h.try_cmd(Action::AnswerUndo { accept: true }.by(BLACK)),
        Err(CommandError::NoPendingUndo)
    );

    h.cmd(Action::RequestUndo.by(BLACK));
    h.play("h0g2");
    assert_eq!(h.game.pending_undo(), None);

    h.cmd(Action::RequestUndo.by(RED));
    h.cmd(Action::Resign.by(BLACK));
    assert!(h.events().ends_with(&[
        Event::UndoRequested(UndoRequest { by: RED, plies: 1 }),
        Event::UndoLapsed,
        Event::GameOver(GameResult::Win {
            winner: RED,
            reason: WinReason::Resignation
        })
    ]));
}

#[test]
fn one_request_at_a_time_and_never_answered_by_its_author() {
    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2 h9g7");
    h.cmd(Action::RequestUndo.by(BLACK));
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(BLACK)),
        Err(CommandError::UndoAlreadyPending)
    );
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(RED)),
        Err(CommandError::UndoAlreadyPending)
    );
    assert_eq!(
        h.try_cmd(Action::AnswerUndo { accept: true }.by(BLACK)),
        Err(CommandError::CannotAnswerOwnRequest)
    );
}

#[test]
fn nothing_to_undo_before_ones_own_first_move() {
    let mut h = Harness::new(MatchConfig::default());
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(RED)),
        Err(CommandError::NothingToUndo)
    );
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(BLACK)),
        Err(CommandError::NothingToUndo)
    );
    h.play("h2e2");
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(BLACK)),
        Err(CommandError::NothingToUndo)
    );
}

#[test]
fn the_undo_allowance_counts_granted_requests_per_seat() {
    let mut h = Harness::new(MatchConfig {
        undo: UndoPolicy::PerSeat(1),
        ..MatchConfig::default()
    });
    h.play("h2e2");
    h.cmd(Action::RequestUndo.by(RED));
    h.cmd(Action::AnswerUndo { accept: false }.by(BLACK));
    h.undo_granted(RED);
    h.play("h2e2");
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(RED)),
        Err(CommandError::UndoAllowanceUsed)
    );
    h.play("h9g7");
    h.cmd(Action::RequestUndo.by(BLACK));

    let mut h = Harness::new(MatchConfig {
        undo: UndoPolicy::Forbidden,
        ..MatchConfig::default()
    });
    h.play("h2e2");
    assert_eq!(
        h.try_cmd(Action::RequestUndo.by(RED)),
        Err(CommandError::UndoNotAllowed)
    );
}

#[test]
fn perpetual_check_loses() {
    let mut h = Harness::from_fen(RED_CHECKS);
    h.play("a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8");
    assert_eq!(h.result(), None);
    h.play("e8e9");
    assert_eq!(h.result(), win(BLACK, WinReason::PerpetualCheck));

    let mut h = Harness::from_fen(BLACK_CHECKS);
    h.play("a1a0 e0e1 a0a1 e1e0 a1a0 e0e1 a0a1");
    assert_eq!(h.result(), None);
    h.play("e1e0");
    assert_eq!(h.result(), win(RED, WinReason::PerpetualCheck));
}

#[test]
fn repetition_without_perpetual_check_is_a_draw() {
    let mut h = Harness::from_fen(BARE);
    h.play("d0d1 e9e8 d1d0 e8e9 d0d1 e9e8 d1d0");
    assert_eq!(h.result(), None);
    h.play("e8e9");
    assert_eq!(h.result(), draw(DrawReason::Repetition));

    // Red checks on half its moves only.
    let mut h = Harness::from_fen(SOMETIMES_CHECKS);
    h.play("b7b9 e9e8 b9b7 e8e9 b7b9 e9e8 b9b7");
    assert_eq!(h.result(), None);
    h.play("e8e9");
    assert_eq!(h.result(), draw(DrawReason::Repetition));
}

#[test]
fn undo_restores_the_repetition_count() {
    let mut h = Harness::from_fen(BARE);
    h.play("d0d1 e9e8 d1d0 e8e9 d0d1 e9e8 d1d0");
    h.undo_granted(RED);
    // The taken-back position no longer counts as an occurrence.
    h.play("d1d0");
    assert_eq!(h.result(), None);
    h.play("e8e9");
    assert_eq!(h.result(), draw(DrawReason::Repetition));
}

#[test]
fn the_move_limit_counts_plies_since_the_last_capture() {
    assert_eq!(
        MatchConfig::default().move_limit.map(NonZeroU32::get),
        Some(120)
    );
    let mut h = Harness::new(MatchConfig {
        start: fen("4k4/9/9/9/9/p8/9/9/9/R2K5 w - - 0 1"),
        move_limit: NonZeroU32::new(4),
        ..MatchConfig::default()
    });
    h.play("d0d1 e9e8 a0a4");
    assert_eq!(h.game.position().halfmoves(), 0);
    h.play("e8e9 d1d0 e9e8");
    assert_eq!(h.result(), None);
    h.play("d0d1");
    assert_eq!(h.result(), draw(DrawReason::MoveLimit));
}

#[test]
fn a_decided_start_position_finishes_the_match_at_once() {
    let cases = [
        // Black is mated.
        (
            "R2k5/1R7/9/9/9/9/9/9/9/4K4 b - - 0 1",
            GameResult::Win {
                winner: RED,
                reason: WinReason::Checkmate,
            },
        ),
        // Black is stalemated, and a stalemated side loses.
        (
            "3k5/4P4/9/9/9/9/9/9/9/4K4 b - - 0 1",
            GameResult::Win {
                winner: RED,
                reason: WinReason::Stalemate,
            },
        ),
        // The move limit is already reached.
        (
            "4k4/9/9/9/9/9/9/9/9/3K5 w - - 120 61",
            GameResult::Draw {
                reason: DrawReason::MoveLimit,
            },
        ),
    ];
    for (text, result) in cases {
        let mut h = Harness::new(MatchConfig {
            start: fen(text),
            ..timed(10, 0)
        });
        assert_eq!(h.result(), Some(result), "{text}");
        assert_eq!(h.events(), [Event::GameOver(result)], "{text}");
        assert_eq!(h.game.poll_timeout(), None, "{text}");
        assert!(!h.game.clocks_running(), "{text}");
        assert_eq!(h.game.clocks(Timestamp::from_millis(60_000)), secs(10, 10));
        let by = h.game.turn();
        let mv = mv("e0e1");
        assert_eq!(
            h.try_cmd(Action::Play(mv).by(by)),
            Err(CommandError::GameFinished)
        );
        assert_eq!(Match::from_journal(&h.game.journal()), Ok(h.game.clone()));
        let rematch = h
            .game
            .rematch(Timestamp::from_millis(1_000))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rematch.status(), Status::Finished(result), "{text}");
    }
}

#[test]
fn time_used_is_charged_to_the_side_on_move_with_increment() {
    let mut h = Harness::new(timed(10, 2));
    assert_eq!(h.game.poll_timeout(), Some(Timestamp::from_millis(10_000)));
    h.advance_to(3_000);
    h.play("h2e2");
    assert!(matches!(
        h.events()[..],
        [Event::MovePlayed { clocks, .. }] if clocks == secs(9, 10)
    ));
    assert_eq!(h.game.poll_timeout(), Some(Timestamp::from_millis(13_000)));
    h.advance_to(8_000);
    h.play("h9g7");
    assert_eq!(h.game.clocks(h.at()), secs(9, 7));
    assert_eq!(h.game.poll_timeout(), Some(Timestamp::from_millis(17_000)));
    h.game.handle_timeout(Timestamp::from_millis(16_999));
    assert_eq!(h.result(), None);
    h.game.handle_timeout(Timestamp::from_millis(17_000));
    assert_eq!(h.result(), win(BLACK, WinReason::TimeForfeit));
    assert_eq!(h.game.clocks(h.at()), secs(0, 7));
    assert_eq!(h.game.poll_timeout(), None);
}

#[test]
fn a_move_after_the_deadline_loses_on_time() {
    let mut h = Harness::new(timed(10, 0));
    let late = Action::Play(mv("h2e2")).by(RED);
    assert_eq!(
        h.game.handle(Timestamp::from_millis(10_500), late),
        Err(CommandError::GameFinished)
    );
    assert_eq!(h.result(), win(BLACK, WinReason::TimeForfeit));
    assert_eq!(
        h.events(),
        [Event::GameOver(GameResult::Win {
            winner: BLACK,
            reason: WinReason::TimeForfeit
        })]
    );
    assert!(h.game.moves().is_empty());
}

#[test]
fn no_flag_falls_while_a_fraction_of_a_millisecond_is_left() {
    let mut h = Harness::new(MatchConfig {
        time_control: TimeControl::Increment {
            base: Duration::from_micros(1_500),
            increment: Duration::ZERO,
        },
        ..MatchConfig::default()
    });
    h.game.handle_timeout(Timestamp::from_millis(1));
    assert_eq!(h.result(), None);
    let left = h.game.clocks(Timestamp::from_millis(1)).map(|c| c.red);
    assert_eq!(left, Some(Duration::from_micros(500)));
    assert_eq!(h.game.poll_timeout(), Some(Timestamp::from_millis(2)));
    let left = h.game.clocks(Timestamp::from_millis(2)).map(|c| c.red);
    assert_eq!(left, Some(Duration::ZERO));
    h.game.handle_timeout(Timestamp::from_millis(2));
    assert_eq!(h.result(), win(BLACK, WinReason::TimeForfeit));
}

#[test]
fn undo_does_not_turn_the_clocks_back() {
    let mut h = Harness::new(timed(10, 2));
    h.advance_to(1_000);
    h.play("h2e2");
    h.advance_to(3_000);
    h.play("h9g7");
    h.advance_to(4_000);
    h.cmd(Action::RequestUndo.by(RED));
    h.advance_to(6_000);
    h.cmd(Action::AnswerUndo { accept: true }.by(BLACK));
    // Red: 10 - 1 + 2 - 3 (thinking until the answer); Black: 10 - 2 + 2.
    assert!(h.events().contains(&Event::UndoApplied {
        by: RED,
        plies: 2,
        clocks: secs(8, 10),
    }));
    assert_eq!(h.game.turn(), RED);
    assert_eq!(h.game.poll_timeout(), Some(Timestamp::from_millis(14_000)));
}

/// The increments the taken-back moves earned stay with the sides that earned them: the clocks
/// after play-then-undo are the clocks after the moves, above the base time they started from.
#[test]
fn an_undo_keeps_the_increments_of_the_moves_it_takes_back() {
    let mut h = Harness::new(timed(10, 2));
    h.advance_to(1_000);
    h.play("h2e2");
    let after_move = secs(11, 10);
    assert_eq!(h.game.clocks(h.at()), after_move);
    h.undo_granted(RED);
    assert!(h.events().contains(&Event::UndoApplied {
        by: RED,
        plies: 1,
        clocks: after_move,
    }));
    assert_eq!(h.game.moves(), []);
    assert_eq!(h.game.clocks(h.at()), after_move);

    // Two plies: each side keeps its own increment.
    h.advance_to(2_000);
    h.play("h2e2");
    h.advance_to(3_000);
    h.play("h9g7");
    let after_reply = secs(12, 11);
    assert_eq!(h.game.clocks(h.at()), after_reply);
    h.undo_granted(RED);
    assert_eq!(h.game.moves(), []);
    assert_eq!(h.game.clocks(h.at()), after_reply);
}

#[test]
fn a_draw_offer_is_accepted_declined_withdrawn_or_lapses() {
    let mut h = Harness::new(MatchConfig::default());
    h.cmd(Action::OfferDraw.by(RED));
    assert_eq!(
        h.try_cmd(Action::OfferDraw.by(BLACK)),
        Err(CommandError::DrawAlreadyOffered)
    );
    assert_eq!(
        h.try_cmd(Action::AnswerDraw { accept: true }.by(RED)),
        Err(CommandError::CannotAnswerOwnRequest)
    );
    assert_eq!(
        h.try_cmd(Action::WithdrawDraw.by(BLACK)),
        Err(CommandError::NotYourRequest)
    );
    // The offerer's own move does not end its offer; the opponent's does.
    h.play("h2e2");
    assert_eq!(h.game.pending_draw(), Some(RED));
    h.play("h9g7");
    assert_eq!(h.game.pending_draw(), None);
    assert!(h.events().ends_with(&[Event::DrawLapsed]));

    h.cmd(Action::OfferDraw.by(RED));
    h.cmd(Action::WithdrawDraw.by(RED));
    h.cmd(Action::OfferDraw.by(RED));
    h.cmd(Action::AnswerDraw { accept: false }.by(BLACK));
    assert_eq!(
        h.events(),
        [
            Event::DrawOffered { by: RED },
            Event::DrawWithdrawn { by: RED },
            Event::DrawOffered { by: RED },
            Event::DrawDeclined { by: BLACK },
        ]
    );
    assert_eq!(
        h.try_cmd(Action::AnswerDraw { accept: true }.by(BLACK)),
        Err(CommandError::NoPendingDraw)
    );
    h.cmd(Action::OfferDraw.by(BLACK));
    h.events();
    h.cmd(Action::AnswerDraw { accept: true }.by(RED));
    assert_eq!(h.result(), draw(DrawReason::Agreement));
    // An accepted offer ends the game; it does not lapse first.
    assert_eq!(
        h.events(),
        [Event::GameOver(GameResult::Draw {
            reason: DrawReason::Agreement
        })]
    );
}

#[test]
fn resignation_and_abandonment_lose_at_once() {
    let mut h = Harness::new(MatchConfig::default());
    h.cmd(Action::Resign.by(RED));
    assert_eq!(h.result(), win(BLACK, WinReason::Resignation));

    let mut h = Harness::new(MatchConfig::default());
    h.play("h2e2");
    h.cmd(Command::Abandon { by: RED });
    assert_eq!(h.result(), win(BLACK, WinReason::Abandonment));
}

#[test]
fn abandoned_by_both_at_once_is_a_draw_that_replays() {
    let mut h = Harness::new(timed(60, 0));
    h.play("h2e2 h9g7");
    h.advance_to(5_000);
    h.cmd(Command::AbandonBoth);
    assert_eq!(h.result(), draw(DrawReason::Abandonment));
    assert!(!h.game.clocks_running());
    assert_eq!(h.game.clocks(Timestamp::from_millis(9_000)), secs(55, 60));
    let over = Event::GameOver(GameResult::Draw {
        reason: DrawReason::Abandonment,
    });
    assert_eq!(h.events().last(), Some(&over));
    assert_eq!(Match::from_journal(&h.game.journal()), Ok(h.game.clone()));
    let record = h.game.record();
    let read = pgn::parse(&pgn::write(&record, pgn::MoveFormat::Iccs));
    assert_eq!(read.map(|read| read.result()), Ok(h.result()));
}

#[test]
fn a_rematch_swaps_colours_and_keeps_the_config() {
    let mut h = Harness::new(timed(300, 5));
    assert_eq!(
        h.game.rematch(Timestamp::from_millis(1)),
        Err(RematchError::Ongoing)
    );
    assert_eq!(h.game.color_of(Seat::First), RED);
    h.play("h2e2");
    h.cmd(Action::Resign.by(BLACK));
    let rematch = h
        .game
        .rematch(Timestamp::from_millis(9_000))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rematch.color_of(Seat::First), BLACK);
    assert_eq!(rematch.seat_of(RED), Seat::Second);
    assert_eq!(rematch.config(), h.game.config());
    assert_eq!(rematch.status(), Status::Ongoing);
    assert!(rematch.moves().is_empty());
    assert_eq!(
        rematch.poll_timeout(),
        Some(Timestamp::from_millis(309_000))
    );
    let mut back = rematch;
    back.handle(Timestamp::from_millis(9_000), Action::Resign.by(RED))
        .unwrap_or_else(|e| panic!("{e}"));
    let third = back
        .rematch(Timestamp::from_millis(9_000))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(third.color_of(Seat::First), RED);
}

#[test]
fn paused_clocks_survive_a_restart() {
    let mut h = Harness::new(timed(10, 2));
    h.advance_to(2_000);
    h.play("h2e2");
    h.advance_to(5_000);
    h.cmd(Command::PauseClocks);
    assert_eq!(
        h.try_cmd(Command::PauseClocks),
        Err(CommandError::ClocksAlreadyPaused)
    );
    assert_eq!(h.game.poll_timeout(), None);
    assert_eq!(h.game.clocks(Timestamp::from_millis(999_999)), secs(10, 7));
    h.events();

    // The relay goes down; its new monotonic clock starts near zero.
    let mut restored = Match::from_journal(&h.game.journal()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(restored, h.game);
    let resumed_at = Timestamp::from_millis(100);
    restored
        .handle(resumed_at, Command::ResumeClocks)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        restored.poll_event(),
        Some(Event::ClocksResumed {
            clocks: ByColor {
                red: Duration::from_secs(10),
                black: Duration::from_secs(7)
            }
        })
    );
    assert_eq!(restored.poll_timeout(), Some(Timestamp::from_millis(7_100)));
    let reply = Action::Play(mv("h9g7")).by(BLACK);
    restored
        .handle(Timestamp::from_millis(1_100), reply)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(restored.clocks(Timestamp::from_millis(1_100)), secs(10, 8));
}

#[test]
fn after_a_crash_time_since_the_last_input_is_not_charged() {
    let mut h = Harness::new(timed(10, 0));
    h.advance_to(2_000);
    h.play("h2e2");
    let mut restored = Match::from_journal(&h.game.journal()).unwrap_or_else(|e| panic!("{e}"));
    restored
        .handle(Timestamp::from_millis(50), Command::ResumeClocks)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(restored.clocks(Timestamp::from_millis(50)), secs(8, 10));
    assert_eq!(
        restored.poll_timeout(),
        Some(Timestamp::from_millis(10_050))
    );
    // A new origin far ahead of the old deadline re-bases the clocks without a flag.
    let mut ahead = Match::from_journal(&h.game.journal()).unwrap_or_else(|e| panic!("{e}"));
    ahead
        .handle(Timestamp::from_millis(1_000_000), Command::ResumeClocks)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ahead.status(), Status::Ongoing);
    assert_eq!(
        ahead.poll_timeout(),
        Some(Timestamp::from_millis(1_010_000))
    );
    // The restored match rebuilds too, resumption included.
    let again = Match::from_journal(&restored.journal()).unwrap_or_else(|e| panic!("{e}"));
    restored.events.clear();
    assert_eq!(again, restored);
}

#[test]
fn untimed_matches_have_no_clocks_to_pause() {
    let mut h = Harness::new(MatchConfig::default());
    assert_eq!(h.game.clocks(h.at()), None);
    assert_eq!(h.game.poll_timeout(), None);
    assert_eq!(h.try_cmd(Command::PauseClocks), Err(CommandError::NoClocks));
    assert_eq!(
        h.try_cmd(Command::ResumeClocks),
        Err(CommandError::NoClocks)
    );
}

#[test]
fn the_journal_rebuilds_the_match_and_refuses_tampering() {
    let mut h = Harness::new(timed(10, 1));
    h.advance_to(1_000);
    h.play("h2e2 h9g7");
    h.undo_granted(BLACK);
    h.advance_to(30_000);
    h.game.handle_timeout(h.at());
    assert_eq!(h.result(), win(RED, WinReason::TimeForfeit));
    h.events();
    let journal = h.game.journal().clone();
    assert_eq!(journal.entries.last().map(|e| e.input), Some(Input::Flag));
    assert_eq!(Match::from_journal(&journal), Ok(h.game.clone()));

    let mut tampered = journal.clone();
    tampered.entries[0].input = Input::Command(Action::Play(mv("a0a5")).by(RED));
    assert!(matches!(
        Match::from_journal(&tampered),
        Err(RebuildError::Refused {
            index: 0,
            error: CommandError::IllegalMove(_)
        })
    ));
    let mut early = journal;
    if let Some(flag) = early.entries.last_mut() {
        flag.at = Timestamp::from_millis(1_000);
    }
    let last = early.entries.len() - 1;
    assert_eq!(
        Match::from_journal(&early),
        Err(RebuildError::NoFlag { index: last })
    );
}

#[cfg(feature = "serde")]
#[test]
fn the_journal_survives_serialization() {
    let mut h = Harness::from_fen(RED_CHECKS);
    h.play("a8a9 e9e8");
    h.cmd(Action::OfferDraw.by(RED));
    let config = bincode::config::standard();
    let bytes =
        bincode::serde::encode_to_vec(h.game.journal(), config).unwrap_or_else(|e| panic!("{e}"));
    let (journal, _): (Journal, _) =
        bincode::serde::decode_from_slice(&bytes, config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(journal, h.game.journal());
    let events = h.events();
    let bytes = bincode::serde::encode_to_vec(&events, config).unwrap_or_else(|e| panic!("{e}"));
    let (decoded, _): (Vec<Event>, _) =
        bincode::serde::decode_from_slice(&bytes, config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(decoded, events);
}

#[test]
fn play_out_plays_the_picked_moves_to_the_end() {
    let now = Timestamp::from_millis(0);
    // Red's chariot mates at once; the picker takes the first legal move that does.
    let mut game = Match::new(
        MatchConfig {
            start: fen("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1"),
            ..MatchConfig::default()
        },
        now,
    );
    let played = game.play_out(now, |moves| {
        moves.iter().copied().find(|&m| m == mv("b0b9"))
    });
    assert_eq!(played, Ok(vec![mv("b0b9")]));
    assert_eq!(game.status().result(), win(RED, WinReason::Checkmate));

    // A picker that declines stops the play; one that picks an illegal move gets the error.
    let mut game = Match::new(MatchConfig::default(), now);
    assert_eq!(game.play_out(now, |_| None), Ok(vec![]));
    let mut first = true;
    let played = game.play_out(now, |moves| {
        let pick = if first {
            moves.first().copied()
        } else {
            Some(mv("a0a9"))
        };
        first = false;
        pick
    });
    assert!(played.is_err());
    assert_eq!(game.moves().len(), 1);
}
