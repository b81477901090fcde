//! Settings for listeners and clients.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::{ServerTls, Site, Verify};

/// Settings shared by both ends of a connection.
///
/// The defaults detect a dead peer within 10 seconds: a ping every 2 seconds keeps a quiet
/// but live connection busy, and 8 seconds without hearing anything ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransportConfig {
    /// The largest frame, in bytes, that may be sent or received. Default: 64 KiB.
    ///
    /// A peer's message is refused from its header, before it is read: this is also the
    /// WebSocket message and frame limit.
    pub max_frame_size: usize,
    /// How often to send a ping. Default: 2 s. Keep it well below the idle timeout, so that
    /// a late pong or two does not end a live connection.
    pub keep_alive: Duration,
    /// How long the connection may go without hearing from the peer before it fails with
    /// [`Error::TimedOut`](crate::Error::TimedOut). Default: 8 s. `Duration::MAX` is never.
    pub idle_timeout: Duration,
    /// Bytes of frames queued for sending and not yet handed to the socket, beyond which
    /// [`send`](crate::Connection::send) waits and [`try_send`](crate::Connection::try_send)
    /// reports a full buffer. Each frame also counts a little for its bookkeeping, and a
    /// frame larger than the whole buffer goes alone. Default: 1 MiB.
    pub send_buffer_size: usize,
    /// Bytes of frames received and not yet read, beyond which the connection stops reading
    /// from the socket, so that TCP slows the peer down. Default: 1 MiB.
    pub recv_buffer_size: usize,
}

impl TransportConfig {
    /// tungstenite's settings: every message and frame bounded by the frame size, so that an
    /// oversized one fails the connection from its header.
    pub(crate) fn websocket(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            .max_message_size(Some(self.max_frame_size))
            .max_frame_size(Some(self.max_frame_size))
            // The default write buffer, 128 KiB, batches many small frames per system call.
            .read_buffer_size(READ_BUFFER)
    }
}

/// What tungstenite reads from the socket at once. Its default, 128 KiB, is allocated for
/// every connection up front; a relay holds thousands of mostly quiet ones.
const READ_BUFFER: usize = 16 * 1024;

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            max_frame_size: 64 * 1024,
            keep_alive: Duration::from_secs(2),
            idle_timeout: Duration::from_secs(8),
            send_buffer_size: 1024 * 1024,
            recv_buffer_size: 1024 * 1024,
        }
    }
}

/// The bounds on connections that have not become WebSocket connections yet: the TLS
/// handshake, the HTTP requests of page loads and the upgrade request. They hold a socket and
/// a task each before anything above this crate sees them, so without bounds a client could
/// hold any number of them (slow-loris).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HandshakeLimits {
    /// How long a request's head may take to arrive in full; a client that trickles it is
    /// dropped. It also bounds how long a kept-alive connection may wait for its next
    /// request. Default: 5 s.
    pub header_timeout: Duration,
    /// The largest request head, start line included; a larger one is answered with
    /// `431 Request Header Fields Too Large` as soon as that much has arrived, and the
    /// connection closed. Default: 16 KiB.
    pub max_header_size: usize,
    /// How long the TLS handshake may take, and then the upgrade once its request has
    /// arrived. Default: 10 s.
    pub handshake_timeout: Duration,
    /// How long a connection that is not upgraded may go with no byte moving either way (a
    /// client that stops reading a page it asked for). Default: 30 s.
    pub stall_timeout: Duration,
    /// How many such connections one IP address may hold; more are closed at once. Default:
    /// 16, enough for a browser's parallel page loads and a few tabs.
    pub max_pending_per_address: usize,
    /// How many such connections there may be in all; more are closed at once. Every one is
    /// bounded in time by the timeouts above, so a full table empties within them. Default:
    /// 1024.
    pub max_pending: usize,
}

impl Default for HandshakeLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(5),
            max_header_size: 16 * 1024,
            handshake_timeout: Duration::from_secs(10),
            stall_timeout: Duration::from_secs(30),
            max_pending_per_address: 16,
            max_pending: 1024,
        }
    }
}

/// What a [`Listener`](crate::Listener) needs.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Connection settings.
    pub transport: TransportConfig,
    /// The certificate and key for `wss`; `None` serves plain `ws`.
    pub tls: Option<ServerTls>,
    /// The web origins whose pages may open a WebSocket (`https://xq.example`, scheme, host
    /// and port as a browser sends them in `Origin`). Empty, the default, allows only the
    /// listener's own origin: the scheme it serves and the request's `Host`, so that only
    /// the page it serves itself connects. A native client sends no `Origin`, and is always
    /// allowed.
    pub allowed_origins: Vec<String>,
    /// What plain HTTP requests get: the web client's page and assets. `None`: 404, and
    /// `426 Upgrade Required` for the WebSocket endpoint.
    pub site: Option<Arc<dyn Site>>,
    /// The bounds on connections not upgraded yet.
    pub limits: HandshakeLimits,
}

impl ServerConfig {
    /// A plain `ws` server with default settings, no site, and only its own origin allowed.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("transport", &self.transport)
            .field("tls", &self.tls)
            .field("allowed_origins", &self.allowed_origins)
            .field("site", &self.site.as_ref().map(|_| "…"))
            .field("limits", &self.limits)
            .finish()
    }
}

/// What [`connect`](crate::connect) needs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The server's name: the `Host` of the upgrade request and, with TLS, the name its
    /// certificate must be valid for (SNI). A DNS name or an IP address.
    pub server_name: String,
    /// How to trust the server for `wss`; `None` speaks plain `ws`.
    pub tls: Option<Verify>,
    /// How long the TCP connection, TLS and the upgrade may take together. Default: 8 s.
    pub handshake_timeout: Duration,
    /// Connection settings.
    pub transport: TransportConfig,
}

impl ClientConfig {
    /// A plain `ws` client of `server_name`, with default settings.
    #[must_use]
    pub fn new(server_name: impl Into<String>) -> Self {
        Self {
            server_name: server_name.into(),
            tls: None,
            handshake_timeout: Duration::from_secs(8),
            transport: TransportConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_detect_a_dead_peer_within_ten_seconds() {
        let config = TransportConfig::default();
        assert!(config.idle_timeout <= Duration::from_secs(10));
        assert!(config.keep_alive * 3 <= config.idle_timeout);
    }

    #[test]
    fn the_websocket_limits_are_the_frame_size() {
        let config = TransportConfig {
            max_frame_size: 1000,
            ..TransportConfig::default()
        };
        let ws = config.websocket();
        assert_eq!(ws.max_message_size, Some(1000));
        assert_eq!(ws.max_frame_size, Some(1000));
    }
}
