//! Mates in 1, 2 and 3, each found at the depth it takes (2n - 1 plies) with the score that
//! names it, from both sides of the board. The positions were composed for these tests and
//! their mate distances checked twice: by Fairy-Stockfish 11.1 (`go depth 14`), and here by
//! an exhaustive search with no pruning ([`forced_mate`]), which has the last word (it found
//! a defence Fairy-Stockfish's pruned search had missed, one of its "mates in 2" is a mate in 3).

use std::sync::atomic::AtomicBool;

use xq_engine::{Engine, Frozen, Game, Limits, Options, Score};
use xq_rules::Position;
use xq_rules::fen::Fen;

/// (what mates, FEN, mate in n moves).
const MATES: &[(&str, &str, i32)] = &[
    (
        "chariot on the back rank",
        "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1",
        1,
    ),
    (
        "chariot beside the general's file",
        "3k5/9/9/9/9/9/9/9/9/RR2K4 w - - 0 1",
        1,
    ),
    (
        "chariot and the facing general",
        "4ka3/4a4/9/9/9/9/9/9/9/1N1K1R3 w - - 0 1",
        1,
    ),
    (
        "chariot over a stripped palace",
        "4k4/4a4/3a5/9/9/9/9/9/R8/1R2K4 w - - 0 1",
        1,
    ),
    (
        "double cannons",
        "3aka3/9/9/9/C8/4C4/9/9/9/3K5 w - - 0 1",
        1,
    ),
    (
        "cannon behind cannon",
        "3aka3/9/9/9/9/C8/9/9/4C4/3K5 w - - 0 1",
        1,
    ),
    (
        "horse on the palace corner",
        "3k5/3n5/9/9/1N7/9/9/9/9/4K4 w - - 0 1",
        1,
    ),
    (
        "soldier held by the facing general",
        "3nkn3/9/4P4/9/9/9/9/9/9/4K4 w - - 0 1",
        1,
    ),
    (
        "soldier and chariot",
        "4k4/9/3P5/9/9/9/9/9/9/3K1R3 w - - 0 1",
        1,
    ),
    (
        "two chariots from rank 7",
        "4k4/9/R8/9/9/9/9/9/9/1R1K5 w - - 0 1",
        2,
    ),
    (
        "two chariots from rank 6",
        "4k4/9/9/R8/9/9/9/9/9/1R1K5 w - - 0 1",
        2,
    ),
    (
        "two chariots from home",
        "4k4/9/9/9/9/9/9/9/9/RR1K5 w - - 0 1",
        2,
    ),
    (
        "chariot with a cannon's screen",
        "4k4/9/9/9/9/9/9/9/4C4/R2K5 w - - 0 1",
        2,
    ),
    (
        "chariot, cannon at home",
        "4k4/9/9/9/9/9/9/9/9/R2K1C3 w - - 0 1",
        2,
    ),
    (
        "chariot and cannon",
        "3k5/9/9/9/9/9/9/9/4C4/R3K4 w - - 0 1",
        2,
    ),
    (
        "chariot along the rank",
        "5k3/9/9/9/9/9/9/9/9/N2K4R w - - 0 1",
        2,
    ),
    (
        "chariot and soldier",
        "3k5/9/9/9/9/9/4P4/9/9/R3K4 w - - 0 1",
        3,
    ),
    (
        "chariot against an advisor",
        "3k5/4a4/9/9/9/9/9/9/9/R3K4 w - - 0 1",
        3,
    ),
    (
        "chariot and cannon against an advisor",
        "3k5/4a4/9/9/9/9/9/9/9/2C1K3R w - - 0 1",
        3,
    ),
    (
        "soldier and the general",
        "3k5/9/9/2P6/9/9/9/9/9/4K4 w - - 0 1",
        3,
    ),
];

fn position(fen: &str) -> Position {
    let Ok(Ok(pos)) = fen.parse::<Fen>().map(Fen::into_position) else {
        panic!("{fen}: not a legal position");
    };
    pos
}

