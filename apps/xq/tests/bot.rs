//! `xq bot` against `xq bot` through an in-process relay, over UDP and QUIC, and through the
//! nodes of a relay cluster when one of them goes away.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use xq_cluster::testing::NatsServer;
use xq_cluster::{Cluster, ClusterArchive, ClusterOptions};
use xq_server::Server;
use xq_transport::Options;

fn bot(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_xq"))
        .arg("bot")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn xq bot: {e}"))
}

/// Reads the creator's `room: CODE` line.
fn room_code(child: &mut Child) -> (String, BufReader<std::process::ChildStdout>) {
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut lines = BufReader::new(stdout);
    let mut first = String::new();
    lines
        .read_line(&mut first)
        .unwrap_or_else(|e| panic!("{e}"));
    let code = first
        .trim()
        .strip_prefix("room: ")
        .unwrap_or_else(|| panic!("expected 'room: CODE', got {first:?}"))
        .to_string();
    (code, lines)
}

fn rest(mut lines: BufReader<std::process::ChildStdout>) -> String {
    let mut out = String::new();
    let mut line = String::new();
    while lines.read_line(&mut line).unwrap_or(0) > 0 {
        out.push_str(&line);
        line.clear();
    }
    out
}

fn result_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("result: "))
        .unwrap_or_else(|| panic!("no result line in {out:?}"))
}

/// Two bots play a game on a relay listening on `listen`; the joiner is given `dead`, a relay
/// nobody answers at, before the live one when there is one.
async fn two_bots_finish_a_game(listen: &str, dead: Option<&str>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        quic_identity_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let server = Server::builder()
        .listen(listen)
        .transport(options)
        .start()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = server.local_urls()[0].clone();
    let dead = dead.map(str::to_owned);
    let result = tokio::task::spawn_blocking(move || {
        let mut creator = bot(&[&url, "--create", "--seat", "red", "--seed", "1"]);
        let (code, creator_out) = room_code(&mut creator);
        assert_eq!(code.len(), 6, "{code}");
        let relays = dead.map_or_else(|| url.clone(), |dead| format!("{dead},{url}"));
        let joiner = bot(&[&relays, "--join", &code, "--seed", "2"]);
        let joined = joiner.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        let created_rest = rest(creator_out);
        let created = creator.wait().unwrap_or_else(|e| panic!("{e}"));
        let joiner_out = String::from_utf8_lossy(&joined.stdout).into_owned();
        assert!(
            created.success() && joined.status.success(),
            "{}",
            String::from_utf8_lossy(&joined.stderr)
        );
        assert!(
            joiner_out.starts_with(&format!("room: {code}\n")),
            "{joiner_out}"
        );
        let line = result_line(&created_rest).to_string();
        assert_eq!(
            line,
            result_line(&joiner_out),
            "both bots report the same result"
        );
        assert!(
            ["result: 1-0 (", "result: 0-1 (", "result: 1/2-1/2 ("]
                .iter()
                .any(|p| line.starts_with(p)),
            "{line}"
        );
        line
    });
    let line = tokio::time::timeout(Duration::from_secs(120), result)
        .await
        .unwrap_or_else(|_| panic!("bots did not finish"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(line.ends_with(')'), "{line}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_udp() {
    two_bots_finish_a_game("udp://127.0.0.1:0", None).await;
}

/// Given a list of relays, a bot plays through the first one that answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_first_relay_of_a_list_that_answers() {
    // A port nobody listens on: bound, then let go.
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let port = socket.local_addr().unwrap_or_else(|e| panic!("{e}")).port();
    drop(socket);
    let dead = format!("udp://127.0.0.1:{port}");
    two_bots_finish_a_game("udp://127.0.0.1:0", Some(&dead)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_quic() {
    two_bots_finish_a_game("quic://127.0.0.1:0", None).await;
}

/// A relay node of the cluster on `nats`, on a UDP port of its own.
async fn node(nats: &NatsServer, name: &str) -> Server {
    let cluster = Cluster::connect(ClusterOptions {
        lease_ttl: Duration::from_secs(2),
        ..ClusterOptions::new([nats.url()], name)
    })
    .await
    .unwrap_or_else(|e| panic!("{name} joins the cluster: {e}"));
    Server::builder()
        .listen("udp://127.0.0.1:0")
        .storage(cluster.storage())
        .cluster(Arc::new(cluster))
        .start()
        .await
        .unwrap_or_else(|e| panic!("start {name}: {e}"))
}

/// Two bots given the same two nodes of a cluster play on the first; it stops a moment into
/// the game, and both resume their seats through the second, which takes the room over, and
/// finish the game there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_through_the_next_relay_of_their_list_when_theirs_goes_away() {
    let Some(nats) = NatsServer::start() else {
        return;
    };
    let (a, b) = (node(&nats, "relay-a").await, node(&nats, "relay-b").await);
    let list = format!("{},{}", a.local_urls()[0], b.local_urls()[0]);
    let seated = tokio::task::spawn_blocking(move || {
        // Quicker than the default pause between moves: the game is over in seconds.
        let player =
            |args: &[&str]| bot(&[&[list.as_str()], args, &["--move-delay", "5"]].concat());
        let mut creator = player(&["--create", "--seat", "red", "--seed", "1"]);
        let (code, creator_out) = room_code(&mut creator);
        let mut joiner = player(&["--join", &code, "--seed", "29"]);
        let (joined, joiner_out) = room_code(&mut joiner);
        assert_eq!(joined, code);
        [(creator, creator_out), (joiner, joiner_out)]
    });
    let bots = tokio::time::timeout(Duration::from_secs(60), seated)
        .await
        .unwrap_or_else(|_| panic!("the bots are not seated in time"))
        .unwrap_or_else(|e| panic!("{e}"));
    tokio::time::sleep(Duration::from_millis(400)).await;
    a.shutdown().await;

    let finished = tokio::task::spawn_blocking(move || {
        bots.map(|(child, out)| {
            let result = result_line(&rest(out)).to_string();
            let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert!(output.status.success(), "{stderr}");
            assert!(stderr.contains("reconnected"), "{stderr}");
            result
        })
    });
    let [red, black] = tokio::time::timeout(Duration::from_secs(120), finished)
        .await
        .unwrap_or_else(|_| panic!("the bots did not finish"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(red, black, "both bots report the same result");
    let metrics = b
        .metrics()
        .snapshot()
        .await
        .unwrap_or_else(|| panic!("b stopped"));
    // The first node gave its leases up before it said goodbye: nobody was sent back to it.
    assert_eq!(
        (metrics.relay.takeovers, metrics.relay.redirects),
        (1, 0),
        "{:?}",
        metrics.relay
    );
    b.shutdown().await;

    // The game is archived once, with the result the bots saw.
    let archive = ClusterArchive::connect(&ClusterOptions::new([nats.url()], "checker"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let games = archive.games().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 1, "{games:?}");
    let game = &games[0];
    assert_eq!(
        red,
        format!("result: {} ({})", game.result, game.termination),
        "{game:?}"
    );
}
