//! Relay nodes sharing their rooms through NATS JetStream, in this process: two players on two
//! nodes and a spectator on a third play whole games over UDP and QUIC, redirected to the
//! room's owner, and every game lands once in the cluster's archive.

use std::sync::Arc;
use std::time::Duration;

use xq_cluster::testing::NatsServer;
use xq_cluster::{Cluster, ClusterArchive, ClusterOptions};
use xq_protocol::RoomOptions;
use xq_rules::Color;
use xq_server::{Server, ServerMetrics};
use xq_session::{Event, GameResult, TimeControl, WinReason};
use xq_tests::{
    Scheme, connect, match_event, moves, pair_at, play_line, rematch_swapped, run,
    transport_options, undo_round,
};
use xq_transport::Options;

/// The quickest checkmate from the start: the cannon mates on the back rank over the advisor.
const MATE: &str = "b2b4 a6a5 b4c4 f9e8 c4c9";

/// Relay nodes of one cluster, in this process.
struct Nodes {
    nodes: Vec<(Server, Cluster)>,
    /// The QUIC identities.
    dir: tempfile::TempDir,
}

impl Nodes {
    /// A node for each of `names` on `nats`, listening on `scheme`, their randomness (room
    /// codes among it) drawn from `seed` if given.
    async fn start(
        nats: &NatsServer,
        scheme: Scheme,
        names: &[&str],
        seed: Option<[u8; 32]>,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut nodes = Vec::new();
        for &name in names {
            let cluster = Cluster::connect(ClusterOptions {
                lease_ttl: Duration::from_secs(2),
                ..ClusterOptions::new([nats.url()], name)
            })
            .await
            .unwrap_or_else(|e| panic!("{name} joins the cluster: {e}"));
            let builder = match seed {
                Some(seed) => Server::builder().seed(seed),
                None => Server::builder(),
            };
            let server = builder
                .listen(scheme.listen_url(name))
                .transport(transport_options(&dir))
                .storage(cluster.storage())
                .cluster(Arc::new(cluster.clone()))
                .start()
                .await
                .unwrap_or_else(|e| panic!("start {name}: {e}"));
            nodes.push((server, cluster));
        }
        Self { nodes, dir }
    }

    /// Node `i`'s client URL.
    fn url(&self, i: usize) -> String {
        self.nodes[i].0.local_urls()[0].clone()
    }

    fn options(&self) -> Options {
        transport_options(&self.dir)
    }

    async fn metrics(&self, i: usize) -> ServerMetrics {
        let metrics = self.nodes[i].0.metrics().snapshot().await;
        metrics.unwrap_or_else(|| panic!("node {i} stopped"))
    }

    async fn shutdown(self) {
        for (server, _) in self.nodes {
            server.shutdown().await;
        }
    }
}

async fn a_game_across_three_nodes(scheme: Scheme) {
    let Some(nats) = NatsServer::start() else {
        return;
    };
    let nodes = Nodes::start(&nats, scheme, &["relay-a", "relay-b", "relay-c"], None).await;
    let (url, options) = (|i| nodes.url(i), nodes.options());
    // Red creates the room on the first node; Black joins through the second, redirected.
    let mut pair = pair_at(&url(0), &url(1), options.clone(), RoomOptions::default()).await;
    // The spectator comes through the third.
    let mut watcher = connect(&url(2), options).await;
    let watching = watcher
        .spectate(pair.code)
        .await
        .unwrap_or_else(|e| panic!("spectate: {e}"));
    assert_eq!(watching.seat, None);

    // An undo granted, a draw offered and declined, then the mate.
    play_line(&mut pair, &mut [&mut watcher], &moves("h2e2")).await;
    let answer = undo_round(&mut pair, &mut [&mut watcher], true).await;
    assert!(
        matches!(answer, Event::UndoApplied { plies: 1, .. }),
        "{answer:?}"
    );
    pair.black
        .offer_draw()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        assert!(matches!(
            match_event(client).await.1,
            Event::DrawOffered { by: Color::Black }
        ));
    }
    pair.red
        .answer_draw(false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        assert!(matches!(
            match_event(client).await.1,
            Event::DrawDeclined { .. }
        ));
    }
    play_line(&mut pair, &mut [&mut watcher], &moves(MATE)).await;
    let mate = GameResult::Win {
        winner: Color::Red,
        reason: WinReason::Checkmate,
    };
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        assert!(matches!(match_event(client).await.1, Event::GameOver(result) if result == mate));
    }

    // A rematch, colours swapped, seen by the spectator too.
    rematch_swapped(&mut pair, &mut [&mut watcher]).await;

    // The finished game is in the cluster's archive, once.
    let archive = ClusterArchive::connect(&ClusterOptions::new([nats.url()], ""))
        .await
        .unwrap_or_else(|e| panic!("open the archive: {e}"));
    let games = archive
        .games()
        .await
        .unwrap_or_else(|e| panic!("read the archive: {e}"));
    assert_eq!(games.len(), 1, "{games:?}");
    assert_eq!(
        (games[0].room, games[0].result.as_str()),
        (pair.code, "1-0")
    );
    assert_eq!(games[0].moves, 5);

    // The redirects happened where they should: both entries through other nodes.
    let owner = nodes.metrics(0).await;
    assert_eq!(owner.relay.rooms, 1, "the room lives on its creator's node");
    for i in 1..3 {
        let metrics = nodes.metrics(i).await;
        assert_eq!(metrics.relay.redirects, 1);
        assert_eq!(metrics.relay.rooms, 0);
    }
    nodes.shutdown().await;
}

