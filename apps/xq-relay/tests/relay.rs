//! The binary as people run it: flags, printed addresses, a client's hello, and SIGTERM.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use xq_protocol::{ClientMsg, DisconnectReason, PROTOCOL_VERSION, ServerMsg, codec};
use xq_transport::Options;

const TEST_TIMEOUT: Duration = Duration::from_secs(20);

/// A running relay and the lines it printed.
struct Relay {
    child: Child,
    urls: Vec<String>,
    fingerprint: String,
    _stdout: Lines<BufReader<ChildStdout>>,
}

async fn start(identity: &std::path::Path) -> Relay {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args([
            "--listen",
            "udp://127.0.0.1:0",
            "--listen",
            "quic://127.0.0.1:0",
        ])
        .arg("--identity-dir")
        .arg(identity)
        .args(["--log-level", "warn"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the relay starts");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let mut urls = Vec::new();
    let fingerprint = loop {
        let line = lines
            .next_line()
            .await
            .expect("stdout reads")
            .expect("the relay prints its addresses");
        if let Some(url) = line.strip_prefix("listening: ") {
            urls.push(url.to_string());
        } else if line.contains("fingerprint") {
            break line.rsplit(' ').next().unwrap_or_default().to_string();
        }
    };
    Relay {
        child,
        urls,
        fingerprint,
        _stdout: lines,
    }
}

async fn hello(url: &str) -> std::sync::Arc<dyn xq_transport::Connection> {
    let conn = xq_transport::connect(url, &Options::default())
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        client: "relay-test".into(),
        resume: None,
    };
    conn.send(codec::to_frame(&hello).expect("encodes"))
        .await
        .expect("send");
    let welcome: ServerMsg = codec::decode(&conn.recv().await.expect("recv")).expect("decodes");
    assert!(matches!(welcome, ServerMsg::Welcome { .. }), "{welcome:?}");
    conn
}

async fn terminate(relay: &mut Relay) {
    let pid = relay.child.id().expect("running").to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .expect("kill runs");
    assert!(killed.success());
    let status = relay.child.wait().await.expect("the relay exits");
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prints_its_addresses_serves_hellos_and_stops_on_sigterm() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let identity = tempfile::tempdir().expect("temp dir");
        let mut relay = start(identity.path()).await;
        let [udp, quic] = &relay.urls[..] else {
            panic!("expected two listeners, got {:?}", relay.urls);
        };
        assert!(
            udp.starts_with("udp://127.0.0.1:") && !udp.ends_with(":0"),
            "{udp}"
        );
        assert!(quic.starts_with("quic://127.0.0.1:"), "{quic}");
        assert_eq!(relay.fingerprint.len(), 64, "{}", relay.fingerprint);
        assert!(
            quic.ends_with(&format!("?fp={}", relay.fingerprint)),
            "{quic}"
        );

        let over_udp = hello(udp).await;
        let over_quic = hello(quic).await;
        terminate(&mut relay).await;
        for conn in [over_udp, over_quic] {
            let bye: ServerMsg = codec::decode(&conn.recv().await.expect("recv")).expect("decodes");
            assert!(
                matches!(
                    bye,
                    ServerMsg::Disconnect {
                        reason: DisconnectReason::ShuttingDown,
                        ..
                    }
                ),
                "{bye:?}"
            );
        }

        // The certificate was kept: a restart on the same directory has the same fingerprint.
        let mut again = start(identity.path()).await;
        assert_eq!(again.fingerprint, relay.fingerprint);
        terminate(&mut again).await;
    })
    .await
    .expect("the test finished in time");
}

#[test]
fn help_lists_the_flags() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .arg("--help")
        .output()
        .expect("the relay runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for flag in ["--listen", "--identity-dir", "--grace", "--log-level"] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
}
