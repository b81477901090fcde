//! The mirror follows a real match event by event, from any snapshot.

use std::time::Duration;

use xq_client::{Applied, Mirror, MirrorError};
use xq_rules::fen::Fen;
use xq_rules::{Color, Move, Square};
use xq_session::FollowError;
use xq_session::{
    Action, Command, DrawReason, Event, GameResult, Match, MatchConfig, Status, TimeControl,
    Timestamp, WinReason,
};

use crate::support::{Referee, ms};

/// Checks that the mirror shows what the match holds at `now`. `reported` is when the clocks
/// were last reported to the mirror; once the game is over, `now` is when it ended.
fn assert_in_step(mirror: &Mirror, game: &Match, now: Timestamp, reported: Timestamp) {
    assert_eq!(mirror.position(), game.position());
    assert_eq!(
        mirror.position().zobrist_hash(),
        game.position().zobrist_hash()
    );
    assert_eq!(mirror.turn(), game.turn());
    assert_eq!(mirror.moves(), game.moves());
    assert_eq!(mirror.pending_undo(), game.pending_undo());
    assert_eq!(mirror.pending_draw(), game.pending_draw());
    assert_eq!(mirror.status(), game.status());
    assert_eq!(mirror.record(), game.record());
    if game.status().is_ongoing() {
        assert_eq!(
            mirror.legal_moves(),
            game.position().legal_moves().as_slice()
        );
        assert_eq!(mirror.clocks_running(), game.clocks_running());
        let elapsed = now.saturating_duration_since(reported);
        assert_eq!(mirror.clocks_after(elapsed), game.clocks(now));
    } else {
        assert!(mirror.legal_moves().is_empty());
        assert!(!mirror.clocks_running());
        // Stopped where the match's stopped, for good.
        assert_eq!(mirror.clocks_after(Duration::ZERO), game.clocks(now));
        assert_eq!(
            mirror.clocks_after(Duration::from_secs(60)),
            mirror.clocks_after(Duration::ZERO)
        );
    }
}

/// Drives a match and a mirror side by side, one second per command. The mirror's snapshot
/// arrived at 0, and each event arrives when the match emits it.
struct Pair {
    referee: Referee,
    mirror: Mirror,
    now: u64,
    reported: u64,
}

impl Pair {
    fn new(config: MatchConfig) -> Self {
        let referee = Referee::new(config);
        let mirror =
            Mirror::from_snapshot(&referee.snapshot(ms(0))).unwrap_or_else(|e| panic!("{e}"));
        Self {
            referee,
            mirror,
            now: 0,
            reported: 0,
        }
    }

    fn timed() -> Self {
        let mut config = MatchConfig::default();
        config.time_control = TimeControl::Increment {
            base: Duration::from_secs(600),
            increment: Duration::from_secs(5),
        };
        Self::new(config)
    }

    fn handle(&mut self, command: Command) {
        self.now += 1_000;
        let events = self
            .referee
            .handle(ms(self.now), command)
            .unwrap_or_else(|e| panic!("{command:?}: {e}"));
        assert!(!events.is_empty());
        self.take(events);
        self.check();
    }

    /// Applies the match's `events`, which arrive now.
    fn take(&mut self, events: Vec<(u64, Event)>) {
        for (seq, event) in events {
            assert_eq!(
                self.mirror.apply(self.since_snapshot(), seq, &event),
                Ok(Applied::New),
                "{event:?}"
            );
            if matches!(
                event,
                Event::MovePlayed { .. } | Event::UndoApplied { .. } | Event::ClocksResumed { .. }
            ) {
                self.reported = self.now;
            }
        }
    }

    fn since_snapshot(&self) -> Duration {
        Duration::from_millis(self.now)
    }

    fn play(&mut self, iccs: &str) {
        let mv = iccs_move(iccs);
        let by = self.referee.game.turn();
        self.handle(Action::Play(mv).by(by));
    }

    fn check(&self) {
        assert_in_step(
            &self.mirror,
            &self.referee.game,
            ms(self.now),
            ms(self.reported),
        );
    }
}

fn iccs_move(iccs: &str) -> Move {
    let (from, to) = iccs.split_at(2);
    let square = |s: &str| s.parse::<Square>().unwrap_or_else(|e| panic!("{s}: {e}"));
    Move::new(square(from), square(to))
}

