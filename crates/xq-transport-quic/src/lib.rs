//! Frame-oriented connections over QUIC, built on [quinn].
//!
//! A [`Connection`] moves frames of bytes, and guarantees that they arrive whole, once and in
//! order, or that the connection reports why it failed. A server binds a [`Listener`]; a client
//! calls [`connect`].
//!
//! # What it does
//!
//! - **Framing.** Each connection carries one bidirectional QUIC stream. The client opens it and
//!   first writes a 4-byte header (`xqf` and a version byte), which the server checks before
//!   [`Listener::accept`] returns the connection. Then every frame is a big-endian `u32` length
//!   and that many bytes. Frames are bounded by [`TransportConfig::max_frame_size`]: sending a
//!   larger one fails without touching the connection, and a peer announcing a larger one fails
//!   the connection before anything is allocated for it.
//! - **Identity.** [`Identity::load_or_generate`] creates a self-signed certificate on first
//!   start and keeps it as PEM in a directory, so that its [`Fingerprint`] stays the same across
//!   restarts.
//! - **Verification.** A client trusts the server through a CA file, a pinned fingerprint, or,
//!   only when asked by name, not at all: see [`Verify`].
//! - **Liveness.** Keep-alives and an idle timeout are on by default, so a dead peer is noticed
//!   within 10 seconds ([`TransportConfig`]).
//!
//! # What it does not do
//!
//! It knows nothing of messages or games: frames are opaque bytes, and encoding them is the
//! protocol's business. It does not reconnect, resume sessions, use 0-RTT or unreliable
//! datagrams, or authenticate clients.
//!
//! # Example
//!
//! ```
//! use xq_transport_quic::{ClientConfig, Identity, Listener, ServerConfig, Verify, connect};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let identity = Identity::load_or_generate(dir.path(), &["localhost"])?;
//! let listener = Listener::bind("127.0.0.1:0".parse()?, ServerConfig::new(identity)).await?;
//!
//! let pin = listener.fingerprint().parse()?;
//! let config = ClientConfig::new(Verify::Fingerprint(pin), "localhost");
//! let client = connect(listener.local_addr(), config).await?;
//! let server = listener.accept().await?;
//!
//! client.send(b"h2e2".to_vec()).await?;
//! assert_eq!(server.recv().await?, b"h2e2");
//! client.close().await;
//! assert!(matches!(server.recv().await, Err(xq_transport_quic::Error::ClosedByPeer)));
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! This crate has none. It uses tokio as quinn's runtime and ring as rustls' crypto provider.

#![warn(missing_docs)]

mod config;
mod connection;
mod error;
mod fingerprint;
mod framing;
mod handshakes;
mod identity;
mod listener;
mod socket;
mod tls;
mod verify;

pub use crate::config::{ClientConfig, ServerConfig, TransportConfig};
pub use crate::connection::{ClientEndpoint, Connection, Stats, connect};
pub use crate::error::Error;
pub use crate::fingerprint::{Fingerprint, ParseFingerprintError};
pub use crate::identity::{CERT_FILE, Identity, IdentityError, KEY_FILE};
pub use crate::listener::Listener;
pub use crate::socket::Closed;
pub use crate::verify::Verify;

#[cfg(test)]
mod tests;
