//! Counters of what the cluster layer did, and a small histogram of append latencies.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The upper bounds of the append latency buckets: roughly doubling from a quarter
/// millisecond (a loopback round trip) to two seconds (a NATS node failing over).
pub const LATENCY_BOUNDS: [Duration; 13] = [
    Duration::from_micros(250),
    Duration::from_micros(500),
    Duration::from_millis(1),
    Duration::from_millis(2),
    Duration::from_millis(5),
    Duration::from_millis(10),
    Duration::from_millis(20),
    Duration::from_millis(50),
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
];

/// A snapshot of the cluster layer's counters since [`crate::Cluster::connect`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClusterMetrics {
    /// Leases renewed.
    pub lease_renewals: u64,
    /// Leases lost: not renewed in time, or found renewed by another node.
    pub lease_losses: u64,
    /// Rooms taken over from a node that had left them.
    pub takeovers: u64,
    /// Codes claimed for new rooms.
    pub claims_won: u64,
    /// Codes another node had already.
    pub claims_lost: u64,
    /// Journal messages appended (one per room per commit).
    pub appends: u64,
    /// Appends the stream refused because another node had written to the room.
    pub refused_appends: u64,
    /// Append attempts repeated after a transient error (with the same message id).
    pub append_retries: u64,
    /// Appends the stream acknowledged as duplicates of an earlier attempt (a retry whose
    /// first attempt had landed): deduplicated, not stored twice.
    pub duplicate_appends: u64,
    /// Games archived.
    pub games_archived: u64,
    /// How long each append took, first attempt to acknowledgement.
    pub append_latency: LatencyHistogram,
}

/// Counts of latencies by bucket: `buckets[i]` counts those at most [`LATENCY_BOUNDS`]`[i]`
/// (and above the bound before), `overflow` those above the last bound.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatencyHistogram {
    /// The counts per bucket of [`LATENCY_BOUNDS`].
    pub buckets: [u64; LATENCY_BOUNDS.len()],
    /// The latencies above the last bound.
    pub overflow: u64,
    /// How many latencies there are.
    pub count: u64,
    /// Their sum.
    pub sum: Duration,
}

impl LatencyHistogram {
    /// The upper bound of the bucket that holds quantile `q` (0 to 1) of the latencies, or
    /// `None` if there are none or it lies above the last bound.
    #[must_use]
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        if self.count == 0 {
            return None;
        }
        // The rank of the quantile, from 1; float to int saturates, and q is clamped.
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (bound, count) in LATENCY_BOUNDS.iter().zip(self.buckets) {
            seen += count;
            if seen >= rank {
                return Some(*bound);
            }
        }
        None
    }
}

/// The live counters behind [`ClusterMetrics`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) lease_renewals: AtomicU64,
    pub(crate) lease_losses: AtomicU64,
    pub(crate) takeovers: AtomicU64,
    pub(crate) claims_won: AtomicU64,
    pub(crate) claims_lost: AtomicU64,
    pub(crate) appends: AtomicU64,
    pub(crate) refused_appends: AtomicU64,
    pub(crate) append_retries: AtomicU64,
    pub(crate) duplicate_appends: AtomicU64,
    pub(crate) games_archived: AtomicU64,
    latency: [AtomicU64; LATENCY_BOUNDS.len()],
    latency_overflow: AtomicU64,
    latency_count: AtomicU64,
    latency_sum_micros: AtomicU64,
}

impl Counters {
    /// Adds one to `counter`.
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Records an append that took `latency`.
    pub(crate) fn append_took(&self, latency: Duration) {
        match LATENCY_BOUNDS.iter().position(|bound| latency <= *bound) {
            Some(index) => Self::bump(&self.latency[index]),
            None => Self::bump(&self.latency_overflow),
        }
        Self::bump(&self.latency_count);
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.latency_sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// A snapshot.
    pub(crate) fn snapshot(&self) -> ClusterMetrics {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ClusterMetrics {
            lease_renewals: get(&self.lease_renewals),
            lease_losses: get(&self.lease_losses),
            takeovers: get(&self.takeovers),
            claims_won: get(&self.claims_won),
            claims_lost: get(&self.claims_lost),
            appends: get(&self.appends),
            refused_appends: get(&self.refused_appends),
            append_retries: get(&self.append_retries),
            duplicate_appends: get(&self.duplicate_appends),
            games_archived: get(&self.games_archived),
            append_latency: LatencyHistogram {
                buckets: std::array::from_fn(|index| get(&self.latency[index])),
                overflow: get(&self.latency_overflow),
                count: get(&self.latency_count),
                sum: Duration::from_micros(get(&self.latency_sum_micros)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_fall_in_the_bucket_of_their_upper_bound() {
        let counters = Counters::default();
        counters.append_took(Duration::from_micros(100));
        counters.append_took(Duration::from_millis(1));
        counters.append_took(Duration::from_millis(3));
        counters.append_took(Duration::from_secs(5));
        let histogram = counters.snapshot().append_latency;
        assert_eq!(histogram.buckets[0], 1);
        assert_eq!(histogram.buckets[2], 1, "a bound is inclusive");
        assert_eq!(histogram.buckets[4], 1);
        assert_eq!(histogram.overflow, 1);
        assert_eq!(histogram.count, 4);
        assert_eq!(histogram.quantile(0.5), Some(Duration::from_millis(1)));
        assert_eq!(histogram.quantile(0.75), Some(Duration::from_millis(5)));
        assert_eq!(histogram.quantile(1.0), None, "above the last bound");
        assert_eq!(LatencyHistogram::default().quantile(0.5), None);
    }
}
