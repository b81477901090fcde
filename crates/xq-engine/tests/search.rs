//! The search's contract: legal moves only, the same answer for the same input, a prompt
//! stop, the game's repetition rules, and the levels.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use xq_engine::{Clock, Engine, Frozen, Game, Level, Limits, Options, Score, SearchError, Thought};
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::{Move, Position};

fn position(fen: &str) -> Position {
    let Ok(Ok(pos)) = fen.parse::<Fen>().map(Fen::into_position) else {
        panic!("{fen}: not a legal position");
    };
    pos
}

/// The game of `moves` (ICCS) from `start`.
fn game(start: Position, moves: &str) -> Game {
    let mut game = Game::new(start);
    for text in moves.split_whitespace() {
        let mv = text
            .parse::<Iccs>()
            .ok()
            .and_then(|iccs| iccs.to_move(game.position()).ok())
            .unwrap_or_else(|| panic!("{text}: illegal"));
        if let Err(e) = game.push(mv) {
            panic!("{e}");
        }
    }
    game
}

fn search(engine: &mut Engine, game: &Game, limits: &Limits) -> Thought {
    engine
        .search(game, limits, &Frozen, &AtomicBool::new(false), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Positions from a seeded random play-out: `count` of them, one every few plies.
fn playout_positions(seed: u64, count: usize) -> Vec<Game> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut game = Game::new(Position::startpos());
    let mut games = Vec::new();
    while games.len() < count {
        let moves = game.position().legal_moves();
        if moves.is_empty() || game.moves().len() > 150 {
            game = Game::new(Position::startpos());
            continue;
        }
        let mv = moves[next() % moves.len()];
        if let Err(e) = game.push(mv) {
            panic!("{e}");
        }
        if next() % 4 == 0 {
            games.push(game.clone());
        }
    }
    games
}

#[test]
fn every_move_and_line_it_gives_is_legal() {
    let mut engine = Engine::new(Options {
        hash_mib: 1,
        ..Options::default()
    });
    for game in playout_positions(7, 40) {
        let thought = search(&mut engine, &game, &Limits::nodes(2_000));
        assert!(game.position().is_legal(thought.best), "{}", thought.best);
        assert_eq!(thought.pv.first(), Some(&thought.best));
        let mut pos = game.position().clone();
        for &mv in &thought.pv {
            pos = pos.play(mv).unwrap_or_else(|e| panic!("pv: {e}"));
        }
        if let Some(ponder) = thought.ponder {
            assert_eq!(thought.pv.get(1), Some(&ponder));
        }
    }
}

#[test]
fn the_same_input_gives_the_same_answer() {
    for game in playout_positions(11, 4) {
        for limits in [Limits::depth(4), Limits::nodes(5_000)] {
            let a = search(&mut Engine::new(Options::default()), &game, &limits);
            let b = search(&mut Engine::new(Options::default()), &game, &limits);
            assert_eq!(a, b);
            // A cleared engine is a new one.
            let mut engine = Engine::new(Options::default());
            search(&mut engine, &playout_positions(3, 1)[0], &Limits::depth(3));
            engine.clear();
            assert_eq!(search(&mut engine, &game, &limits), a);
        }
    }
}

/// A clock that moves a millisecond each time it is read and raises the stop flag on its
/// `raise_at`th reading.
struct Ticking<'a> {
    reads: Cell<u64>,
    raise_at: u64,
    stop: &'a AtomicBool,
}

impl Clock for Ticking<'_> {
    fn elapsed(&self) -> Duration {
        let reads = self.reads.get() + 1;
        self.reads.set(reads);
        if reads == self.raise_at {
            self.stop.store(true, Ordering::Relaxed);
        }
        Duration::from_millis(reads)
    }
}

