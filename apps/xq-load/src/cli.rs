//! The command line: what to load, how hard and for how long.

use std::time::Duration;

use clap::Parser;
use xq_client::Relays;

/// Plays many matches at once against a relay, or the nodes of a relay cluster, and prints
/// `key: value` lines: `moves/s`, `latency_p50_us` and `latency_p99_us` (a move sent until the
/// opponent receives its event), `errors`, and with `--relay-pid` the relay's CPU per move and
/// memory per match (with `--nats-pid`, the NATS servers' CPU per move too).
#[derive(Parser)]
#[command(name = "xq-load", version, about)]
pub(crate) struct Args {
    /// The relay: `udp://HOST:PORT`, `quic://HOST:PORT?fp=HEX` or `ws://HOST:PORT` (as
    /// `xq-relay` prints it).
    /// `mem://` names a listener inside one process, so it cannot reach a relay from here.
    /// For a relay cluster, its nodes as a comma-separated list, all over one transport: the
    /// players are split across them, the creator of match `m` on node `m mod n` and the
    /// joiner on the next node, so every join is redirected to the room's owner.
    #[arg(required_unless_present = "baseline", value_name = "URLS")]
    pub(crate) url: Option<Relays>,
    /// Concurrent matches (two clients each), up to a million.
    #[arg(long, default_value_t = 100, value_parser = counts(1_000_000))]
    pub(crate) matches: usize,
    /// How long to measure, in seconds (with `--idle`: how long the idle matches settle
    /// before the relay's memory is read).
    #[arg(long, default_value = "10", value_parser = positive_seconds)]
    pub(crate) seconds: Duration,
    /// Seconds of play before measuring starts, so that caches, buffers and allocators have
    /// settled.
    #[arg(long, default_value = "1", value_parser = seconds)]
    pub(crate) warmup: Duration,
    /// Seeds the scripted games: script `i` is a random legal game drawn with seed `SEED + i`,
    /// and match `m` plays script `m` modulo their number, game after game.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Moves per second to offer in total, spread evenly over the matches (default: every
    /// match moves as soon as its turn passes, which saturates the machine).
    #[arg(long, value_name = "MOVES_PER_SECOND", value_parser = per_second)]
    pub(crate) rate: Option<f64>,
    /// The relay's process id: its CPU use and memory are read from `/proc/PID/stat` and
    /// `/proc/PID/status` (Linux) and reported per move and per match. For a cluster, every
    /// node's (comma-separated or repeated): they are summed.
    #[arg(
        long,
        value_name = "PID",
        value_delimiter = ',',
        conflicts_with = "baseline"
    )]
    pub(crate) relay_pid: Vec<u32>,
    /// The process ids of the NATS servers that hold a relay cluster's state
    /// (comma-separated or repeated): their CPU use, summed, is reported per move beside the
    /// relays'.
    #[arg(
        long,
        value_name = "PID",
        value_delimiter = ',',
        conflicts_with = "baseline"
    )]
    pub(crate) nats_pid: Vec<u32>,
    /// Seats the matches and plays no move: measures the relay's memory per idle match
    /// (start the relay afresh for this, since freed memory is not given back) and the CPU
    /// that holding them takes.
    #[arg(long, requires = "relay_pid", conflicts_with_all = ["rate", "baseline"])]
    pub(crate) idle: bool,
    /// Measures the machine instead of the relay: a trivial forwarder on its own thread relays
    /// raw UDP datagrams of the same sizes as the protocol's move and event frames, with the
    /// same pattern (one move in, the event out to both players). Figures of a relay are best
    /// read as ratios to this one.
    #[arg(long, conflicts_with = "url")]
    pub(crate) baseline: bool,
    /// Matches being set up at once (each makes two handshakes). A relay cluster's node
    /// refuses creates (`Unavailable`) beyond the room codes it has claimed ahead, 16 by
    /// default: against one node keep this well below that.
    #[arg(long, default_value_t = 32, value_parser = counts(100_000))]
    pub(crate) connect_concurrency: usize,
    /// Clients that share one socket and its driver. A real client has a socket of its own
    /// (1); sharing batches the load generator's datagrams, so that it takes less of the CPU
    /// it shares with the relay.
    #[arg(long, default_value_t = 64, value_parser = counts(100_000))]
    pub(crate) clients_per_socket: usize,
    /// Worker threads of the load generator (default: one per core).
    #[arg(long, value_parser = counts(1_024))]
    pub(crate) threads: Option<usize>,
}

