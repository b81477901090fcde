//! Settings shared by every transport.

use std::path::PathBuf;
use std::time::Duration;

/// Transport settings. The defaults suit the relay and its clients.
#[derive(Clone, Debug)]
pub struct Options {
    /// The largest frame accepted in either direction, in bytes.
    pub max_frame_size: usize,
    /// How long a connection may stay silent before it is declared dead. Keep-alives go out
    /// four times as often, so a live but quiet connection never reaches it.
    pub idle_timeout: Duration,
    /// Where a QUIC listener keeps its certificate and key (created on first start), so that
    /// its fingerprint, which clients pin, survives restarts. `None` (the default) generates
    /// one in memory for each listener, and writes nothing: a relay that clients must find
    /// again after a restart names a directory, as `xq-relay` does.
    pub quic_identity_dir: Option<PathBuf>,
    /// Extra one-way latency added to every frame of an in-memory connection (a link conditioner
    /// for tests); order and reliability are kept.
    pub mem_latency: Duration,
}

impl Options {
    /// How often a quiet connection sends a keep-alive: a quarter of the idle timeout, so that
    /// losing a few in a row does not end a live connection.
    pub(crate) fn keep_alive(&self) -> Duration {
        self.idle_timeout / 4
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_frame_size: 64 * 1024,
            idle_timeout: Duration::from_secs(8),
            quic_identity_dir: None,
            mem_latency: Duration::ZERO,
        }
    }
}
