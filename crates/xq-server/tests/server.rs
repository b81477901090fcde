//! The driver over real transports: `mem://`, loopback UDP and QUIC, each under a timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use xq_protocol::{
    ClientMsg, DisconnectReason, PROTOCOL_VERSION, Request, RequestId, ResumeToken, RoomCode,
    RoomOptions, SeatChoice, ServerMsg, codec,
};
use xq_rules::iccs::Iccs;
use xq_rules::{Color, Move};
use xq_server::Server;
use xq_session::{Action, Event, GameResult, WinReason};
use xq_transport::{Connection, Options, TransportError};

/// Generous bound for any one test; a hang fails instead of blocking CI.
const TEST_TIMEOUT: Duration = Duration::from_secs(15);

fn options(dir: &tempfile::TempDir) -> Options {
    Options {
        quic_identity_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    }
}

fn mem_url() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("mem://server-test-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A client that speaks messages, not frames, each in a request with the next id.
struct Client(Arc<dyn Connection>, AtomicU32);

impl Client {
    async fn connect(url: &str, options: &Options) -> Self {
        let conn = xq_transport::connect(url, options)
            .await
            .unwrap_or_else(|e| panic!("connect {url}: {e}"));
        Self(conn, AtomicU32::new(1))
    }

    /// Connects and says hello (with a resume token, if given); returns the client and what
    /// followed the welcome.
    async fn hello(url: &str, options: &Options, resume: Option<ResumeToken>) -> Self {
        let client = Self::connect(url, options).await;
        let id = client
            .send(ClientMsg::Hello {
                version: PROTOCOL_VERSION,
                client: "server-test".into(),
                resume,
            })
            .await;
        let welcome = client.recv().await;
        assert!(matches!(welcome, ServerMsg::Welcome { id: answered, .. } if answered == id));
        client
    }

    /// Sends `msg` in a request with the next id, which it returns.
    async fn send(&self, msg: ClientMsg) -> RequestId {
        let id = RequestId(self.1.fetch_add(1, Ordering::Relaxed));
        let frame = codec::to_frame(&Request { id, msg }).expect("test messages encode");
        self.0.send(frame).await.expect("send");
        id
    }

    async fn recv(&self) -> ServerMsg {
        let frame = self.0.recv().await.expect("recv");
        codec::decode(&frame).expect("the relay sends valid frames")
    }

    /// Skips messages until one matches.
    async fn wait_for(&self, pred: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        loop {
            let msg = self.recv().await;
            if pred(&msg) {
                return msg;
            }
        }
    }

    /// Creates a room as Red; returns its code and the seat's token.
    async fn create(&self) -> (RoomCode, ResumeToken) {
        self.send(ClientMsg::CreateRoom(RoomOptions {
            seat: SeatChoice::Red,
            ..RoomOptions::default()
        }))
        .await;
        let ServerMsg::Joined {
            code,
            resume: Some(token),
            ..
        } = self.recv().await
        else {
            panic!("expected joined");
        };
        assert!(matches!(self.recv().await, ServerMsg::Snapshot(_)));
        (code, token)
    }

    async fn join(&self, code: RoomCode) -> ResumeToken {
        self.send(ClientMsg::JoinRoom { code }).await;
        let ServerMsg::Joined {
            resume: Some(token),
            ..
        } = self.recv().await
        else {
            panic!("expected joined");
        };
        assert!(matches!(self.recv().await, ServerMsg::Snapshot(_)));
        token
    }

    async fn play(&self, iccs: &str) {
        let iccs: Iccs = iccs.parse().expect("valid ICCS");
        let mv = Move::new(iccs.from, iccs.to);
        self.send(ClientMsg::Act(Action::Play(mv))).await;
    }

    /// The next event, with its number.
    async fn event(&self) -> (u64, Event) {
        match self
            .wait_for(|msg| matches!(msg, ServerMsg::Event { .. }))
            .await
        {
            ServerMsg::Event { seq, event, .. } => (seq, event),
            _ => unreachable!("filtered above"),
        }
    }

    /// Waits for the shutdown notice, then for the connection to end.
    async fn expect_shutdown(&self) {
        let bye = self
            .wait_for(|msg| matches!(msg, ServerMsg::Disconnect { .. }))
            .await;
        assert!(matches!(
            bye,
            ServerMsg::Disconnect {
                reason: DisconnectReason::ShuttingDown,
                ..
            }
        ));
        match self.0.recv().await {
            Err(TransportError::Closed | TransportError::ConnectionLost) => {}
            other => panic!("expected the connection to end, got {other:?}"),
        }
    }
}

/// Two players on (possibly) different transports of one relay play a short game.
async fn short_game(red_url: &str, black_url: &str, options: &Options) -> (Client, Client) {
    let red = Client::hello(red_url, options, None).await;
    let black = Client::hello(black_url, options, None).await;
    let (code, _) = red.create().await;
    black.join(code).await;
    assert!(matches!(red.recv().await, ServerMsg::Snapshot(_)));
    red.play("h2e2").await;
    // Each waits for the other's move before its own: the relay sees them in turn.
    assert!(matches!(black.event().await, (0, Event::MovePlayed { .. })));
    black.play("h9g7").await;
    assert!(matches!(black.event().await, (1, Event::MovePlayed { .. })));
    black.send(ClientMsg::Act(Action::Resign)).await;
    assert!(matches!(red.event().await, (0, Event::MovePlayed { .. })));
    assert!(matches!(red.event().await, (1, Event::MovePlayed { .. })));
    let over = Event::GameOver(GameResult::Win {
        winner: Color::Red,
        reason: WinReason::Resignation,
    });
    assert_eq!(red.event().await, (2, over.clone()));
    assert_eq!(black.event().await, (2, over));
    (red, black)
}

/// A URL to listen on with `scheme`: a fresh name in memory, any free port otherwise.
fn any_port(scheme: &str) -> String {
    match scheme {
        "mem" => mem_url(),
        other => format!("{other}://127.0.0.1:0"),
    }
}

async fn game_over(scheme: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = options(&dir);
    let url = any_port(scheme);
    let server = Server::builder()
        .listen(url)
        .transport(options.clone())
        .start()
        .await
        .expect("server starts");
    let url = server.local_urls()[0].clone();
    let (red, black) = short_game(&url, &url, &options).await;
    server.shutdown().await;
    red.expect_shutdown().await;
    black.expect_shutdown().await;
}

fn within<F: Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime
        .block_on(async { tokio::time::timeout(TEST_TIMEOUT, future).await })
        .expect("the test finished in time")
}

