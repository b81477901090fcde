//! `xq-load` against a relay in this process: a short run per mode, checking the output keys
//! and that nothing failed. A functional test only; speed is measured by running the tool.

mod support;

use support::{load, number};

use std::time::Duration;

use xq_server::Server;
use xq_transport::Options;

const TEST_TIMEOUT: Duration = Duration::from_secs(60);

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(ToString::to_string).collect()
}

/// A relay in this process on a free loopback port of `scheme`, with no rate limit: a load
/// generator is the one client meant to send as fast as it can. The directory holds its QUIC
/// identity and must outlive it.
async fn relay(scheme: &str) -> (Server, tempfile::TempDir) {
    let identity = tempfile::tempdir().expect("temp dir");
    let options = Options {
        quic_identity_dir: Some(identity.path().to_path_buf()),
        ..Options::default()
    };
    let unlimited = xq_server::RateLimit {
        burst: u32::MAX,
        per_second: u32::MAX,
    };
    let config = xq_server::Config {
        rate_limit: unlimited,
        ..xq_server::Config::default()
    };
    let server = Server::builder()
        .config(config)
        .transport(options)
        .listen(format!("{scheme}://127.0.0.1:0"))
        .start()
        .await
        .expect("the relay starts");
    (server, identity)
}

/// Plays 4 matches for half a second over `scheme` and checks the report.
async fn plays_over(scheme: &str) {
    let (server, _identity) = relay(scheme).await;
    let url = server.local_urls()[0].clone();
    let pid = std::process::id().to_string();
    let report = load(&args(&[
        &url,
        "--matches",
        "4",
        "--seconds",
        "0.5",
        "--warmup",
        "0.1",
        "--relay-pid",
        &pid,
    ]))
    .await;
    assert_eq!(report["transport"], scheme);
    assert_eq!(report["matches"], "4");
    assert_eq!(report["seated"], "4");
    assert_eq!(report["errors"], "0", "{report:?}");
    assert!(number(&report, "moves") > 0.0, "{report:?}");
    assert!(number(&report, "moves/s") > 0.0, "{report:?}");
    assert!(number(&report, "latency_p50_us") <= number(&report, "latency_p99_us"));
    for key in [
        "latency_max_us",
        "games",
        "relay_cpu_percent",
        "relay_rss_bytes",
        "relay_rss_per_match_bytes",
    ] {
        number(&report, key);
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_over_udp() {
    tokio::time::timeout(TEST_TIMEOUT, plays_over("udp"))
        .await
        .expect("the test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_over_quic() {
    tokio::time::timeout(TEST_TIMEOUT, plays_over("quic"))
        .await
        .expect("the test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_over_ws() {
    tokio::time::timeout(TEST_TIMEOUT, plays_over("ws"))
        .await
        .expect("the test finished in time");
}

/// A schedule whose moves are further apart than the run's wind-down (two matches at one
/// move every ten seconds each) still ends when the time is up: no match fails for waiting
/// for its next move past the wind-down, and none is left out of the count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sparse_schedule_ends_with_the_time() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, _identity) = relay("udp").await;
        let url = server.local_urls()[0].clone();
        let report = load(&args(&[
            &url,
            "--matches",
            "2",
            "--rate",
            "0.2",
            "--seconds",
            "0.5",
            "--warmup",
            "0.1",
        ]))
        .await;
        assert_eq!(report["errors"], "0", "{report:?}");
        assert_eq!(report["seated"], "2", "{report:?}");
        server.shutdown().await;
    })
    .await
    .expect("the test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn measures_idle_matches() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let (server, _identity) = relay("udp").await;
        let url = server.local_urls()[0].clone();
        let pid = std::process::id().to_string();
        let report = load(&args(&[
            &url,
            "--idle",
            "--matches",
            "8",
            "--seconds",
            "0.5",
            "--relay-pid",
            &pid,
        ]))
        .await;
        assert_eq!(report["mode"], "idle");
        assert_eq!(report["seated"], "8");
        assert_eq!(report["errors"], "0", "{report:?}");
        assert!(!report.contains_key("moves/s"), "{report:?}");
        assert!(!report.contains_key("relay_cpu_us_per_move"), "{report:?}");
        number(&report, "relay_cpu_percent");
        number(&report, "relay_rss_per_match_bytes");
        server.shutdown().await;
    })
    .await
    .expect("the test finished in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_the_raw_udp_baseline() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let report = load(&args(&[
            "--baseline",
            "--matches",
            "4",
            "--seconds",
            "1",
            "--warmup",
            "0.2",
        ]))
        .await;
        assert_eq!(report["mode"], "baseline");
        assert_eq!(report["transport"], "raw-udp");
        assert_eq!(report["errors"], "0", "{report:?}");
        assert!(number(&report, "moves/s") > 0.0, "{report:?}");
        number(&report, "relay_cpu_percent");
    })
    .await
    .expect("the test finished in time");
}

/// Numbers no run could use are refused at once, with the flag named, never panicked on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_numbers_it_cannot_use() {
    let cases: [&[&str]; 6] = [
        &["--seconds", "inf"],
        &["--seconds", "0"],
        &["--warmup", "1e300"],
        &["--rate", "1e-300"],
        &["--rate", "inf"],
        &["--matches", "18446744073709551615"],
    ];
    for case in cases {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_xq-load"))
            .args(["--baseline", "--matches", "1"])
            .args(case)
            .output()
            .await
            .unwrap_or_else(|e| panic!("spawn xq-load: {e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{case:?} was accepted");
        assert!(
            stderr.contains(case[0]) && !stderr.contains("panicked"),
            "{case:?}: {stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_mem_urls() {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_xq-load"))
        .args(["mem://relay", "--seconds", "1"])
        .output()
        .await
        .unwrap_or_else(|e| panic!("spawn xq-load: {e}"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("same process"), "{stderr}");
}
