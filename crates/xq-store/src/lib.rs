//! Durable storage for the xq relay: the rooms that are open, each match's journal, and an
//! archive of finished games.
//!
//! - [`Persist`] is what the relay core ([`xq-server`]) asks to keep: a match started, an
//!   input its match accepted, a match over, a room closed. Replayed in order, the changes
//!   rebuild every open match exactly ([`xq_session::Match::from_journal`]); [`OpenRoom`] is
//!   what comes back after a restart.
//! - [`Storage`] is the interface of a storage engine: commit a batch of changes atomically
//!   and durably, list the open rooms, list and export archived games. It leaves room for a
//!   networked engine.
//! - [`SqliteStore`] is the default engine (feature `sqlite`): one SQLite file in
//!   write-ahead-logging mode, with a versioned schema (an unknown version is refused, never
//!   overwritten).
//!
//! The crate does no networking and starts no thread or task: the relay's driver runs the
//! engine on a thread of its own and groups commits (see `xq-server`).
//!
//! # Examples
//!
//! ```
//! # #[cfg(feature = "sqlite")] {
//! use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
//! use xq_rules::{Color, Move, Square};
//! use xq_session::{Action, Entry, Input, Seat, Timestamp};
//! use xq_store::{Persist, SqliteStore, Storage};
//!
//! let mut store = SqliteStore::open(":memory:")?;
//! let code = RoomCode::from_u64(7);
//! let play = Action::Play(Move::new(Square::H2, Square::E2)).by(Color::Red);
//! let entry = Entry { at: Timestamp::from_millis(1_500), input: Input::Command(play) };
//! store.commit(&[
//!     Persist::MatchStarted {
//!         code,
//!         options: RoomOptions::default(),
//!         red: Seat::First,
//!         started: Timestamp::from_millis(1_000),
//!         first_token: ResumeToken([1; 16]),
//!         second_token: ResumeToken([2; 16]),
//!     },
//!     Persist::Entry { code, seq: 0, entry },
//! ])?;
//!
//! let rooms = store.open_rooms()?;
//! assert_eq!(rooms.len(), 1);
//! assert_eq!(rooms[0].entries, [entry]);
//! # }
//! # Ok::<_, xq_store::StoreError>(())
//! ```
//!
//! # Feature flags
//!
//! - `sqlite` (default): the SQLite engine, [`SqliteStore`] and [`SqliteArchive`]. SQLite is
//!   compiled in (rusqlite's `bundled` feature), so the relay needs no system library.
//!   Without it the crate is the interface alone, for a relay that keeps nothing or an
//!   engine of its own; depend on it with `default-features = false` then.
//!
//! [`xq-server`]: https://docs.rs/xq-server

#![warn(missing_docs)]

mod archive;
mod error;
mod persist;
#[cfg(feature = "sqlite")]
mod schema;
#[cfg(feature = "sqlite")]
mod sqlite;
mod storage;
#[cfg(feature = "sqlite")]
mod sweep;

pub use archive::{Archived, GameId, GameSummary, UnixTime, player_name};
pub use error::StoreError;
pub use persist::{OpenRoom, Persist};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteArchive, SqliteStore};
pub use storage::{Committed, Storage};
