//! Per-connection counters.

use std::time::Duration;

/// Counters of one connection, as seen by the local side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Smoothed round-trip time, zero before the first sample.
    pub rtt: Duration,
    /// Bytes of UDP payload sent, headers and retransmissions included.
    pub bytes_sent: u64,
    /// Bytes of UDP payload received and accepted by the connection.
    pub bytes_received: u64,
    /// Frames accepted by `send`.
    pub frames_sent: u64,
    /// Frames delivered whole and in order.
    pub frames_received: u64,
    /// Chunks sent again because they were lost or their timer expired.
    pub retransmits: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams received and accepted by the connection.
    pub datagrams_received: u64,
    /// Chunks received again after they had already arrived.
    pub duplicates: u64,
}
