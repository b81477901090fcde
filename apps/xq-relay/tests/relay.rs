//! The binary as people run it: flags, printed addresses, a client's hello, SIGTERM,
//! SIGKILL in the middle of a game with the database keeping every acknowledged move, and a
//! Prometheus scrape of its counters.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdout, Command};
use xq_protocol::{
    ClientMsg, DisconnectReason, PROTOCOL_VERSION, Request, RequestId, ResumeToken, RoomCode,
    RoomOptions, SeatChoice, ServerMsg, codec,
};
use xq_rules::Move;
use xq_rules::iccs::Iccs;
use xq_session::{Action, Event, pgn};
use xq_transport::{Connection, Options};

const TEST_TIMEOUT: Duration = Duration::from_secs(20);

/// A running relay and the lines it printed.
struct Relay {
    child: Child,
    urls: Vec<String>,
    fingerprint: String,
    /// The `web:` line's URL: the web client's page.
    web: String,
    /// The `metrics:` line's URL, when the relay was started with `--metrics`.
    metrics: Option<String>,
    _stdout: Lines<BufReader<ChildStdout>>,
}

/// Starts the binary on `db` with a UDP listener on `udp`, and QUIC and WebSocket ones on free
/// ports.
async fn start(identity: &Path, db: &Path, udp: &str) -> Relay {
    start_with(identity, db, udp, &[]).await
}

/// [`start`], with more flags.
async fn start_with(identity: &Path, db: &Path, udp: &str, more: &[&str]) -> Relay {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args(["--listen", udp, "--listen", "quic://127.0.0.1:0"])
        .args(["--listen", "ws://127.0.0.1:0"])
        .args(more)
        .arg("--identity-dir")
        .arg(identity)
        .arg("--db")
        .arg(db)
        .args(["--log-level", "warn"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the relay starts");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let mut urls = Vec::new();
    let mut fingerprint = String::new();
    // Each WebSocket listener's line is followed by its page's; the last listener's ends them.
    let websockets = 1 + more
        .iter()
        .filter(|arg| arg.starts_with("ws://") || arg.starts_with("wss://"))
        .count();
    let mut pages = Vec::new();
    while pages.len() < websockets {
        let line = lines
            .next_line()
            .await
            .expect("stdout reads")
            .expect("the relay prints its addresses");
        if let Some(url) = line.strip_prefix("listening: ") {
            urls.push(url.to_string());
        } else if let Some(hex) = line.strip_prefix("fingerprint: ") {
            fingerprint = hex.to_string();
        } else if let Some(url) = line.strip_prefix("web: ") {
            pages.push(url.to_string());
        }
    }
    let web = pages.swap_remove(0);
    let metrics = if more.contains(&"--metrics") {
        let line = lines
            .next_line()
            .await
            .expect("stdout reads")
            .expect("the relay prints its metrics address");
        let url = line.strip_prefix("metrics: ").expect("a metrics line");
        Some(url.to_string())
    } else {
        None
    };
    Relay {
        child,
        urls,
        fingerprint,
        web,
        metrics,
        _stdout: lines,
    }
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
        let db = identity.path().join("relay.sqlite3");
        let mut relay = start(identity.path(), &db, "udp://127.0.0.1:0").await;
        let [udp, quic, ws] = &relay.urls[..] else {
            panic!("expected three listeners, got {:?}", relay.urls);
        };
        assert!(
            udp.starts_with("udp://127.0.0.1:") && !udp.ends_with(":0"),
            "{udp}"
        );
        assert!(quic.starts_with("quic://127.0.0.1:"), "{quic}");
        assert!(
            ws.starts_with("ws://127.0.0.1:") && !ws.ends_with(":0"),
            "{ws}"
        );
        assert_eq!(relay.web, format!("http{}/", &ws["ws".len()..]));
        assert_eq!(relay.fingerprint.len(), 64, "{}", relay.fingerprint);
        assert!(
            quic.ends_with(&format!("?fp={}", relay.fingerprint)),
            "{quic}"
        );

        let over_udp = hello_with(udp, None).await;
        let over_quic = hello_with(quic, None).await;
        let over_ws = hello_with(ws, None).await;
        // The WebSocket's port also serves the web client's page (or, in a relay built without
        // the client, the page that says how to build it).
        let (head, body) = http_get(&relay.web, "/").await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(head.contains("content-type: text/html"), "{head}");
        assert!(body.contains("xq"), "{body}");
        terminate(&mut relay).await;
        for conn in [over_udp, over_quic, over_ws] {
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
        let mut again = start(identity.path(), &db, "udp://127.0.0.1:0").await;
        assert_eq!(again.fingerprint, relay.fingerprint);
        terminate(&mut again).await;
    })
    .await
    .expect("the test finished in time");
}

/// With a certificate and key, a wss:// listener serves the page over https and WebSocket
/// over TLS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_wss_with_the_operators_certificate() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let dir = tempfile::tempdir().expect("temp dir");
        let rcgen::CertifiedKey { cert, signing_key } =
            rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()])
                .expect("a certificate");
        let (cert_file, key_file) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert_file, cert.pem()).expect("writes");
        std::fs::write(&key_file, signing_key.serialize_pem()).expect("writes");
        let (cert_file, key_file) = (
            cert_file.display().to_string(),
            key_file.display().to_string(),
        );
        let more = [
            "--listen",
            "wss://127.0.0.1:0",
            "--tls-cert",
            &cert_file,
            "--tls-key",
            &key_file,
        ];
        let db = dir.path().join("relay.sqlite3");
        let mut relay = start_with(dir.path(), &db, "udp://127.0.0.1:0", &more).await;
        let wss = relay
            .urls
            .iter()
            .find(|url| url.starts_with("wss://"))
            .expect("a wss listener")
            .clone();
        assert!(wss.contains("?ca="), "{wss}");
        let over_wss = hello_with(&wss, None).await;
        terminate(&mut relay).await;
        let bye: ServerMsg = codec::decode(&over_wss.recv().await.expect("recv")).expect("decodes");
        assert!(matches!(bye, ServerMsg::Disconnect { .. }), "{bye:?}");
        // A wss listener without its certificate does not start.
        let output = run(&["--no-db", "--listen", "wss://127.0.0.1:0"]).await;
        assert!(!output.status.success());
    })
    .await
    .expect("the test finished in time");
}

