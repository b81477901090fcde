//! The repetition judge's cost: the move that completes a third occurrence, beside the move
//! that completes the second (which only scans for earlier occurrences), in the same match.
//!
//! A loop of moves is at least 4 plies, and the span judged at the third occurrence is two
//! loops. The loops here: a chariot chasing a cannon to and fro, 4 plies (every move of the
//! chaser chases, so the judge looks at all of them), and a cannon led round a circuit of 8,
//! 16 and 32 plies by a chariot that attacks it at every step but the two turns (the judge
//! stops at the first turn).

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::{Move, Square};
use xq_session::{Action, Match, MatchConfig, Timestamp};

/// Black's cannon on rank 5 (Red's chariot below it on rank 2) or rank 6 (the chariot on
/// rank 3); both generals behind an advisor on the e-file.
const CIRCUIT: &str = "4k4/4a4/9/9/c8/9/9/R8/4A4/4K4 b - - 0 1";

/// One loop of the circuit `steps` files wide: right along rank 5, up, left along rank 6,
/// down, the chariot following on the file each time.
fn circuit(steps: u8) -> Vec<Move> {
    let at = |file: u8, rank: u8| Square::from_index(rank * 9 + file).unwrap_or(Square::A0);
    let mut moves = Vec::new();
    let mut step = |cannon: (Square, Square), chariot: (Square, Square)| {
        moves.push(Move::new(cannon.0, cannon.1));
        moves.push(Move::new(chariot.0, chariot.1));
    };
    for file in 0..steps {
        step(
            (at(file, 5), at(file + 1, 5)),
            (at(file, 2), at(file + 1, 2)),
        );
    }
    step((at(steps, 5), at(steps, 6)), (at(steps, 2), at(steps, 3)));
    for file in (1..=steps).rev() {
        step(
            (at(file, 6), at(file - 1, 6)),
            (at(file, 3), at(file - 1, 3)),
        );
    }
    step((at(0, 6), at(0, 5)), (at(0, 3), at(0, 2)));
    moves
}

/// A match from `fen` with `moves` played, all but the last: the last is returned.
fn before_last(fen: &str, moves: &[Move]) -> (Match, Move) {
    let start = fen.parse::<Fen>().map(Fen::into_position);
    let Ok(Ok(start)) = start else {
        panic!("{fen}: not a legal position");
    };
    let mut config = MatchConfig::default();
    config.start = Arc::new(start);
    let now = Timestamp::from_millis(0);
    let mut game = Match::new(config, now);
    let (last, played) = moves.split_last().unwrap_or_else(|| panic!("no moves"));
    for &mv in played {
        let by = game.turn();
        game.handle(now, Action::Play(mv).by(by))
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    while game.poll_event().is_some() {}
    (game, *last)
}

/// Times the last of `moves`: its handling and the events it makes, not the copy of the
/// match it is played on. It must end the game exactly when `ends` says.
fn time_last(c: &mut Criterion, name: &str, fen: &str, moves: &[Move], ends: bool) {
    let (game, last) = before_last(fen, moves);
    let mut check = game.clone();
    let by = check.turn();
    check
        .handle(Timestamp::from_millis(0), Action::Play(last).by(by))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        !check.status().is_ongoing(),
        ends,
        "{name}: {:?}",
        check.status()
    );
    c.bench_function(name, |b| {
        b.iter_batched(
            || game.clone(),
            |mut game| {
                let by = game.turn();
                let result = game.handle(Timestamp::from_millis(0), Action::Play(last).by(by));
                while game.poll_event().is_some() {}
                black_box((result, game.status()))
            },
            BatchSize::SmallInput,
        );
    });
}

fn repetition(c: &mut Criterion) {
    // Red's chariot leads into a shuttle with its first move; the span is the 8 plies after.
    let chase = "4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1";
    let lead: Vec<Move> = "a3b3 b7c7 b3c3 c7b7 c3b3 b7c7 b3c3 c7b7 c3b3"
        .split(' ')
        .map(|text| {
            let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{e}"));
            Move::new(iccs.from, iccs.to)
        })
        .collect();
    time_last(c, "loop-4/second occurrence", chase, &lead[..5], false);
    time_last(c, "loop-4/third occurrence", chase, &lead, true);
    for steps in [1, 3, 7] {
        let one = circuit(steps);
        let plies = one.len();
        let twice = [one.clone(), one].concat();
        time_last(
            c,
            &format!("loop-{plies}/second occurrence"),
            CIRCUIT,
            &twice[..plies],
            false,
        );
        time_last(
            c,
            &format!("loop-{plies}/third occurrence"),
            CIRCUIT,
            &twice,
            true,
        );
    }
}

criterion_group!(benches, repetition);
criterion_main!(benches);
