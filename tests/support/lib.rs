//! The harness of the workspace's integration tests: an in-process relay on any transport,
//! clients, and proxies that cut connections or lose datagrams between them.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::task::JoinHandle;
use xq_client::{Client, ClientEvent, ClientOptions, ReconnectPolicy};
use xq_protocol::{RoomCode, RoomOptions, SeatChoice};
use xq_rules::{Color, Move};
use xq_server::Server;
use xq_session::Event;
use xq_transport::{Connection, Listener, Options};

/// How long any one wait for an event may take before the test fails instead of hanging.
pub const WAIT: Duration = Duration::from_secs(20);

/// The transports every scenario runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// In-process channels.
    Mem,
    /// xq's reliable UDP on loopback.
    Udp,
    /// QUIC on loopback.
    Quic,
    /// WebSocket on loopback.
    Ws,
}

impl Scheme {
    /// Every transport, in the order the scenarios run over them.
    pub const ALL: [Self; 4] = [Self::Mem, Self::Udp, Self::Quic, Self::Ws];

    /// Where a listener of this transport listens: the in-process name `name`, or a free
    /// loopback port.
    pub fn listen_url(self, name: &str) -> String {
        match self {
            Self::Mem => format!("mem://{name}"),
            Self::Udp => "udp://127.0.0.1:0".to_string(),
            Self::Quic => "quic://127.0.0.1:0".to_string(),
            Self::Ws => "ws://127.0.0.1:0".to_string(),
        }
    }
}

/// Transport options for one test: QUIC identities in a directory of their own.
pub fn transport_options(dir: &tempfile::TempDir) -> Options {
    Options {
        quic_identity_dir: Some(dir.path().to_path_buf()),
        idle_timeout: Duration::from_secs(10),
        ..Options::default()
    }
}

/// A relay running in this process.
pub struct Relay {
    server: Option<Server>,
    url: String,
    dir: tempfile::TempDir,
}

impl Relay {
    /// Starts a relay listening on `scheme` (a fresh name or a free port).
    pub async fn start(scheme: Scheme, name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let server = Server::builder()
            .listen(scheme.listen_url(name))
            .transport(transport_options(&dir))
            .start()
            .await
            .unwrap_or_else(|e| panic!("start relay: {e}"));
        let url = server.local_urls()[0].clone();
        Self {
            server: Some(server),
            url,
            dir,
        }
    }

    /// The URL clients connect to (with the QUIC fingerprint to pin).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Transport options matching the relay's (for proxies and raw connections).
    pub fn options(&self) -> Options {
        transport_options(&self.dir)
    }

    /// Shuts the relay down gracefully.
    pub async fn shutdown(mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().await;
        }
    }
}

/// Client options for tests: reconnects start at once and retry quickly.
pub fn client_options(dir_options: Options) -> ClientOptions {
    ClientOptions {
        name: "xq-tests".into(),
        transport: dir_options,
        reconnect: ReconnectPolicy {
            first_delay: Duration::from_millis(20),
            max_delay: Duration::from_millis(200),
            ..ReconnectPolicy::default()
        },
        ..ClientOptions::default()
    }
}

/// Connects a client to `url`.
pub async fn connect(url: &str, options: Options) -> Client {
    Client::connect(url, client_options(options))
        .await
        .unwrap_or_else(|e| panic!("connect {url}: {e}"))
}

/// Two players in one room, Red the creator, the match started.
pub struct Pair {
    /// Red's client.
    pub red: Client,
    /// Black's client.
    pub black: Client,
    /// The room's code.
    pub code: RoomCode,
}