#[test]
fn follows_moves_undos_and_offers() {
    let mut pair = Pair::timed();
    pair.play("h2e2");
    pair.play("h9g7");
    // Red asks after Black replied: two plies come back.
    pair.handle(Action::RequestUndo.by(Color::Red));
    pair.handle(Action::AnswerUndo { accept: true }.by(Color::Black));
    assert_eq!(pair.mirror.moves().len(), 0);
    pair.play("b2e2");
    // Red asks right after its own move: one ply comes back.
    pair.handle(Action::RequestUndo.by(Color::Red));
    pair.handle(Action::AnswerUndo { accept: true }.by(Color::Black));
    assert_eq!(pair.mirror.moves().len(), 0);
    pair.play("h2e2");
    pair.handle(Action::RequestUndo.by(Color::Red));
    pair.handle(Action::AnswerUndo { accept: false }.by(Color::Black));
    pair.handle(Action::RequestUndo.by(Color::Red));
    pair.play("h9g7"); // the request lapses
    pair.handle(Action::OfferDraw.by(Color::Black));
    pair.play("h0g2"); // Red moves instead of answering: the offer lapses
    pair.handle(Action::OfferDraw.by(Color::Black));
    pair.handle(Action::WithdrawDraw.by(Color::Black));
    pair.handle(Action::OfferDraw.by(Color::Black));
    pair.handle(Action::AnswerDraw { accept: false }.by(Color::Red));
    pair.handle(Command::PauseClocks);
    pair.now += 30_000; // paused: nobody is charged
    pair.check();
    pair.handle(Command::ResumeClocks);
    pair.play("i9h9");
    pair.handle(Action::Resign.by(Color::Red));
    assert_eq!(
        pair.mirror.status(),
        Status::Finished(GameResult::Win {
            winner: Color::Black,
            reason: WinReason::Resignation
        })
    );
}

#[test]
fn an_accepted_draw_clears_the_offer() {
    let mut pair = Pair::new(MatchConfig::default());
    pair.play("h2e2");
    pair.handle(Action::OfferDraw.by(Color::Red));
    pair.handle(Action::AnswerDraw { accept: true }.by(Color::Black));
    assert_eq!(pair.mirror.pending_draw(), None);
    assert!(!pair.mirror.status().is_ongoing());
}

#[test]
fn follows_a_game_to_checkmate() {
    let mut config = MatchConfig::default();
    let fen: Fen = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    config.start = fen.into_position().unwrap_or_else(|e| panic!("{e}")).into();
    let mut pair = Pair::new(config);
    pair.play("b0b9");
    assert_eq!(
        pair.mirror.status(),
        Status::Finished(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Checkmate
        })
    );
}

#[test]
fn random_playouts_with_undos_stay_in_step() {
    for seed in 1..=20u64 {
        let mut rng = seed;
        let mut pair = Pair::timed();
        for _ in 0..120 {
            if !pair.mirror.status().is_ongoing() {
                break;
            }
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let roll = (rng >> 33) as usize;
            let turn = pair.referee.game.turn();
            if roll.is_multiple_of(7) && pair.referee.game.moves().len() >= 2 {
                let by = if roll.is_multiple_of(2) { turn } else { !turn };
                pair.handle(Action::RequestUndo.by(by));
                pair.handle(
                    Action::AnswerUndo {
                        accept: !roll.is_multiple_of(3),
                    }
                    .by(!by),
                );
            } else {
                let moves = pair.mirror.legal_moves().to_vec();
                let mv = moves[roll % moves.len()];
                pair.handle(Action::Play(mv).by(turn));
            }
        }
    }
}

