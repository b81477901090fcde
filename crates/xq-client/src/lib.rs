//! xq's client library: connects to a relay over any transport, enters a room, sends the
//! player's commands and keeps a local mirror of the match in step with the relay.
//!
//! - [`Client`] is the async side: [`Client::connect`] by URL (`mem://`, `udp://`,
//!   `quic://…?fp=<hex>`), then create, join, quick match or spectate, and
//!   [`Client::leave`] for another room on the same connection; commands such as
//!   [`Client::play`]; a stream of [`ClientEvent`]s; and automatic reconnection with the
//!   seat's resume token for the relay's grace period. A program restarted while seated
//!   takes its seat back with [`Client::resume`] and the token it saved from
//!   [`Client::resume_token`]. Given a relay cluster's nodes ([`Relays`], a comma-separated
//!   list), it follows a node's redirect to the room's owner and, when its relay goes away,
//!   resumes through the next node of the list.
//! - [`ClientCore`] is the whole conversation with the relay as a sans-IO state machine:
//!   hello, rooms, actions, rematch, leave, keep-alive pings, reconnecting and resuming the
//!   seat, with an id on every request. `Client` drives it; so can a browser, a load
//!   generator driving thousands from one task, or a test scripting every frame.
//! - [`Mirror`] is the room as the core holds it: the match rebuilt from a snapshot and
//!   advanced by the relay's numbered events (position, legal moves, moves played, clocks,
//!   pending offers, presence, result), and its game record for PGN ([`Mirror::record`]). It does no IO and
//!   reads no clock; any program that receives the protocol's messages can use it on its own.
//!
//! The client never decides anything about the game: the relay is the only authority, and
//! the client applies what the relay says, in the order of the protocol's conversation (see
//! `xq_protocol`). Legal moves come from `xq-rules`.
//!
//! # Testing two clients in one process
//!
//! Integration tests start a relay (`xq-server`) on `mem://` and connect two clients to it.
//! This crate does not depend on the relay, so the example is not run here: the workspace's
//! `tests/` crate runs it (`tests/client/docs.rs`).
//!
//! ```ignore
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use xq_client::{Client, ClientEvent, ClientOptions};
//! use xq_protocol::{RoomOptions, SeatChoice};
//! use xq_rules::{Move, Square};
//! use xq_server::Server;
//!
//! let server = Server::builder().listen("mem://two-clients").start().await?;
//! let url = &server.local_urls()[0];
//! let mut red = Client::connect(url, ClientOptions::default()).await?;
//! let mut black = Client::connect(url, ClientOptions::default()).await?;
//!
//! let options = RoomOptions { seat: SeatChoice::Red, ..RoomOptions::default() };
//! let room = red.create(options).await?;
//! black.join(room.code).await?;
//! for player in [&mut red, &mut black] {
//!     assert!(matches!(player.next_event().await, Some(ClientEvent::MatchStarted)));
//! }
//!
//! red.play(Move::new(Square::H2, Square::E2)).await?;
//! assert!(matches!(black.next_event().await, Some(ClientEvent::Match { seq: 0, .. })));
//! assert_eq!(black.mirror().map(|m| m.moves().len()), Some(1));
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! - `tokio` (default): the async [`Client`], the core driven over any `xq-transport`
//!   connection on tokio. The transports are those `xq-transport` is built with (all by
//!   default). Without it the crate is [`ClientCore`] and [`Mirror`], with no IO and no clock,
//!   and builds for `wasm32-unknown-unknown`.

#![warn(missing_docs)]

#[cfg(feature = "tokio")]
mod client;
mod core;
#[cfg(feature = "tokio")]
mod driver;
mod error;
mod event;
mod mirror;
mod options;
mod relays;

#[cfg(feature = "tokio")]
pub use client::Client;
pub use core::{Answer, ClientCore, CoreEvent, Keepalive, REDIRECT_LIMIT};
pub use error::ClientError;
pub use event::{ClientEvent, Room};
pub use mirror::{Applied, Mirror, MirrorError};
pub use options::{ClientOptions, ReconnectPolicy};
pub use relays::{ParseRelaysError, Relays};
