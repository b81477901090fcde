//! Two in-process clients against an in-process relay, over each transport: every way a game
//! is played and ends, spectators, rematch, and a dropped client resuming mid-game.

use std::time::Duration;

use xq_client::ClientEvent;
use xq_protocol::{MIN_CLOCK, RoomOptions};
use xq_rules::fen::Fen;
use xq_rules::{Color, Position};
use xq_session::{DrawReason, Event, GameResult, RepetitionRule, TimeControl, WinReason};
use xq_tests::{
    FrameProxy, Relay, Scheme, connect, expect, match_event, moves, pair, pair_at, play_line,
    rematch_swapped, run, undo_round,
};

/// The quickest checkmate from the start: the cannon mates on the back rank over the advisor.
const MATE: &str = "b2b4 a6a5 b4c4 f9e8 c4c9";

fn game_over(event: &Event) -> Option<GameResult> {
    match event {
        Event::GameOver(result) => Some(*result),
        _ => None,
    }
}

async fn checkmate_seen_by_a_spectator(scheme: Scheme) {
    let relay = Relay::start(scheme, "checkmate").await;
    let mut pair = pair(&relay, RoomOptions::default()).await;
    let mut watcher = connect(relay.url(), relay.options()).await;
    let watching = watcher
        .spectate(pair.code)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(watching.seat, None);
    play_line(&mut pair, &mut [&mut watcher], &moves(MATE)).await;
    let mate = GameResult::Win {
        winner: Color::Red,
        reason: WinReason::Checkmate,
    };
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        let (_, event) = match_event(client).await;
        assert_eq!(game_over(&event), Some(mate));
        let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
        assert!(mirror.position().is_checkmate());
        assert_eq!(mirror.moves().len(), 5);
        assert_eq!(
            mirror.next_seq(),
            6,
            "five moves and the result, numbered without gaps"
        );
    }
    relay.shutdown().await;
}

/// Red's horse chases Black's cannon to and fro from the start until the position comes
/// round a third time.
const CHASE: &str = "b2b3 c6c5 b3b5 h7c7 g0i2 c7c3 b0a2 c3c2 a2b0 c2c3 b0a2 c3c2 a2b0 c2c3";

/// The relay judges a room by its repetition rule: the Asian rules (the default) make the
/// chaser lose, a room created to judge checks only draws the same game.
async fn perpetual_chase_by_the_rooms_rule(scheme: Scheme) {
    let relay = Relay::start(scheme, "chase").await;
    let rules = [
        (
            RepetitionRule::Asian,
            GameResult::Win {
                winner: Color::Black,
                reason: WinReason::PerpetualChase,
            },
        ),
        (
            RepetitionRule::ChecksOnly,
            GameResult::Draw {
                reason: DrawReason::Repetition,
            },
        ),
    ];
    for (repetition, ruling) in rules {
        let room = RoomOptions {
            repetition,
            ..RoomOptions::default()
        };
        let mut pair = pair(&relay, room).await;
        play_line(&mut pair, &mut [], &moves(CHASE)).await;
        for client in [&mut pair.red, &mut pair.black] {
            let (_, event) = match_event(client).await;
            assert_eq!(game_over(&event), Some(ruling), "{repetition}");
            let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
            assert_eq!(mirror.config().repetition, repetition);
            assert_eq!(mirror.status().result(), Some(ruling));
        }
    }
    relay.shutdown().await;
}

async fn undo_by_consent(scheme: Scheme) {
    let relay = Relay::start(scheme, "undo").await;
    let mut pair = pair(&relay, RoomOptions::default()).await;
    let start = Position::startpos();

    // The requester moved last: one ply comes back.
    play_line(&mut pair, &mut [], &moves("h2e2")).await;
    let answer = undo_round(&mut pair, &mut [], true).await;
    assert!(
        matches!(answer, Event::UndoApplied { plies: 1, .. }),
        "{answer:?}"
    );
    for client in [&pair.red, &pair.black] {
        assert_eq!(
            client.mirror().map(|m| m.position().clone()),
            Some(start.clone())
        );
    }

    // The opponent has moved since: two plies come back, and the captured piece with them.
    play_line(&mut pair, &mut [], &moves("h2h9 i9h9")).await;
    let answer = undo_round(&mut pair, &mut [], true).await;
    assert!(
        matches!(answer, Event::UndoApplied { plies: 2, .. }),
        "{answer:?}"
    );
    for client in [&pair.red, &pair.black] {
        let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
        assert_eq!(mirror.position(), &start);
        assert_eq!(mirror.position().zobrist_hash(), start.zobrist_hash());
    }

    // Declined: nothing moves back. (Red asks past the point of its last request: at the
    // same point or before it, the relay would refuse a second one.)
    play_line(&mut pair, &mut [], &moves("b0c2 h9g7 a0a1")).await;
    let answer = undo_round(&mut pair, &mut [], false).await;
    assert!(matches!(answer, Event::UndoDeclined { .. }), "{answer:?}");
    for client in [&pair.red, &pair.black] {
        assert_eq!(client.mirror().map(|m| m.moves().len()), Some(3));
    }
    relay.shutdown().await;
}

