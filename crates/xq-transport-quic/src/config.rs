//! Settings for listeners and clients.

use std::sync::Arc;
use std::time::Duration;

use quinn::{IdleTimeout, VarInt};

use crate::{Identity, Verify};

/// Settings shared by both ends of a connection.
///
/// The defaults detect a dead peer within 10 seconds: keep-alives every 2 seconds keep a quiet
/// but live connection busy, and 8 seconds without hearing anything closes it. QUIC uses the
/// smaller of the two ends' idle timeouts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransportConfig {
    /// The largest frame, in bytes, that may be sent or received. Default: 64 KiB.
    pub max_frame_size: u32,
    /// How often to send a keep-alive when nothing else is sent. Default: 2 s.
    ///
    /// Keep it well below the idle timeout, so that a lost keep-alive or two does not end a live
    /// connection.
    pub keep_alive: Duration,
    /// How long the connection may go without hearing from the peer before it fails with
    /// [`Error::TimedOut`](crate::Error::TimedOut). Default: 8 s.
    pub idle_timeout: Duration,
}

impl TransportConfig {
    /// The quinn settings for one end, where the peer may open `peer_streams` bidirectional
    /// streams: one towards the server, none towards the client.
    pub(crate) fn to_quinn(&self, peer_streams: u32) -> Arc<quinn::TransportConfig> {
        // An idle timeout beyond QUIC's varint range is as good as infinite.
        let idle_ms = u64::try_from(self.idle_timeout.as_millis()).unwrap_or(u64::MAX);
        let idle = IdleTimeout::from(VarInt::from_u64(idle_ms).unwrap_or(VarInt::MAX));
        let mut config = quinn::TransportConfig::default();
        config
            .keep_alive_interval(Some(self.keep_alive))
            .max_idle_timeout(Some(idle))
            .max_concurrent_bidi_streams(VarInt::from_u32(peer_streams))
            .max_concurrent_uni_streams(VarInt::from_u32(0))
            .datagram_receive_buffer_size(None);
        Arc::new(config)
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            max_frame_size: 64 * 1024,
            keep_alive: Duration::from_secs(2),
            idle_timeout: Duration::from_secs(8),
        }
    }
}

/// What a [`Listener`](crate::Listener) needs: who the server is, and how connections behave.
#[derive(Debug)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The certificate and key the server presents.
    pub identity: Identity,
    /// Connection settings.
    pub transport: TransportConfig,
}

impl ServerConfig {
    /// A server presenting `identity`, with default transport settings.
    #[must_use]
    pub fn new(identity: Identity) -> Self {
        Self {
            identity,
            transport: TransportConfig::default(),
        }
    }
}

/// What [`connect`](crate::connect) needs: how to trust the server, and how the connection
/// behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientConfig {
    /// How to verify the server's certificate.
    pub verify: Verify,
    /// The name the server's certificate must be valid for, under [`Verify::CaFile`]; it is also
    /// sent to the server as SNI. A DNS name or an IP address.
    pub server_name: String,
    /// Connection settings.
    pub transport: TransportConfig,
}

impl ClientConfig {
    /// A client that verifies the server with `verify`, expects it to be called `server_name`,
    /// and uses default transport settings.
    #[must_use]
    pub fn new(verify: Verify, server_name: impl Into<String>) -> Self {
        Self {
            verify,
            server_name: server_name.into(),
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
        // Several keep-alives fit in the idle timeout, so losing one does not end the connection.
        assert!(config.keep_alive * 3 <= config.idle_timeout);
    }
}
