//! The cluster against real nats-servers: takeover, fencing, deduplicated retries, claims,
//! the archive, closing, replication and failures. Skipped (with a note) without a
//! nats-server binary, unless `XQ_REQUIRE_NATS=1`.

use std::thread;
use std::time::{Duration, Instant};

use async_nats::jetstream;
use xq_cluster::testing::{NatsCluster, NatsServer};
use xq_cluster::{Change, Cluster, ClusterError, ClusterOptions, Location, Lookup, names};
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

/// Deletes room `code`'s lease behind its owner's back.
async fn steal_lease(url: &str, code: RoomCode) {
    let client = async_nats::connect(url).await.expect("connects");
    let kv = jetstream::new(client)
        .get_key_value(names::LEASES_BUCKET)
        .await
        .expect("the leases bucket");
    kv.delete(code.as_str()).await.expect("deletes");
}

/// Checks room `code`'s journal as a checker would: counters 1, 2, 3…, and one writer
/// from each takeover marker to the next. Returns the writers' nodes in order.
fn check_journal(rt: &tokio::runtime::Runtime, cluster: &Cluster, code: RoomCode) -> Vec<String> {
    let journal = rt.block_on(cluster.journal(code)).expect("reads");
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
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(1);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let code = RoomCode::from_u64(1);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    let played = game(&["h2e2", "h9g7"]);
    let mut changes = vec![started(code)];
    changes.extend(entries(code, &played));
    let committed = a.storage().commit(&changes).expect("commits");
    assert!(committed.refused.is_empty());

    // Past a few renewals, the owner still holds it: redirects, by code and by token.
    thread::sleep(ttl * 2);
    let owner = Location::Owner {
        node: "a".into(),
        urls: vec!["udp://a.test:7878".into()],
    };
    assert_eq!(
        rt.block_on(b.locate(Lookup::Room(code))).expect("locates"),
        owner
    );
    assert_eq!(
        rt.block_on(b.locate(Lookup::Token(SECOND)))
            .expect("locates"),
        owner
    );
    assert_eq!(
        rt.block_on(a.locate(Lookup::Room(code))).expect("locates"),
        Location::Nowhere
    );
    assert!(a.metrics().lease_renewals >= 4, "{:?}", a.metrics());

    drop(a);
    outlive(ttl);
    let taken = rt
        .block_on(b.locate(Lookup::Token(FIRST)))
        .expect("locates");
    assert_eq!(taken, Location::Taken(Box::new(open_room(code, &played))));
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
    assert_eq!(check_journal(&rt, &b, code), ["a", "b"]);
    let c = connect(&rt, &urls, "c", ttl);
    assert_eq!(
        rt.block_on(c.locate(Lookup::Room(code))).expect("locates"),
        Location::Owner {
            node: "b".into(),
            urls: vec!["udp://b.test:7878".into()],
        }
    );
}

#[test]
fn a_stalled_owner_finds_its_room_refused_after_a_takeover() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(1);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let code = RoomCode::from_u64(2);
    let played = game(&["h2e2", "h9g7", "h0g2"]);
    let mut changes = entries(code, &played);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    a.storage()
        .commit(&[started(code), changes.remove(0)])
        .expect("commits");

    a.__pause_renewals(true);
    outlive(ttl);
    assert!(matches!(
        rt.block_on(b.locate(Lookup::Room(code))).expect("locates"),
        Location::Taken(_)
    ));
    b.storage().commit(&[changes.remove(0)]).expect("commits");
    let before = rt.block_on(b.journal(code)).expect("reads");

    // A comes back: its commit is refused, and nothing of it is in the journal.
    let committed = a.storage().commit(&[changes.remove(0)]).expect("commits");
    assert_eq!(committed.refused, [code]);
    assert_eq!(rt.block_on(b.journal(code)).expect("reads"), before);
    assert_eq!(a.metrics().refused_appends, 1);
    assert!(a.held().is_empty());
    assert_eq!(check_journal(&rt, &b, code), ["a", "b"]);
}

#[test]
fn the_stream_fences_a_node_that_still_believes_its_lease() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(3);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let code = RoomCode::from_u64(3);
    let played = game(&["h2e2", "h9g7"]);
    let mut changes = entries(code, &played);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    a.storage()
        .commit(&[started(code), changes.remove(0)])
        .expect("commits");

    // The lease vanishes early (as if the owner's clock ran slow): A still believes it.
    a.__pause_renewals(true);
    rt.block_on(steal_lease(&server.url(), code));
    assert!(matches!(
        rt.block_on(b.locate(Lookup::Room(code))).expect("locates"),
        Location::Taken(_)
    ));
    let before = rt.block_on(b.journal(code)).expect("reads");
    let committed = a.storage().commit(&[changes.remove(0)]).expect("commits");
    assert_eq!(
        committed.refused,
        [code],
        "the stream refused the stale append"
    );
    assert_eq!(rt.block_on(b.journal(code)).expect("reads"), before);
    assert_eq!(check_journal(&rt, &b, code), ["a", "b"]);
}

