//! The pauses between reconnect attempts.

use std::time::Duration;

use crate::ReconnectPolicy;

/// The pauses between attempts: the policy's first delay, doubling up to its maximum.
#[derive(Clone, Debug)]
pub(super) struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    pub(super) fn new(policy: ReconnectPolicy) -> Self {
        Self {
            next: policy.first_delay.min(policy.max_delay),
            max: policy.max_delay,
        }
    }

    /// The pause before the next attempt.
    pub(super) fn next_pause(&mut self) -> Duration {
        let pause = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        pause
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_maximum() {
        let mut backoff = Backoff::new(ReconnectPolicy {
            period: Duration::from_secs(60),
            first_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(1),
        });
        let pauses: Vec<u128> = (0..5).map(|_| backoff.next_pause().as_millis()).collect();
        assert_eq!(pauses, [250, 500, 1_000, 1_000, 1_000]);
    }

    #[test]
    fn a_first_delay_above_the_maximum_is_capped() {
        let mut backoff = Backoff::new(ReconnectPolicy {
            period: Duration::from_secs(60),
            first_delay: Duration::from_secs(9),
            max_delay: Duration::from_secs(2),
        });
        assert_eq!(backoff.next_pause(), Duration::from_secs(2));
    }
}