/// The scenarios run over every transport, a module each (`mem::a_game_and_a_shutdown`, …).
macro_rules! over_every_transport {
    ($($scheme:ident),*) => {$(
        mod $scheme {
            #[test]
            fn a_game_and_a_shutdown() {
                super::within(super::game_over(stringify!($scheme)));
            }

            #[test]
            fn a_client_over_the_cap_is_told_why() {
                super::within(super::refused_over_the_cap(stringify!($scheme)));
            }
        }
    )*};
}

over_every_transport!(mem, udp, quic);
#[cfg(feature = "ws")]
over_every_transport!(ws);

#[test]
fn one_relay_serves_every_transport_at_once() {
    within(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = options(&dir);
        let server = Server::builder()
            .listen(mem_url())
            // Schemes parse in any case; the metrics still name the transport as it is named.
            .listen("UDP://127.0.0.1:0")
            .listen("quic://127.0.0.1:0")
            .transport(options.clone())
            .start()
            .await
            .expect("server starts");
        let urls = server.local_urls().to_vec();
        assert!(urls[1].starts_with("udp://127.0.0.1:") && !urls[1].ends_with(":0"));
        assert!(urls[2].starts_with("quic://127.0.0.1:") && urls[2].contains("?fp="));
        // Red on mem, Black on UDP; then Red on QUIC, Black on mem.
        short_game(&urls[0], &urls[1], &options).await;
        short_game(&urls[2], &urls[0], &options).await;
        let metrics = server.metrics().snapshot().await.expect("the relay runs");
        let mut transports: Vec<_> = metrics.relay.connections.keys().cloned().collect();
        transports.sort();
        assert_eq!(transports, ["mem", "quic", "udp"]);
        server.shutdown().await;
    });
}

