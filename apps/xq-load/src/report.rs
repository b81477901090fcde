//! The figures of a run and their `key: value` lines.

use std::io::Write;
use std::time::Duration;

use anyhow::{Result, ensure};

/// What a match task hands back.
#[derive(Default)]
pub(crate) struct Tally {
    /// Latencies of the measured moves, in microseconds.
    pub(crate) latencies: Vec<u32>,
    /// Games finished while measured.
    pub(crate) games: u64,
    /// Whether the match failed.
    pub(crate) failed: bool,
}

/// What the whole run measured.
pub(crate) struct Report {
    pub(crate) matches: usize,
    pub(crate) seated: usize,
    /// Redirects the clients followed to their seats.
    pub(crate) redirects: usize,
    pub(crate) elapsed: Duration,
    pub(crate) tallies: Vec<Tally>,
    pub(crate) errors: usize,
    /// The load generator's CPU use, in percent of a core.
    pub(crate) load_cpu: Option<f64>,
    /// The relay's (or the forwarder's) CPU use, in percent of a core; a cluster's nodes
    /// summed.
    pub(crate) relay_cpu: Option<f64>,
    /// The NATS servers' CPU use, in percent of a core, summed.
    pub(crate) nats_cpu: Option<f64>,
    pub(crate) relay_rss_before: Option<u64>,
    pub(crate) relay_rss: Option<u64>,
}

/// What a run was, which decides the lines its report has.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run<'a> {
    /// What the matches did.
    pub(crate) mode: Mode,
    /// The way the clients went: a URL scheme, or `raw-udp` for the baseline.
    pub(crate) transport: &'a str,
    /// The relay nodes the players were split across.
    pub(crate) nodes: usize,
    /// The offered rate, if any.
    pub(crate) rate: Option<f64>,
}

/// What kind of run a report is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Matches playing on a relay.
    Play,
    /// Matches seated on a relay, playing no move.
    Idle,
    /// Raw datagrams through the forwarder.
    Baseline,
}

impl Mode {
    const fn name(self) -> &'static str {
        match self {
            Self::Play => "play",
            Self::Idle => "idle",
            Self::Baseline => "baseline",
        }
    }
}

impl Report {
    /// Writes the report's `key: value` lines for `run`. A run across several relay nodes
    /// also has `nodes` and `redirects` (the joins sent on to the room's owner), and any run
    /// with the NATS servers' processes their CPU beside the relay's.
    ///
    /// # Errors
    ///
    /// A failed write, or a run in which no match could be set up (after writing).
    pub(crate) fn write(&self, out: &mut impl Write, run: Run<'_>) -> Result<()> {
        let Run {
            mode,
            transport,
            nodes,
            rate,
        } = run;
        let idle = mode == Mode::Idle;
        let mut latencies: Vec<u32> = self
            .tallies
            .iter()
            .flat_map(|tally| tally.latencies.iter().copied())
            .collect();
        latencies.sort_unstable();
        let moves = latencies.len();
        let games: u64 = self.tallies.iter().map(|tally| tally.games).sum();
        let seconds = self.elapsed.as_secs_f64();
        writeln!(out, "mode: {}", mode.name())?;
        writeln!(out, "transport: {transport}")?;
        writeln!(out, "matches: {}", self.matches)?;
        writeln!(out, "seated: {}", self.seated)?;
        if nodes > 1 {
            writeln!(out, "nodes: {nodes}")?;
            writeln!(out, "redirects: {}", self.redirects)?;
        }
        if !idle {
            if let Some(rate) = rate {
                writeln!(out, "offered_moves/s: {rate:.0}")?;
            }
            writeln!(out, "seconds: {seconds:.2}")?;
            writeln!(out, "moves: {moves}")?;
            writeln!(out, "games: {games}")?;
            writeln!(out, "moves/s: {:.0}", moves as f64 / seconds)?;
            writeln!(out, "latency_p50_us: {}", percentile(&latencies, 0.50))?;
            writeln!(out, "latency_p99_us: {}", percentile(&latencies, 0.99))?;
            writeln!(
                out,
                "latency_max_us: {}",
                latencies.last().copied().unwrap_or(0)
            )?;
        }
        writeln!(out, "errors: {}", self.errors)?;
        // CPU time per move holds still when other work on the machine takes cores away,
        // where moves per second do not.
        let per_move = |percent: f64| percent / 100.0 * seconds * 1e6 / moves.max(1) as f64;
        if let Some(cpu) = self.load_cpu {
            writeln!(out, "load_cpu_percent: {cpu:.0}")?;
            if !idle {
                writeln!(out, "load_cpu_us_per_move: {:.1}", per_move(cpu))?;
            }
        }
        // Idle matches cost CPU too (keeping connections alive, and in a cluster renewing
        // the rooms' leases): the share of a core is reported, with no moves to divide it by.
        for (name, cpu) in [("relay", self.relay_cpu), ("nats", self.nats_cpu)] {
            if let Some(cpu) = cpu {
                writeln!(out, "{name}_cpu_percent: {cpu:.0}")?;
                if !idle {
                    writeln!(out, "{name}_cpu_us_per_move: {:.1}", per_move(cpu))?;
                }
            }
        }
        // In the baseline the forwarder is a thread of this process: its memory is not its own.
        let rss = |value: Option<u64>| value.filter(|_| mode != Mode::Baseline);
        if let Some(before) = rss(self.relay_rss_before) {
            writeln!(out, "relay_rss_before_bytes: {before}")?;
        }
        if let Some(after) = rss(self.relay_rss) {
            writeln!(out, "relay_rss_bytes: {after}")?;
        }
        if let (Some(before), Some(after)) = (rss(self.relay_rss_before), rss(self.relay_rss)) {
            let per_match = after.saturating_sub(before) / self.matches as u64;
            writeln!(out, "relay_rss_per_match_bytes: {per_match}")?;
        }
        ensure!(self.seated > 0, "no match could be set up");
        Ok(())
    }
}