#[test]
fn a_renewal_that_finds_the_lease_taken_reports_the_room_lost() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(1);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let mut lost = a.lost_rooms();
    let code = RoomCode::from_u64(4);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    rt.block_on(steal_lease(&server.url(), code));
    let reported = rt
        .block_on(async { tokio::time::timeout(ttl, lost.recv()).await })
        .expect("reported within a ttl");
    assert_eq!(reported, Some(code));
    assert!(a.held().is_empty());
    assert_eq!(a.metrics().lease_losses, 1);
}

#[test]
fn a_retried_append_is_not_doubled() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    // Attempts time out after 2 s: the server is paused for longer, so the first attempt's
    // acknowledgement is lost and the retry reaches the server after it.
    let ttl = Duration::from_secs(10);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let code = RoomCode::from_u64(5);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    let played = game(&["h2e2", "h9g7"]);
    let mut changes = entries(code, &played);
    let mut storage = a.storage();
    storage
        .commit(&[started(code), changes.remove(0)])
        .expect("commits");

    server.pause();
    let commit = thread::spawn(move || {
        let committed = storage.commit(&[changes.remove(0)]);
        (storage, committed)
    });
    thread::sleep(Duration::from_millis(3_000));
    server.resume();
    let (_storage, committed) = commit.join().expect("the commit thread");
    assert!(committed.expect("commits").refused.is_empty());
    let metrics = a.metrics();
    assert!(metrics.append_retries >= 1, "{metrics:?}");
    assert!(metrics.duplicate_appends >= 1, "{metrics:?}");
    let journal = rt.block_on(a.journal(code)).expect("reads");
    assert_eq!(journal.len(), 2, "{journal:?}");
    assert_eq!(check_journal(&rt, &a, code), ["a"]);
}

#[test]
fn of_two_nodes_claiming_a_code_exactly_one_wins() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(2);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    for n in 100..120 {
        let code = RoomCode::from_u64(n);
        let (won_a, won_b) = rt.block_on(async { tokio::join!(a.claim(code), b.claim(code)) });
        let (won_a, won_b) = (won_a.expect("claims"), won_b.expect("claims"));
        assert!(won_a ^ won_b, "code {code}: a {won_a}, b {won_b}");
    }
    let (ma, mb) = (a.metrics(), b.metrics());
    assert_eq!(ma.claims_won + mb.claims_won, 20);
    assert_eq!(ma.claims_lost + mb.claims_lost, 20);
    // A released code is free at once.
    let code = a.held()[0];
    rt.block_on(a.release(code));
    assert!(rt.block_on(b.claim(code)).expect("claims"));
}

#[test]
fn a_finished_game_is_archived_once() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(1);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let code = RoomCode::from_u64(6);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
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

    // The owner dies before the room closes: the node that finds it archives it again,
    // which adds nothing, and lets the room go.
    drop(storage);
    drop(a);
    outlive(ttl);
    assert_eq!(
        rt.block_on(b.locate(Lookup::Room(code))).expect("locates"),
        Location::Nowhere
    );
    assert_eq!(b.storage().games().expect("lists"), games);
    assert_eq!(b.metrics().games_archived, 0);
    assert!(
        rt.block_on(b.journal(code)).expect("reads").is_empty(),
        "purged"
    );
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
}

#[test]
fn a_closed_room_is_purged_and_its_code_free_again() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(2);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let code = RoomCode::from_u64(7);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    let mut storage = a.storage();
    storage.commit(&[started(code)]).expect("commits");
    assert_eq!(
        rt.block_on(b.locate(Lookup::Token(FIRST)))
            .expect("locates"),
        Location::Owner {
            node: "a".into(),
            urls: vec!["udp://a.test:7878".into()],
        }
    );
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
    assert!(rt.block_on(a.journal(code)).expect("reads").is_empty());
    assert_eq!(
        rt.block_on(b.locate(Lookup::Token(FIRST)))
            .expect("locates"),
        Location::Nowhere
    );
    assert_eq!(
        rt.block_on(b.locate(Lookup::Room(code))).expect("locates"),
        Location::Nowhere
    );
    assert!(
        rt.block_on(b.claim(code)).expect("claims"),
        "the code is free again"
    );
    // A new room on the code starts a journal of its own.
    b.storage().commit(&[started(code)]).expect("commits");
    assert_eq!(check_journal(&rt, &b, code), ["b"]);
}

