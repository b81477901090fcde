//! What one client may cost the relay: the rate its frames are served at.

use xq_session::Timestamp;

/// A token bucket's shape: a connection may send `burst` frames at once, then `per_second`
/// frames a second on average.
///
/// Play never comes close (a player sends a move, a ping or an answer now and then, and a bot
/// at most a few frames per move of its opponent); a client that floods the relay does at
/// once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// The frames a connection may send in one go, and what its bucket holds when it connects.
    pub burst: u32,
    /// The frames a second the bucket refills with.
    pub per_second: u32,
}

impl RateLimit {
    /// A limit no client reaches: for load generators, benchmarks and tests that drive the
    /// relay as fast as it goes, or with a clock that stands still. The relay's own
    /// `--rate-limit 1000000 --rate-burst 1000000` is the same.
    pub const UNLIMITED: Self = Self {
        burst: 1_000_000,
        per_second: 1_000_000,
    };
}

impl Default for RateLimit {
    fn default() -> Self {
        Self {
            burst: 200,
            per_second: 100,
        }
    }
}

/// One connection's bucket, counted in thousandths of a frame so that refilling needs no
/// floating point and loses nothing to rounding at any rate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TokenBucket {
    millis: u64,
    last: Timestamp,
}

/// Thousandths in a token. A rate of `n` frames a second refills `n` thousandths a millisecond.
const MILLI: u64 = 1000;

impl TokenBucket {
    /// A full bucket at `now`.
    pub(crate) fn full(now: Timestamp, limit: RateLimit) -> Self {
        Self {
            millis: u64::from(limit.burst) * MILLI,
            last: now,
        }
    }

    /// Takes a token for one frame at `now`: `false` if the bucket is empty.
    pub(crate) fn take(&mut self, now: Timestamp, limit: RateLimit) -> bool {
        let elapsed = now.as_millis().saturating_sub(self.last.as_millis());
        self.last = self.last.max(now);
        let refill = elapsed.saturating_mul(u64::from(limit.per_second));
        let capacity = u64::from(limit.burst) * MILLI;
        self.millis = self.millis.saturating_add(refill).min(capacity);
        if self.millis < MILLI {
            return false;
        }
        self.millis -= MILLI;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_refill_rate() {
        let limit = RateLimit {
            burst: 3,
            per_second: 10,
        };
        let ms = Timestamp::from_millis;
        let mut bucket = TokenBucket::full(ms(0), limit);
        assert!((0..3).all(|_| bucket.take(ms(0), limit)));
        assert!(!bucket.take(ms(0), limit));
        // 10 a second: one token every 100 ms, never more than the burst.
        assert!(!bucket.take(ms(99), limit));
        assert!(bucket.take(ms(100), limit));
        assert!(!bucket.take(ms(100), limit));
        assert!((0..3).all(|_| bucket.take(ms(60_000), limit)));
        assert!(!bucket.take(ms(60_000), limit));
        // A clock read out of order refills nothing.
        assert!(!bucket.take(ms(50_000), limit));
    }
}