#[test]
fn a_game_across_three_nodes_over_udp() {
    run(a_game_across_three_nodes(Scheme::Udp));
}

#[test]
fn a_game_across_three_nodes_over_quic() {
    run(a_game_across_three_nodes(Scheme::Quic));
}

/// Two nodes drawing the same room codes (the same seed): each code is claimed once in the
/// cluster, so their rooms still get codes of their own, and each is joined through the other
/// node.
#[test]
fn join_codes_are_unique_across_nodes_that_draw_the_same_ones() {
    run(async {
        let Some(nats) = NatsServer::start() else {
            return;
        };
        let names = ["relay-a", "relay-b"];
        let nodes = Nodes::start(&nats, Scheme::Udp, &names, Some([7; 32])).await;
        let (a, b, options) = (nodes.url(0), nodes.url(1), nodes.options());
        let first = pair_at(&a, &b, options.clone(), RoomOptions::default()).await;
        let second = pair_at(&b, &a, options, RoomOptions::default()).await;
        assert_ne!(first.code, second.code);
        let lost: u64 = nodes
            .nodes
            .iter()
            .map(|(_, cluster)| cluster.metrics().claims_lost)
            .sum();
        assert!(lost > 0, "one node lost the codes the other had claimed");
        nodes.shutdown().await;
    });
}

/// A node that stops renewing its leases (stalled) loses its room to another node, which
/// takes it over; the players, told to move, resume through the next relay of their lists and
/// play on. The nodes count it all.
#[test]
fn a_stalled_node_loses_its_room_to_another_and_the_game_goes_on() {
    run(async {
        let Some(nats) = NatsServer::start() else {
            return;
        };
        let nodes = Nodes::start(&nats, Scheme::Udp, &["relay-a", "relay-b"], None).await;
        let list = format!("{},{}", nodes.url(0), nodes.url(1));
        let base = Duration::from_secs(60);
        let room = RoomOptions {
            time_control: TimeControl::Increment {
                base,
                increment: Duration::ZERO,
            },
            ..RoomOptions::default()
        };
        let mut pair = pair_at(&list, &list, nodes.options(), room).await;
        play_line(&mut pair, &mut [], &moves("h2e2")).await;

        nodes.nodes[0].1.__pause_renewals(true);
        let started = std::time::Instant::now();
        while nodes.metrics(1).await.relay.takeovers == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "nobody took the room over"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let taken_over = std::time::Instant::now();
        // Black's move goes through once both players are back, on the new owner.
        let next = moves("h9g7")[0];
        loop {
            let _ = pair.black.play(next).await;
            let played =
                tokio::time::timeout(Duration::from_secs(2), match_event(&mut pair.black)).await;
            if let Ok((_, Event::MovePlayed { mv, .. })) = played
                && mv == next
            {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the game did not go on"
            );
        }
        // Black's clock ran from the takeover on, not while the room waited for an owner.
        let clocks = pair
            .black
            .mirror()
            .and_then(|mirror| mirror.clocks(Duration::ZERO));
        let charged = base - clocks.unwrap_or_else(|| panic!("clocks")).black;
        let stalled = taken_over - started;
        assert!(
            charged <= taken_over.elapsed() + Duration::from_millis(250),
            "Black was charged {charged:?}: the {stalled:?} before the takeover too"
        );
        let (a, b) = (nodes.metrics(0).await, nodes.metrics(1).await);
        assert_eq!(a.relay.evictions, 1, "the stalled node gave the room up");
        assert_eq!(b.relay.takeovers, 1, "the other node took it over");
        let a_cluster = a
            .cluster
            .clone()
            .unwrap_or_else(|| panic!("a cluster node"));
        assert!(
            a_cluster.lease_losses + a_cluster.refused_appends > 0,
            "the stalled node counted what it lost: {a_cluster:?}"
        );
        let b_cluster = b
            .cluster
            .clone()
            .unwrap_or_else(|| panic!("a cluster node"));
        assert!(b_cluster.lease_renewals > 0);
        assert!(b.commits.count() > 0, "appends are timed");
        let text = xq_server::encode(&b).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            text.contains("xq_relay_cluster_takeovers_total 1"),
            "{text}"
        );
        nodes.shutdown().await;
    });
}