async fn draw_by_agreement(scheme: Scheme) {
    let relay = Relay::start(scheme, "draw").await;
    let mut pair = pair(&relay, RoomOptions::default()).await;
    play_line(&mut pair, &mut [], &moves("h2e2 h9g7")).await;
    pair.red
        .offer_draw()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black] {
        assert!(matches!(
            match_event(client).await.1,
            Event::DrawOffered { by: Color::Red }
        ));
    }
    pair.black
        .answer_draw(true)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black] {
        let result = game_over(&match_event(client).await.1);
        assert_eq!(
            result,
            Some(GameResult::Draw {
                reason: DrawReason::Agreement
            })
        );
    }
    relay.shutdown().await;
}

async fn resign_then_rematch_with_colours_swapped(scheme: Scheme) {
    let relay = Relay::start(scheme, "rematch").await;
    let mut pair = pair(&relay, RoomOptions::default()).await;
    play_line(&mut pair, &mut [], &moves("h2e2")).await;
    pair.black.resign().await.unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black] {
        let result = game_over(&match_event(client).await.1);
        assert_eq!(
            result,
            Some(GameResult::Win {
                winner: Color::Red,
                reason: WinReason::Resignation
            })
        );
    }
    rematch_swapped(&mut pair, &mut []).await;
    relay.shutdown().await;
}

async fn flag_fall(scheme: Scheme) {
    let relay = Relay::start(scheme, "flag").await;
    let room = RoomOptions {
        time_control: TimeControl::Increment {
            base: MIN_CLOCK,
            increment: Duration::from_millis(100),
        },
        ..RoomOptions::default()
    };
    let mut pair = pair(&relay, room).await;
    play_line(&mut pair, &mut [], &moves("h2e2")).await;
    // Black never answers: its clock runs out and the relay's timer ends the game.
    for client in [&mut pair.red, &mut pair.black] {
        let result = game_over(&match_event(client).await.1);
        assert_eq!(
            result,
            Some(GameResult::Win {
                winner: Color::Red,
                reason: WinReason::TimeForfeit
            })
        );
    }
    relay.shutdown().await;
}

async fn a_dropped_client_resumes_with_nothing_lost_or_doubled(scheme: Scheme) {
    let relay = Relay::start(scheme, "resume").await;
    let proxy_url = scheme.listen_url("resume-proxy");
    let proxy = FrameProxy::start(&proxy_url, relay.url(), relay.options()).await;
    // Black reaches the relay through the proxy, which the test can cut.
    let mut pair = pair_at(
        relay.url(),
        &proxy.url(),
        relay.options(),
        RoomOptions::default(),
    )
    .await;
    play_line(&mut pair, &mut [], &moves("h2e2 h9g7")).await;

    proxy.break_down();
    expect(&mut pair.black, |e| {
        matches!(e, ClientEvent::Reconnecting { .. }).then_some(())
    })
    .await;
    // Red moves while Black cannot reach the relay; the relay keeps Black's seat.
    let mv = moves("h0g2")[0];
    pair.red.play(mv).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        match_event(&mut pair.red).await.1,
        Event::MovePlayed { .. }
    ));
    proxy.heal();

    expect(&mut pair.black, |e| {
        matches!(e, ClientEvent::Reconnected).then_some(())
    })
    .await;
    let (red, black) = (
        pair.red.mirror().unwrap_or_else(|| panic!("no mirror")),
        pair.black.mirror().unwrap_or_else(|| panic!("no mirror")),
    );
    assert_eq!(
        black.moves().len(),
        3,
        "the move made while away came with the snapshot"
    );
    assert_eq!(black.position(), red.position());
    assert_eq!(black.next_seq(), red.next_seq());
    // Play continues from the resumed seat.
    let reply = moves("i9h9")[0];
    pair.black
        .play(reply)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Black's next event is its own reply: the move made while away is not replayed again.
    for client in [&mut pair.red, &mut pair.black] {
        let (seq, event) = match_event(client).await;
        assert_eq!(seq, 3);
        assert!(matches!(event, Event::MovePlayed { mv, .. } if mv == reply));
    }
    assert_eq!(
        Fen::from_position(pair.black.mirror().unwrap_or_else(|| panic!()).position()).to_string(),
        "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3"
    );
    drop(proxy);
    relay.shutdown().await;
}

xq_tests::over_every_transport!(
    checkmate_seen_by_a_spectator,
    undo_by_consent,
    draw_by_agreement,
    resign_then_rematch_with_colours_swapped,
    flag_fall,
    a_dropped_client_resumes_with_nothing_lost_or_doubled,
    perpetual_chase_by_the_rooms_rule,
);

#[test]
fn scenarios_run() {
    // The harness itself: a relay starts and stops on each transport.
    run(async {
        for scheme in Scheme::ALL {
            Relay::start(scheme, "harness").await.shutdown().await;
        }
    });
}