/// A cap or rate of zero would turn every client away: the flags refuse it.
#[test]
fn caps_and_rates_of_zero_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("none.sqlite3");
    for flag in [
        "--max-connections",
        "--max-connections-per-address",
        "--rate-limit",
        "--rate-burst",
    ] {
        // `games list` on a missing file: should the flag pass, the relay stops at once all
        // the same, with another complaint.
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_xq-relay"))
            .args([flag, "0", "games", "list", "--db"])
            .arg(&missing)
            .output()
            .expect("the relay runs");
        assert!(!output.status.success(), "{flag} 0 was accepted");
        let text = String::from_utf8_lossy(&output.stderr);
        assert!(text.contains(flag), "{flag}: {text}");
    }
}

#[test]
fn help_lists_the_flags() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .arg("--help")
        .output()
        .expect("the relay runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--listen",
        "--identity-dir",
        "--grace",
        "--log-level",
        "--db",
        "--no-db",
        "--metrics",
        "--threads",
        "--max-rooms",
        "--max-rooms-per-address",
        "--tls-cert",
        "--tls-key",
        "--allow-origin",
    ] {
        assert!(text.contains(flag), "{flag} missing from:\n{text}");
    }
}

/// The frame of `msg` in a request with an id of its own (counting up across the tests), and
/// that id.
fn request(msg: ClientMsg) -> (RequestId, Vec<u8>) {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let id = RequestId(NEXT.fetch_add(1, Ordering::Relaxed));
    let frame = codec::to_frame(&Request { id, msg }).expect("encodes");
    (id, frame)
}

/// A player over raw UDP: its connection, room and resume token.
struct Player {
    conn: Arc<dyn Connection>,
    code: RoomCode,
    token: ResumeToken,
}

impl Player {
    /// Sends `msg` in a request; returns its id.
    async fn send(&self, msg: ClientMsg) -> RequestId {
        let (id, frame) = request(msg);
        self.conn.send(frame).await.expect("send");
        id
    }

    async fn recv(&self) -> ServerMsg {
        codec::decode(&self.conn.recv().await.expect("recv")).expect("decodes")
    }

    async fn play(&self, text: &str) -> RequestId {
        let iccs: Iccs = text.parse().expect("ICCS");
        let mv = Move::new(iccs.from, iccs.to);
        self.send(ClientMsg::Act(Action::Play(mv))).await
    }

    /// Reads messages until a match event that `pred` accepts.
    async fn wait_for(&self, pred: impl Fn(&Event) -> bool) {
        loop {
            if let ServerMsg::Event { event, .. } = self.recv().await
                && pred(&event)
            {
                return;
            }
        }
    }