#[test]
fn the_stop_flag_ends_the_search_within_a_bound() {
    let game = game(Position::startpos(), "h2e2 h9g7 h0g2 i9h9");
    let stop = AtomicBool::new(false);
    let clock = Ticking {
        reads: Cell::new(0),
        raise_at: 20,
        stop: &stop,
    };
    // A distant deadline, so that the clock is read with the flag, every 512 nodes.
    let limits = Limits::movetime(Duration::from_secs(3_600));
    let thought = Engine::new(Options::default())
        .search(&game, &limits, &clock, &stop, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(game.position().is_legal(thought.best));
    // The flag is read every 512 nodes; the clock is read there and once an iteration.
    assert!(thought.nodes <= 20 * 512 + 512, "{} nodes", thought.nodes);
    // Raised before the search, the flag still leaves a legal move.
    let stop = AtomicBool::new(true);
    let thought = Engine::new(Options::default())
        .search(&game, &Limits::default(), &Frozen, &stop, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(game.position().is_legal(thought.best));
}

#[test]
fn the_deadline_is_kept_on_the_callers_clock() {
    let game = game(Position::startpos(), "h2e2 h9g7");
    let stop = AtomicBool::new(false);
    let clock = Ticking {
        reads: Cell::new(0),
        raise_at: u64::MAX,
        stop: &stop,
    };
    let thought = Engine::new(Options::default())
        .search(
            &game,
            &Limits::movetime(Duration::from_millis(30)),
            &clock,
            &stop,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(clock.reads.get() <= 40, "{} reads", clock.reads.get());
    assert!(game.position().is_legal(thought.best));
}

#[test]
fn iterations_are_reported_in_order() {
    let game = game(Position::startpos(), "");
    let mut depths = Vec::new();
    Engine::new(Options::default())
        .search(
            &game,
            &Limits::depth(5),
            &Frozen,
            &AtomicBool::new(false),
            &mut |info| {
                assert!(!info.pv.is_empty());
                depths.push(info.depth);
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(depths, [1, 2, 3, 4, 5]);
}

#[test]
fn a_finished_game_has_no_move() {
    // Black is mated.
    let pos = position("3aka3/9/9/9/9/4C4/4C4/9/9/3K5 b - - 0 1");
    assert!(pos.is_checkmate());
    let result = Engine::new(Options::default()).search(
        &Game::new(pos),
        &Limits::depth(3),
        &Frozen,
        &AtomicBool::new(false),
        &mut |_| {},
    );
    assert_eq!(result, Err(SearchError::GameOver));
}

/// Red's chariot checks Black's general back and forth between d8 and d9: the next check
/// from d9 repeats the position after Red's first, a cycle in which Red checked with every
/// move.
const PERPETUAL: (&str, &str) = ("4k4/9/3R5/9/9/9/9/9/9/3K5 w - - 0 1", "d7d9 e9e8 d9d8 e8e9");

#[test]
fn the_engine_does_not_check_perpetually() {
    let (fen, moves) = PERPETUAL;
    let game = game(position(fen), moves);
    let repeat = Move::new(xq_rules::Square::D8, xq_rules::Square::D9);
    assert!(game.position().is_legal(repeat));
    for rule in xq_session::RepetitionRule::ALL {
        let mut engine = Engine::new(Options {
            rule,
            ..Options::default()
        });
        let thought = search(&mut engine, &game, &Limits::depth(4));
        assert_ne!(thought.best, repeat, "{rule}");
        // Red keeps its winning chances: a chariot up.
        assert!(thought.score > Score::Centipawns(300) || thought.score.is_mate());
    }
}

#[test]
fn the_engine_claims_a_perpetual_against_it() {
    // Black to move, in check, after Red's d9d8: going back to e9 lets Red repeat only by
    // losing, so Black sees no loss there, though a chariot down with a bare general.
    let (fen, moves) = PERPETUAL;
    let game = game(position(fen), &format!("{moves} d8d9 e9e8 d9d8"));
    let mut engine = Engine::new(Options::default());
    let thought = search(&mut engine, &game, &Limits::depth(2));
    // Every Black move is an answer to the check; the one back into the cycle wins if Red
    // repeats, so the search expects Red to break off and scores it as the position is.
    assert!(game.position().is_legal(thought.best));
    assert!(!matches!(thought.score, Score::Mate(n) if n <= 0));
}

#[test]
fn the_move_limit_is_a_draw() {
    // Red is a chariot up, but one quiet move from the natural limit: no progress can be
    // made before it, so the score is a draw.
    let pos = position("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 119 80");
    let thought = search(
        &mut Engine::new(Options::default()),
        &Game::new(pos.clone()),
        &Limits::depth(3),
    );
    assert_eq!(thought.score, Score::Centipawns(0));
    let unlimited = Options {
        move_limit: None,
        ..Options::default()
    };
    let thought = search(
        &mut Engine::new(unlimited),
        &Game::new(pos),
        &Limits::depth(3),
    );
    assert!(thought.score > Score::Centipawns(300));
}

#[test]
fn levels_play_legal_moves_the_same_way_for_the_same_seed() {
    let games = playout_positions(5, 6);
    let stop = AtomicBool::new(false);
    for n in [1, 3, 5] {
        let level = Level::new(n).unwrap_or_else(|e| panic!("{e}"));
        let mut moves = Vec::new();
        for game in &games {
            let think = |seed| {
                Engine::new(Options {
                    hash_mib: 1,
                    ..Options::default()
                })
                .think(game, level, &Limits::default(), seed, &Frozen, &stop)
                .unwrap_or_else(|e| panic!("{e}"))
                .best
            };
            let mv = think(42);
            assert!(game.position().is_legal(mv));
            assert_eq!(think(42), mv);
            moves.push((mv, think(43)));
        }
        if n == 1 {
            // The weakest level varies its play with the seed.
            assert!(moves.iter().any(|(a, b)| a != b));
        }
    }
}