#[test]
fn rooms_nobody_owns_are_listed_as_orphans() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(1);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let b = connect(&rt, &urls, "b", ttl);
    let (open, idle) = (RoomCode::from_u64(8), RoomCode::from_u64(9));
    for code in [open, idle] {
        assert!(rt.block_on(a.claim(code)).expect("claims"));
    }
    a.storage().commit(&[started(open)]).expect("commits");
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
    // A claimed code with a journal left on it is no free code.
    rt.block_on(a.close());
    assert_eq!(rt.block_on(b.orphans()).expect("lists"), [open]);
    assert!(!rt.block_on(b.claim(open)).expect("claims"));
    assert!(rt.block_on(b.claim(idle)).expect("claims"));
    assert!(matches!(
        rt.block_on(b.locate(Lookup::Room(open))).expect("locates"),
        Location::Taken(_)
    ));
    assert!(rt.block_on(b.orphans()).expect("lists").is_empty());
}

#[test]
fn a_restarted_node_takes_its_former_leases_over_at_once() {
    let Some(server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(30);
    let urls = [server.url()];
    let code = RoomCode::from_u64(10);
    {
        let a = connect(&rt, &urls, "a", ttl);
        assert!(rt.block_on(a.claim(code)).expect("claims"));
        a.storage().commit(&[started(code)]).expect("commits");
    }
    let again = connect(&rt, &urls, "a", ttl);
    let started_at = Instant::now();
    assert!(matches!(
        rt.block_on(again.locate(Lookup::Room(code)))
            .expect("locates"),
        Location::Taken(_)
    ));
    assert!(
        started_at.elapsed() < Duration::from_secs(5),
        "no wait for the old lease"
    );
    let journal = rt.block_on(again.journal(code)).expect("reads");
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
    let a = connect(&rt, &nats.urls(), "a", ttl);
    let (replicas, leader) = rt.block_on(async {
        let client = async_nats::connect(nats.urls()).await.expect("connects");
        let js = jetstream::new(client);
        let mut counts = Vec::new();
        let mut leader = String::new();
        for name in [
            names::ROOMS_STREAM,
            names::GAMES_STREAM,
            "KV_XQ_LEASES",
            "KV_XQ_TOKENS",
        ] {
            let mut stream = js.get_stream(name).await.expect("a stream");
            let info = stream.info().await.expect("info");
            counts.push(info.config.num_replicas);
            if name == names::ROOMS_STREAM {
                leader = info
                    .cluster
                    .as_ref()
                    .and_then(|c| c.leader.clone())
                    .expect("a leader");
            }
        }
        (counts, leader)
    });
    assert_eq!(replicas, [3, 3, 3, 3]);

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
    let killed = Instant::now();
    for change in changes {
        assert!(
            storage
                .commit(&[change])
                .expect("commits")
                .refused
                .is_empty()
        );
    }
    eprintln!("commits back {:?} after the kill", killed.elapsed());
    let left: Vec<String> = (0..3)
        .filter(|&i| i != gone)
        .map(|i| nats.server(i).url())
        .collect();
    let mut late = options(&left, "b", ttl);
    // The streams led by the server killed may still be electing.
    late.connect_timeout = ttl;
    let b = rt.block_on(Cluster::connect(late)).expect("connects");
    let journal = rt.block_on(b.journal(code)).expect("reads");
    assert_eq!(journal.len(), 4);
    assert_eq!(check_journal(&rt, &b, code), ["a"]);
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

#[test]
fn a_commit_rides_out_a_nats_restart_in_its_window_and_fails_past_it() {
    let Some(mut server) = NatsServer::start() else {
        return;
    };
    let rt = runtime();
    let ttl = Duration::from_secs(8);
    let urls = [server.url()];
    let a = connect(&rt, &urls, "a", ttl);
    let code = RoomCode::from_u64(12);
    assert!(rt.block_on(a.claim(code)).expect("claims"));
    let played = game(&["h2e2", "h9g7", "h0g2"]);
    let mut changes = entries(code, &played);
    let mut storage = a.storage();
    storage
        .commit(&[started(code), changes.remove(0)])
        .expect("commits");

    server.kill();
    let next = changes.remove(0);
    let commit = thread::spawn(move || {
        let committed = storage.commit(&[next]);
        (storage, committed)
    });
    thread::sleep(Duration::from_millis(500));
    server.restart();
    let (mut storage, committed) = commit.join().expect("the commit thread");
    assert!(
        committed
            .expect("commits once NATS is back")
            .refused
            .is_empty()
    );
    assert_eq!(check_journal(&rt, &a, code), ["a"]);
    assert_eq!(rt.block_on(a.journal(code)).expect("reads").len(), 2);

    // Gone for good: the commit gives up within the lease TTL.
    server.kill();
    let started = Instant::now();
    let failed = storage.commit(&[changes.remove(0)]);
    assert!(failed.is_err(), "{failed:?}");
    assert!(
        started.elapsed() <= ttl + Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}
