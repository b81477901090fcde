//! Time as a value: timestamps the caller supplies, time controls, and the two clocks.

use std::ops::Add;
use std::time::Duration;

use xq_rules::{ByColor, Color};

/// A point on the caller's monotonic clock, in milliseconds from an origin of its choosing.
///
/// The session never reads a clock: every input carries the time it happened. Only differences
/// matter, so the origin can be the process start (`Instant::now()` at boot) or a virtual clock
/// in tests. After a restart the origin moves; [`crate::Command::ResumeClocks`] re-bases a
/// restored match on the new origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Timestamp(u64);

impl Timestamp {
    /// The timestamp `millis` milliseconds after the origin.
    #[must_use]
    pub const fn from_millis(millis: u64) -> Self {
        Self(millis)
    }

    /// Milliseconds since the origin.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to `self`, or zero if `earlier` is later (timestamps from before
    /// a restart may lie ahead of the new origin).
    #[must_use]
    pub const fn saturating_duration_since(self, earlier: Self) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Timestamp {
    type Output = Self;

    /// Adds whole milliseconds (sub-millisecond parts are dropped), saturating at the far future.
    fn add(self, rhs: Duration) -> Self {
        let millis = u64::try_from(rhs.as_millis()).unwrap_or(u64::MAX);
        Self(self.0.saturating_add(millis))
    }
}

/// How much thinking time each side gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TimeControl {
    /// No clocks: nobody can lose on time.
    #[default]
    Untimed,
    /// Each side starts with `base` and gains `increment` after each of its moves (Fischer),
    /// and keeps it if the move is taken back by consent. An increment of zero is plain sudden
    /// death.
    ///
    /// Both may have sub-millisecond parts, which the clocks keep. Since [`Timestamp`]s are
    /// whole milliseconds, time is charged in whole milliseconds, and the flag falls at the
    /// first millisecond at which no time is left: with 1.5 ms left, after 2 ms, not 1.
    Increment {
        /// Each side's time at the start.
        base: Duration,
        /// Added to the mover's clock after each move.
        increment: Duration,
    },
}

/// The two clocks of a timed match. At most one runs: the one of the side to move, from
/// `running_since`; `None` means stopped (paused, or the game is over).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Clock {
    increment: Duration,
    remaining: ByColor<Duration>,
    running_since: Option<Timestamp>,
}

impl Clock {
    /// Clocks for `control`, the side to move's running from `now`; `None` when untimed.
    pub(crate) fn new(control: TimeControl, now: Timestamp) -> Option<Self> {
        match control {
            TimeControl::Untimed => None,
            TimeControl::Increment { base, increment } => Some(Self {
                increment,
                remaining: ByColor {
                    red: base,
                    black: base,
                },
                running_since: Some(now),
            }),
        }
    }

    /// Since when the clock of the side to move runs, if it runs.
    pub(crate) const fn running_since(&self) -> Option<Timestamp> {
        self.running_since
    }

    /// Whether the clock of the side to move is running.
    pub(crate) const fn is_running(&self) -> bool {
        self.running_since.is_some()
    }

    /// Both sides' remaining time at `now`, with `turn` the side whose clock may be running.
    pub(crate) fn remaining_at(&self, now: Timestamp, turn: Color) -> ByColor<Duration> {
        let mut remaining = self.remaining;
        remaining[turn] = remaining[turn].saturating_sub(self.elapsed(now));
        remaining
    }

    /// When `turn`'s time runs out, if its clock is running: the first whole millisecond at
    /// which [`remaining_at`](Self::remaining_at) says zero. A sub-millisecond remainder rounds
    /// it up, so that no flag falls while time is left.
    pub(crate) fn deadline(&self, turn: Color) -> Option<Timestamp> {
        let remaining = ceil_to_millis(self.remaining[turn]);
        self.running_since.map(|since| since + remaining)
    }

    /// The clocks just after `mover` moves at `now`: its time charged up to `now`, plus the
    /// increment. The clock itself changes when the move's event is applied
    /// ([`report`](Self::report)).
    pub(crate) fn after_move(&self, now: Timestamp, mover: Color) -> ByColor<Duration> {
        let mut remaining = self.remaining_at(now, mover);
        remaining[mover] = remaining[mover].saturating_add(self.increment);
        remaining
    }

    /// The times as they stood when the running clock last started (or stopped): what a
    /// restart starts from, since restarting charges nothing.
    pub(crate) const fn banked(&self) -> ByColor<Duration> {
        self.remaining
    }

    /// Takes `reading` as both sides' time at `at`; the clock of the side to move goes on
    /// running from there if it was running.
    pub(crate) fn report(&mut self, at: Timestamp, reading: ByColor<Duration>) {
        self.remaining = reading;
        if self.is_running() {
            self.running_since = Some(at);
        }
    }

