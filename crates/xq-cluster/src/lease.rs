//! A room lease: what its value says in the bucket, and what the node that holds it knows.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use xq_protocol::ResumeToken;

use crate::journal::CurrentMatch;

/// The value of a lease in the leases bucket: who holds the room and where clients reach it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LeaseValue {
    /// The owner's node name.
    pub(crate) node: String,
    /// The owner's process incarnation.
    pub(crate) incarnation: u64,
    /// The owner's client URLs.
    pub(crate) urls: Vec<String>,
}

/// A room this node holds the lease of, and where its journal stands.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    /// The lease's last revision (created or renewed): the next renewal's compare-and-set.
    pub(crate) revision: u64,
    /// Until when this node believes the lease: the time it sent the last successful
    /// renewal, plus the belief span. After it, nothing more is appended or renewed.
    pub(crate) believed_until: Instant,
    /// The stream sequence of the room's last message (0 for none): the next append's
    /// expected last subject sequence.
    pub(crate) last_seq: u64,
    /// The append counter of the room's last message (0 for none).
    pub(crate) counter: u64,
    /// The match on, if any: what archiving it takes.
    pub(crate) current: Option<CurrentMatch>,
    /// The resume tokens the room gave out, to delete when it closes.
    pub(crate) tokens: Vec<ResumeToken>,
}

/// How long after sending a successful renewal (or creation) a node believes its lease: the
/// TTL less a quarter, the margin for clocks that run at slightly different rates and for
/// the time the request took to reach the server (which starts the TTL on arrival).
pub(crate) fn belief(ttl: Duration) -> Duration {
    ttl - ttl / 4
}

/// How often the leases are renewed, and how long one renewal may take: a quarter of the
/// TTL, so that one renewal may fail (or time out) and the next still lands within the
/// belief span.
pub(crate) fn renewal_period(ttl: Duration) -> Duration {
    ttl / 4
}

impl Held {
    /// A lease just created (or taken over) at `revision` by a request sent at `sent`, on a
    /// room with no journal yet (a taker sets where its journal ends).
    pub(crate) fn new(revision: u64, sent: Instant, ttl: Duration) -> Self {
        Self {
            revision,
            believed_until: sent + belief(ttl),
            last_seq: 0,
            counter: 0,
            current: None,
            tokens: Vec::new(),
        }
    }

    /// Whether the lease is still believed at `now`.
    pub(crate) fn is_believed(&self, now: Instant) -> bool {
        now < self.believed_until
    }
}
