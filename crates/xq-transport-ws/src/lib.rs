//! Frame-oriented connections over WebSocket for xq: a server on hyper that also serves the
//! web client's page, and a native client.
//!
//! A [`Connection`] moves frames of bytes, and guarantees that they arrive whole, once and in
//! order, or that the connection reports why it failed. A server binds a [`Listener`]; a
//! client calls [`connect`].
//!
//! # What it does
//!
//! - **Framing.** Each frame is one binary WebSocket message (tokio-tungstenite). Messages
//!   and their frames are bounded by [`TransportConfig::max_frame_size`]: sending a larger one
//!   fails without touching the connection, and a peer announcing a larger one fails the
//!   connection from the frame's header, before it is read. A text message fails the
//!   connection too: xq frames are binary.
//! - **One port for the page and the game.** The listener is an HTTP/1.1 server (hyper). A
//!   request for [`WS_PATH`] that asks to upgrade becomes a connection; every other request
//!   goes to the [`Site`] of the [`ServerConfig`], if there is one.
//! - **Origins.** A browser lets any page open a WebSocket anywhere, and says which page in
//!   `Origin`: by default only the listener's own pages may connect
//!   ([`ServerConfig::allowed_origins`]); a refused upgrade gets `403` and never becomes a
//!   connection. Native clients send no `Origin`.
//! - **Bounded handshakes.** Connections not upgraded yet are bounded per address and in all,
//!   and in time: see [`HandshakeLimits`].
//! - **TLS** (`wss`) with rustls on ring: the server's certificate from PEM files
//!   ([`ServerTls`]), the client's trust from a CA file, the web's roots, or nothing
//!   ([`Verify`]).
//! - **Liveness.** A ping every 2 seconds and an 8-second idle timeout notice a vanished peer
//!   within 10 seconds ([`TransportConfig`]); a graceful [`Connection::close`] is the
//!   WebSocket close handshake.
//!
//! # What it does not do
//!
//! It knows nothing of messages or games, speaks no HTTP/2, compresses nothing
//! (`permessage-deflate`), negotiates no subprotocol and does not reconnect.
//!
//! [`http`] and [`bytes`] are re-exported, so that a [`Site`] is written against the
//! versions this crate uses (http 1, bytes 1).
//!
//! # Example
//!
//! ```
//! use xq_transport_ws::{ClientConfig, Listener, ServerConfig, connect};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let listener = Listener::bind("127.0.0.1:0".parse()?, ServerConfig::new()).await?;
//! let client = connect(listener.local_addr(), &ClientConfig::new("127.0.0.1")).await?;
//! let server = listener.accept().await?;
//!
//! client.send(b"h2e2".to_vec()).await?;
//! assert_eq!(server.recv().await?, b"h2e2");
//! client.close().await;
//! assert!(matches!(server.recv().await, Err(xq_transport_ws::Error::ClosedByPeer)));
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! This crate has none. It uses tokio, and ring as rustls' crypto provider.

#![warn(missing_docs)]

mod client;
mod config;
mod connection;
mod counted;
mod driver;
mod error;
mod listener;
mod origin;
mod routes;
mod site;
mod slots;
mod tls;

pub use bytes;
pub use http;

pub use crate::client::connect;
pub use crate::config::{ClientConfig, HandshakeLimits, ServerConfig, TransportConfig};
pub use crate::connection::{Connection, Stats};
pub use crate::error::Error;
pub use crate::listener::Listener;
pub use crate::routes::WS_PATH;
pub use crate::site::Site;
pub use crate::tls::{ServerTls, Verify};