/// Creates a room as Red on `red_url` and joins it as Black on `black_url`.
pub async fn pair_at(red_url: &str, black_url: &str, options: Options, room: RoomOptions) -> Pair {
    let mut red = connect(red_url, options.clone()).await;
    let mut black = connect(black_url, options).await;
    let room = RoomOptions {
        seat: SeatChoice::Red,
        ..room
    };
    let created = red
        .create(room)
        .await
        .unwrap_or_else(|e| panic!("create: {e}"));
    assert_eq!(created.seat, Some(Color::Red));
    let joined = black
        .join(created.code)
        .await
        .unwrap_or_else(|e| panic!("join: {e}"));
    assert_eq!(joined.seat, Some(Color::Black));
    // Both players are told, the joiner before its join returns.
    for player in [&mut red, &mut black] {
        expect(player, |e| {
            matches!(e, ClientEvent::MatchStarted).then_some(())
        })
        .await;
    }
    Pair {
        red,
        black,
        code: created.code,
    }
}

/// [`pair_at`] with both players on the relay's own URL.
pub async fn pair(relay: &Relay, room: RoomOptions) -> Pair {
    pair_at(relay.url(), relay.url(), relay.options(), room).await
}

/// The next event of `client`, failing the test after [`WAIT`].
pub async fn next(client: &mut Client) -> ClientEvent {
    match tokio::time::timeout(WAIT, client.next_event()).await {
        Ok(Some(event)) => event,
        Ok(None) => panic!("the client's event stream ended"),
        Err(_) => panic!("no event within {WAIT:?}"),
    }
}

/// Waits for the first event `pick` accepts, skipping presence and reconnection notices but
/// failing on anything else unexpected.
pub async fn expect<T>(client: &mut Client, pick: impl Fn(&ClientEvent) -> Option<T>) -> T {
    loop {
        let event = next(client).await;
        if let Some(found) = pick(&event) {
            return found;
        }
        match event {
            ClientEvent::Presence { .. }
            | ClientEvent::Reconnecting { .. }
            | ClientEvent::Reconnected => {}
            other => panic!("unexpected event {other:?}"),
        }
    }
}

/// The next match event, with its sequence number.
pub async fn match_event(client: &mut Client) -> (u64, Event) {
    expect(client, |e| match e {
        ClientEvent::Match { seq, event } => Some((*seq, event.clone())),
        _ => None,
    })
    .await
}

/// Plays `moves` alternately (Red first) and checks that both players and every watcher see
/// each move, and nothing else, in order.
pub async fn play_line(pair: &mut Pair, watchers: &mut [&mut Client], moves: &[Move]) {
    for (i, &mv) in moves.iter().enumerate() {
        let mover = if i % 2 == 0 { &pair.red } else { &pair.black };
        mover
            .play(mv)
            .await
            .unwrap_or_else(|e| panic!("move {mv}: {e}"));
        for client in [&mut pair.red, &mut pair.black]
            .into_iter()
            .chain(watchers.iter_mut().map(|w| &mut **w))
        {
            let (_, event) = match_event(client).await;
            assert!(
                matches!(event, Event::MovePlayed { mv: played, .. } if played == mv),
                "expected {mv}, got {event:?}"
            );
        }
    }
}

/// Red asks to take back and Black answers, `accept` or not; both players and every watcher
/// see the request, then the answer, which is returned.
pub async fn undo_round(pair: &mut Pair, watchers: &mut [&mut Client], accept: bool) -> Event {
    pair.red
        .request_undo()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black]
        .into_iter()
        .chain(watchers.iter_mut().map(|w| &mut **w))
    {
        assert!(matches!(
            match_event(client).await.1,
            Event::UndoRequested(_)
        ));
    }
    pair.black
        .answer_undo(accept)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, answer) = match_event(&mut pair.red).await;
    for client in std::iter::once(&mut pair.black).chain(watchers.iter_mut().map(|w| &mut **w)) {
        assert_eq!(match_event(client).await.1, answer);
    }
    answer
}

