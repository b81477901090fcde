//! Counters of what the cluster layer did. How long the appends take is the relay's to time:
//! a commit is the appends of its rooms, made at once (`xq-server`'s commit latency).

use std::sync::atomic::{AtomicU64, Ordering};

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
}

impl Counters {
    /// Adds one to `counter`.
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
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
        }
    }
}
