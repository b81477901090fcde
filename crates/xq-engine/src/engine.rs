//! The engine: what persists between searches, and the search's results.

use std::num::NonZeroU32;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use xq_rules::Move;
use xq_session::RepetitionRule;

use crate::rng::SplitMix64;
use crate::score::{INFINITY, MATE, MATE_BOUND};
use crate::search::{Heuristics, Iteration, MAX_PLY, RootMove, Search};
use crate::tt::Table;
use crate::{Clock, Game, Level, Limits, Score};

/// How the engine is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The transposition table's size in mebibytes.
    pub hash_mib: usize,
    /// The repetition rule the game is played under, which the search obeys and claims.
    pub rule: RepetitionRule,
    /// The natural move limit in plies without a capture (a draw), if the game has one.
    pub move_limit: Option<NonZeroU32>,
}

impl Default for Options {
    /// 16 MiB of table, the Asian rules, and the 120-ply move limit.
    fn default() -> Self {
        Self {
            hash_mib: 16,
            rule: RepetitionRule::Asian,
            move_limit: NonZeroU32::new(120),
        }
    }
}

/// A Xiangqi engine. It owns the transposition table and the move-ordering history, which it
/// reuses across searches of one game; [`Engine::clear`] forgets them for a new game.
///
/// It does no IO and reads no clock: time comes from the [`Clock`] each search is given, and
/// a search stops at its [`Limits`] or when the stop flag is set. With the same state, game
/// and limits that do not depend on time, a search is deterministic.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use xq_engine::{Engine, Frozen, Game, Limits, Options};
/// use xq_rules::Position;
///
/// let mut engine = Engine::new(Options::default());
/// let game = Game::new(Position::startpos());
/// let thought = engine.search(&game, &Limits::depth(3), &Frozen, &AtomicBool::new(false), &mut |_| {})?;
/// assert!(game.position().is_legal(thought.best));
/// # Ok::<_, xq_engine::SearchError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Engine {
    options: Options,
    tt: Table,
    heuristics: Heuristics,
}

/// Progress, reported after each completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The depth completed.
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// The score of the best move.
    pub score: Score,
    /// The nodes searched so far.
    pub nodes: u64,
    /// The time since the search began, on its clock.
    pub elapsed: Duration,
    /// The principal variation, from the root.
    pub pv: Vec<Move>,
}

/// A search's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    /// The move to play.
    pub best: Move,
    /// The reply expected, if the search saw one.
    pub ponder: Option<Move>,
    /// The score of `best`, from the side to move's point of view.
    pub score: Score,
    /// The depth of the last iteration that chose `best`.
    pub depth: u32,
    /// The nodes searched.
    pub nodes: u64,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
}

/// Why a search has no move to give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The side to move has no legal move: the game is over (it has lost).
    #[error("no legal move: the game is over")]
    GameOver,
}

impl Engine {
    /// An engine with empty tables.
    #[must_use]
    pub fn new(options: Options) -> Self {
        Self {
            options,
            tt: Table::new(options.hash_mib),
            heuristics: Heuristics::new(),
        }
    }

    /// The options it was built with.
    #[must_use]
    pub const fn options(&self) -> &Options {
        &self.options
    }

