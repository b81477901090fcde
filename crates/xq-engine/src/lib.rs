//! A Xiangqi engine: an alpha-beta search over the rules of `xq-rules`, with a hand-tuned
//! evaluation, that obeys and claims the match's repetition rules from `xq-session`.
//!
//! It does no IO, starts no thread and reads no clock: a search runs on the caller's thread
//! until its [`Limits`] (depth, nodes, or a deadline on the [`Clock`] the caller passes) or a
//! stop flag end it, so it compiles for `wasm32-unknown-unknown` and its tests are
//! deterministic. A UCI front end, a bot seat or a browser worker drive it.
//!
//! - [`Game`] is the root and the history the repetition judge looks back through.
//! - [`Engine::search`] searches to limits and reports each iteration as an [`Info`];
//!   [`Engine::think`] plays at a [`Level`] for people.
//! - [`evaluate`] is the static evaluation, in centipawns for the side to move.
//!
//! The search: iterative deepening with aspiration windows, principal variation search, a
//! transposition table, null-move pruning, late-move reductions, futility pruning, check
//! extensions and a quiescence search over captures and check evasions. A position that
//! repeats one of the search's path or of the game is judged as the match would judge the
//! cycle ([`xq_session::RepetitionRule::judge_cycle`]): a perpetual check or chase loses for
//! the side that commits it, any other repetition is a draw, and so is the natural move limit.
//!
//! # Examples
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use xq_engine::{Engine, Frozen, Game, Limits, Options, Score};
//! use xq_rules::fen::Fen;
//!
//! // Red wins at once: with the chariot on rank 8 (or on the d-file) and Red's general
//! // holding the e-file, Black's general cannot move, and in Xiangqi a side that cannot move
//! // has lost.
//! let pos = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1".parse::<Fen>()?.into_position()?;
//! let mut engine = Engine::new(Options::default());
//! let stop = AtomicBool::new(false);
//! let thought = engine.search(&Game::new(pos.clone()), &Limits::depth(2), &Frozen, &stop, &mut |_| {})?;
//! assert!(!pos.play(thought.best)?.has_legal_move());
//! assert_eq!(thought.score, Score::Mate(1));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

mod clock;
mod engine;
mod eval;
mod game;
mod level;
mod rng;
mod score;
mod search;
mod tt;

pub use clock::{Clock, Frozen, Limits};
pub use engine::{Engine, Info, Options, SearchError, Thought};
pub use eval::evaluate;
pub use game::{Game, IllegalMoveError};
pub use level::{Level, LevelError};
pub use score::Score;

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctest;
