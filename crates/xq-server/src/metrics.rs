//! What the relay counts for monitoring: plain counters, read as a snapshot.
//!
//! The core counts in plain integers as it decides (it stays sans-IO and single-threaded);
//! the driver adds what only it sees (refused sockets, slow readers, commit latency). Nothing
//! here knows an exposition format: [`crate::encode`] turns a [`ServerMetrics`] into one.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use xq_protocol::ErrorCode;
use xq_session::CommandError;

/// The core's counters ([`crate::Relay::metrics`]). Counters only grow; the gauges
/// (`connections`, `rooms`) are the state at the time of the snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RelayMetrics {
    /// Live connections, by transport (`udp`, `quic`, `mem`).
    pub connections: BTreeMap<String, u64>,
    /// Open rooms.
    pub rooms: u64,
    /// Moves the matches accepted.
    pub moves_accepted: u64,
    /// Requests refused, by reason (a snake-case name of the [`ErrorCode`], or of the match's
    /// refusal).
    pub rejected: BTreeMap<&'static str, u64>,
    /// Connections disconnected for sending too fast.
    pub rate_limited: u64,
    /// Handshakes refused for another protocol version.
    pub version_mismatches: u64,
    /// Handshakes whose first frame was not a hello that decodes.
    pub malformed_hellos: u64,
    /// Connections disconnected for a frame over [`crate::Config::max_frame_size`].
    pub oversized_frames: u64,
    /// Seats taken back with a resume token.
    pub resumes: u64,
    /// Rooms closed for being idle or waiting too long.
    pub rooms_expired: u64,
    /// In a cluster: requests sent to the node that owns their room.
    pub redirects: u64,
    /// In a cluster: rooms taken over from a node that no longer owned them.
    pub takeovers: u64,
    /// In a cluster: rooms given up to another node that owns them now.
    pub evictions: u64,
}

impl RelayMetrics {
    pub(crate) fn connected(&mut self, transport: &str) {
        *self.connections.entry(transport.to_string()).or_default() += 1;
    }

    pub(crate) fn disconnected(&mut self, transport: &str) {
        if let Some(count) = self.connections.get_mut(transport) {
            *count = count.saturating_sub(1);
        }
    }

    pub(crate) fn rejected(&mut self, code: ErrorCode) {
        *self.rejected.entry(reason(code)).or_default() += 1;
    }
}

/// The whole relay's counters ([`crate::MetricsHandle::snapshot`]): the core's and the
/// driver's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerMetrics {
    /// The core's counters.
    pub relay: RelayMetrics,
    /// Connections turned away at accept for a connection cap.
    pub refused_connections: u64,
    /// Connections cut off because their outgoing queue was full (they did not read).
    pub slow_consumers: u64,
    /// How long each storage commit took (empty without storage). In a cluster, a commit is
    /// the appends of its rooms to the shared log, made at once: this is their latency.
    pub commits: LatencyHistogram,
    /// The cluster's own counters, for a node of one.
    pub cluster: Option<ClusterCounters>,
}

/// What a node's [`crate::Directory`] counts of its part in the cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterCounters {
    /// Room ownerships (and claimed codes) renewed.
    pub lease_renewals: u64,
    /// Room ownerships lost: not renewed in time, or held by another node.
    pub lease_losses: u64,
    /// Room codes claimed for this node.
    pub claims_won: u64,
    /// Room codes found taken by another node.
    pub claims_lost: u64,
    /// Appends to a room's log refused because another node wrote it since.
    pub refused_appends: u64,
}

/// Asks a running [`crate::Server`] for its counters; cheap to clone, and valid after the
/// server stops (it then has nothing to say).
#[derive(Clone, Debug)]
pub struct MetricsHandle {
    pub(crate) requests: mpsc::Sender<oneshot::Sender<ServerMetrics>>,
}

impl MetricsHandle {
    /// The counters now, or `None` once the relay has stopped. The relay's task answers
    /// between two inputs, so a scrape never touches its state from another thread.
    pub async fn snapshot(&self) -> Option<ServerMetrics> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(reply).await.ok()?;
        answer.await.ok()
    }

    /// Completes once the relay has stopped (its task no longer answers), so what serves
    /// the counters can stop with it.
    #[cfg(feature = "metrics-http")]
    pub(crate) async fn stopped(&self) {
        self.requests.closed().await;
    }
}

