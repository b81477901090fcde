//! The cluster against real nats-servers: takeover, fencing, deduplicated retries, claims,
//! the archive, closing, replication and failures. Skipped (with a note) without a
//! nats-server binary, unless `XQ_REQUIRE_NATS=1`.

use std::thread;
use std::time::{Duration, Instant};

use async_nats::jetstream;
use xq_cluster::testing::{NatsCluster, NatsServer, ServerOptions};
use xq_cluster::{
    Append, Change, Cluster, ClusterArchive, ClusterError, ClusterOptions, ClusterStorage,
    ClusterTls, Location, Lookup, names,
};
use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
use xq_rules::iccs::Iccs;
use xq_rules::{Color, Move};
use xq_session::{Action, Match, MatchConfig, Seat, Timestamp};
use xq_store::{OpenRoom, Persist, Storage};

const FIRST: ResumeToken = ResumeToken([1; 16]);
const SECOND: ResumeToken = ResumeToken([2; 16]);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn options(urls: &[String], node: &str, ttl: Duration) -> ClusterOptions {
    let mut options = ClusterOptions::new(urls.iter().cloned(), node);
    options.advertise = vec![format!("udp://{node}.test:7878")];
    options.lease_ttl = ttl;
    options
}

fn connect(rt: &tokio::runtime::Runtime, urls: &[String], node: &str, ttl: Duration) -> Cluster {
    rt.block_on(Cluster::connect(options(urls, node, ttl)))
        .expect("connects")
}

/// One nats-server, the runtime the nodes run on, and the lease TTL they are given.
///
/// The runtime is dropped before the server (fields drop in order), as the nodes of a test,
/// declared after the bench, are dropped before both.
struct Bench {
    rt: tokio::runtime::Runtime,
    ttl: Duration,
    urls: [String; 1],
    server: NatsServer,
}

impl Bench {
    /// A bench on a fresh nats-server; `None` (with a note) to skip.
    fn start(ttl: Duration) -> Option<Self> {
        Self::start_with(ttl, ServerOptions::default())
    }

    /// [`start`](Self::start) on a server started with `options`.
    fn start_with(ttl: Duration, options: ServerOptions) -> Option<Self> {
        let server = NatsServer::start_with(options)?;
        Some(Self {
            rt: runtime(),
            ttl,
            urls: [server.url()],
            server,
        })
    }

    /// Node `name` of the cluster, connected.
    fn node(&self, name: &str) -> Cluster {
        connect(&self.rt, &self.urls, name, self.ttl)
    }

    /// Whether `node` claims `code`.
    fn claim(&self, node: &Cluster, code: RoomCode) -> bool {
        self.rt.block_on(node.claim(code)).expect("claims")
    }

    /// Where `node` finds what `lookup` names.
    fn locate(&self, node: &Cluster, lookup: Lookup) -> Location {
        self.rt.block_on(node.locate(lookup)).expect("locates")
    }

    /// Room `code`'s journal as `node` reads it.
    fn journal(&self, node: &Cluster, code: RoomCode) -> Vec<Append> {
        self.rt.block_on(node.journal(code)).expect("reads")
    }

    /// Deletes room `code`'s lease behind its owner's back.
    fn steal_lease(&self, code: RoomCode) {
        self.rt.block_on(async {
            let client = async_nats::connect(self.server.url())
                .await
                .expect("connects");
            let kv = jetstream::new(client)
                .get_key_value(names::LEASES_BUCKET)
                .await
                .expect("the leases bucket");
            kv.delete(code.as_str()).await.expect("deletes");
        });
    }

    /// Has `node` claim room `code` and commit, through `storage`, the start of a match of
    /// `moves` with its first move; returns the entries of the other moves, in order.
    fn open(
        &self,
        node: &Cluster,
        storage: &mut ClusterStorage,
        code: RoomCode,
        moves: &[&str],
    ) -> Vec<Persist> {
        assert!(self.claim(node, code));
        let mut changes = entries(code, &game(moves));
        storage
            .commit(&[started(code), changes.remove(0)])
            .expect("commits");
        changes
    }
}