    /// Takes `reading` as both sides' time and stops both clocks.
    pub(crate) fn stop_with(&mut self, reading: ByColor<Duration>) {
        self.remaining = reading;
        self.running_since = None;
    }

    /// Takes `reading` as both sides' time and starts the clock of the side to move from
    /// `at`, whether it was running or not.
    pub(crate) fn start_with(&mut self, at: Timestamp, reading: ByColor<Duration>) {
        self.remaining = reading;
        self.running_since = Some(at);
    }

    /// The clocks of a match followed from a report: `reading` at `at`, the side to move's
    /// running from then if `running`.
    pub(crate) fn from_reading(
        increment: Duration,
        reading: ByColor<Duration>,
        at: Timestamp,
        running: bool,
    ) -> Self {
        Self {
            increment,
            remaining: reading,
            running_since: running.then_some(at),
        }
    }

    fn elapsed(&self, now: Timestamp) -> Duration {
        self.running_since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since))
    }
}

/// `duration` rounded up to whole milliseconds, saturating at the far future.
fn ceil_to_millis(duration: Duration) -> Duration {
    let millis = duration.as_nanos().div_ceil(1_000_000);
    Duration::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(millis: u64) -> Timestamp {
        Timestamp::from_millis(millis)
    }

    fn blitz() -> Clock {
        let control = TimeControl::Increment {
            base: Duration::from_secs(10),
            increment: Duration::from_secs(2),
        };
        Clock::new(control, ms(1_000)).unwrap_or_else(|| panic!("timed"))
    }

    #[test]
    fn untimed_has_no_clock() {
        assert_eq!(Clock::new(TimeControl::Untimed, ms(0)), None);
    }

    #[test]
    fn timestamps_saturate() {
        assert_eq!(ms(5).saturating_duration_since(ms(9)), Duration::ZERO);
        assert_eq!(
            ms(9).saturating_duration_since(ms(5)),
            Duration::from_millis(4)
        );
        assert_eq!(ms(u64::MAX - 1) + Duration::from_secs(1), ms(u64::MAX));
    }

    #[test]
    fn only_the_side_to_move_is_charged() {
        let mut clock = blitz();
        assert_eq!(clock.deadline(Color::Red), Some(ms(11_000)));
        let after = clock.after_move(ms(4_000), Color::Red);
        assert_eq!(after.red, Duration::from_secs(9)); // 10 - 3 + 2
        assert_eq!(after.black, Duration::from_secs(10));
        clock.report(ms(4_000), after);
        assert_eq!(clock.deadline(Color::Black), Some(ms(14_000)));
        let now = clock.remaining_at(ms(5_500), Color::Black);
        assert_eq!(now.black, Duration::from_millis(8_500));
        assert_eq!(now.red, Duration::from_secs(9));
    }

    #[test]
    fn a_sub_millisecond_remainder_rounds_the_deadline_up() {
        let control = TimeControl::Increment {
            base: Duration::from_micros(1_500),
            increment: Duration::ZERO,
        };
        let clock = Clock::new(control, ms(0)).unwrap_or_else(|| panic!("timed"));
        assert_eq!(clock.deadline(Color::Red), Some(ms(2)));
        assert_eq!(
            clock.remaining_at(ms(1), Color::Red).red,
            Duration::from_micros(500)
        );
        assert_eq!(clock.remaining_at(ms(2), Color::Red).red, Duration::ZERO);
    }

    #[test]
    fn a_stopped_clock_charges_nothing_until_restarted() {
        let mut clock = blitz();
        clock.stop_with(clock.remaining_at(ms(2_000), Color::Red));
        assert_eq!(clock.deadline(Color::Red), None);
        assert_eq!(
            clock.remaining_at(ms(60_000), Color::Red).red,
            Duration::from_secs(9)
        );
        clock.report(ms(70_000), clock.remaining_at(ms(70_000), Color::Red));
        assert!(!clock.is_running());
        clock.start_with(ms(100), clock.banked());
        assert_eq!(clock.deadline(Color::Red), Some(ms(9_100)));
    }

    #[test]
    fn a_followed_clock_counts_down_from_its_report() {
        let reading = ByColor {
            red: Duration::from_secs(5),
            black: Duration::from_secs(7),
        };
        let clock = Clock::from_reading(Duration::ZERO, reading, ms(1_000), true);
        assert_eq!(
            clock.remaining_at(ms(3_000), Color::Black).black,
            Duration::from_secs(5)
        );
        let stopped = Clock::from_reading(Duration::ZERO, reading, ms(1_000), false);
        assert_eq!(stopped.remaining_at(ms(3_000), Color::Black), reading);
        assert_eq!(stopped.deadline(Color::Black), None);
    }
}
