//! Three relay processes as the nodes of a cluster on a three-server NATS JetStream cluster,
//! under faults: scripted games go on while the owning relay is killed (`SIGKILL`), paused
//! past its lease (`SIGSTOP`, then `SIGCONT`), while a NATS server is killed, and while every
//! relay is restarted at once. After each game its room's journal is checked (sequences
//! gap-free, nothing doubled, every append by the lease holder of that moment) and its
//! archived record holds exactly the moves played, each once, and replays to its result.
//!
//! `XQ_CLUSTER_SEEDS` sets how many seeded games run (default 3); each prints the time from
//! each owner's death to the first move accepted after it.

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use xq_client::{Client, ClientError, ClientOptions, Keepalive, ReconnectPolicy};
use xq_cluster::testing::{NatsCluster, NatsServer, ServerOptions};
use xq_cluster::{Append, Change, Writer};
use xq_cluster::{Cluster, ClusterArchive, ClusterOptions};
use xq_protocol::{ErrorCode, RoomCode, RoomOptions, SeatChoice};
use xq_rules::{Color, Move, Position};
use xq_session::{GameResult, pgn};

/// The relays' lease: short, so that a takeover comes quickly.
const LEASE_SECS: u64 = 2;
/// Plies of each scripted game before Red resigns.
const PLIES: usize = 16;
/// The longest any one step may take before the test fails instead of hanging.
const STEP: Duration = Duration::from_secs(60);

/// A fault injected before a ply.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// `SIGKILL` the room's owner, and start it again two plies later: another node takes the
    /// room over meanwhile.
    KillOwner,
    /// `SIGSTOP` the room's owner for longer than its lease, then `SIGCONT`.
    PauseOwner,
    /// `SIGKILL` one NATS server, and start it again after a few plies.
    KillNats(usize),
    /// `SIGKILL` every relay, and start them all again.
    RestartAll,
}

/// What a fault took down, to start again a few plies later.
#[derive(Clone, Copy, Debug)]
enum Down {
    Relay(usize),
    Nats(usize),
}

/// One relay process, on a fixed UDP port so its clients' lists stay right across restarts.
struct Node {
    name: String,
    port: u16,
    child: Option<Child>,
    _stdout: Option<Lines<BufReader<ChildStdout>>>,
}

impl Node {
    fn new(name: &str) -> Self {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("a free port");
        let port = socket.local_addr().expect("bound").port();
        Self {
            name: name.to_string(),
            port,
            child: None,
            _stdout: None,
        }
    }

    fn url(&self) -> String {
        format!("udp://127.0.0.1:{}", self.port)
    }

    /// Starts the relay on the NATS servers `nats`, and waits until it listens.
    async fn start(&mut self, nats: &str) {
        self.start_with(nats, &[]).await;
    }

    /// [`start`](Self::start), with more flags.
    async fn start_with(&mut self, nats: &str, flags: &[&str]) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
            .args(["--cluster", nats, "--node-name", &self.name])
            .args(["--listen", &self.url(), "--lease", &LEASE_SECS.to_string()])
            .args(["--grace", "120", "--log-level", "error"])
            .args(flags)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the relay starts");
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let listening = tokio::time::timeout(STEP, lines.next_line())
            .await
            .expect("the relay starts in time")
            .expect("stdout reads");
        assert_eq!(listening, Some(format!("listening: {}", self.url())));
        self.child = Some(child);
        self._stdout = Some(lines);
    }

    /// `SIGKILL`, waiting for the process to be gone.
    async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.start_kill().expect("kill");
            child.wait().await.expect("the relay exits");
        }
        self._stdout = None;
    }

    fn signal(&self, signal: &str) {
        let pid = self
            .child
            .as_ref()
            .and_then(Child::id)
            .expect("running")
            .to_string();
        let status = std::process::Command::new("kill")
            .args([signal, &pid])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
}

/// The NATS cluster, the relay nodes, and a node of the cluster's own to read it with.
struct Harness {
    nats: NatsCluster,
    nodes: Vec<Node>,
    checker: Cluster,
    /// From each owner's death (`SIGKILL`, its node left down) to the first move accepted
    /// after it, on the node that took the room over.
    takeovers: Vec<Duration>,
}

