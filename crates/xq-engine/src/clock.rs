//! What bounds a search: depth, nodes, and time on the caller's clock.

use std::time::Duration;

/// The caller's clock: the time since the search began. The engine reads no clock of its own,
/// so a test can pass a fake one and a browser its own timer.
pub trait Clock {
    /// Time elapsed since the search began.
    fn elapsed(&self) -> Duration;
}

/// A clock that never moves: for searches bounded by depth or nodes only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frozen;

impl Clock for Frozen {
    fn elapsed(&self) -> Duration {
        Duration::ZERO
    }
}

impl<F: Fn() -> Duration> Clock for F {
    fn elapsed(&self) -> Duration {
        self()
    }
}

/// When a search stops. Every bound that is set applies; with none, only the stop flag ends
/// the search (or the maximum depth).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration to complete.
    pub depth: Option<u32>,
    /// The most nodes to visit (a search checks this often, so it may overshoot by a few).
    pub nodes: Option<u64>,
    /// The hard stop, on the [`Clock`]: the search returns its best move so far when it passes.
    pub deadline: Option<Duration>,
    /// The soft stop, on the [`Clock`]: no new iteration starts after it, nor one that would
    /// likely not finish before it. Set by [`Limits::from_clock`].
    pub soft_deadline: Option<Duration>,
}

impl Limits {
    /// The tighter of each bound of `self` and `other`: a search that stops at whichever
    /// comes first.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use xq_engine::Limits;
    ///
    /// let both = Limits::nodes(5_000).within(&Limits::movetime(Duration::from_secs(1)));
    /// assert_eq!((both.nodes, both.deadline), (Some(5_000), Some(Duration::from_secs(1))));
    /// assert_eq!(Limits::depth(3).within(&Limits::depth(5)).depth, Some(3));
    /// ```
    #[must_use]
    pub fn within(&self, other: &Self) -> Self {
        fn tighter<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        Self {
            depth: tighter(self.depth, other.depth),
            nodes: tighter(self.nodes, other.nodes),
            deadline: tighter(self.deadline, other.deadline),
            soft_deadline: tighter(self.soft_deadline, other.soft_deadline),
        }
    }

    /// A search of `depth` plies.
    #[must_use]
    pub const fn depth(depth: u32) -> Self {
        Self {
            depth: Some(depth),
            nodes: None,
            deadline: None,
            soft_deadline: None,
        }
    }

    /// A search of at most `nodes` nodes.
    #[must_use]
    pub const fn nodes(nodes: u64) -> Self {
        Self {
            depth: None,
            nodes: Some(nodes),
            deadline: None,
            soft_deadline: None,
        }
    }

    /// A search of `time` exactly (UCI `go movetime`): it uses it all.
    #[must_use]
    pub const fn movetime(time: Duration) -> Self {
        Self {
            depth: None,
            nodes: None,
            deadline: Some(time),
            soft_deadline: None,
        }
    }

    /// Time management for a clock with `remaining` time, `increment` per move and, if the
    /// time control has them, `moves_to_go` moves until the next time control (UCI `go
    /// wtime/btime/winc/binc/movestogo`).
    ///
    /// The budget is a share of the time left plus most of the increment; the soft limit is
    /// that budget, the hard one a few times it, and both keep a reserve for the transport so
    /// that the flag never falls.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use xq_engine::Limits;
    ///
    /// let limits = Limits::from_clock(Duration::from_secs(60), Duration::from_secs(1), None);
    /// let (soft, hard) = (limits.soft_deadline.unwrap(), limits.deadline.unwrap());
    /// assert!(soft < hard && hard < Duration::from_secs(20));
    /// ```
    #[must_use]
    pub fn from_clock(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> Self {
        let reserve = (remaining / 20).min(Duration::from_millis(500));
        let usable = remaining.saturating_sub(reserve);
        let moves = moves_to_go.map_or(28, |n| n.clamp(1, 40));
        let cap = if moves == 1 { usable } else { usable / 2 };
        let soft = (usable / moves + increment * 3 / 4).min(cap);
        let hard = (soft * 3).min(usable);
        Self {
            depth: None,
            nodes: None,
            deadline: Some(hard),
            soft_deadline: Some(soft),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_budget_stays_inside_the_time_left() {
        for (remaining, increment, moves) in [
            (60_000, 0, None),
            (60_000, 2_000, None),
            (1_000, 0, Some(1)),
            (100, 0, None),
            (0, 0, None),
            (300_000, 0, Some(40)),
        ] {
            let remaining = Duration::from_millis(remaining);
            let limits = Limits::from_clock(remaining, Duration::from_millis(increment), moves);
            let (Some(soft), Some(hard)) = (limits.soft_deadline, limits.deadline) else {
                panic!("{remaining:?}: no deadline");
            };
            assert!(soft <= hard, "{remaining:?}");
            assert!(hard <= remaining, "{remaining:?}");
        }
        let one_move = Limits::from_clock(Duration::from_secs(10), Duration::ZERO, Some(1));
        assert!(one_move.soft_deadline >= Some(Duration::from_secs(4)));
    }
}