/// Follows `pv` from `pos`, checking every move, and returns where it ends.
fn follow(pos: &Position, pv: &[xq_rules::Move]) -> Position {
    let mut pos = pos.clone();
    for &mv in pv {
        pos = pos
            .play(mv)
            .unwrap_or_else(|e| panic!("illegal move in the pv: {e}"));
    }
    pos
}

/// Whether the side to move mates (or stalemates: the same loss) within `n` moves, by trying
/// every line: the tests' independent judge of a mate's distance.
fn forced_mate(pos: &Position, n: u32) -> bool {
    n > 0
        && pos.legal_moves().into_iter().any(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let replies = child.legal_moves();
            replies.is_empty()
                || (n > 1
                    && replies.into_iter().all(|reply| {
                        let mut next = child.clone();
                        next.play_unchecked(reply);
                        forced_mate(&next, n - 1)
                    }))
        })
}

#[test]
fn the_mates_are_at_the_distances_listed() {
    // Exhaustive, so the mates in 3 only in optimised builds.
    let deepest = if cfg!(debug_assertions) { 2 } else { 3 };
    for &(name, fen, n) in MATES.iter().filter(|(_, _, n)| *n as u32 <= deepest) {
        let pos = position(fen);
        assert!(forced_mate(&pos, n as u32), "{name}: no mate in {n}");
        assert!(
            !forced_mate(&pos, n as u32 - 1),
            "{name}: a mate in {}",
            n - 1
        );
    }
}

#[test]
fn mates_are_found_at_their_depth_from_both_sides() {
    let stop = AtomicBool::new(false);
    for &(name, fen, n) in MATES {
        for pos in [position(fen), position(fen).mirrored()] {
            let mut engine = Engine::new(Options::default());
            let depth = 2 * n as u32 - 1;
            let game = Game::new(pos.clone());
            let thought = engine
                .search(&game, &Limits::depth(depth), &Frozen, &stop, &mut |_| {})
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                thought.score,
                Score::Mate(n),
                "{name} ({fen}), {:?}",
                pos.turn()
            );
            assert_eq!(thought.pv.first(), Some(&thought.best), "{name}");
            if n == 1 {
                let after = follow(&pos, &[thought.best]);
                assert!(
                    !after.has_legal_move(),
                    "{name}: {} does not mate",
                    thought.best
                );
            }
        }
    }
}

#[test]
fn a_mate_in_n_is_not_claimed_any_shallower() {
    let stop = AtomicBool::new(false);
    for &(name, fen, n) in MATES.iter().filter(|(_, _, n)| *n > 1) {
        let mut engine = Engine::new(Options::default());
        let game = Game::new(position(fen));
        // Two plies short: the mate lies beyond the horizon, though checks are extended.
        let thought = engine
            .search(
                &game,
                &Limits::depth(2 * n as u32 - 3),
                &Frozen,
                &stop,
                &mut |_| {},
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !matches!(thought.score, Score::Mate(m) if m < n),
            "{name}: claims {} at depth {}",
            thought.score,
            2 * n - 3
        );
    }
}

#[test]
fn the_mated_side_sees_its_fate() {
    // One move into each mate in 2, the defender is mated in 1 whatever it does.
    let stop = AtomicBool::new(false);
    for &(name, fen, _) in MATES.iter().filter(|(_, _, n)| *n == 2) {
        let pos = position(fen);
        let mut engine = Engine::new(Options::default());
        let thought = engine
            .search(
                &Game::new(pos.clone()),
                &Limits::depth(3),
                &Frozen,
                &stop,
                &mut |_| {},
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = follow(&pos, &[thought.best]);
        let mut engine = Engine::new(Options::default());
        let reply = engine
            .search(
                &Game::new(after),
                &Limits::depth(2),
                &Frozen,
                &stop,
                &mut |_| {},
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(reply.score, Score::Mate(-1), "{name}");
    }
}