    /// Reconnects with the resume token; returns the moves of the snapshot.
    async fn resume(&mut self, url: &str) -> Vec<Move> {
        self.conn = hello_with(url, Some(self.token)).await;
        loop {
            if let ServerMsg::Snapshot(snapshot) = self.recv().await {
                assert_eq!(snapshot.code, self.code);
                return snapshot.moves;
            }
        }
    }
}

async fn hello_with(url: &str, resume: Option<ResumeToken>) -> Arc<dyn Connection> {
    let conn = xq_transport::connect(url, &Options::default())
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"));
    let (id, hello) = request(ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        client: "relay-test".into(),
        resume,
    });
    conn.send(hello).await.expect("send");
    let welcome: ServerMsg = codec::decode(&conn.recv().await.expect("recv")).expect("decodes");
    assert!(
        matches!(welcome, ServerMsg::Welcome { id: answered, .. } if answered == id),
        "{welcome:?}"
    );
    conn
}

/// Creates a room as Red (`Some(code)`: joins it as Black) and reads up to the snapshot.
async fn seat(url: &str, join: Option<RoomCode>) -> Player {
    let conn = hello_with(url, None).await;
    let msg = match join {
        None => ClientMsg::CreateRoom(RoomOptions {
            seat: SeatChoice::Red,
            ..RoomOptions::default()
        }),
        Some(code) => ClientMsg::JoinRoom { code },
    };
    let (id, frame) = request(msg);
    conn.send(frame).await.expect("send");
    let joined: ServerMsg = codec::decode(&conn.recv().await.expect("recv")).expect("decodes");
    let ServerMsg::Joined {
        id: Some(answered),
        code,
        seat: Some(_),
        resume: Some(token),
    } = joined
    else {
        panic!("expected joined, got {joined:?}");
    };
    assert_eq!(answered, id);
    let player = Player { conn, code, token };
    assert!(matches!(player.recv().await, ServerMsg::Snapshot(_)));
    player
}

async fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args(args)
        .output()
        .await
        .expect("the relay runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_killed_mid_game_loses_no_acknowledged_move() {
    const OPENING: [&str; 6] = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"];
    tokio::time::timeout(TEST_TIMEOUT, async {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("relay.sqlite3");
        let mut relay = start(dir.path(), &db, "udp://127.0.0.1:0").await;
        let udp = relay.urls[0].clone();

        let mut red = seat(&udp, None).await;
        let mut black = seat(&udp, Some(red.code)).await;
        assert!(matches!(red.recv().await, ServerMsg::Snapshot(_)));
        // Each move is acknowledged: the opponent received it.
        for (ply, text) in OPENING.iter().enumerate() {
            let (mover, other) = if ply % 2 == 0 {
                (&red, &black)
            } else {
                (&black, &red)
            };
            mover.play(text).await;
            let played = |e: &Event| matches!(e, Event::MovePlayed { ply: p, .. } if *p == ply + 1);
            other.wait_for(played).await;
        }
        // One more move, and SIGKILL before anyone hears of it.
        red.play("b0c2").await;
        let pid = relay.child.id().expect("running").to_string();
        let killed = Command::new("kill").args(["-KILL", &pid]).status().await;
        assert!(killed.expect("kill runs").success());
        let status = relay.child.wait().await.expect("the relay exits");
        assert!(!status.success(), "{status}");

        let mut relay = start(dir.path(), &db, &udp).await;
        assert_eq!(relay.urls[0], udp, "the same port again");
        let moves = red.resume(&udp).await;
        assert_eq!(black.resume(&udp).await, moves);
        let acknowledged: Vec<String> = OPENING.iter().map(ToString::to_string).collect();
        let restored: Vec<String> = moves.iter().map(|mv| Iccs::from(*mv).to_string()).collect();
        assert!(
            restored.starts_with(&acknowledged) && restored.len() <= acknowledged.len() + 1,
            "{restored:?}"
        );
        if restored.len() == acknowledged.len() {
            // The move was lost before it was committed, and nobody heard of it: again.
            red.play("b0c2").await;
            black
                .wait_for(|e| matches!(e, Event::MovePlayed { ply: 7, .. }))
                .await;
        }
        black.send(ClientMsg::Act(Action::Resign)).await;
        red.wait_for(|e| matches!(e, Event::GameOver(_))).await;
        terminate(&mut relay).await;

        // The archive has the game, and its record replays.
        let db_arg = db.to_str().expect("a UTF-8 path");
        let list = run(&["games", "list", "--db", db_arg]).await;
        assert!(list.status.success(), "{list:?}");
        let text = String::from_utf8(list.stdout).expect("UTF-8");
        let fields: Vec<&str> = text.trim_end().split('\t').collect();
        let [id, _, red_name, _, "1-0", "resignation", "7"] = fields[..] else {
            panic!("unexpected listing: {text:?}");
        };
        assert_eq!(red_name, format!("{}/1", red.code));
        let export = run(&["games", "export", id, "--db", db_arg]).await;
        assert!(export.status.success(), "{export:?}");
        let record = pgn::parse(&String::from_utf8(export.stdout).expect("UTF-8"))
            .expect("the exported PGN parses");
        let mut expected: Vec<String> = acknowledged.clone();
        expected.push("b0c2".into());
        let replayed: Vec<String> = record
            .moves()
            .iter()
            .map(|mv| Iccs::from(*mv).to_string())
            .collect();
        assert_eq!(replayed, expected);

        let missing = run(&["games", "export", "999", "--db", db_arg]).await;
        assert!(!missing.status.success());
        let stderr = String::from_utf8_lossy(&missing.stderr);
        assert!(stderr.contains("no archived game has id 999"), "{stderr}");
        red.conn.close().await;
        black.conn.close().await;
    })
    .await
    .expect("the test finished in time");
}

