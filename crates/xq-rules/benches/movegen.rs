//! Move generator speed: perft nodes per second, beside a simple baseline measured in the same run.
//!
//! `perft` counts the last ply in bulk (the number of legal moves, without playing them). The
//! baseline plays every leaf move on a copied position and counts at depth 0, as a generator
//! without bulk counting does; the ratio of the two is what bulk counting and the legality
//! short-cut buy.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xq_rules::{Position, fen::Fen, perft};

const MIDDLEGAMES: [(&str, &str); 2] = [
    (
        "middlegame1",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    ),
    (
        "middlegame2",
        "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w - - 0 1",
    ),
];

fn position(fen: &str) -> Position {
    let fen: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    fen.into_position().unwrap_or_else(|e| panic!("{e}"))
}

/// Perft without bulk counting: every leaf is played.
fn baseline_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            baseline_perft(&child, depth - 1)
        })
        .sum()
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    let start = Position::startpos();
    let mut cases = vec![("startpos", start.clone(), 5, 133_312_995)];
    cases.push(("startpos", start.clone(), 4, 3_290_240));
    for ((name, fen), nodes) in MIDDLEGAMES.iter().zip([1_339_047, 649_866]) {
        cases.push((name, position(fen), 4, nodes));
    }
    for (name, pos, depth, nodes) in cases {
        assert_eq!(perft(&pos, depth), nodes, "{name} depth {depth}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{name}/depth{depth}"), |b| {
            b.iter(|| perft(black_box(&pos), depth));
        });
    }
    assert_eq!(baseline_perft(&start, 4), 3_290_240);
    group.throughput(Throughput::Elements(3_290_240));
    group.bench_function("baseline_startpos/depth4", |b| {
        b.iter(|| baseline_perft(black_box(&start), 4));
    });
    group.finish();
}

fn bench_ops(c: &mut Criterion) {
    let pos = position(MIDDLEGAMES[0].1);
    let mv = pos.legal_moves()[0];
    let fen_text = MIDDLEGAMES[0].1;
    c.bench_function("legal_moves/middlegame1", |b| {
        b.iter(|| black_box(&pos).legal_moves())
    });
    c.bench_function("play/middlegame1", |b| {
        b.iter(|| black_box(pos.clone()).play(black_box(mv)).is_ok());
    });
    c.bench_function("fen/parse", |b| {
        b.iter(|| black_box(fen_text).parse::<Fen>().is_ok())
    });
    c.bench_function("fen/display", |b| {
        b.iter(|| Fen::from_position(black_box(&pos)).to_string())
    });
}

criterion_group!(benches, bench_perft, bench_ops);
criterion_main!(benches);