impl Args {
    /// How many sockets the clients share: `--clients-per-socket` clients to each.
    pub(crate) fn sockets(&self) -> usize {
        (2 * self.matches).div_ceil(self.clients_per_socket.max(1))
    }
}

/// A count from 1 to `most`: zero does nothing, and a count beyond what the machine can hold
/// would only fail later, less clearly.
fn counts(most: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=most)
}

/// A number of seconds as a duration, if it is one (finite, not negative, not beyond what a
/// duration holds).
fn seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|err| format!("{err}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| "not a number of seconds".to_string())
}

/// As [`seconds`], and more than none.
fn positive_seconds(text: &str) -> Result<Duration, String> {
    seconds(text).and_then(|duration| {
        (!duration.is_zero())
            .then_some(duration)
            .ok_or_else(|| "must be more than zero".to_string())
    })
}

/// A finite, positive rate.
fn per_second(text: &str) -> Result<f64, String> {
    let rate: f64 = text.parse().map_err(|err| format!("{err}"))?;
    (rate.is_finite() && rate > 0.0)
        .then_some(rate)
        .ok_or_else(|| "must be a positive number".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("xq-load").chain(args.iter().copied()))
    }

    #[test]
    fn the_defaults_are_those_of_the_figures() -> Result<(), clap::Error> {
        let args = parse(&["udp://127.0.0.1:7878"])?;
        assert_eq!(args.matches, 100);
        assert_eq!(args.seconds, Duration::from_secs(10));
        assert_eq!(args.warmup, Duration::from_secs(1));
        assert_eq!(
            (args.connect_concurrency, args.clients_per_socket),
            (32, 64)
        );
        assert_eq!(args.sockets(), 4);
        Ok(())
    }

    /// Numbers no run could use are refused by the parser, with the flag named (a rate so
    /// small that a match's interval overflows a duration is refused when the run starts).
    #[test]
    fn refuses_numbers_it_cannot_use() {
        let cases: [&[&str]; 6] = [
            &["--seconds", "inf"],
            &["--seconds", "0"],
            &["--warmup", "1e300"],
            &["--rate", "inf"],
            &["--matches", "0"],
            &["--matches", "18446744073709551615"],
        ];
        for case in cases {
            let args = [&["--baseline"], case].concat();
            let Err(err) = parse(&args) else {
                panic!("{case:?} was accepted");
            };
            assert!(err.to_string().contains(case[0]), "{case:?}: {err}");
        }
    }

    /// A cluster's nodes are one comma-separated argument, and so may their processes be.
    #[test]
    fn takes_a_list_of_nodes_and_their_pids() -> Result<(), clap::Error> {
        let args = parse(&[
            "udp://127.0.0.1:7000,udp://127.0.0.1:7001",
            "--relay-pid",
            "10,11",
            "--nats-pid",
            "12",
            "--nats-pid",
            "13",
        ])?;
        let nodes: Vec<&str> = args.url.iter().flat_map(Relays::iter).collect();
        assert_eq!(nodes, ["udp://127.0.0.1:7000", "udp://127.0.0.1:7001"]);
        assert_eq!(
            (args.relay_pid, args.nats_pid),
            (vec![10, 11], vec![12, 13])
        );
        assert!(parse(&["udp://127.0.0.1:7000,,udp://127.0.0.1:7001"]).is_err());
        Ok(())
    }

    #[test]
    fn a_url_or_the_baseline_is_needed_and_not_both() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["udp://127.0.0.1:1", "--baseline"]).is_err());
        assert!(
            parse(&["--idle", "udp://127.0.0.1:1"]).is_err(),
            "idle needs a pid"
        );
    }
}