/// The nearest-rank percentile `p` (0 to 1) of `sorted`; 0 when it is empty.
fn percentile(sorted: &[u32], p: f64) -> u32 {
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted
        .get(rank.clamp(1, sorted.len().max(1)) - 1)
        .copied()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let tally = |latencies: Vec<u32>, games| Tally {
            latencies,
            games,
            failed: false,
        };
        Report {
            matches: 2,
            seated: 2,
            redirects: 2,
            elapsed: Duration::from_secs(2),
            tallies: vec![tally((1..=50).collect(), 1), tally((51..=100).collect(), 2)],
            errors: 0,
            load_cpu: Some(50.0),
            relay_cpu: Some(100.0),
            nats_cpu: None,
            relay_rss_before: Some(1_000),
            relay_rss: Some(5_000),
        }
    }

    fn lines(report: &Report, mode: Mode, rate: Option<f64>) -> Result<String> {
        let run = Run {
            mode,
            transport: "udp",
            nodes: 1,
            rate,
        };
        let mut out = Vec::new();
        report.write(&mut out, run)?;
        Ok(String::from_utf8(out)?)
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let sorted: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&sorted, 0.5), 50);
        assert_eq!(percentile(&sorted, 0.99), 99);
        assert_eq!(percentile(&[7], 0.99), 7);
        assert_eq!(percentile(&[], 0.5), 0);
    }

    #[test]
    fn writes_the_figures_of_a_run() -> Result<()> {
        let text = lines(&report(), Mode::Play, None)?;
        let expected = "mode: play\ntransport: udp\nmatches: 2\nseated: 2\nseconds: 2.00\n\
                        moves: 100\ngames: 3\nmoves/s: 50\nlatency_p50_us: 50\n\
                        latency_p99_us: 99\nlatency_max_us: 100\nerrors: 0\n\
                        load_cpu_percent: 50\nload_cpu_us_per_move: 10000.0\n\
                        relay_cpu_percent: 100\nrelay_cpu_us_per_move: 20000.0\n\
                        relay_rss_before_bytes: 1000\nrelay_rss_bytes: 5000\n\
                        relay_rss_per_match_bytes: 2000\n";
        assert_eq!(text, expected);
        Ok(())
    }

    /// A run across nodes says how many and how many joins were redirected, and the NATS
    /// servers' CPU per move comes beside the relays'.
    #[test]
    fn a_cluster_run_reports_its_nodes_redirects_and_nats() -> Result<()> {
        let report = Report {
            nats_cpu: Some(25.0),
            ..report()
        };
        let run = Run {
            mode: Mode::Play,
            transport: "udp",
            nodes: 2,
            rate: None,
        };
        let mut out = Vec::new();
        report.write(&mut out, run)?;
        let text = String::from_utf8(out)?;
        assert!(
            text.contains("seated: 2\nnodes: 2\nredirects: 2\n"),
            "{text}"
        );
        assert!(
            text.contains("relay_cpu_us_per_move: 20000.0\nnats_cpu_percent: 25\nnats_cpu_us_per_move: 5000.0\n"),
            "{text}"
        );
        let single = lines(&report, Mode::Play, None)?;
        assert!(!single.contains("redirects"), "{single}");
        Ok(())
    }

    #[test]
    fn idle_and_baseline_runs_leave_out_what_they_do_not_measure() -> Result<()> {
        let idle = lines(&report(), Mode::Idle, None)?;
        assert!(
            !idle.contains("moves") && !idle.contains("per_move"),
            "{idle}"
        );
        assert!(idle.contains("relay_cpu_percent: 100\n"), "{idle}");
        assert!(idle.contains("relay_rss_per_match_bytes: 2000"), "{idle}");
        let baseline = lines(&report(), Mode::Baseline, Some(5.0))?;
        assert!(baseline.contains("offered_moves/s: 5\n"), "{baseline}");
        assert!(baseline.contains("relay_cpu_percent"), "{baseline}");
        assert!(!baseline.contains("rss"), "{baseline}");
        Ok(())
    }

    #[test]
    fn a_run_with_no_match_seated_fails() {
        let report = Report {
            seated: 0,
            ..report()
        };
        assert!(lines(&report, Mode::Play, None).is_err());
    }
}