    /// Forgets what earlier searches learnt: for a new game.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.heuristics.clear();
    }

    /// Searches the current position of `game` until `limits` or `stop` end it, calling
    /// `report` after each completed iteration, and returns the best move found.
    ///
    /// # Errors
    ///
    /// [`SearchError::GameOver`] if the side to move has no legal move.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        clock: &dyn Clock,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Info),
    ) -> Result<Thought, SearchError> {
        let root_moves = game
            .position()
            .legal_moves()
            .into_iter()
            .map(|mv| RootMove::new(mv, 0))
            .collect();
        self.run(game, limits, clock, stop, report, root_moves)
    }

    /// Chooses a move at a strength `level` for people: the level's node budget, and at
    /// levels below the top a random preference among the moves, drawn from `seed`, so that
    /// the same seed plays the same game. Thinks for [`Level::TIME`] at most, and within
    /// `limits` too (a clock's, for a level in a timed game; [`Limits::default`] for none).
    ///
    /// # Errors
    ///
    /// [`SearchError::GameOver`] if the side to move has no legal move.
    pub fn think(
        &mut self,
        game: &Game,
        level: Level,
        limits: &Limits,
        seed: u64,
        clock: &dyn Clock,
        stop: &AtomicBool,
    ) -> Result<Thought, SearchError> {
        let mut rng = SplitMix64::new(seed ^ game.moves().len() as u64);
        let spread = level.spread();
        let root_moves = game
            .position()
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let bonus = if spread == 0 {
                    0
                } else {
                    rng.below(spread + 1) as i32
                };
                RootMove::new(mv, bonus)
            })
            .collect();
        let limits = level.limits().within(limits);
        self.run(game, &limits, clock, stop, &mut |_| {}, root_moves)
    }

    fn run(
        &mut self,
        game: &Game,
        limits: &Limits,
        clock: &dyn Clock,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Info),
        root_moves: Vec<RootMove>,
    ) -> Result<Thought, SearchError> {
        let Some(first) = root_moves.first().map(|root| root.mv) else {
            return Err(SearchError::GameOver);
        };
        let single = root_moves.len() == 1;
        self.tt.age();
        self.heuristics.age();
        // The repetition judge needs the positions since the last capture before the root.
        let positions = game.positions();
        let back = (game.position().halfmoves() as usize).min(positions.len() - 1);
        let from = positions.len() - 1 - back;
        let mut search = Search::new(
            &mut self.tt,
            &mut self.heuristics,
            self.options.rule,
            self.options.move_limit.map(NonZeroU32::get),
            *limits,
            clock,
            stop,
            &positions[from..],
            &game.moves()[from..],
            root_moves,
        );
        let max_depth = limits
            .depth
            .map_or(MAX_PLY as u32 - 8, |d| d.clamp(1, MAX_PLY as u32 - 8));
        let mut best: Option<Iteration> = None;
        for depth in 1..=max_depth {
            let iteration = aspiration(&mut search, depth as i32, best.as_ref().map(|it| it.score));
            let Some(iteration) = iteration else { break };
            let complete = !search.aborted();
            if !iteration.pv.is_empty() {
                best = Some(iteration);
            }
            if !complete {
                break;
            }
            if let Some(it) = &best {
                report(&Info {
                    depth,
                    seldepth: search.seldepth.max(depth),
                    score: Score::from_internal(it.score),
                    nodes: search.nodes,
                    elapsed: clock.elapsed(),
                    pv: it.pv.clone(),
                });
            }
            let elapsed = clock.elapsed();
            // Don't start an iteration that would likely not finish before the soft limit.
            if limits
                .soft_deadline
                .is_some_and(|soft| elapsed * 2 >= soft || single)
            {
                break;
            }
            // A mate found, and confirmed a few plies deeper, will not change.
            if let Some(it) = &best
                && it.score.abs() >= MATE_BOUND
                && depth as i32 > (MATE - it.score.abs()) + 4
                && limits.depth.is_none()
            {
                break;
            }
        }
        let nodes = search.nodes;
        let (score, depth, pv) = match best {
            Some(it) => (it.score, it.depth, it.pv),
            None => (0, 0, vec![first]),
        };
        Ok(Thought {
            best: pv[0],
            ponder: pv.get(1).copied(),
            score: Score::from_internal(score),
            depth,
            nodes,
            pv,
        })
    }
}

/// One iteration in a window around the last score, widened until the score falls inside.
fn aspiration(search: &mut Search<'_>, depth: i32, last: Option<i32>) -> Option<Iteration> {
    let mut delta = 30;
    let (mut alpha, mut beta) = match last {
        Some(score) if depth >= 4 && score.abs() < MATE_BOUND => (score - delta, score + delta),
        _ => (-INFINITY, INFINITY),
    };
    let mut found = None;
    loop {
        let iteration = search.root(depth, alpha, beta)?;
        let score = iteration.score;
        if !iteration.pv.is_empty() {
            found = Some(iteration);
        }
        if search.aborted() {
            return found;
        }
        if score <= alpha && alpha > -INFINITY {
            alpha = (score - delta).max(-INFINITY);
        } else if score >= beta && beta < INFINITY {
            beta = (score + delta).min(INFINITY);
        } else {
            return found;
        }
        delta *= 2;
        if delta > 600 {
            (alpha, beta) = (-INFINITY, INFINITY);
        }
    }
}