/// After a game: Red asks for a rematch (both players and every watcher see it), Black
/// agrees, the new match starts with the colours swapped, and its first move (by the former
/// Black player, Red now) is event 0 for both players.
pub async fn rematch_swapped(pair: &mut Pair, watchers: &mut [&mut Client]) {
    pair.red.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black]
        .into_iter()
        .chain(watchers.iter_mut().map(|w| &mut **w))
    {
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
        let (seq, event) = match_event(client).await;
        assert_eq!(seq, 0, "numbering starts again");
        assert!(matches!(event, Event::MovePlayed { by: Color::Red, .. }));
    }
}

/// Parses ICCS moves.
pub fn moves(line: &str) -> Vec<Move> {
    line.split_whitespace()
        .map(|text| {
            let iccs: xq_rules::iccs::Iccs = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            Move::new(iccs.from, iccs.to)
        })
        .collect()
}

/// A frame-level proxy on any transport: clients connect to it, it connects on to the relay,
/// and [`FrameProxy::cut`] drops every connection through it as a failing network would.
pub struct FrameProxy {
    listener: Arc<dyn Listener>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    refusing: Arc<AtomicBool>,
    accept: JoinHandle<()>,
}

impl FrameProxy {
    /// Starts a proxy on `listen_url` forwarding to `upstream`.
    pub async fn start(listen_url: &str, upstream: &str, options: Options) -> Self {
        let listener: Arc<dyn Listener> = Arc::from(
            xq_transport::listen(listen_url, &options)
                .await
                .unwrap_or_else(|e| panic!("proxy listen: {e}")),
        );
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let refusing = Arc::new(AtomicBool::new(false));
        let accept = tokio::spawn({
            let (listener, links, upstream) = (
                Arc::clone(&listener),
                Arc::clone(&links),
                upstream.to_string(),
            );
            let refusing = Arc::clone(&refusing);
            async move {
                while let Ok(down) = listener.accept().await {
                    if refusing.load(Ordering::Acquire) {
                        continue;
                    }
                    let Ok(up) = xq_transport::connect(&upstream, &options).await else {
                        continue;
                    };
                    let link = tokio::spawn(pump_both(down, up));
                    links
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(link);
                }
            }
        });
        Self {
            listener,
            links,
            refusing,
            accept,
        }
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        self.listener.local_url()
    }

    /// Drops every connection through the proxy and refuses new ones until [`Self::heal`]:
    /// the network is down.
    pub fn break_down(&self) {
        self.refusing.store(true, Ordering::Release);
        self.cut();
    }

    /// Takes connections again.
    pub fn heal(&self) {
        self.refusing.store(false, Ordering::Release);
    }

    /// Drops every connection through the proxy without a goodbye; new ones are still taken.
    pub fn cut(&self) {
        for link in self
            .links
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            link.abort();
        }
    }
}

impl Drop for FrameProxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
        self.listener.close();
    }
}

async fn pump_both(down: Arc<dyn Connection>, up: Arc<dyn Connection>) {
    let forward = pump(Arc::clone(&down), Arc::clone(&up));
    let backward = pump(up, down);
    tokio::select! {
        () = forward => {}
        () = backward => {}
    }
}

async fn pump(from: Arc<dyn Connection>, to: Arc<dyn Connection>) {
    while let Ok(frame) = from.recv().await {
        if to.send(frame).await.is_err() {
            break;
        }
    }
}

/// A datagram proxy for UDP that loses and reorders datagrams in both directions, from a seed:
/// the reliable UDP transport must hide both.
pub struct LossyUdpProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

/// What the lossy proxy does to each datagram.
#[derive(Clone, Copy, Debug)]
pub struct Loss {
    /// The share of datagrams dropped, in percent.
    pub drop_percent: u64,
    /// The share of datagrams held back and sent after the next one, in percent.
    pub reorder_percent: u64,
    /// The seed of the proxy's decisions.
    pub seed: u64,
}

/// One direction of the lossy link: decides, datagram by datagram, what goes through.
struct Lossy {
    loss: Loss,
    state: u64,
    held: Option<Vec<u8>>,
}

