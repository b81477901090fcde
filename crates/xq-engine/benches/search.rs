//! Search speed on a few middlegames: fixed-depth searches under criterion, measured against
//! perft on the same positions (the rules' own speed, the baseline), and one second of
//! search each, printed as depth and nodes per second.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use xq_engine::{Clock, Engine, Game, Limits, Options};
use xq_rules::iccs::Iccs;
use xq_rules::{Position, perft};

/// Middlegames reached by common openings, as moves from the start.
const LINES: [(&str, &str); 3] = [
    (
        "central cannon against screen horses",
        "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b0c2 c6c5 h0h6 b7a7 h6g6 a9b9",
    ),
    (
        "same-direction cannons",
        "h2e2 h7e7 h0g2 h9g7 i0h0 i9h9 b0c2 b9c7 b2b6 c6c5",
    ),
    (
        "elephant opening",
        "c0e2 h7e7 h0g2 h9g7 i0h0 i9h9 b0c2 b9c7 g3g4 c6c5 b2b4 i6i5",
    ),
];

struct Wall(Instant);

impl Clock for Wall {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}

fn game(moves: &str) -> Game {
    let mut game = Game::new(Position::startpos());
    for text in moves.split_whitespace() {
        let mv = text
            .parse::<Iccs>()
            .ok()
            .and_then(|iccs| iccs.to_move(game.position()).ok())
            .unwrap_or_else(|| panic!("{text} is illegal in {moves}"));
        game.push(mv).unwrap_or_else(|e| panic!("{e}"));
    }
    game
}

fn one_second(games: &[(&str, Game)]) {
    for (name, game) in games {
        let mut engine = Engine::new(Options::default());
        let clock = Wall(Instant::now());
        let limits = Limits::movetime(Duration::from_secs(1));
        let thought = engine
            .search(game, &limits, &clock, &AtomicBool::new(false), &mut |_| {})
            .unwrap_or_else(|e| panic!("{e}"));
        let secs = clock.elapsed().as_secs_f64();
        let start = Instant::now();
        let leaves = perft(game.position(), 3);
        let perft_rate = leaves as f64 / start.elapsed().as_secs_f64();
        let rate = thought.nodes as f64 / secs;
        println!(
            "{name}: 1 s search, depth {}, {} nodes, {:.0} nodes/s ({:.3} of perft's {:.0} leaves/s), {} {}",
            thought.depth,
            thought.nodes,
            rate,
            rate / perft_rate,
            perft_rate,
            thought.best,
            thought.score
        );
    }
}

fn bench(c: &mut Criterion) {
    let games: Vec<(&str, Game)> = LINES
        .iter()
        .map(|&(name, moves)| (name, game(moves)))
        .collect();
    one_second(&games);
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (name, game) in &games {
        group.bench_function(format!("perft 3, {name}"), |b| {
            b.iter(|| perft(black_box(game.position()), 3));
        });
        group.bench_function(format!("depth 6, {name}"), |b| {
            b.iter(|| {
                let mut engine = Engine::new(Options {
                    hash_mib: 4,
                    ..Options::default()
                });
                engine
                    .search(
                        game,
                        &Limits::depth(6),
                        &xq_engine::Frozen,
                        &AtomicBool::new(false),
                        &mut |_| {},
                    )
                    .map(|thought| thought.nodes)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
