//! Tunables shared by the sans-IO core and the tokio driver.

use std::time::Duration;

/// The longest any duration of a [`Config`] counts for: a longer one (`Duration::MAX` for
/// "never", say) is taken as this, which is as good as never and keeps every deadline a
/// connection computes from it within what an `Instant` can hold.
pub const LONGEST: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// Settings of an endpoint and of every connection it carries.
///
/// Durations count for at most [`LONGEST`].
///
/// Both peers should use the same [`window`](Self::window): a receiver drops (and does not
/// acknowledge) datagrams beyond its own window, so a larger sender window only causes
/// retransmissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// A connection that receives nothing for this long fails with
    /// [`ConnectionError::TimedOut`](crate::proto::ConnectionError::TimedOut); the handshake has
    /// the same bound. Data left unacknowledged for this long while the peer keeps talking fails
    /// it with [`ConnectionError::Unacknowledged`](crate::proto::ConnectionError::Unacknowledged).
    /// Default 10 s, so a dead peer is detected within 10 s.
    pub idle_timeout: Duration,
    /// After this long without sending anything that needs an ack, a connection sends a ping so
    /// that an idle but live peer never reaches its idle timeout. `None` disables keep-alive.
    /// Default 2 s.
    pub keep_alive_interval: Option<Duration>,
    /// The largest frame that [`send`](crate::proto::Link::send) accepts and that a peer may
    /// send. Default 64 KiB.
    pub max_frame_size: usize,
    /// Bound on the bytes of frames queued for sending but not yet acknowledged, counting
    /// the place each datagram's worth of a frame takes in the queue as well as its payload,
    /// so that empty frames count too. A `send` that would exceed it is refused
    /// with [`SendError::QueueFull`](crate::proto::SendError::QueueFull) (the tokio driver
    /// waits for room instead), so a peer that never acknowledges cannot make the sender grow.
    /// A frame is always accepted into an empty queue. Default 1 MiB.
    pub send_buffer_size: usize,
    /// Bound on the bytes received but not yet taken by the application, counting each
    /// frame's place in the queue as well as its payload. While it is reached,
    /// datagrams with new data are dropped unacknowledged, which makes the peer retransmit them
    /// later: this is the flow control. Acks meanwhile tell the peer that the application is
    /// behind, so it waits however long the application takes, rather than fail with
    /// [`ConnectionError::Unacknowledged`](crate::proto::ConnectionError::Unacknowledged).
    /// Once the application has emptied half the buffer, an ack tells the peer so at once, and
    /// it sends the rest without waiting for its next retransmission timeout (which still
    /// brings it, should that ack be lost). Default 1 MiB: with the default window, half of it
    /// takes a whole window of refused data at once.
    pub recv_buffer_size: usize,
    /// Datagrams carrying data that may be in flight at once, and the receive window in
    /// datagrams. This fixed window is the only congestion control. Default 256 (about 300 KB).
    pub window: u32,
    /// How long a receiver may hold back an ack hoping to piggyback it on data. Default 25 ms
    /// (QUIC's default): long enough that in a conversation, where each side answers the
    /// other within moments, acks ride on the answers instead of costing datagrams of their
    /// own.
    pub max_ack_delay: Duration,
    /// Chunks received in order after which an ack goes out at once instead of waiting for
    /// [`max_ack_delay`](Self::max_ack_delay). Default 16: a bulk sender hears back well within
    /// its [`window`](Self::window), while a conversation, which receives a chunk or two
    /// before it answers, never reaches it. Values below 1 count as 1.
    pub ack_threshold: u32,
    /// Retransmission timeout before the first RTT sample (RFC 6298 section 2.1). Default 1 s.
    pub initial_rto: Duration,
    /// Lower bound of the retransmission timeout. Default 200 ms.
    pub min_rto: Duration,
    /// Upper bound of the retransmission timeout after exponential backoff. Default 2 s.
    pub max_rto: Duration,
    /// How long a handshake cookie stays valid: it is accepted during the time bucket it was
    /// issued in and the next one. Default 10 s.
    pub cookie_lifetime: Duration,
    /// Incoming connections held for [`accept`](crate::Endpoint::accept); further clients are
    /// ignored until the application accepts. Default 64.
    pub accept_backlog: usize,
    /// Send and receive buffer size requested for the UDP socket (driver only). The kernel may
    /// cap it (`net.core.rmem_max` / `wmem_max` on Linux). Default 4 MiB.
    pub socket_buffer_size: usize,
    /// Seed for connection ids and the cookie secret (driver only; the core always takes its
    /// seed as an argument). `None` draws one from the operating system, which is what servers
    /// should do: a known seed makes cookies forgeable.
    pub rng_seed: Option<[u8; 32]>,
}

impl Config {
    /// This configuration with every duration at most [`LONGEST`].
    pub(crate) fn bounded(mut self) -> Self {
        for duration in [
            &mut self.idle_timeout,
            &mut self.max_ack_delay,
            &mut self.initial_rto,
            &mut self.min_rto,
            &mut self.max_rto,
            &mut self.cookie_lifetime,
        ]
        .into_iter()
        .chain(self.keep_alive_interval.as_mut())
        {
            *duration = (*duration).min(LONGEST);
        }
        self
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(10),
            keep_alive_interval: Some(Duration::from_secs(2)),
            max_frame_size: 64 * 1024,
            send_buffer_size: 1024 * 1024,
            recv_buffer_size: 1024 * 1024,
            window: 256,
            max_ack_delay: Duration::from_millis(25),
            ack_threshold: 16,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(2),
            cookie_lifetime: Duration::from_secs(10),
            accept_backlog: 64,
            socket_buffer_size: 4 * 1024 * 1024,
            rng_seed: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_detects_a_dead_peer_within_ten_seconds() {
        let config = Config::default();
        assert!(config.idle_timeout <= Duration::from_secs(10));
        let keep_alive = config.keep_alive_interval.unwrap_or(Duration::MAX);
        assert!(
            keep_alive * 3 <= config.idle_timeout,
            "several pings fit in one idle period"
        );
    }
}