/// Where node `node` is reached, as [`options`] advertises it.
fn owner(node: &str) -> Location {
    Location::Owner {
        node: node.into(),
        urls: vec![format!("udp://{node}.test:7878")],
    }
}

fn started(code: RoomCode) -> Persist {
    Persist::MatchStarted {
        code,
        options: RoomOptions::default(),
        red: Seat::Second,
        started: Timestamp::from_millis(0),
        first_token: FIRST,
        second_token: SECOND,
    }
}

fn mv(text: &str) -> Move {
    let iccs: Iccs = text.parse().expect("ICCS");
    Move::new(iccs.from, iccs.to)
}

/// A game of `moves`, a second apart from 0.
fn game(moves: &[&str]) -> Match {
    let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    for (ply, text) in moves.iter().enumerate() {
        let by = if ply % 2 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let at = Timestamp::from_millis(1_000 * (ply as u64 + 1));
        game.handle(at, Action::Play(mv(text)).by(by))
            .expect("legal");
    }
    game
}

fn entries(code: RoomCode, game: &Match) -> Vec<Persist> {
    game.journal()
        .entries
        .iter()
        .zip(0..)
        .map(|(&entry, seq)| Persist::Entry { code, seq, entry })
        .collect()
}

/// The room as a node that restores it must see it after `changes`.
fn open_room(code: RoomCode, game: &Match) -> OpenRoom {
    OpenRoom {
        code,
        options: RoomOptions::default(),
        red: Seat::Second,
        started: Timestamp::from_millis(0),
        first_token: FIRST,
        second_token: SECOND,
        lost: Vec::new(),
        entries: game.journal().entries,
    }
}

/// Waits out a lease of `ttl`, renewed at the latest just now, and the server's expiry pass
/// (which runs up to a few hundred milliseconds late).
fn outlive(ttl: Duration) {
    thread::sleep(ttl + Duration::from_secs(1));
}

/// Checks room `code`'s journal as a checker would: counters 1, 2, 3…, and one writer
/// from each takeover marker to the next. Returns the writers' nodes in order.
fn check_journal(journal: &[Append]) -> Vec<String> {
    let mut writers: Vec<String> = Vec::new();
    for (append, counter) in journal.iter().zip(1..) {
        assert_eq!(
            append.counter, counter,
            "counter gap or repeat: {journal:?}"
        );
        if append.changes == [Change::TakenOver] || writers.is_empty() {
            writers.push(append.writer.node.clone());
        }
        assert_eq!(
            writers.last(),
            Some(&append.writer.node),
            "two writers: {journal:?}"
        );
    }
    writers
}