impl Harness {
    async fn start() -> Option<Self> {
        let nats = NatsCluster::start(3)?;
        let mut nodes: Vec<Node> = ["relay-a", "relay-b", "relay-c"]
            .into_iter()
            .map(Node::new)
            .collect();
        for node in &mut nodes {
            node.start(&nats.urls().join(",")).await;
        }
        let checker = Cluster::connect(ClusterOptions {
            lease_ttl: Duration::from_secs(LEASE_SECS),
            ..ClusterOptions::new(nats.urls(), "checker")
        })
        .await
        .expect("the checker joins the cluster");
        Some(Self {
            nats,
            nodes,
            checker,
            takeovers: Vec::new(),
        })
    }

    /// The relays' URLs as one list, starting with the `first`th.
    fn relays(&self, first: usize) -> String {
        let count = self.nodes.len();
        (0..count)
            .map(|i| self.nodes[(first + i) % count].url())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The node that wrote room `code`'s journal last: its owner, as far as anyone knows.
    async fn owner(&self, code: RoomCode) -> usize {
        let journal = self.checker.journal(code).await.expect("reads the journal");
        let last = journal.last().expect("the room has a journal");
        self.nodes
            .iter()
            .position(|node| node.name == last.writer.node)
            .expect("a relay wrote it")
    }

    /// Injects `fault` into room `code`'s cluster; what it took down, to bring back later.
    async fn inject(&mut self, fault: Fault, code: RoomCode) -> Option<Down> {
        let nats = self.nats.urls().join(",");
        match fault {
            Fault::KillOwner => {
                let owner = self.owner(code).await;
                self.nodes[owner].kill().await;
                Some(Down::Relay(owner))
            }
            Fault::PauseOwner => {
                let owner = self.owner(code).await;
                self.nodes[owner].signal("-STOP");
                tokio::time::sleep(Duration::from_millis(2_500 * LEASE_SECS)).await;
                self.nodes[owner].signal("-CONT");
                None
            }
            Fault::KillNats(server) => {
                self.nats.kill(server);
                Some(Down::Nats(server))
            }
            Fault::RestartAll => {
                for node in &mut self.nodes {
                    node.kill().await;
                }
                for node in &mut self.nodes {
                    node.start(&nats).await;
                }
                None
            }
        }
    }

    /// Starts again what a fault took down.
    async fn bring_back(&mut self, down: Down) {
        match down {
            // Unless a restart of every relay brought it back already.
            Down::Relay(node) if self.nodes[node].child.is_none() => {
                let nats = self.nats.urls().join(",");
                self.nodes[node].start(&nats).await;
            }
            Down::Relay(_) => {}
            Down::Nats(server) => self.nats.restart(server),
        }
    }
}

fn client_options() -> ClientOptions {
    ClientOptions {
        name: "cluster-test".into(),
        // A dead node costs this much before the next one is tried.
        handshake_timeout: Duration::from_secs(1),
        reconnect: ReconnectPolicy {
            period: Duration::from_secs(120),
            first_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(500),
        },
        keepalive: Some(Keepalive {
            interval: Duration::from_millis(500),
            timeout: Duration::from_millis(1_500),
        }),
        ..ClientOptions::default()
    }
}

/// A seeded line of legal moves from the start that ends no game.
fn line(seed: u64) -> Vec<Move> {
    let mut pos = Position::startpos();
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut moves = Vec::new();
    while moves.len() < PLIES {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let legal = pos.legal_moves();
        let mv = legal[(state % legal.len() as u64) as usize];
        let next = pos.clone().play(mv).expect("legal");
        if next.outcome().is_some() {
            continue;
        }
        pos = next;
        moves.push(mv);
    }
    moves
}

/// Waits until `client` is connected and its mirror has at least `plies` moves or the
/// connection is settled; returns the mirror's moves.
async fn settled(client: &mut Client) -> Vec<Move> {
    let start = Instant::now();
    loop {
        while client.try_next_event().is_some() {}
        if client.is_connected()
            && let Some(mirror) = client.mirror()
        {
            return mirror.moves().iter().map(|played| played.mv).collect();
        }
        assert!(start.elapsed() < STEP, "the client did not reconnect");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The moves `client`'s mirror shows now, its pending events taken.
fn mirrored(client: &mut Client) -> Vec<Move> {
    while client.try_next_event().is_some() {}
    client.mirror().map_or_else(Vec::new, |mirror| {
        mirror.moves().iter().map(|played| played.mv).collect()
    })
}

/// Waits up to `wait` for `client`'s mirror to show ply `ply`.
async fn shown(client: &mut Client, ply: usize, wait: Duration) -> Option<Move> {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(&mv) = mirrored(client).get(ply) {
            return Some(mv);
        }
        if Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Plays `mv` as ply `ply` until the relay has accepted it once. A move is acknowledged when
/// its event comes back, which the relay sends only once the move is committed. A move sent
/// into a failover is sent again once the client is back in its seat, unless the mirror
/// (from the resumed seat's snapshot) shows it was accepted all the same.
async fn play(client: &mut Client, ply: usize, mv: Move) {
    let start = Instant::now();
    loop {
        let sent = client.play(mv).await;
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut dropped = !client.is_connected();
        loop {
            if let Some(&played) = mirrored(client).get(ply) {
                assert_eq!(played, mv, "ply {ply}");
                return;
            }
            if !client.is_connected() {
                dropped = true;
            } else if dropped || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(start.elapsed() < STEP, "ply {ply} never accepted: {sent:?}");
        settled(client).await;
    }
}

/// Creates a room, trying again while the node has no claimed code ready (`Unavailable`:
/// just started, or a NATS server just came back).
async fn create(client: &mut Client, options: RoomOptions) -> RoomCode {
    let start = Instant::now();
    loop {
        match client.create(options).await {
            Ok(room) => return room.code,
            Err(ClientError::Refused {
                code: ErrorCode::Unavailable,
                ..
            }) if start.elapsed() < STEP => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(err) => panic!("creates: {err}"),
        }
    }
}

/// Checks room `code`'s journal: stream sequences rising, the journal's counter from 1 without
/// gaps, each match's entries numbered from 0 without gaps or doubles, and one writer at a
/// time: each new writer starts with its takeover, on a newer lease than any before it.
fn check_journal(journal: &[Append]) {
    let mut current: Option<(&Writer, u64)> = None;
    let mut next_entry = 0;
    for (i, append) in journal.iter().enumerate() {
        assert_eq!(
            append.counter,
            i as u64 + 1,
            "the counter has a gap: {journal:#?}"
        );
        if i > 0 {
            assert!(append.seq > journal[i - 1].seq);
        }
        match current {
            Some((writer, revision)) if *writer == append.writer => {
                assert!(append.lease_revision >= revision, "a lease went back");
            }
            // The room's creator writes first; every later writer starts by taking it over.
            None => {}
            // Another writer (or the same node come back) starts by taking the room over, on
            // a lease newer than any before: a writer whose lease was taken over since cannot
            // write under it again.
            Some((_, revision)) => {
                assert!(
                    matches!(append.changes.first(), Some(Change::TakenOver)),
                    "a new writer did not take over first: {append:#?}"
                );
                assert!(append.lease_revision > revision, "two writers on one lease");
            }
        }
        current = Some((&append.writer, append.lease_revision));
        for change in &append.changes {
            match change {
                Change::MatchStarted { .. } => next_entry = 0,
                Change::Entry { seq, .. } => {
                    assert_eq!(*seq, next_entry, "an entry is missing or doubled");
                    next_entry += 1;
                }
                _ => {}
            }
        }
    }
}

async fn scripted_game(harness: &mut Harness, seed: u64) {
    let moves = line(seed);
    let first = (seed % 3) as usize;
    let mut red = Client::connect(&harness.relays(first), client_options())
        .await
        .expect("red connects");
    let mut black = Client::connect(&harness.relays(first + 1), client_options())
        .await
        .expect("black connects");
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let code = create(&mut red, options).await;
    black.join(code).await.expect("joins through another node");

    // Two faults at seeded plies; a NATS server killed comes back two plies later.
    let kinds = [
        Fault::KillOwner,
        Fault::PauseOwner,
        Fault::KillNats((seed % 3) as usize),
        Fault::RestartAll,
    ];
    let faults = [
        (2 + (seed % 5) as usize, kinds[(seed % 4) as usize]),
        (
            9 + (seed % 5) as usize,
            kinds[((seed / 4 + 1) % 4) as usize],
        ),
    ];
    let mut down = Vec::new();
    for (ply, &mv) in moves.iter().enumerate() {
        let mut died = None;
        for &(at, fault) in &faults {
            if at == ply {
                println!("seed {seed}: {fault:?} before ply {ply}");
                if let Some(gone) = harness.inject(fault, code).await {
                    down.push((gone, ply + 2));
                    if matches!(gone, Down::Relay(_)) {
                        died = Some(Instant::now());
                    }
                }
            }
        }
        for (gone, _) in down.extract_if(.., |&mut (_, back)| back == ply) {
            harness.bring_back(gone).await;
        }
        let mover = if ply % 2 == 0 { &mut red } else { &mut black };
        play(mover, ply, mv).await;
        if let Some(died) = died {
            harness.takeovers.push(died.elapsed());
        }
    }
    for (gone, _) in down {
        harness.bring_back(gone).await;
    }
    red.resign().await.expect("resigns");
    for client in [&mut red, &mut black] {
        let start = Instant::now();
        while client
            .mirror()
            .is_none_or(|m| m.status().result().is_none())
        {
            assert!(start.elapsed() < STEP, "the game did not end for both");
            while client.try_next_event().is_some() {}
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    let journal = harness
        .checker
        .journal(code)
        .await
        .expect("reads the journal");
    check_journal(&journal);
    // The archive has the game once, with exactly the moves played, and it replays.
    let archive = ClusterArchive::connect(&ClusterOptions::new(harness.nats.urls(), ""))
        .await
        .expect("opens the archive");
    let ours: Vec<_> = archive
        .games()
        .await
        .expect("reads the archive")
        .into_iter()
        .filter(|game| game.room == code)
        .collect();
    assert_eq!(ours.len(), 1, "archived once: {ours:?}");
    assert_eq!(ours[0].moves, PLIES);
    assert_eq!(ours[0].result, "0-1");
    let pgn = archive
        .pgn(ours[0].id)
        .await
        .expect("reads")
        .expect("there");
    let record = pgn::parse(&pgn).expect("the PGN replays");
    assert_eq!(
        record.moves(),
        moves,
        "the record holds every move once, in order"
    );
    assert!(
        matches!(
            record.result(),
            Some(GameResult::Win {
                winner: Color::Black,
                ..
            })
        ),
        "{:?}",
        record.result()
    );
    red.close().await;
    black.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_killed_paused_and_restarted_relays_and_a_killed_nats_server() {
    let Some(mut harness) = Harness::start().await else {
        return;
    };
    let seeds: u64 = std::env::var("XQ_CLUSTER_SEEDS")
        .ok()
        .and_then(|seeds| seeds.parse().ok())
        .unwrap_or(3);
    for seed in 0..seeds {
        scripted_game(&mut harness, seed).await;
    }
    let mut takeovers = harness.takeovers.clone();
    takeovers.sort();
    let quantile = |q: f64| takeovers[((takeovers.len() - 1) as f64 * q).round() as usize];
    if !takeovers.is_empty() {
        println!(
            "from an owner's death to the next accepted move, over {} faults: p50 {:?}, p99 {:?}",
            takeovers.len(),
            quantile(0.5),
            quantile(0.99)
        );
    }
    // `xq-relay games` reads the same archive: one line per game, and each exports.
    let list = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args(["games", "list", "--cluster", &harness.nats.urls().join(",")])
        .output()
        .await
        .expect("runs");
    assert!(list.status.success(), "{list:?}");
    let lines = String::from_utf8(list.stdout).expect("text");
    assert_eq!(lines.lines().count() as u64, seeds, "{lines}");
    let id = lines.split('\t').next().expect("an id");
    let export = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args([
            "games",
            "export",
            id,
            "--cluster",
            &harness.nats.urls().join(","),
        ])
        .output()
        .await
        .expect("runs");
    assert!(export.status.success(), "{export:?}");
    pgn::parse(&String::from_utf8_lossy(&export.stdout)).expect("a PGN that replays");
    for node in &mut harness.nodes {
        node.kill().await;
    }
}

/// Starts node `name` on the NATS servers `nats` with `flags`, expecting it to give up:
/// returns what it printed to standard error once it has exited non-zero.
async fn refused_node(nats: &str, name: &str, flags: &[&str]) -> String {
    let output = tokio::time::timeout(
        STEP,
        Command::new(env!("CARGO_BIN_EXE_xq-relay"))
            .args(["--cluster", nats, "--node-name", name])
            .args(["--listen", "udp://127.0.0.1:0", "--log-level", "error"])
            .args(flags)
            .output(),
    )
    .await
    .expect("gives up in time")
    .expect("runs");
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test]
async fn a_node_that_cannot_reach_its_cluster_says_why_and_exits_non_zero() {
    // Nothing listens on port 1 of the loopback.
    let stderr = refused_node("nats://127.0.0.1:1", "lonely", &[]).await;
    assert!(
        stderr.contains("cannot join the cluster at nats://127.0.0.1:1"),
        "{stderr}"
    );
    // A cluster needs the node's name.
    let output = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args([
            "--cluster",
            "nats://127.0.0.1:1",
            "--listen",
            "udp://127.0.0.1:0",
        ])
        .output()
        .await
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--node-name"));
}

#[tokio::test]
async fn a_node_joins_nats_over_tls_with_credentials_and_says_why_without_them() {
    let secured = ServerOptions {
        tls: true,
        credentials: true,
        ..ServerOptions::default()
    };
    let Some(nats) = NatsServer::start_with(secured) else {
        return;
    };
    let tls = nats.client_tls().expect("TLS settings");
    let client = tls.client.expect("a client certificate");
    let ca = tls.ca.expect("the server's CA");
    let creds = nats.credentials().expect("credentials");
    let [ca, cert, key, creds] = [&ca, &client.cert, &client.key, creds]
        .map(|path| path.to_str().expect("a UTF-8 temporary path").to_string());
    let tls_flags = ["--nats-ca", &ca, "--nats-cert", &cert, "--nats-key", &key];
    let flags: Vec<&str> = tls_flags
        .iter()
        .copied()
        .chain(["--nats-creds", &creds])
        .collect();

    let mut node = Node::new("relay-a");
    node.start_with(&nats.url(), &flags).await;
    let mut client = Client::connect(&node.url(), client_options())
        .await
        .expect("a client connects");
    create(&mut client, RoomOptions::default()).await;
    node.kill().await;
    let list = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
        .args(["games", "list", "--cluster", &nats.url()])
        .args(&flags)
        .output()
        .await
        .expect("runs");
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );

    // Without the credentials the server refuses the node, which says so and exits.
    let stderr = refused_node(&nats.url(), "relay-b", &tls_flags).await;
    assert!(
        stderr.contains("cannot join the cluster") && stderr.contains("authorization"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_lost_mid_game_loses_nothing_acknowledged_and_the_game_resumes_once_it_is_back() {
    let Some(mut nats) = NatsServer::start() else {
        return;
    };
    let urls = nats.url();
    let mut node = Node::new("relay-solo");
    node.start(&urls).await;
    let mut red = Client::connect(&node.url(), client_options())
        .await
        .expect("connects");
    let mut black = Client::connect(&node.url(), client_options())
        .await
        .expect("connects");
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let code = create(&mut red, options).await;
    black.join(code).await.expect("joins");
    let moves = line(7);
    for (ply, &mv) in moves[..4].iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut red } else { &mut black };
        play(mover, ply, mv).await;
    }

    // NATS goes away: the next move is not acknowledged. The node keeps serving, and gives
    // the room up once its lease runs out.
    nats.kill();
    let _ = red.play(moves[4]).await;
    assert_eq!(
        shown(&mut red, 4, Duration::from_secs(2)).await,
        None,
        "acknowledged without NATS"
    );
    tokio::time::sleep(Duration::from_secs(2 * LEASE_SECS)).await;
    let child = node.child.as_mut().expect("running");
    assert!(matches!(child.try_wait(), Ok(None)), "the relay stopped");

    // NATS comes back: the players resume, and the game goes on from where it was
    // acknowledged.
    nats.restart();
    for (ply, &mv) in moves.iter().enumerate().skip(4) {
        let mover = if ply % 2 == 0 { &mut red } else { &mut black };
        play(mover, ply, mv).await;
    }
    let checker = Cluster::connect(ClusterOptions {
        lease_ttl: Duration::from_secs(LEASE_SECS),
        ..ClusterOptions::new([nats.url()], "checker")
    })
    .await
    .expect("joins");
    let journal = checker.journal(code).await.expect("reads");
    check_journal(&journal);
    assert_eq!(settled(&mut black).await, moves);
    node.kill().await;
}
