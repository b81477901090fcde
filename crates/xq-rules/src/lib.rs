//! Xiangqi (Chinese chess) rules: positions, legal moves, game outcome on the board, and the
//! notations players and engines use.
//!
//! This crate does no IO and keeps no history. Everything that needs a history (repetition,
//! perpetual check, the natural move limit, clocks, undo) lives in the match session, which is
//! built on [`Position::zobrist_hash`], [`Position::halfmoves`] and [`Position::is_check`].
//!
//! - [`Setup`] is an unvalidated position; [`Position::from_setup`] is the only way to a
//!   [`Position`], which is legal and stays legal under [`Position::play`], since that checks
//!   every move. [`Position::play_unchecked`] trusts its caller: an illegal move breaks it.
//! - Notations live in their own modules: [`fen::Fen`], [`iccs::Iccs`] (`h2e2`), and the
//!   descriptive notations [`wxf::Wxf`] (`C2=5`, as Fairy-Stockfish writes it) and
//!   [`chinese::Chinese`] (`炮二平五`), which need the position to resolve.
//! - [`perft()`] counts leaves of the legal-move tree, to compare move generators.
//! - What the Asian rules' chase clauses ask of a position, for the session's repetition judge
//!   and for engines: [`Position::attack_set`], [`Position::chasers`], [`Position::capturers`],
//!   [`Position::attackers`],
//!   [`Position::recaptures`], [`Position::pinned`] and [`Position::horse_leg_pins`], as
//!   [`SquareSet`]s.
//!
//! # Examples
//!
//! ```
//! use xq_rules::{Position, fen::Fen, iccs::Iccs};
//!
//! let pos = Position::startpos();
//! let mv = "h2e2".parse::<Iccs>()?.to_move(&pos)?;
//! let pos = pos.play(mv)?;
//! assert_eq!(
//!     Fen::from_position(&pos).to_string(),
//!     "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
//! );
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! - `serde`: derives `Serialize`/`Deserialize` for [`Color`], [`ByColor`], [`Role`], [`Piece`],
//!   [`Square`] (as its index, validated on input), [`Move`] and [`Outcome`].

#![warn(missing_docs)]

mod bitboards;
mod board;
mod color;
mod descriptive;
mod movegen;
mod mv;
mod perft;
mod piece;
mod position;
mod role;
mod setup;
mod square;
mod square_set;
mod tables;
#[cfg(test)]
mod test_util;
mod threat;
mod zobrist;

pub mod chinese;
pub mod fen;
pub mod iccs;
pub mod wxf;

pub use board::Board;
pub use color::{ByColor, Color};
pub use mv::{Move, MoveList};
pub use perft::{divide, perft};
pub use piece::Piece;
pub use position::{IllegalMove, Outcome, PlayError, Position, PositionError};
pub use role::Role;
pub use setup::Setup;
pub use square::{File, ParseSquareError, Rank, Square, SquareIndexError};
pub use square_set::SquareSet;