#[test]
fn a_dropped_player_resumes_and_an_absent_one_loses_by_abandonment() {
    within(async {
        let options = Options::default();
        let server = Server::builder()
            .listen(mem_url())
            .grace(Duration::from_millis(300))
            .start()
            .await
            .expect("server starts");
        let url = server.local_urls()[0].clone();
        let red = Client::hello(&url, &options, None).await;
        let black = Client::hello(&url, &options, None).await;
        let (code, red_token) = red.create().await;
        black.join(code).await;
        red.play("h2e2").await;
        assert_eq!(black.event().await.0, 0);

        // Red's connection goes; Black is told, and Red comes back in time.
        red.0.close().await;
        drop(red);
        let gone = black.recv().await;
        assert_eq!(
            gone,
            ServerMsg::Presence {
                seat: Color::Red,
                connected: false
            }
        );
        let red = Client::hello(&url, &options, Some(red_token)).await;
        assert!(matches!(red.recv().await, ServerMsg::Joined { .. }));
        let ServerMsg::Snapshot(snapshot) = red.recv().await else {
            panic!("expected a snapshot");
        };
        assert_eq!(snapshot.next_seq, 1);
        assert_eq!(snapshot.moves.len(), 1);
        assert_eq!(
            black.recv().await,
            ServerMsg::Presence {
                seat: Color::Red,
                connected: true
            }
        );

        // Black goes for good: the driver's timer ends the game at the grace period's end.
        black.0.close().await;
        let over = red.event().await;
        assert_eq!(
            over,
            (
                1,
                Event::GameOver(GameResult::Win {
                    winner: Color::Red,
                    reason: WinReason::Abandonment
                })
            )
        );
        server.shutdown().await;
        red.expect_shutdown().await;
    });
}

#[test]
fn the_callers_future_triggers_the_shutdown() {
    within(async {
        let server = Server::builder()
            .listen(mem_url())
            .start()
            .await
            .expect("server starts");
        let url = server.local_urls()[0].clone();
        let client = Client::hello(&url, &Options::default(), None).await;
        let (trigger, signal) = tokio::sync::oneshot::channel::<()>();
        let running = tokio::spawn(server.run_until(async {
            let _ = signal.await;
        }));
        let id = client.send(ClientMsg::Ping).await;
        assert_eq!(client.recv().await, ServerMsg::Pong { id });
        trigger.send(()).expect("the server waits");
        client.expect_shutdown().await;
        running
            .await
            .expect("the server task ends")
            .expect("no storage to fail");
        // The listener is gone with it.
        assert!(
            xq_transport::connect(&url, &Options::default())
                .await
                .is_err()
        );
    });
}

#[test]
fn a_listener_that_cannot_open_is_reported() {
    within(async {
        let err = Server::builder()
            .listen("tcp://127.0.0.1:0")
            .start()
            .await
            .expect_err("no such transport");
        assert!(err.to_string().contains("tcp://127.0.0.1:0"), "{err}");
        assert!(Server::builder().start().await.is_err());
    });
}

