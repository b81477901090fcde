//! A Xiangqi match as a sans-IO state machine: the referee between two seats.
//!
//! [`Match`] checks turns and moves (with `xq-rules`), takes moves back by consent, handles
//! draw offers, resignation and abandonment, runs the clocks, and ends the game by checkmate,
//! stalemate, repetition (with the rules on perpetual check and perpetual chase), the natural move limit or the flag.
//! The relay, a local game and the tests all drive the same `Match`, so every rule of play
//! lives here once. Whoever follows a match from afar (a client, a GUI, a bot) holds a
//! [`MatchState`], the same state the match keeps, built from the match's own events, and
//! checks a player's [`Action`] with the same code before sending it.
//!
//! It does **no** IO: no sockets, no threads, no `async`, no randomness, and it never reads a
//! clock. Time is a [`Timestamp`] the caller passes in; events come out of a queue. Records
//! are written and read as PGN ([`pgn`]) and stepped through with [`Replay`].
//!
//! # Match rules
//!
//! - Only the side to move may play, and only legal moves.
//! - **Undo by consent**: a seat requests, the opponent accepts or declines. If the requester
//!   moved last, one ply is taken back; if the opponent has moved since, two, so the requester
//!   is on move again. Captured pieces come back and the position is restored exactly. One
//!   request is pending at a time; it lapses when anyone moves or the game ends, or when the
//!   requester withdraws it. [`UndoPolicy`] forbids undo or limits how many each seat is
//!   granted. An undo does not turn the clocks back: time spent stays spent, and the
//!   increments the taken-back moves earned stay too, since the opponent consented to the
//!   undo. So a clock can come out of an undo with more time than it had before the move.
//! - **Draws**: an offer stands until the opponent accepts, declines or makes its next move.
//! - **The game ends** by checkmate or stalemate (the side that cannot move loses), by the
//!   third occurrence of a position with the same side to move (judged by the Asian rules
//!   that [`RepetitionRule::Asian`] states in full: a side that checked with every move of
//!   the cycle loses, else a side that chased one and the same piece with every move; when
//!   both sides, or neither, did so, it is a draw), by the
//!   natural move limit (default 120 plies without a capture: a draw), by a flag, by
//!   resignation, by agreement, or by abandonment (the relay's verdict on a seat that stayed
//!   away; a draw when both seats did, and their grace periods ended together).
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//! use xq_rules::{Color, Move, Square};
//! use xq_session::{
//!     Action, Event, GameResult, Match, MatchConfig, Status, TimeControl, Timestamp, WinReason,
//! };
//!
//! let mut config = MatchConfig::default();
//! config.time_control = TimeControl::Increment {
//!     base: Duration::from_secs(60),
//!     increment: Duration::from_secs(1),
//! };
//! let mut game = Match::new(config, Timestamp::from_millis(0));
//!
//! // Red plays after 5 s; the event carries the move and both clocks.
//! let mv = Move::new(Square::H2, Square::E2);
//! game.handle(Timestamp::from_millis(5_000), Action::Play(mv).by(Color::Red))?;
//! while let Some(event) = game.poll_event() {
//!     if let Event::MovePlayed { clocks: Some(clocks), .. } = event {
//!         assert_eq!(clocks.red, Duration::from_secs(56));
//!     }
//! }
//!
//! // Black never answers: at the deadline its flag falls.
//! let deadline = game.poll_timeout().expect("Black's clock runs");
//! assert_eq!(deadline, Timestamp::from_millis(65_000));
//! game.handle_timeout(deadline);
//! assert_eq!(
//!     game.status(),
//!     Status::Finished(GameResult::Win { winner: Color::Red, reason: WinReason::TimeForfeit })
//! );
//! # Ok::<_, xq_session::CommandError>(())
//! ```
//!
//! # Feature flags
//!
//! - `serde`: derives `Serialize`/`Deserialize` for [`Action`], [`Command`], [`Event`], [`Standing`], [`MatchConfig`]
//!   (its start position as FEN), [`RepetitionRule`], [`TimeControl`], [`Timestamp`], [`UndoPolicy`],
//!   [`UndoRequest`], [`Played`], [`MoveText`], [`Status`], [`GameResult`], [`Seat`] and the
//!   [`Journal`], so the protocol can carry them and the relay can persist matches. Enables
//!   `xq-rules/serde`.

#![warn(missing_docs)]

mod adjudication;
mod clock;
mod command;
mod config;
mod event;
mod game;
mod history;
mod journal;
mod record;
mod repetition;
mod replay;
mod result;
mod seat;
mod state;
mod text;
mod undo;

pub mod pgn;

pub use clock::{TimeControl, Timestamp};
pub use command::{Action, Command, CommandError};
pub use config::MatchConfig;
pub use event::Event;
pub use game::{Match, RematchError};
pub use history::Played;
pub use journal::{Entry, Input, Journal, RebuildError};
pub use record::{Record, RecordError, Tags};
pub use repetition::{CycleError, ParseRepetitionRuleError, RepetitionRule};
pub use replay::Replay;
pub use result::{DrawReason, GameResult, Status, WinReason};
pub use seat::Seat;
pub use state::{FollowError, MatchState, Standing};
pub use text::MoveText;
pub use undo::{UndoPolicy, UndoRequest};