/// A histogram of durations over fixed buckets, cheap to add to: the storage's commit latency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyHistogram {
    /// Per bucket of [`LatencyHistogram::BOUNDS`], the samples up to its bound and over the
    /// previous one; the last entry counts those over every bound.
    counts: [u64; Self::BOUNDS.len() + 1],
    sum: Duration,
}

impl LatencyHistogram {
    /// The buckets' upper bounds: from a quarter of a millisecond (a commit to a page cache)
    /// to a second (a disk under pressure).
    pub const BOUNDS: [Duration; 11] = [
        Duration::from_micros(250),
        Duration::from_micros(500),
        Duration::from_millis(1),
        Duration::from_micros(2500),
        Duration::from_millis(5),
        Duration::from_millis(10),
        Duration::from_millis(25),
        Duration::from_millis(50),
        Duration::from_millis(100),
        Duration::from_millis(250),
        Duration::from_secs(1),
    ];

    /// Adds one sample.
    pub fn record(&mut self, sample: Duration) {
        let bucket = Self::BOUNDS.partition_point(|&bound| bound < sample);
        self.counts[bucket] += 1;
        self.sum += sample;
    }

    /// How many samples there are.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The samples' total.
    #[must_use]
    pub const fn sum(&self) -> Duration {
        self.sum
    }

    /// Each bound with the number of samples up to it and over the previous bound (not
    /// cumulative); the samples over every bound make up the difference to
    /// [`count`](Self::count). The exposition's histogram.
    #[cfg(feature = "metrics-http")]
    pub(crate) fn buckets(&self) -> impl Iterator<Item = (Duration, u64)> + '_ {
        Self::BOUNDS
            .iter()
            .copied()
            .zip(self.counts.iter().copied())
    }

    /// Each bound with the number of samples up to it (cumulative, as Prometheus counts
    /// buckets); the samples over every bound make up the difference to
    /// [`count`](Self::count).
    pub fn cumulative(&self) -> impl Iterator<Item = (Duration, u64)> + '_ {
        Self::BOUNDS
            .iter()
            .zip(&self.counts)
            .scan(0, |total, (&bound, &count)| {
                *total += count;
                Some((bound, *total))
            })
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self {
            counts: [0; Self::BOUNDS.len() + 1],
            sum: Duration::ZERO,
        }
    }
}

/// A refusal's name in the metrics.
fn reason(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Rejected(err) => match err {
            CommandError::IllegalMove(_) => "illegal_move",
            CommandError::NotYourTurn => "not_your_turn",
            CommandError::GameFinished => "game_finished",
            _ => "refused_by_match",
        },
        ErrorCode::HelloExpected => "hello_expected",
        ErrorCode::RoomNotFound => "room_not_found",
        ErrorCode::RoomFull => "room_full",
        ErrorCode::AlreadyInRoom => "already_in_room",
        ErrorCode::NotInRoom => "not_in_room",
        ErrorCode::Spectator => "spectator",
        ErrorCode::GameNotOver => "game_not_over",
        ErrorCode::ResumeRefused => "resume_refused",
        ErrorCode::TooManyRooms => "too_many_rooms",
        ErrorCode::NoOpponentYet => "no_opponent_yet",
        ErrorCode::AlreadyAsked => "already_asked",
        ErrorCode::InvalidOptions => "invalid_options",
        ErrorCode::Unavailable => "unavailable",
        ErrorCode::Malformed => "malformed",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_counts_into_its_buckets() {
        let mut histogram = LatencyHistogram::default();
        for micros in [100, 250, 700, 3_000_000] {
            histogram.record(Duration::from_micros(micros));
        }
        assert_eq!(histogram.count(), 4);
        assert_eq!(histogram.sum(), Duration::from_micros(3_001_050));
        let cumulative: Vec<u64> = histogram.cumulative().map(|(_, count)| count).collect();
        assert_eq!(cumulative, [2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3]);
    }
}