#[test]
fn a_client_that_does_not_read_is_cut_off_and_the_others_play_on() {
    within(async {
        let options = Options::default();
        let config = xq_server::Config {
            rate_limit: xq_server::RateLimit {
                burst: 100_000,
                per_second: 100_000,
            },
            ..xq_server::Config::default()
        };
        let server = Server::builder()
            .listen(mem_url())
            .config(config)
            .start()
            .await
            .expect("server starts");
        let url = server.local_urls()[0].clone();
        let deaf = Client::hello(&url, &options, None).await;
        // Far more answers than the transport's send buffer holds; the relay may have cut it
        // off before the last is sent.
        for id in 0..3000 {
            let ping = Request {
                id: RequestId(id),
                msg: ClientMsg::Ping,
            };
            let frame = codec::to_frame(&ping).expect("pings encode");
            if deaf.0.send(frame).await.is_err() {
                break;
            }
        }
        short_game(&url, &url, &options).await;
        let metrics = server.metrics().snapshot().await.expect("the relay runs");
        assert_eq!(metrics.slow_consumers, 1);
        // What was queued is delivered, then the connection ends, short of the answers.
        let mut pongs = 0;
        loop {
            match deaf.0.recv().await {
                Ok(_) => pongs += 1,
                Err(TransportError::Closed | TransportError::ConnectionLost) => break,
                Err(err) => panic!("unexpected {err}"),
            }
        }
        assert!(pongs < 3000, "{pongs} answers");
        server.shutdown().await;
    });
}

#[test]
fn connections_over_the_caps_are_turned_away_at_accept() {
    within(async {
        let options = Options::default();
        // Every mem connection comes from one address.
        let server = Server::builder()
            .listen(mem_url())
            .max_connections_per_address(3)
            .start()
            .await
            .expect("server starts");
        let url = server.local_urls()[0].clone();
        let _third = Client::hello(&url, &options, None).await;
        let red = Client::hello(&url, &options, None).await;
        let black = Client::hello(&url, &options, None).await;
        let (code, _) = red.create().await;
        black.join(code).await;
        let extra = Client::connect(&url, &options).await;
        assert!(matches!(
            extra.recv().await,
            ServerMsg::Disconnect {
                reason: DisconnectReason::RelayFull,
                ..
            }
        ));
        assert!(matches!(red.recv().await, ServerMsg::Snapshot(_)));
        red.play("h2e2").await;
        assert!(matches!(black.event().await, (0, Event::MovePlayed { .. })));
        let metrics = server.metrics().snapshot().await.expect("the relay runs");
        assert_eq!(metrics.refused_connections, 1);
        server.shutdown().await;
    });
}

/// A client over a cap is told why, then sees a graceful close, on every transport: the
/// refusal is sent to a connection the relay never serves, and must not be lost in its close.
async fn refused_over_the_cap(scheme: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = options(&dir);
    let url = any_port(scheme);
    let server = Server::builder()
        .listen(url)
        .transport(options.clone())
        .max_connections_per_address(1)
        .start()
        .await
        .expect("server starts");
    let url = server.local_urls()[0].clone();
    let first = Client::hello(&url, &options, None).await;
    let extra = Client::connect(&url, &options).await;
    assert!(matches!(
        extra.recv().await,
        ServerMsg::Disconnect {
            reason: DisconnectReason::RelayFull,
            ..
        }
    ));
    match extra.0.recv().await {
        Err(TransportError::Closed) => {}
        other => panic!("expected a graceful close, got {other:?}"),
    }
    let id = first.send(ClientMsg::Ping).await;
    assert_eq!(first.recv().await, ServerMsg::Pong { id });
    server.shutdown().await;
    first.expect_shutdown().await;
}

/// A relay that has shut down has let go of its ports: one restarted at once in the same
/// process binds them again.
#[test]
fn a_relay_restarts_on_its_ports_right_after_a_shutdown() {
    within(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = options(&dir);
        let server = Server::builder()
            .listen("udp://127.0.0.1:0")
            .listen("quic://127.0.0.1:0")
            .transport(options.clone())
            .start()
            .await
            .expect("server starts");
        let urls = server.local_urls().to_vec();
        let clients = [
            Client::hello(&urls[0], &options, None).await,
            Client::hello(&urls[1], &options, None).await,
        ];
        server.shutdown().await;
        // The same addresses, without the fingerprint a client pins.
        let again = urls
            .iter()
            .map(|url| url.split_once('?').map_or(url.as_str(), |(bare, _)| bare));
        let restarted = again
            .fold(Server::builder(), |builder, url| builder.listen(url))
            .transport(options.clone())
            .start()
            .await
            .unwrap_or_else(|err| panic!("the ports are still taken: {err}"));
        for client in &clients {
            client.expect_shutdown().await;
        }
        restarted.shutdown().await;
    });
}

