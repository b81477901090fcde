use std::time::Duration;

use xq_rules::{ByColor, Color, Move, Square};

use super::*;
use crate::{Command, Match, UndoPolicy};

const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

const CANNON: Move = Move::new(Square::H2, Square::E2);
const HORSE: Move = Move::new(Square::H9, Square::G7);

fn blitz() -> MatchConfig {
    MatchConfig {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(10),
            increment: Duration::from_secs(1),
        },
        ..MatchConfig::default()
    }
}

/// A follower of `game` from its standing at `now`, fed every event the match queues.
fn follow(game: &mut Match, now: Timestamp) -> MatchState {
    let mut follower =
        MatchState::follow(&game.standing(now), now).unwrap_or_else(|e| panic!("{e}"));
    drain(game, &mut follower, now);
    follower
}

fn drain(game: &mut Match, follower: &mut MatchState, now: Timestamp) {
    while let Some(event) = game.poll_event() {
        follower
            .apply(now, &event)
            .unwrap_or_else(|e| panic!("{event:?}: {e}"));
    }
}

fn handle(game: &mut Match, now: Timestamp, command: Command) {
    game.handle(now, command)
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
}

#[test]
fn a_follower_holds_what_the_match_holds() {
    let mut game = Match::new(blitz(), ms(0));
    let mut follower = follow(&mut game, ms(0));
    let commands = [
        (2_000, Action::Play(CANNON).by(Color::Red)),
        (2_500, Action::OfferDraw.by(Color::Red)),
        (3_000, Action::RequestUndo.by(Color::Red)),
        (4_000, Action::AnswerUndo { accept: true }.by(Color::Black)),
    ];
    for (at, command) in commands {
        // Events that arrive when they are sent leave the follower exactly as the match.
        handle(&mut game, ms(at), command);
        drain(&mut game, &mut follower, ms(at));
        assert_eq!(&follower, game.state(), "{command:?}");
    }
    assert_eq!(follower.undos_granted(Color::Red), 1);
    assert_eq!(follower.clocks(ms(5_000)), game.clocks(ms(5_000)));
}

#[test]
fn the_follower_refuses_actions_as_the_match_does() {
    let config = MatchConfig {
        undo: UndoPolicy::PerSeat(0),
        ..MatchConfig::default()
    };
    let mut game = Match::new(config, ms(0));
    let follower = follow(&mut game, ms(0));
    let actions = [
        Action::Play(HORSE),
        Action::RequestUndo,
        Action::WithdrawUndo,
        Action::AnswerUndo { accept: true },
        Action::WithdrawDraw,
        Action::AnswerDraw { accept: false },
    ];
    for action in actions {
        for by in [Color::Red, Color::Black] {
            let expected = game.clone().handle(ms(0), action.by(by));
            assert_eq!(follower.check(by, action), expected, "{by} {action:?}");
            assert!(expected.is_err(), "{by} {action:?}");
        }
    }
}

#[test]
fn a_refused_event_changes_nothing() {
    let mut game = Match::new(blitz(), ms(0));
    let mut follower = follow(&mut game, ms(0));
    let before = follower.clone();
    let text = crate::MoveText::new(follower.position(), CANNON);
    let played = |by, mv, ply| Event::MovePlayed {
        by,
        mv,
        text: text.clone(),
        captured: None,
        gives_check: false,
        ply,
        clocks: None,
    };
    assert_eq!(
        follower.apply(ms(1), &played(Color::Black, CANNON, 1)),
        Err(FollowError::OutOfTurn {
            by: Color::Black,
            ply: 1
        })
    );
    assert!(matches!(
        follower.apply(ms(1), &played(Color::Red, HORSE, 1)),
        Err(FollowError::IllegalMove { ply: 1, .. })
    ));
    assert_eq!(
        follower.apply(ms(1), &played(Color::Red, CANNON, 3)),
        Err(FollowError::PlyMismatch {
            expected: 1,
            reported: 3
        })
    );
    let undo = Event::UndoApplied {
        by: Color::Red,
        plies: 1,
        clocks: None,
    };
    assert_eq!(
        follower.apply(ms(1), &undo),
        Err(FollowError::UndoTooFar {
            plies: 1,
            played: 0
        })
    );
    assert_eq!(follower, before);
    handle(&mut game, ms(1), Action::Resign.by(Color::Red));
    drain(&mut game, &mut follower, ms(1));
    let after_end = follower.clone();
    assert_eq!(
        follower.apply(ms(2), &Event::DrawLapsed),
        Err(FollowError::AfterGameOver)
    );
    assert_eq!(follower, after_end);
}

#[test]
fn a_followed_clock_counts_on_the_followers_time_and_stops_at_the_end() {
    let mut game = Match::new(blitz(), ms(0));
    // The follower's clock reads 100 s when the match's reads 0.
    let mut follower = follow(&mut game, ms(100_000));
    handle(&mut game, ms(3_000), Action::Play(CANNON).by(Color::Red));
    drain(&mut game, &mut follower, ms(103_000));
    let expected = ByColor {
        red: Duration::from_secs(8),
        black: Duration::from_secs(6),
    };
    assert_eq!(follower.clocks(ms(107_000)), Some(expected));
    // Black's flag falls at 13 s; the end arrives at once and shows zero.
    game.handle_timeout(ms(13_000));
    drain(&mut game, &mut follower, ms(113_000));
    assert!(!follower.clocks_running());
    let stopped = follower.clocks(ms(200_000)).map(|clocks| clocks.black);
    assert_eq!(stopped, Some(Duration::ZERO));
    assert_eq!(follower.status(), game.status());
}

#[test]
fn a_standing_that_does_not_describe_a_match_is_refused() {
    let game = Match::new(blitz(), ms(0));
    let good = game.standing(ms(0));
    let refused = |edit: fn(&mut Standing)| {
        let mut standing = good.clone();
        edit(&mut standing);
        MatchState::follow(&standing, ms(0)).err()
    };
    assert!(matches!(
        refused(|s| s.moves = vec![HORSE]),
        Some(FollowError::IllegalMove { ply: 1, .. })
    ));
    assert_eq!(
        refused(|s| s.clocks = None),
        Some(FollowError::ClocksMismatch)
    );
    assert_eq!(
        refused(|s| {
            s.pending_undo = Some(UndoRequest {
                by: Color::Red,
                plies: 1,
            });
        }),
        Some(FollowError::UndoMismatch)
    );
    assert_eq!(
        refused(|s| {
            s.pending_draw = Some(Color::Red);
            s.status = Status::Finished(GameResult::Draw {
                reason: crate::DrawReason::Agreement,
            });
        }),
        Some(FollowError::PendingAfterEnd)
    );
    assert_eq!(
        MatchState::follow(&good, ms(0))
            .as_ref()
            .map(MatchState::moves),
        Ok(&[][..])
    );
}