#[test]
fn a_room_is_redirected_to_its_owner_and_taken_over_after_it_dies() {
    let Some(bench) = Bench::start(Duration::from_secs(1)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(1);
    assert!(bench.claim(&a, code));
    let played = game(&["h2e2", "h9g7"]);
    let mut changes = vec![started(code)];
    changes.extend(entries(code, &played));
    let committed = a.storage().commit(&changes).expect("commits");
    assert!(committed.refused.is_empty());

    // Past a few renewals, the owner still holds it: redirects, by code and by token.
    thread::sleep(bench.ttl * 2);
    assert_eq!(bench.locate(&b, Lookup::Room(code)), owner("a"));
    assert_eq!(bench.locate(&b, Lookup::Token(SECOND)), owner("a"));
    assert_eq!(bench.locate(&a, Lookup::Room(code)), Location::Settling);
    assert!(a.metrics().lease_renewals >= 4, "{:?}", a.metrics());

    drop(a);
    outlive(bench.ttl);
    assert_eq!(
        bench.locate(&b, Lookup::Token(FIRST)),
        Location::Taken(Box::new(open_room(code, &played)))
    );
    assert_eq!(b.metrics().takeovers, 1);
    assert_eq!(b.held(), [code]);

    // The new owner carries on where the journal ends.
    let more = game(&["h2e2", "h9g7", "h0g2"]);
    let next = entries(code, &more).pop().expect("an entry");
    assert!(
        b.storage()
            .commit(&[next])
            .expect("commits")
            .refused
            .is_empty()
    );
    assert_eq!(check_journal(&bench.journal(&b, code)), ["a", "b"]);
    let c = bench.node("c");
    assert_eq!(bench.locate(&c, Lookup::Room(code)), owner("b"));
}

#[test]
fn a_room_whose_owner_left_nats_is_taken_over_at_once() {
    // A lease far longer than the test: only the owner's absence can free the room.
    let Some(bench) = Bench::start(Duration::from_secs(60)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(41);
    assert!(bench.claim(&a, code));
    let played = game(&["h2e2", "h9g7"]);
    let mut changes = vec![started(code)];
    changes.extend(entries(code, &played));
    a.storage().commit(&changes).expect("commits");
    assert_eq!(
        bench.locate(&b, Lookup::Room(code)),
        owner("a"),
        "a is there"
    );

    drop(a);
    let left = Instant::now();
    let taken = loop {
        match bench.locate(&b, Lookup::Token(FIRST)) {
            Location::Taken(room) => break room,
            // The server may take a moment to see the subscription go.
            location if left.elapsed() < Duration::from_secs(5) => {
                assert_eq!(location, owner("a"));
                thread::sleep(Duration::from_millis(20));
            }
            other => panic!("not taken over: {other:?}"),
        }
    };
    assert_eq!(*taken, open_room(code, &played));
    assert_eq!(check_journal(&bench.journal(&b, code)), ["a", "b"]);
    assert_eq!(b.metrics().takeovers, 1);
}

#[test]
fn a_stalled_owner_finds_its_room_refused_after_a_takeover() {
    let Some(bench) = Bench::start(Duration::from_secs(1)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(2);
    let mut changes = bench.open(&a, &mut a.storage(), code, &["h2e2", "h9g7", "h0g2"]);

    a.__pause_renewals(true);
    outlive(bench.ttl);
    assert!(matches!(
        bench.locate(&b, Lookup::Room(code)),
        Location::Taken(_)
    ));
    b.storage().commit(&[changes.remove(0)]).expect("commits");
    let before = bench.journal(&b, code);

    // A comes back: its commit is refused, and nothing of it is in the journal.
    let committed = a.storage().commit(&[changes.remove(0)]).expect("commits");
    assert_eq!(committed.refused, [code]);
    assert_eq!(bench.journal(&b, code), before);
    assert_eq!(a.metrics().refused_appends, 1);
    assert!(a.held().is_empty());
    assert_eq!(check_journal(&bench.journal(&b, code)), ["a", "b"]);
}

#[test]
fn the_stream_fences_a_node_that_still_believes_its_lease() {
    let Some(bench) = Bench::start(Duration::from_secs(3)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(3);
    let mut changes = bench.open(&a, &mut a.storage(), code, &["h2e2", "h9g7"]);

    // The lease vanishes early (as if the owner's clock ran slow): A still believes it.
    a.__pause_renewals(true);
    bench.steal_lease(code);
    assert!(matches!(
        bench.locate(&b, Lookup::Room(code)),
        Location::Taken(_)
    ));
    let before = bench.journal(&b, code);
    let committed = a.storage().commit(&[changes.remove(0)]).expect("commits");
    assert_eq!(
        committed.refused,
        [code],
        "the stream refused the stale append"
    );
    assert_eq!(bench.journal(&b, code), before);
    assert_eq!(check_journal(&bench.journal(&b, code)), ["a", "b"]);
}

#[test]
fn a_renewal_that_finds_the_lease_taken_reports_the_room_lost() {
    let Some(bench) = Bench::start(Duration::from_secs(1)) else {
        return;
    };
    let a = bench.node("a");
    let mut lost = a.lost_rooms();
    let code = RoomCode::from_u64(4);
    assert!(bench.claim(&a, code));
    bench.steal_lease(code);
    let reported = bench
        .rt
        .block_on(async { tokio::time::timeout(bench.ttl, lost.recv()).await })
        .expect("reported within a ttl");
    assert_eq!(reported, Some(code));
    assert!(a.held().is_empty());
    assert_eq!(a.metrics().lease_losses, 1);
}

#[test]
fn a_retried_append_is_not_doubled() {
    // Attempts time out after 2 s: the server is paused for longer, so the first attempt's
    // acknowledgement is lost and the retry reaches the server after it.
    let Some(bench) = Bench::start(Duration::from_secs(10)) else {
        return;
    };
    let a = bench.node("a");
    let code = RoomCode::from_u64(5);
    let mut storage = a.storage();
    let mut changes = bench.open(&a, &mut storage, code, &["h2e2", "h9g7"]);

    bench.server.pause();
    let commit = thread::spawn(move || {
        let committed = storage.commit(&[changes.remove(0)]);
        (storage, committed)
    });
    thread::sleep(Duration::from_millis(3_000));
    bench.server.resume();
    let (_storage, committed) = commit.join().expect("the commit thread");
    assert!(committed.expect("commits").refused.is_empty());
    let metrics = a.metrics();
    assert!(metrics.append_retries >= 1, "{metrics:?}");
    assert!(metrics.duplicate_appends >= 1, "{metrics:?}");
    let journal = bench.journal(&a, code);
    assert_eq!(journal.len(), 2, "{journal:?}");
    assert_eq!(check_journal(&bench.journal(&a, code)), ["a"]);
}

#[test]
fn of_two_nodes_claiming_a_code_exactly_one_wins() {
    let Some(bench) = Bench::start(Duration::from_secs(2)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    for n in 100..120 {
        let code = RoomCode::from_u64(n);
        let (won_a, won_b) = bench
            .rt
            .block_on(async { tokio::join!(a.claim(code), b.claim(code)) });
        let (won_a, won_b) = (won_a.expect("claims"), won_b.expect("claims"));
        assert!(won_a ^ won_b, "code {code}: a {won_a}, b {won_b}");
    }
    let (ma, mb) = (a.metrics(), b.metrics());
    assert_eq!(ma.claims_won + mb.claims_won, 20);
    assert_eq!(ma.claims_lost + mb.claims_lost, 20);
    // A released code is free at once.
    let code = a.held()[0];
    bench.rt.block_on(a.release(code));
    assert!(bench.claim(&b, code));
}

#[test]
fn a_finished_game_is_archived_once() {
    let Some(bench) = Bench::start(Duration::from_secs(1)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(6);
    assert!(bench.claim(&a, code));
    let mut finished = game(&["h2e2", "h9g7", "h0g2"]);
    finished
        .handle(
            Timestamp::from_millis(5_000),
            Action::Resign.by(Color::Black),
        )
        .expect("resigns");
    let mut changes = vec![started(code)];
    changes.extend(entries(code, &finished));
    changes.push(Persist::MatchOver {
        code,
        record: Box::new(finished.record()),
    });
    let mut storage = a.storage();
    storage.commit(&changes).expect("commits");
    assert_eq!(a.metrics().games_archived, 1);

    let games = storage.games().expect("lists");
    let [summary] = &games[..] else {
        panic!("one game expected: {games:?}");
    };
    assert_eq!(summary.room, code);
    assert_eq!(summary.result, "1-0");
    assert_eq!(summary.moves, 3);
    assert_eq!(summary.red, xq_store::player_name(code, Seat::Second));
    let pgn = storage.pgn(summary.id).expect("reads").expect("a game");
    assert!(pgn.contains("h2e2"), "{pgn}");
    assert!(pgn.contains(&format!("room {code}")), "{pgn}");
    assert_eq!(
        storage
            .pgn(xq_store::GameId(summary.id.0 + 1_000))
            .expect("reads"),
        None
    );
    // `xq-relay games list --cluster` reads the same, without a node of its own.
    let rt = &bench.rt;
    let archive = rt
        .block_on(ClusterArchive::connect(&ClusterOptions::new(
            bench.urls.iter().cloned(),
            "",
        )))
        .expect("connects");
    assert_eq!(rt.block_on(archive.games()).expect("lists"), games);
    assert_eq!(
        rt.block_on(archive.pgn(summary.id)).expect("reads"),
        Some(pgn.clone())
    );

    // The owner dies before the room closes: the node that finds it archives it again,
    // which adds nothing, and lets the room go.
    drop(storage);
    drop(a);
    outlive(bench.ttl);
    assert_eq!(bench.locate(&b, Lookup::Room(code)), Location::Nowhere);
    assert_eq!(b.storage().games().expect("lists"), games);
    assert_eq!(b.metrics().games_archived, 0);
    assert!(bench.journal(&b, code).is_empty(), "purged");
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
}

#[test]
fn a_closed_room_is_purged_and_its_code_free_again() {
    let Some(bench) = Bench::start(Duration::from_secs(2)) else {
        return;
    };
    let (a, b) = (bench.node("a"), bench.node("b"));
    let code = RoomCode::from_u64(7);
    assert!(bench.claim(&a, code));
    let mut storage = a.storage();
    storage.commit(&[started(code)]).expect("commits");
    assert_eq!(bench.locate(&b, Lookup::Token(FIRST)), owner("a"));
    let committed = storage
        .commit(&[
            Persist::SeatLost {
                code,
                seat: Seat::First,
            },
            Persist::RoomClosed { code },
        ])
        .expect("commits");
    assert!(committed.refused.is_empty());
    assert!(a.held().is_empty());
    assert!(bench.journal(&a, code).is_empty());
    assert_eq!(bench.locate(&b, Lookup::Token(FIRST)), Location::Nowhere);
    assert_eq!(bench.locate(&b, Lookup::Room(code)), Location::Nowhere);
    assert!(bench.claim(&b, code), "the code is free again");
    // A new room on the code starts a journal of its own.
    b.storage().commit(&[started(code)]).expect("commits");
    assert_eq!(check_journal(&bench.journal(&b, code)), ["b"]);
}

#[test]
fn rooms_nobody_owns_are_listed_as_orphans() {
    let Some(bench) = Bench::start(Duration::from_secs(1)) else {
        return;
    };
    let rt = &bench.rt;
    let (a, b) = (bench.node("a"), bench.node("b"));
    let (open, idle) = (RoomCode::from_u64(8), RoomCode::from_u64(9));
    for code in [open, idle] {
        assert!(bench.claim(&a, code));
    }
    a.storage().commit(&[started(open)]).expect("commits");
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
    // A claimed code with a journal left on it is no free code.
    rt.block_on(a.close());
    assert_eq!(rt.block_on(b.orphans()).expect("lists"), [open]);
    assert!(!bench.claim(&b, open));
    assert!(bench.claim(&b, idle));
    assert!(matches!(
        bench.locate(&b, Lookup::Room(open)),
        Location::Taken(_)
    ));
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
}

#[test]
fn a_restarted_node_takes_its_former_leases_over_at_once() {
    let Some(bench) = Bench::start(Duration::from_secs(30)) else {
        return;
    };
    let code = RoomCode::from_u64(10);
    {
        let a = bench.node("a");
        assert!(bench.claim(&a, code));
        a.storage().commit(&[started(code)]).expect("commits");
    }
    let again = bench.node("a");
    let started_at = Instant::now();
    assert!(matches!(
        bench.locate(&again, Lookup::Room(code)),
        Location::Taken(_)
    ));
    assert!(
        started_at.elapsed() < Duration::from_secs(5),
        "no wait for the old lease"
    );
    let journal = bench.journal(&again, code);
    assert_ne!(journal[0].writer.incarnation, journal[1].writer.incarnation);
}

#[test]
fn three_nats_nodes_keep_three_replicas_and_commits_survive_losing_one() {
    let Some(mut nats) = NatsCluster::start(3) else {
        return;
    };
    let rt = runtime();
    // Longer than a JetStream leader election, which a node loss may take.
    let ttl = Duration::from_secs(15);
    // Creating every stream with three replicas on a cluster just formed can take a while on
    // a busy machine.
    let mut first = options(&nats.urls(), "a", ttl);
    first.connect_timeout = Duration::from_secs(30);
    let a = rt.block_on(Cluster::connect(first)).expect("connects");
    assert_eq!(replicas(&rt, &nats.urls()), [3, 3, 3, 3]);
    let leader = rt.block_on(async {
        let client = async_nats::connect(nats.urls()).await.expect("connects");
        let mut stream = jetstream::new(client)
            .get_stream(names::ROOMS_STREAM)
            .await
            .expect("a stream");
        let info = stream.info().await.expect("info");
        info.cluster
            .as_ref()
            .and_then(|c| c.leader.clone())
            .expect("a leader")
    });

    let code = RoomCode::from_u64(11);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    let played = game(&["h2e2", "h9g7", "h0g2", "i9h9"]);
    let mut changes = entries(code, &played);
    let mut storage = a.storage();
    storage
        .commit(&[started(code), changes.remove(0)])
        .expect("commits");
    // The journal stream's leader goes: the commits wait for a new one.
    let gone: usize = leader
        .trim_start_matches("xq-test-")
        .parse()
        .expect("a test server");
    nats.kill(gone);
    for change in changes {
        assert!(
            storage
                .commit(&[change])
                .expect("commits")
                .refused
                .is_empty()
        );
    }
    let journal = rt.block_on(a.journal(code)).expect("reads");
    assert_eq!(journal.len(), 4);
    assert_eq!(check_journal(&journal), ["a"]);
}

/// The replication factor of each of the cluster's streams and buckets, read back.
fn replicas(rt: &tokio::runtime::Runtime, urls: &[String]) -> Vec<usize> {
    rt.block_on(async {
        let client = async_nats::connect(urls.to_vec()).await.expect("connects");
        let js = jetstream::new(client);
        let mut counts = Vec::new();
        for name in [
            names::ROOMS_STREAM,
            names::GAMES_STREAM,
            "KV_XQ_LEASES",
            "KV_XQ_TOKENS",
        ] {
            let mut stream = js.get_stream(name).await.expect("a stream");
            counts.push(stream.info().await.expect("info").config.num_replicas);
        }
        counts
    })
}

#[test]
fn a_lone_server_keeps_one_replica_and_refuses_three_with_a_typed_error() {
    let Some(bench) = Bench::start(Duration::from_secs(5)) else {
        return;
    };
    let mut three = options(&bench.urls, "a", bench.ttl);
    three.replicas = Some(3);
    let err = bench
        .rt
        .block_on(Cluster::connect(three))
        .expect_err("one server keeps one copy");
    assert!(
        matches!(err, ClusterError::TooFewServers { replicas: 3, .. }),
        "{err}"
    );
    let _a = bench.node("a");
    assert_eq!(replicas(&bench.rt, &bench.urls), [1, 1, 1, 1]);
}

#[test]
fn a_cluster_of_two_servers_needs_its_replication_factor_set() {
    let Some(nats) = NatsCluster::start(2) else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(5);
    let mut default = options(&nats.urls(), "a", ttl);
    default.connect_timeout = Duration::from_secs(30);
    let err = rt
        .block_on(Cluster::connect(default.clone()))
        .expect_err("a clustered server gets three replicas unless told");
    assert!(
        matches!(err, ClusterError::TooFewServers { replicas: 3, .. }),
        "{err}"
    );
    let mut two = default;
    two.replicas = Some(2);
    let _a = rt.block_on(Cluster::connect(two)).expect("connects");
    assert_eq!(replicas(&rt, &nats.urls()), [2, 2, 2, 2]);
}

#[test]
fn a_wrong_url_fails_quickly_with_a_typed_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let rt = runtime();
    let urls = [format!("nats://127.0.0.1:{port}")];
    let started = Instant::now();
    let err = rt
        .block_on(Cluster::connect(options(
            &urls,
            "a",
            Duration::from_secs(1),
        )))
        .expect_err("nothing listens there");
    assert!(matches!(err, ClusterError::Connect { .. }), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let err = rt
        .block_on(Cluster::connect(options(
            &urls,
            "a b",
            Duration::from_secs(1),
        )))
        .expect_err("a bad name");
    assert!(matches!(err, ClusterError::InvalidNode(_)), "{err}");
}

/// Connects node `a` to the bench's server with `options` changed by `set`, and claims and
/// opens a room through it if it connects.
fn join_with(bench: &Bench, set: impl FnOnce(&mut ClusterOptions)) -> Result<(), ClusterError> {
    let mut options = options(&bench.urls, "a", bench.ttl);
    set(&mut options);
    let node = bench.rt.block_on(Cluster::connect(options))?;
    let code = RoomCode::from_u64(30);
    assert!(bench.claim(&node, code));
    let committed = node.storage().commit(&[started(code)]).expect("commits");
    assert!(committed.refused.is_empty());
    Ok(())
}

/// Checks that the server refused the connection, for the reason `why`.
fn refused(outcome: Result<(), ClusterError>, why: &str) {
    match outcome {
        Err(err @ ClusterError::Connect { .. }) => {
            assert!(err.to_string().contains(why), "{err}");
        }
        other => panic!("not refused for {why:?}: {other:?}"),
    }
}

#[test]
fn a_server_that_checks_client_certificates_is_joined_with_its_ca_and_a_certificate() {
    let tls = ServerOptions {
        tls: true,
        ..ServerOptions::default()
    };
    let Some(bench) = Bench::start_with(Duration::from_secs(5), tls) else {
        return;
    };
    let client_tls = bench
        .server
        .client_tls()
        .expect("a TLS server's client settings");
    join_with(&bench, |options| options.tls = Some(client_tls.clone())).expect("joins over TLS");

    let without_certificate = join_with(&bench, |options| {
        options.tls = Some(ClusterTls {
            client: None,
            ..client_tls.clone()
        });
    });
    refused(without_certificate, "CertificateRequired");
    let unknown_ca = join_with(&bench, |options| {
        options.tls = Some(ClusterTls {
            ca: None,
            ..client_tls.clone()
        });
    });
    refused(unknown_ca, "UnknownIssuer");
}

#[test]
fn a_server_in_operator_mode_is_joined_with_a_credentials_file() {
    let accounts = ServerOptions {
        credentials: true,
        ..ServerOptions::default()
    };
    let Some(bench) = Bench::start_with(Duration::from_secs(5), accounts) else {
        return;
    };
    let creds = bench.server.credentials().expect("the user's credentials");
    join_with(&bench, |options| {
        options.credentials = Some(creds.to_path_buf());
    })
    .expect("joins with the credentials");

    let anonymous = join_with(&bench, |_| {});
    refused(anonymous, "authorization violation");
    let dir = tempfile::tempdir().expect("a directory");
    let garbled = dir.path().join("garbled.creds");
    std::fs::write(&garbled, "not a credentials file").expect("writes");
    for path in [garbled, dir.path().join("missing.creds")] {
        let err = join_with(&bench, |options| options.credentials = Some(path));
        assert!(matches!(err, Err(ClusterError::Credentials(_))), "{err:?}");
    }
}

#[test]
fn a_commit_rides_out_a_nats_restart_in_its_window_and_gives_the_room_up_past_it() {
    let Some(mut bench) = Bench::start(Duration::from_secs(8)) else {
        return;
    };
    let a = bench.node("a");
    let code = RoomCode::from_u64(12);
    let mut storage = a.storage();
    let mut changes = bench.open(&a, &mut storage, code, &["h2e2", "h9g7", "h0g2"]);

    bench.server.kill();
    let next = changes.remove(0);
    let commit = thread::spawn(move || {
        let committed = storage.commit(&[next]);
        (storage, committed)
    });
    thread::sleep(Duration::from_millis(500));
    bench.server.restart();
    let (mut storage, committed) = commit.join().expect("the commit thread");
    assert!(
        committed
            .expect("commits once NATS is back")
            .refused
            .is_empty()
    );
    assert_eq!(check_journal(&bench.journal(&a, code)), ["a"]);
    assert_eq!(bench.journal(&a, code).len(), 2);

    // Gone for good: the commit gives the room up within the lease TTL (the node keeps
    // serving its other rooms, and whoever takes this one over reads its journal as it is).
    bench.server.kill();
    let started = Instant::now();
    let given_up = storage.commit(&[changes.remove(0)]);
    assert_eq!(given_up.expect("no storage failure").refused, [code]);
    assert!(
        started.elapsed() <= bench.ttl + Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
