//! `xq-load` against two `xq-relay --cluster` processes sharing one real `nats-server`: the
//! players are split across the nodes, every join is redirected to the room's owner, and the
//! run completes with moves and no errors. A functional test only; speed is measured by
//! running the tool.
//!
//! The NATS server is `$XQ_NATS_SERVER`, else `nats-server` on the `PATH`; the relay is
//! `$XQ_RELAY`, else the `xq-relay` that cargo built beside `xq-load` (a workspace test run
//! builds both; testing this package alone, build it first with `cargo build -p xq-relay`).
//! Without either the test prints a note and passes, unless `XQ_REQUIRE_NATS=1`: then it
//! fails.

mod support;

use support::{load, number};

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use xq_cluster::testing::NatsServer;

const TEST_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a relay may take to join the cluster and print where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The `xq-relay` binary to run, or why there is none.
fn relay_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("XQ_RELAY") {
        return Ok(path.into());
    }
    let beside = Path::new(env!("CARGO_BIN_EXE_xq-load"))
        .with_file_name(format!("xq-relay{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "no xq-relay at {} (build it with `cargo build -p xq-relay`, or set XQ_RELAY)",
            beside.display()
        ))
    }
}

/// One relay node, killed when dropped.
struct Node {
    child: Child,
    /// The URL it listens on, as it printed it.
    url: String,
    /// Held so that the relay's writes to its standard output never fail.
    _stdout: Lines<BufReader<ChildStdout>>,
    /// Its QUIC identity, which it creates even with no QUIC listener.
    _identity: tempfile::TempDir,
}

impl Node {
    /// Starts node `name` of the cluster on `nats`, on a free loopback UDP port, with limits
    /// a load generator needs (all its clients come from one address and send as fast as
    /// they can), and waits until it listens.
    async fn start(binary: &Path, nats: &str, name: &str) -> Self {
        let identity = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(binary)
            .args(["--cluster", nats, "--node-name", name])
            .args(["--listen", "udp://127.0.0.1:0", "--log-level", "error"])
            .args(["--rate-limit", "1000000", "--rate-burst", "1000000"])
            .args(["--max-connections-per-address", "100000"])
            .args(["--max-rooms-per-address", "100000"])
            .arg("--identity-dir")
            .arg(identity.path())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", binary.display()));
        let mut stdout = BufReader::new(child.stdout.take().expect("piped")).lines();
        let line = tokio::time::timeout(START_TIMEOUT, stdout.next_line())
            .await
            .unwrap_or_else(|_| panic!("{name} did not start in time"))
            .expect("read the relay's output")
            .unwrap_or_else(|| panic!("{name} exited at start"));
        let url = line
            .strip_prefix("listening: ")
            .unwrap_or_else(|| panic!("{name} printed {line:?}"))
            .to_string();
        Self {
            child,
            url,
            _stdout: stdout,
            _identity: identity,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("the relay is running")
    }
}

/// Eight matches for a second over two nodes: each creator's room lives on its node, each
/// joiner asks the other node and is redirected there, and the games go on with no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_across_two_cluster_nodes() {
    let binary = match relay_binary() {
        Ok(binary) => binary,
        Err(why) if std::env::var("XQ_REQUIRE_NATS").as_deref() == Ok("1") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let Some(nats) = NatsServer::start() else {
        return;
    };
    tokio::time::timeout(TEST_TIMEOUT, async {
        let a = Node::start(&binary, &nats.url(), "relay-a").await;
        let b = Node::start(&binary, &nats.url(), "relay-b").await;
        let urls = format!("{},{}", a.url, b.url);
        let pids = format!("{},{}", a.pid(), b.pid());
        let report = load(&[
            &urls,
            "--matches",
            "8",
            "--seconds",
            "1",
            "--warmup",
            "0.2",
            "--relay-pid",
            &pids,
        ])
        .await;
        assert_eq!(report["transport"], "udp");
        assert_eq!(report["seated"], "8", "{report:?}");
        assert_eq!(report["nodes"], "2", "{report:?}");
        assert_eq!(report["redirects"], "8", "every join, once: {report:?}");
        assert_eq!(report["errors"], "0", "{report:?}");
        assert!(number(&report, "moves") > 0.0, "{report:?}");
        number(&report, "relay_cpu_us_per_move");
        number(&report, "relay_rss_bytes");
    })
    .await
    .expect("the test finished in time");
}
