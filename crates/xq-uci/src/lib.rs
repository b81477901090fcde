//! The UCI protocol as Xiangqi engines speak it, in both directions, and a driver that plays
//! external engines.
//!
//! - [`Command`] (GUI → engine) and [`EngineMessage`] (engine → GUI) are typed lines with
//!   `parse` and `to_line`. Parsing is total: any `&str` gives a message or a typed
//!   [`ParseError`], never a panic. Unknown tokens are skipped, as the UCI specification asks.
//! - [`Dialect`] is how an engine writes squares: ICCS ranks `0`..`9` (Pikafish) or `1`..`10`
//!   (Fairy-Stockfish, whose `UCI_Variant` must be set to `xiangqi`). Every move text goes
//!   through it, so no other part of a program needs to know.
//! - [`replay`] plays a `position … moves …` history with the rules, for the driver and for an
//!   engine built on [`Command`]; [`Start::from_position`] and [`Start::to_position`] convert
//!   the start.
//! - [`EngineCore`] is the driver's conversation with an engine as a sans-IO state machine:
//!   lines in, lines out, deadlines as values. It does the handshake, detects the dialect,
//!   sets options, runs searches with a deadline (then `stop`, then a grace period), and
//!   refuses a `bestmove` that is not legal in the position.
//! - [`Engine`] (feature `process`) runs the core over a child process on tokio.
//!
//! The crate does not play games: it answers one search at a time, and what a forfeit or a
//! hung engine means for a match is the caller's decision.
//!
//! # Examples
//!
//! ```
//! use xq_rules::{Move, Square};
//! use xq_uci::{Command, Dialect, EngineMessage, Go};
//!
//! // What a GUI sends to Fairy-Stockfish …
//! let go = Command::Go(Go { depth: Some(8), ..Go::default() });
//! assert_eq!(go.to_line(Dialect::OneBased), "go depth 8");
//! // … and what it answers.
//! let answer = EngineMessage::parse("bestmove b1c3", Dialect::OneBased)?;
//! assert_eq!(
//!     answer,
//!     EngineMessage::BestMove { best: Some(Move::new(Square::B0, Square::C2)), ponder: None }
//! );
//! # Ok::<_, xq_uci::ParseError>(())
//! ```
//!
//! # Feature flags
//!
//! - `process` (default): [`Engine`], the driver over a child process on tokio. Without it the
//!   crate is the messages and the sans-IO core, which build for `wasm32-unknown-unknown`.

#![warn(missing_docs)]

mod command;
mod core;
mod dialect;
mod driver_error;
#[cfg(feature = "process")]
mod engine;
mod engine_command;
mod error;
mod go;
mod history;
mod info;
mod message;
mod option;
mod options;
mod tokens;

pub use command::{Command, Start};
pub use core::{CoreEvent, EngineCore, Reply};
pub use dialect::{Dialect, ParseMoveError};
pub use driver_error::{DriverError, MoveRefusal};
#[cfg(feature = "process")]
pub use engine::Engine;
pub use engine_command::{EngineCommand, ParseEngineCommandError};
pub use error::ParseError;
pub use go::Go;
pub use history::{HistoryError, replay};
pub use info::{Bound, Info, InfoScore, Score};
pub use message::{EngineMessage, IdField};
pub use option::{OptionDecl, OptionKind};
pub use options::DriverOptions;

/// The README's example, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