/// A plain HTTP/1.1 GET of `path` on the server of `url` (the metrics endpoint, the web
/// client's page): the status line, the headers and the body.
async fn http_get(url: &str, path: &str) -> (String, String) {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("unexpected URL {url}"));
    let mut stream = TcpStream::connect(authority).await.expect("connects");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("sends");
    let mut response = String::new();
    stream.read_to_string(&mut response).await.expect("reads");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    (head.to_string(), body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_its_counters_to_a_prometheus_scrape() {
    tokio::time::timeout(TEST_TIMEOUT, async {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("relay.sqlite3");
        // The other tests run the relay on its default single thread; this one on two.
        let more = ["--metrics", "127.0.0.1:0", "--threads", "2"];
        let mut relay = start_with(dir.path(), &db, "udp://127.0.0.1:0", &more).await;
        let metrics = relay.metrics.clone().expect("a metrics URL");
        assert!(
            metrics.starts_with("http://127.0.0.1:") && !metrics.contains(":0/"),
            "{metrics}"
        );
        let udp = relay.urls[0].clone();

        // Two moves, then one out of turn.
        let red = seat(&udp, None).await;
        let black = seat(&udp, Some(red.code)).await;
        assert!(matches!(red.recv().await, ServerMsg::Snapshot(_)));
        red.play("h2e2").await;
        black
            .wait_for(|e| matches!(e, Event::MovePlayed { ply: 1, .. }))
            .await;
        black.play("h9g7").await;
        red.wait_for(|e| matches!(e, Event::MovePlayed { ply: 2, .. }))
            .await;
        let refused = black.play("b9c7").await;
        loop {
            if let ServerMsg::Error { id, .. } = black.recv().await {
                assert_eq!(id, Some(refused));
                break;
            }
        }

        let (head, body) = http_get(&metrics, "/metrics").await;
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/plain; version=0.0.4; charset=utf-8"),
            "{head}"
        );
        let lines: Vec<&str> = body.lines().collect();
        for expected in [
            "xq_relay_moves_accepted_total 2",
            r#"xq_relay_commands_rejected_total{reason="not_your_turn"} 1"#,
            r#"xq_relay_connections{transport="udp"} 2"#,
            "xq_relay_rooms 1",
            "xq_relay_resumes_total 0",
            r#"xq_relay_handshake_failures_total{reason="version_mismatch"} 0"#,
            "xq_relay_rate_limited_total 0",
        ] {
            assert!(
                lines.contains(&expected),
                "{expected} missing from:\n{body}"
            );
        }
        // The room and the two moves were committed before anyone heard of them.
        let commits: u64 = lines
            .iter()
            .find_map(|line| line.strip_prefix("xq_relay_storage_commit_seconds_count "))
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("no commit count in:\n{body}"));
        assert!(commits >= 1, "{body}");

        let (head, _) = http_get(&metrics, "/elsewhere").await;
        assert!(head.starts_with("HTTP/1.1 404 Not Found\r\n"), "{head}");

        red.conn.close().await;
        black.conn.close().await;
        terminate(&mut relay).await;
    })
    .await
    .expect("the test finished in time");
}