#[test]
fn a_mid_game_snapshot_and_replayed_events_end_in_the_same_place() {
    let mut full = Pair::timed();
    for mv in ["h2e2", "h9g7", "h0g2", "i9h9"] {
        full.play(mv);
    }
    let at = full.now;
    let snapshot = full.referee.snapshot(ms(at));
    let resumed_from = snapshot.next_seq;
    let earlier = full.referee.game.clone();
    full.handle(Action::RequestUndo.by(Color::Black));
    full.handle(Action::AnswerUndo { accept: true }.by(Color::Red));
    full.play("c9e7");
    full.play("i0h0");

    let mut mirror = Mirror::from_snapshot(&snapshot).unwrap_or_else(|e| panic!("{e}"));
    assert_in_step(&mirror, &earlier, ms(at), ms(at));
    // The relay resends from an earlier event: those already in the snapshot are skipped.
    let since_snapshot = Duration::from_millis(full.now - at);
    let mut new = 0;
    for (seq, event) in &full.referee.log[1..] {
        match mirror.apply(since_snapshot, *seq, event) {
            Ok(Applied::New) => {
                assert!(*seq >= resumed_from);
                new += 1;
            }
            Ok(Applied::AlreadySeen) => assert!(*seq < resumed_from),
            Err(e) => panic!("{seq}: {e}"),
        }
    }
    assert_eq!(new, full.referee.log.len() as u64 - resumed_from);
    assert_in_step(&mirror, &full.referee.game, ms(full.now), ms(full.reported));
}

#[test]
fn a_gap_is_refused_and_changes_nothing() {
    let mut referee = Referee::new(MatchConfig::default());
    let mut mirror =
        Mirror::from_snapshot(&referee.snapshot(ms(0))).unwrap_or_else(|e| panic!("{e}"));
    referee
        .handle(ms(1), Action::Play(iccs_move("h2e2")).by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    referee
        .handle(ms(2), Action::Play(iccs_move("h9g7")).by(Color::Black))
        .unwrap_or_else(|e| panic!("{e}"));
    let before = mirror.clone();
    let (seq, event) = &referee.log[1];
    assert_eq!(
        mirror.apply(Duration::ZERO, *seq, event),
        Err(MirrorError::Gap {
            expected: 0,
            received: 1
        })
    );
    assert_eq!(mirror, before);
}

#[test]
fn events_that_do_not_fit_are_refused_and_change_nothing() {
    let referee = Referee::new(MatchConfig::default());
    let mut mirror =
        Mirror::from_snapshot(&referee.snapshot(ms(0))).unwrap_or_else(|e| panic!("{e}"));
    let before = mirror.clone();
    let played = |by, iccs: &str, ply| Event::MovePlayed {
        by,
        mv: iccs_move(iccs),
        text: xq_session::MoveText::new(&xq_rules::Position::startpos(), iccs_move(iccs)),
        captured: None,
        gives_check: false,
        ply,
        clocks: None,
    };
    assert!(matches!(
        mirror.apply(Duration::ZERO, 0, &played(Color::Red, "a0a5", 1)),
        Err(MirrorError::Follow(FollowError::IllegalMove { ply: 1, .. }))
    ));
    assert!(matches!(
        mirror.apply(Duration::ZERO, 0, &played(Color::Black, "h7e7", 1)),
        Err(MirrorError::Follow(FollowError::OutOfTurn { .. }))
    ));
    assert!(matches!(
        mirror.apply(Duration::ZERO, 0, &played(Color::Red, "h2e2", 3)),
        Err(MirrorError::Follow(FollowError::PlyMismatch {
            expected: 1,
            reported: 3
        }))
    ));
    let undo = Event::UndoApplied {
        by: Color::Red,
        plies: 1,
        clocks: None,
    };
    assert_eq!(
        mirror.apply(Duration::ZERO, 0, &undo),
        Err(MirrorError::Follow(FollowError::UndoTooFar {
            plies: 1,
            played: 0
        }))
    );
    assert_eq!(mirror, before);

    let result = GameResult::Win {
        winner: Color::Black,
        reason: WinReason::Resignation,
    };
    assert_eq!(
        mirror.apply(Duration::ZERO, 0, &Event::GameOver(result)),
        Ok(Applied::New)
    );
    assert_eq!(
        mirror.apply(Duration::ZERO, 1, &played(Color::Red, "h2e2", 1)),
        Err(MirrorError::Follow(FollowError::AfterGameOver))
    );
}

#[test]
fn a_snapshot_whose_moves_do_not_replay_is_refused() {
    let mut snapshot = Referee::new(MatchConfig::default()).snapshot(ms(0));
    snapshot.moves = vec![iccs_move("h2e2"), iccs_move("h2e2")];
    assert!(matches!(
        Mirror::from_snapshot(&snapshot),
        Err(MirrorError::Follow(FollowError::OutOfTurn {
            by: Color::Black,
            ply: 2
        }) | MirrorError::Follow(FollowError::IllegalMove { ply: 2, .. }))
    ));
}

#[test]
fn presence_and_rematch_requests_are_recorded() {
    let referee = Referee::new(MatchConfig::default());
    let mut snapshot = referee.snapshot(ms(0));
    snapshot.seats.black = xq_protocol::SeatInfo::default();
    let mut mirror = Mirror::from_snapshot(&snapshot).unwrap_or_else(|e| panic!("{e}"));
    assert!(!mirror.is_full());
    mirror.set_presence(Color::Black, true);
    assert!(mirror.is_full());
    mirror.set_presence(Color::Black, false);
    assert!(mirror.seats().black.taken);
    assert!(!mirror.seats().black.connected);
    mirror.note_rematch_request(Color::Red);
    assert_eq!(mirror.rematch_requested(), Some(Color::Red));
}

#[test]
fn a_fallen_flag_ends_the_game() {
    let mut pair = Pair::timed();
    pair.play("h2e2");
    pair.now += 700_000;
    let events = pair.referee.timeout(ms(pair.now));
    pair.take(events);
    pair.check();
    assert_eq!(
        pair.mirror.clocks_after(Duration::ZERO).map(|c| c.black),
        Some(Duration::ZERO)
    );
    assert_eq!(
        pair.mirror.status(),
        Status::Finished(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::TimeForfeit
        })
    );
}

