//! Relay nodes sharing their rooms through NATS JetStream, in this process: two players on two
//! nodes and a spectator on a third play whole games over UDP and QUIC, redirected to the
//! room's owner, and every game lands once in the cluster's archive.

use std::sync::Arc;
use std::time::Duration;

use xq_client::ClientEvent;
use xq_cluster::testing::NatsServer;
use xq_cluster::{Cluster, ClusterArchive, ClusterOptions};
use xq_protocol::RoomOptions;
use xq_rules::Color;
use xq_server::Server;
use xq_session::{Event, GameResult, WinReason};
use xq_tests::{
    Scheme, connect, expect, match_event, moves, pair_at, play_line, run, transport_options,
    undo_round,
};

/// The quickest checkmate from the start: the cannon mates on the back rank over the advisor.
const MATE: &str = "b2b4 a6a5 b4c4 f9e8 c4c9";

/// One relay node of the cluster on `nats`, listening on `scheme`.
async fn node(
    nats: &NatsServer,
    scheme: Scheme,
    name: &str,
    dir: &tempfile::TempDir,
) -> (Server, Cluster) {
    seeded_node(nats, scheme, name, dir, None).await
}

/// [`node`], its randomness (room codes among it) drawn from `seed` if given.
async fn seeded_node(
    nats: &NatsServer,
    scheme: Scheme,
    name: &str,
    dir: &tempfile::TempDir,
    seed: Option<[u8; 32]>,
) -> (Server, Cluster) {
    let cluster = Cluster::connect(ClusterOptions {
        servers: vec![nats.url()],
        node: name.to_string(),
        lease_ttl: Duration::from_secs(2),
        ..ClusterOptions::default()
    })
    .await
    .unwrap_or_else(|e| panic!("{name} joins the cluster: {e}"));
    let builder = match seed {
        Some(seed) => Server::builder().seed(seed),
        None => Server::builder(),
    };
    let server = builder
        .listen(scheme.listen_url(name))
        .transport(transport_options(dir))
        .storage(cluster.storage())
        .cluster(Arc::new(cluster.clone()))
        .start()
        .await
        .unwrap_or_else(|e| panic!("start {name}: {e}"));
    (server, cluster)
}

async fn a_game_across_three_nodes(scheme: Scheme) {
    let Some(nats) = NatsServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut nodes = Vec::new();
    for name in ["relay-a", "relay-b", "relay-c"] {
        nodes.push(node(&nats, scheme, name, &dir).await);
    }
    let url = |i: usize| nodes[i].0.local_urls()[0].clone();
    let options = transport_options(&dir);
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

    // A rematch, colours swapped, its first move seen by all three.
    pair.red.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        expect(client, |e| {
            matches!(e, ClientEvent::RematchRequested { by: Color::Red }).then_some(())
        })
        .await;
    }
    pair.black.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    let seat = |e: &ClientEvent| match e {
        ClientEvent::RematchStarted { seat } => Some(*seat),
        _ => None,
    };
    assert_eq!(expect(&mut pair.red, seat).await, Some(Color::Black));
    assert_eq!(expect(&mut pair.black, seat).await, Some(Color::Red));
    pair.black
        .play(moves("h2e2")[0])
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black] {
        assert!(matches!(
            match_event(client).await,
            (0, Event::MovePlayed { by: Color::Red, .. })
        ));
    }

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
    let owner = nodes[0]
        .0
        .metrics()
        .snapshot()
        .await
        .unwrap_or_else(|| panic!("running"));
    assert_eq!(owner.relay.rooms, 1, "the room lives on its creator's node");
    for (server, _) in &nodes[1..] {
        let metrics = server
            .metrics()
            .snapshot()
            .await
            .unwrap_or_else(|| panic!("running"));
        assert_eq!(metrics.relay.redirects, 1);
        assert_eq!(metrics.relay.rooms, 0);
    }
    for (server, _) in nodes {
        server.shutdown().await;
    }
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
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut nodes = Vec::new();
        for name in ["relay-a", "relay-b"] {
            nodes.push(seeded_node(&nats, Scheme::Udp, name, &dir, Some([7; 32])).await);
        }
        let url = |i: usize| nodes[i].0.local_urls()[0].clone();
        let options = transport_options(&dir);
        let first = pair_at(&url(0), &url(1), options.clone(), RoomOptions::default()).await;
        let second = pair_at(&url(1), &url(0), options, RoomOptions::default()).await;
        assert_ne!(first.code, second.code);
        let lost: u64 = nodes
            .iter()
            .map(|(_, cluster)| cluster.metrics().claims_lost)
            .sum();
        assert!(
            lost > 0,
            "the second node lost the codes the first had claimed"
        );
        for (server, _) in nodes {
            server.shutdown().await;
        }
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
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut nodes = Vec::new();
        for name in ["relay-a", "relay-b"] {
            nodes.push(node(&nats, Scheme::Udp, name, &dir).await);
        }
        let list = format!(
            "{},{}",
            nodes[0].0.local_urls()[0],
            nodes[1].0.local_urls()[0]
        );
        let mut pair = pair_at(
            &list,
            &list,
            transport_options(&dir),
            RoomOptions::default(),
        )
        .await;
        play_line(&mut pair, &mut [], &moves("h2e2")).await;

        nodes[0].1.__pause_renewals(true);
        let started = std::time::Instant::now();
        while nodes[1]
            .0
            .metrics()
            .snapshot()
            .await
            .is_some_and(|b| b.relay.takeovers == 0)
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "nobody took the room over"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
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
        let a = nodes[0]
            .0
            .metrics()
            .snapshot()
            .await
            .unwrap_or_else(|| panic!("running"));
        let b = nodes[1]
            .0
            .metrics()
            .snapshot()
            .await
            .unwrap_or_else(|| panic!("running"));
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
        for (server, _) in nodes {
            server.shutdown().await;
        }
    });
}
