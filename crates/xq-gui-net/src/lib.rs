//! The network play of the xq GUI: the IO behind `xq-gui-model`'s pure view-model.
//!
//! - [`Network`]: a tokio runtime on a background thread, on which every task below runs, so
//!   the GUI's frame never waits for the network.
//! - [`RemoteGame`]: a game on a relay, through `xq-client`, as an
//!   [`xq_gui_model::GameBackend`]: the view-model plays it as it plays a local game. It is
//!   the model's [`xq_gui_model::RelayGame`] (shared with the browser's game) over a
//!   [`TaskLink`], which only sends on one channel and polls another, and calls a [`Wake`]
//!   (the app's repaint request) when news arrives.
//! - [`Lobby`]: the connect panel's logic: connect by URL and create, join, quick-match or
//!   spectate ([`Entry`]), or [`Host`] a relay in this process for an opponent on the local
//!   network. Results arrive as [`Pending`] values, polled each frame.
//!
//! The hosted relay is an `xq-server` with no storage and no metrics endpoint: nothing
//! survives it, and it links neither SQLite nor an HTTP server.
//!
//! # Examples
//!
//! A relay URL that does not parse is reported at once, before anything is sent:
//!
//! ```
//! use std::sync::Arc;
//!
//! use xq_gui_net::Lobby;
//!
//! let mut lobby = Lobby::new();
//! lobby.create("tcp://relay.example", Arc::new(|| {}));
//! assert!(lobby.error().is_some_and(|error| error.starts_with("bad relay URL")));
//! assert!(!lobby.is_busy());
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

mod host;
mod lobby;
mod network;
mod remote;

pub use host::{Host, HostConfig};
pub use lobby::Lobby;
pub use network::{ConnectError, Entry, Network, Pending};
pub use remote::{RemoteGame, TaskLink, Wake};