/// Whatever ended the game, the relay's verdicts included, the mirror's record is the match's,
/// result and reason too ([`assert_in_step`] compares them after every command).
#[test]
fn the_record_is_the_matchs_whatever_ended_it() {
    let agreement: &[Command] = &[
        Action::OfferDraw.by(Color::Red),
        Action::AnswerDraw { accept: true }.by(Color::Black),
    ];
    let endings: [&[Command]; 4] = [
        &[Action::Resign.by(Color::Red)],
        &[Command::Abandon { by: Color::Black }],
        &[Command::AbandonBoth],
        agreement,
    ];
    for ending in endings {
        let mut pair = Pair::timed();
        pair.play("h2e2");
        pair.play("h9g7");
        assert_eq!(pair.mirror.record().result(), None);
        for &command in ending {
            pair.handle(command);
        }
        let record = pair.mirror.record();
        assert_eq!(record.moves(), &[iccs_move("h2e2"), iccs_move("h9g7")]);
        assert_eq!(
            record.result(),
            pair.referee.game.status().result(),
            "{ending:?}"
        );
        assert!(record.result().is_some(), "{ending:?}");
    }
}

#[test]
fn the_record_keeps_the_moves_and_the_result() {
    let mv = iccs_move("h2e2");
    let mut timed = MatchConfig::default();
    timed.time_control = TimeControl::Increment {
        base: Duration::from_secs(60),
        increment: Duration::ZERO,
    };
    for (config, result) in [
        (
            MatchConfig::default(),
            GameResult::Win {
                winner: Color::Red,
                reason: WinReason::Resignation,
            },
        ),
        (
            MatchConfig::default(),
            GameResult::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment,
            },
        ),
        (
            MatchConfig::default(),
            GameResult::Draw {
                reason: DrawReason::Agreement,
            },
        ),
        (
            MatchConfig::default(),
            GameResult::Draw {
                reason: DrawReason::Abandonment,
            },
        ),
        // Black is to move, so its flag fell.
        (
            timed,
            GameResult::Win {
                winner: Color::Red,
                reason: WinReason::TimeForfeit,
            },
        ),
    ] {
        let mut snapshot = Referee::new(config).snapshot(ms(0));
        snapshot.moves = vec![mv];
        snapshot.status = Status::Finished(result);
        let mirror = Mirror::from_snapshot(&snapshot).unwrap_or_else(|e| panic!("{e}"));
        let record = mirror.record();
        assert_eq!(record.start(), &*mirror.config().start);
        assert_eq!(record.moves(), &[mv]);
        assert_eq!(record.result(), Some(result), "{result:?}");
    }
}
