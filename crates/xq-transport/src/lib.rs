//! One async interface over xq's frame transports, chosen at run time by URL.
//!
//! | URL | transport |
//! | --- | --- |
//! | `mem://name` | in-process channels ([`mem`]), for tests and single-process play |
//! | `udp://host:port` | xq's own reliable UDP (`xq-transport-udp`) |
//! | `quic://host:port?fp=<sha-256 hex>` | QUIC via quinn (`xq-transport-quic`); `?ca=<pem file>` or `?insecure` instead of `fp` |
//! | `ws://host:port` | WebSocket at `/ws`, on a port that also serves a web page (`xq-transport-ws`) |
//! | `wss://host:port` | WebSocket over TLS; the client trusts the web's CAs, `?ca=<pem file>` or `?insecure` |
//!
//! Every transport gives the same guarantee: **frames arrive whole, once, in order, or the
//! connection reports that it failed.** A frame is a byte vector; what it means is the
//! protocol's business, not the transport's.
//!
//! # Examples
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), xq_transport::TransportError> {
//! use xq_transport::{Options, connect, listen};
//!
//! let listener = listen("mem://doc-example", &Options::default()).await?;
//! let client = connect(&listener.local_url(), &Options::default()).await?;
//! let server = listener.accept().await?;
//! client.send(b"hello".to_vec()).await?;
//! assert_eq!(server.recv().await?, b"hello");
//! # Ok(())
//! # }
//! ```
//!
//! # Feature flags
//!
//! - `udp` (default): the `udp://` scheme.
//! - `quic` (default): the `quic://` scheme.
//! - `ws` (default): the `ws://` and `wss://` schemes, with [`Options::ws`]. Its listener is an
//!   HTTP server (hyper), which the desktop GUI must not link: the workspace's members take
//!   this crate without it (the root `Cargo.toml`), and those that serve or dial WebSockets ask
//!   for it, as `xq-server`'s `ws` feature does.

#![warn(missing_docs)]

mod address;
mod connection;
mod error;
pub mod mem;
mod options;
mod peer;
#[cfg(feature = "quic")]
mod quic;
#[cfg(feature = "udp")]
mod udp;
#[cfg(feature = "ws")]
mod ws;

pub use address::{Address, Verify, reachable};
pub use connection::{Connection, ConnectionStats, Listener};
pub use error::TransportError;
pub use options::Options;
#[cfg(feature = "ws")]
pub use options::{WsOptions, WsTls};
pub use peer::Peer;
#[cfg(feature = "ws")]
pub use xq_transport_ws::Site;

use std::sync::Arc;

/// Connects to the endpoint named by `url`.
///
/// # Errors
///
/// [`TransportError::InvalidUrl`] for a malformed URL or an unknown scheme, otherwise what the
/// transport reports (nobody listening, handshake failure, certificate mismatch…).
pub async fn connect(url: &str, options: &Options) -> Result<Arc<dyn Connection>, TransportError> {
    match url.parse::<Address>()? {
        Address::Mem { name } => Ok(Arc::new(mem::connect(&name, options)?)),
        #[cfg(feature = "udp")]
        Address::Udp { host, port } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Arc::new(udp::connect(addr, options).await?))
        }
        #[cfg(feature = "quic")]
        Address::Quic { host, port, verify } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Arc::new(
                quic::connect(url, addr, host, verify, options).await?,
            ))
        }
        #[cfg(feature = "ws")]
        Address::Ws { host, port } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Arc::new(ws::connect(url, addr, host, None, options).await?))
        }
        #[cfg(feature = "ws")]
        Address::Wss { host, port, verify } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Arc::new(
                ws::connect(url, addr, host, Some(verify), options).await?,
            ))
        }
        #[allow(unreachable_patterns)] // reachable when a transport feature is off
        _ => Err(unsupported(url)),
    }
}

/// Listens on the endpoint named by `url` (port 0 picks a free port; see
/// [`Listener::local_url`]).
///
/// # Errors
///
/// [`TransportError::InvalidUrl`] for a malformed URL or an unknown scheme, otherwise what the
/// transport reports (address in use, unreadable certificate…).
pub async fn listen(url: &str, options: &Options) -> Result<Box<dyn Listener>, TransportError> {
    match url.parse::<Address>()? {
        Address::Mem { name } => Ok(Box::new(mem::listen(&name, options)?)),
        #[cfg(feature = "udp")]
        Address::Udp { host, port } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Box::new(udp::listen(addr, options).await?))
        }
        #[cfg(feature = "quic")]
        Address::Quic { host, port, .. } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Box::new(quic::listen(addr, host, options).await?))
        }
        #[cfg(feature = "ws")]
        Address::Ws { host, port } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Box::new(ws::listen(url, addr, false, options).await?))
        }
        #[cfg(feature = "ws")]
        Address::Wss { host, port, .. } => {
            let addr = resolve(url, &host, port).await?;
            Ok(Box::new(ws::listen(url, addr, true, options).await?))
        }
        #[allow(unreachable_patterns)] // reachable when a transport feature is off
        _ => Err(unsupported(url)),
    }
}

/// Where a `quic://` URL points and the client settings it gives (how to trust the server,
/// and `options`): for a program that opens many connections over one shared
/// [`xq_transport_quic::ClientEndpoint`], where [`connect`] gives each a socket of its own.
///
/// # Errors
///
/// [`TransportError::InvalidUrl`] for a malformed or non-`quic://` URL, one that says no way
/// to trust the server, or a host that does not resolve.
#[cfg(feature = "quic")]
pub async fn quic_client(
    url: &str,
    options: &Options,
) -> Result<(std::net::SocketAddr, xq_transport_quic::ClientConfig), TransportError> {
    match url.parse::<Address>()? {
        Address::Quic { host, port, verify } => {
            let addr = resolve(url, &host, port).await?;
            Ok((addr, quic::client_config(url, host, verify, options)?))
        }
        _ => Err(TransportError::InvalidUrl {
            url: url.to_string(),
            reason: "not a quic:// URL".to_string(),
        }),
    }
}

fn unsupported(url: &str) -> TransportError {
    TransportError::InvalidUrl {
        url: url.to_string(),
        reason: "this build does not include that transport".to_string(),
    }
}

/// Resolves a host name to its first socket address.
#[cfg(any(feature = "udp", feature = "quic", feature = "ws"))]
async fn resolve(url: &str, host: &str, port: u16) -> Result<std::net::SocketAddr, TransportError> {
    let invalid = |reason: String| TransportError::InvalidUrl {
        url: url.to_string(),
        reason,
    };
    tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| invalid(format!("cannot resolve '{host}': {e}")))?
        .next()
        .ok_or_else(|| invalid(format!("'{host}' has no address")))
}