/// A relay on a UDP port of its own, and its URL.
async fn udp_relay(options: &Options) -> (Server, String) {
    let server = Server::builder()
        .listen("udp://127.0.0.1:0")
        .transport(options.clone())
        .start()
        .await
        .expect("server starts");
    let url = server.local_urls()[0].clone();
    (server, url)
}

/// Shuts `server` down and starts another on `url` at once: the port must be free.
async fn restart(server: Server, url: &str, options: &Options) -> Server {
    let started = tokio::time::Instant::now();
    server.shutdown().await;
    let took = started.elapsed();
    Server::builder()
        .listen(url)
        .transport(options.clone())
        .start()
        .await
        .unwrap_or_else(|err| panic!("the port is still taken {took:?} after the stop: {err}"))
}

/// A relay's port is free once it has shut down even while clients keep arriving, as they
/// do at a public relay (and as its own clients do, reconnecting when told it shuts down):
/// a closed listener must not hold its socket for every newcomer it turns away.
#[test]
fn a_relay_restarts_on_its_port_while_clients_keep_arriving() {
    within(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = options(&dir);
        let (server, url) = udp_relay(&options).await;
        let _first = Client::hello(&url, &options, None).await;
        // A newcomer every 100 ms for ten seconds; each stays a second, then leaves politely.
        let arrivals = tokio::spawn({
            let (url, options) = (url.clone(), options.clone());
            async move {
                for _ in 0..100 {
                    let (url, options) = (url.clone(), options.clone());
                    tokio::spawn(async move {
                        let attempt = xq_transport::connect(&url, &options);
                        if let Ok(Ok(conn)) =
                            tokio::time::timeout(Duration::from_millis(500), attempt).await
                        {
                            tokio::time::sleep(Duration::from_secs(1)).await;
                            conn.close().await;
                        }
                    });
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let restarted = restart(server, &url, &options).await;
        arrivals.abort();
        restarted.shutdown().await;
    });
}

/// A client that vanished without a word just before the shutdown (its process died, its
/// network went) does not keep the relay's port: shutdown gives up on its goodbye after a
/// few seconds, and the port is free when it returns.
#[test]
fn a_relay_restarts_on_its_port_though_a_client_vanished() {
    within(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = options(&dir);
        let (server, url) = udp_relay(&options).await;
        // The client runs on a runtime of its own, which stops under it: its socket closes
        // without a close being sent, as when its process dies.
        tokio::task::spawn_blocking({
            let (url, options) = (url.clone(), options.clone());
            move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                let client = runtime.block_on(Client::hello(&url, &options, None));
                drop(runtime);
                drop(client);
            }
        })
        .await
        .expect("the client ran");
        let restarted = restart(server, &url, &options).await;
        restarted.shutdown().await;
    });
}

/// A cluster mode in the config without a cluster to ask is no cluster: the relay draws its
/// own codes and serves as one alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_mode_without_a_cluster_serves_as_a_relay_alone() {
    let url = mem_url();
    let config = xq_server::Config {
        cluster: Some(xq_server::ClusterMode::default()),
        ..xq_server::Config::default()
    };
    let server = Server::builder()
        .listen(url.clone())
        .config(config)
        .start()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let creator = Client::hello(&url, &options(&dir), None).await;
    let joiner = Client::hello(&url, &options(&dir), None).await;
    let (code, _) = tokio::time::timeout(Duration::from_secs(5), creator.create())
        .await
        .expect("a room at once");
    joiner.join(code).await;
    server.shutdown().await;
}