impl Lossy {
    fn new(loss: Loss) -> Self {
        Self {
            loss,
            state: loss.seed | 1,
            held: None,
        }
    }

    fn percent(&mut self) -> u64 {
        // xorshift64*: small, seedable and good enough to decide a datagram's fate.
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) % 100
    }

    /// The datagrams to send now for `datagram`: none (dropped or held back), it, or it
    /// followed by the one held back before it.
    fn pass(&mut self, datagram: Vec<u8>) -> Vec<Vec<u8>> {
        let fate = self.percent();
        if fate < self.loss.drop_percent {
            return Vec::new();
        }
        if fate < self.loss.drop_percent + self.loss.reorder_percent && self.held.is_none() {
            self.held = Some(datagram);
            return Vec::new();
        }
        let mut out = vec![datagram];
        out.extend(self.held.take());
        out
    }
}

impl LossyUdpProxy {
    /// Starts a proxy on a free loopback port in front of the UDP relay at `upstream`.
    pub async fn start(upstream: SocketAddr, loss: Loss) -> Self {
        let front = Arc::new(
            UdpSocket::bind("127.0.0.1:0")
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
        let addr = front.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let task = tokio::spawn(async move {
            let mut upward = Lossy::new(loss);
            let mut backs: HashMap<SocketAddr, Arc<UdpSocket>> = HashMap::new();
            let mut buf = vec![0u8; 2048];
            while let Ok((len, client)) = front.recv_from(&mut buf).await {
                let back = match backs.get(&client) {
                    Some(back) => Arc::clone(back),
                    None => {
                        let Ok(back) = UdpSocket::bind("127.0.0.1:0").await else {
                            continue;
                        };
                        if back.connect(upstream).await.is_err() {
                            continue;
                        }
                        let back = Arc::new(back);
                        let downward = Lossy::new(Loss {
                            seed: loss.seed.rotate_left(17),
                            ..loss
                        });
                        tokio::spawn(relay_back(
                            Arc::clone(&back),
                            Arc::clone(&front),
                            client,
                            downward,
                        ));
                        backs.insert(client, Arc::clone(&back));
                        back
                    }
                };
                for datagram in upward.pass(buf[..len].to_vec()) {
                    let _ = back.send(&datagram).await;
                }
            }
        });
        Self { addr, task }
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        format!("udp://{}", self.addr)
    }
}

impl Drop for LossyUdpProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay_back(
    back: Arc<UdpSocket>,
    front: Arc<UdpSocket>,
    client: SocketAddr,
    mut downward: Lossy,
) {
    let mut buf = vec![0u8; 2048];
    while let Ok(len) = back.recv(&mut buf).await {
        for datagram in downward.pass(buf[..len].to_vec()) {
            let _ = front.send_to(&datagram, client).await;
        }
    }
}

/// Runs one scenario on a fresh multi-threaded runtime, bounded in time.
pub fn run(test: impl Future<Output = ()>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), test)
            .await
            .unwrap_or_else(|_| panic!("scenario timed out"));
    });
}

/// Defines one `#[test]` per scenario and transport: `mod mem`, `mod udp`, `mod quic` and
/// `mod ws`, each with a test per scenario function `async fn(Scheme)` of the calling file.
#[macro_export]
macro_rules! over_every_transport {
    ($($scenario:ident),* $(,)?) => {
        mod mem {
            $(#[test] fn $scenario() { $crate::run(super::$scenario($crate::Scheme::Mem)) })*
        }
        mod udp {
            $(#[test] fn $scenario() { $crate::run(super::$scenario($crate::Scheme::Udp)) })*
        }
        mod quic {
            $(#[test] fn $scenario() { $crate::run(super::$scenario($crate::Scheme::Quic)) })*
        }
        mod ws {
            $(#[test] fn $scenario() { $crate::run(super::$scenario($crate::Scheme::Ws)) })*
        }
    };
}
