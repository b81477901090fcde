//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use std::time::Duration;

/// Clock granularity `G` of RFC 6298: the smallest variance term added to the RTO.
const GRANULARITY: Duration = Duration::from_millis(1);

/// Largest backoff exponent; the RTO is capped long before `2^16` anyway.
const MAX_BACKOFF: u32 = 16;

/// Smoothed RTT and its variance, updated from samples of unambiguous round trips.
#[derive(Debug, Clone)]
pub(crate) struct RttEstimator {
    /// `None` until the first sample.
    smoothed: Option<Smoothed>,
}

/// Both in whole microseconds, which is finer than any timer the estimate feeds and keeps
/// every link 20 bytes smaller than two `Duration`s would (a relay holds thousands). A round
/// trip over 71 minutes counts as 71 minutes.
#[derive(Debug, Clone, Copy)]
struct Smoothed {
    srtt: u32,
    rttvar: u32,
}

/// `d` in whole microseconds, saturating.
fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

fn duration(micros: u32) -> Duration {
    Duration::from_micros(u64::from(micros))
}

/// Bounds of the timeout, taken from the configuration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RtoBounds {
    pub(crate) initial: Duration,
    pub(crate) min: Duration,
    pub(crate) max: Duration,
    /// Added to the RTO because the peer may hold its ack back this long.
    pub(crate) max_ack_delay: Duration,
}

impl RttEstimator {
    pub(crate) fn new() -> Self {
        Self { smoothed: None }
    }

    /// Feeds one sample. Callers follow Karn's algorithm: no samples from retransmitted data.
    pub(crate) fn on_sample(&mut self, sample: Duration) {
        let sample = micros(sample);
        self.smoothed = Some(match self.smoothed {
            None => Smoothed {
                srtt: sample,
                rttvar: sample / 2,
            },
            Some(Smoothed { srtt, rttvar }) => {
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT <- 7/8 SRTT + 1/8 R', each
                // summed from parts that together cannot exceed u32::MAX.
                Smoothed {
                    rttvar: rttvar - rttvar / 4 + srtt.abs_diff(sample) / 4,
                    srtt: srtt - srtt / 8 + sample / 8,
                }
            }
        });
    }

    /// The smoothed RTT, or zero before the first sample.
    pub(crate) fn srtt(&self) -> Duration {
        self.smoothed.map_or(Duration::ZERO, |s| duration(s.srtt))
    }

    /// The retransmission timeout after `backoff` consecutive expiries.
    pub(crate) fn rto(&self, bounds: RtoBounds, backoff: u32) -> Duration {
        let base = match self.smoothed {
            None => bounds.initial,
            Some(Smoothed { srtt, rttvar }) => {
                duration(srtt) + (4 * duration(rttvar)).max(GRANULARITY) + bounds.max_ack_delay
            }
        };
        let backed_off = base.saturating_mul(1 << backoff.min(MAX_BACKOFF));
        backed_off.clamp(bounds.min, bounds.max.max(bounds.min))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: RtoBounds = RtoBounds {
        initial: Duration::from_secs(1),
        min: Duration::from_millis(200),
        max: Duration::from_secs(2),
        max_ack_delay: Duration::from_millis(5),
    };

    #[test]
    fn initial_rto_until_the_first_sample() {
        let rtt = RttEstimator::new();
        assert_eq!(rtt.rto(BOUNDS, 0), Duration::from_secs(1));
        assert_eq!(rtt.srtt(), Duration::ZERO);
    }

    #[test]
    fn follows_rfc_6298() {
        let mut rtt = RttEstimator::new();
        rtt.on_sample(Duration::from_millis(100));
        assert_eq!(rtt.srtt(), Duration::from_millis(100));
        // 100 + 4 * 50 + 5
        assert_eq!(rtt.rto(BOUNDS, 0), Duration::from_millis(305));
        rtt.on_sample(Duration::from_millis(200));
        // rttvar = (3 * 50 + 100) / 4 = 62.5; srtt = (700 + 200) / 8 = 112.5
        assert_eq!(rtt.srtt(), Duration::from_micros(112_500));
        assert_eq!(
            rtt.rto(BOUNDS, 0),
            Duration::from_micros(112_500 + 250_000 + 5_000)
        );
    }

    #[test]
    fn a_huge_sample_saturates() {
        let mut rtt = RttEstimator::new();
        rtt.on_sample(Duration::from_secs(1 << 40));
        assert_eq!(rtt.srtt(), Duration::from_micros(u64::from(u32::MAX)));
        rtt.on_sample(Duration::from_secs(1 << 40));
        assert_eq!(rtt.srtt(), Duration::from_micros(u64::from(u32::MAX)));
        assert_eq!(rtt.rto(BOUNDS, 0), BOUNDS.max);
    }

    #[test]
    fn backoff_doubles_within_bounds() {
        let mut rtt = RttEstimator::new();
        rtt.on_sample(Duration::from_millis(1));
        assert_eq!(rtt.rto(BOUNDS, 0), BOUNDS.min);
        let mut rtt = RttEstimator::new();
        rtt.on_sample(Duration::from_millis(100));
        assert_eq!(rtt.rto(BOUNDS, 1), Duration::from_millis(610));
        assert_eq!(rtt.rto(BOUNDS, 40), BOUNDS.max);
    }
}
