//! A tactical suite: positions where one move is much better than every other, and the
//! share of them the engine solves at a fixed node budget.
//!
//! No public Xiangqi test suite with a licence we could use turned up, so this one is built
//! from Fairy-Stockfish 11.1's analysis (see `data/tactics.txt`): positions from games
//! between limited-strength Fairy-Stockfish players, kept where the full-strength engine at
//! depth 13 found its best move at least 250 centipawns above its second.

use std::sync::atomic::AtomicBool;

use xq_engine::{Engine, Frozen, Game, Limits, Options};
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;

const SUITE: &str = include_str!("data/tactics.txt");

/// The nodes each position gets.
const NODES: u64 = 10_000;

/// The share of the suite the engine must solve at [`NODES`], in percent: a floor under the
/// rate measured when the suite was made (40 of 47, 85%; 41 at 100 000 nodes), so that a
/// change that loses tactics fails.
const FLOOR: usize = 75;

#[test]
fn the_tactical_suite_is_solved_above_the_floor() {
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(Options {
        hash_mib: 4,
        ..Options::default()
    });
    let (mut solved, mut total) = (0, 0);
    let mut missed = Vec::new();
    for line in SUITE
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
    {
        let mut fields = line.split('|').map(str::trim);
        let (Some(fen), Some(best)) = (fields.next(), fields.next()) else {
            panic!("{line}: expected `fen | best move | ...`");
        };
        let Ok(Ok(pos)) = fen.parse::<Fen>().map(Fen::into_position) else {
            panic!("{fen}: not a legal position");
        };
        let best = best
            .parse::<Iccs>()
            .ok()
            .and_then(|iccs| iccs.to_move(&pos).ok())
            .unwrap_or_else(|| panic!("{line}: the best move is illegal"));
        engine.clear();
        let thought = engine
            .search(
                &Game::new(pos),
                &Limits::nodes(NODES),
                &Frozen,
                &stop,
                &mut |_| {},
            )
            .unwrap_or_else(|e| panic!("{e}"));
        total += 1;
        if thought.best == best {
            solved += 1;
        } else {
            missed.push(format!("{fen}: {} instead of {best}", thought.best));
        }
    }
    let rate = solved * 100 / total.max(1);
    println!("tactical suite: {solved} of {total} solved ({rate}%) at {NODES} nodes each");
    for miss in &missed {
        println!("  missed {miss}");
    }
    assert!(total >= 20, "the suite has only {total} positions");
    assert!(rate >= FLOOR, "{rate}% solved, below the floor of {FLOOR}%");
}
