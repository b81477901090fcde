//! The reliable UDP transport under a bad network: a game played through 20% datagram loss and
//! reordering in both directions ends exactly as the same game played on a clean link.

use std::net::SocketAddr;

use xq_client::ClientEvent;
use xq_protocol::RoomOptions;
use xq_rules::fen::Fen;
use xq_rules::{Move, Position};
use xq_session::Event;
use xq_tests::{Loss, LossyUdpProxy, Pair, Relay, Scheme, expect, pair_at, run};

/// A seeded line of legal moves from the start (the game may end before it is used up).
fn line(seed: u64, plies: usize) -> Vec<Move> {
    let mut pos = Position::startpos();
    let mut state = seed | 1;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = legal[(state >> 33) as usize % legal.len()];
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    moves
}

/// Plays `moves`, then Red resigns; returns every match event each player saw, and the final
/// FEN.
async fn play(pair: &mut Pair, moves: &[Move]) -> (Vec<(u64, Event)>, Vec<(u64, Event)>, String) {
    let mut seen = (Vec::new(), Vec::new());
    let pick = |e: &ClientEvent| match e {
        ClientEvent::Match { seq, event } => Some((*seq, event.clone())),
        _ => None,
    };
    for (i, &mv) in moves.iter().enumerate() {
        let mover = if i % 2 == 0 { &pair.red } else { &pair.black };
        mover
            .play(mv)
            .await
            .unwrap_or_else(|e| panic!("move {i} {mv}: {e}"));
        seen.0.push(expect(&mut pair.red, pick).await);
        seen.1.push(expect(&mut pair.black, pick).await);
    }
    pair.red
        .resign()
        .await
        .unwrap_or_else(|e| panic!("resign: {e}"));
    seen.0.push(expect(&mut pair.red, pick).await);
    seen.1.push(expect(&mut pair.black, pick).await);
    assert!(matches!(seen.1.last(), Some((_, Event::GameOver(_)))));
    let mirror = pair.black.mirror().unwrap_or_else(|| panic!("no mirror"));
    (
        seen.0,
        seen.1,
        Fen::from_position(mirror.position()).to_string(),
    )
}

#[test]
fn a_game_through_loss_and_reordering_ends_identically() {
    run(async {
        let moves = line(7, 16);
        let clean = Relay::start(Scheme::Udp, "clean").await;
        let mut pair = pair_at(
            clean.url(),
            clean.url(),
            clean.options(),
            RoomOptions::default(),
        )
        .await;
        let expected = play(&mut pair, &moves).await;
        clean.shutdown().await;

        let relay = Relay::start(Scheme::Udp, "lossy").await;
        let upstream: SocketAddr = relay
            .url()
            .trim_start_matches("udp://")
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        let loss = |seed| Loss {
            drop_percent: 20,
            reorder_percent: 20,
            seed,
        };
        let red_link = LossyUdpProxy::start(upstream, loss(11)).await;
        let black_link = LossyUdpProxy::start(upstream, loss(23)).await;
        let mut pair = pair_at(
            &red_link.url(),
            &black_link.url(),
            relay.options(),
            RoomOptions::default(),
        )
        .await;
        let got = play(&mut pair, &moves).await;
        assert_eq!(got, expected);
        relay.shutdown().await;
    });
}
