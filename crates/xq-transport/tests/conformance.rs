//! One conformance suite, run against every transport: frames arrive whole, once and in order,
//! or the connection reports that it failed.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use xq_transport::{Address, Connection, Listener, Options, Peer, TransportError, connect, listen};

/// Generous bound for any one test; a hang fails instead of blocking CI.
const TEST_TIMEOUT: Duration = Duration::from_secs(20);

struct Setup {
    listener: Box<dyn Listener>,
    client: Arc<dyn Connection>,
    server: Arc<dyn Connection>,
    _dir: tempfile::TempDir,
}

fn options(dir: &tempfile::TempDir) -> Options {
    Options {
        idle_timeout: Duration::from_millis(1500),
        quic_identity_dir: Some(dir.path().to_path_buf()),
        #[cfg(feature = "ws")]
        ws: xq_transport::WsOptions {
            tls: Some(wss_certificate(dir)),
            ..xq_transport::WsOptions::default()
        },
        ..Options::default()
    }
}

/// A self-signed certificate for the loopback address, in `dir`, for `wss` listeners: their
/// URL names the file, which the client then trusts (`?ca=`).
#[cfg(feature = "ws")]
fn wss_certificate(dir: &tempfile::TempDir) -> xq_transport::WsTls {
    let names = vec!["127.0.0.1".to_string(), "localhost".to_string()];
    let rcgen::CertifiedKey { cert, signing_key } =
        rcgen::generate_simple_self_signed(names).unwrap_or_else(|e| panic!("{e}"));
    let files = xq_transport::WsTls {
        cert: dir.path().join("wss-cert.pem"),
        key: dir.path().join("wss-key.pem"),
    };
    std::fs::write(&files.cert, cert.pem()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&files.key, signing_key.serialize_pem()).unwrap_or_else(|e| panic!("{e}"));
    files
}

async fn setup(scheme: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = options(&dir);
    setup_with(scheme, dir, &options).await
}

async fn setup_with(scheme: &str, dir: tempfile::TempDir, options: &Options) -> Setup {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let url = match scheme {
        "mem" => format!("mem://conformance-{}", NEXT.fetch_add(1, Ordering::Relaxed)),
        other => format!("{other}://127.0.0.1:0"),
    };
    let listener = listen(&url, options)
        .await
        .unwrap_or_else(|e| panic!("listen {url}: {e}"));
    let target = listener.local_url();
    let (client, server) = tokio::join!(connect(&target, options), listener.accept());
    let client = client.unwrap_or_else(|e| panic!("connect {target}: {e}"));
    let server = server.unwrap_or_else(|e| panic!("accept: {e}"));
    Setup {
        listener,
        client,
        server,
        _dir: dir,
    }
}

fn frame(i: usize, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|j| (i.wrapping_mul(31) + j) as u8).collect();
    if len >= 8 {
        f[..8].copy_from_slice(&(i as u64).to_le_bytes());
    }
    f
}

async fn ordering(scheme: &str) {
    let s = setup(scheme).await;
    const N: usize = 3_000;
    let sender = Arc::clone(&s.client);
    let send = tokio::spawn(async move {
        for i in 0..N {
            sender
                .send(frame(i, 8 + i % 300))
                .await
                .unwrap_or_else(|e| panic!("send {i}: {e}"));
        }
    });
    for i in 0..N {
        let got = s
            .server
            .recv()
            .await
            .unwrap_or_else(|e| panic!("recv {i}: {e}"));
        assert_eq!(got, frame(i, 8 + i % 300), "frame {i}");
    }
    send.await.unwrap_or_else(|e| panic!("{e}"));
    // And the other way, while the first direction is idle.
    s.server
        .send(b"back".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.client.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"back"
    );
    let stats = s.server.stats();
    assert!(stats.frames_received >= N as u64, "{stats:?}");
}

async fn large_frames(scheme: &str) {
    let s = setup(scheme).await;
    for (i, len) in [60 * 1024, 1, 0, 64 * 1024, 4_000].into_iter().enumerate() {
        s.client
            .send(frame(i, len))
            .await
            .unwrap_or_else(|e| panic!("{len}: {e}"));
        let got = s
            .server
            .recv()
            .await
            .unwrap_or_else(|e| panic!("{len}: {e}"));
        assert_eq!(got.len(), len);
        assert_eq!(got, frame(i, len));
    }
}

async fn oversized_frame_refused(scheme: &str) {
    let s = setup(scheme).await;
    let max = Options::default().max_frame_size;
    match s.client.send(vec![7; max + 1]).await {
        Err(TransportError::FrameTooLarge { len, max: limit }) => {
            assert_eq!((len, limit), (max + 1, max));
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    assert!(matches!(
        s.client.try_send(vec![7; max + 1]),
        Err(TransportError::FrameTooLarge { .. })
    ));
    // The connection is still usable.
    s.client
        .send(b"after".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.server.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"after"
    );
}

/// `try_send` queues until the peer falls behind, then refuses without queuing and without
/// harming the connection; what it queued arrives in order, before what `send` queues later.
async fn try_send_until_full(scheme: &str) {
    const LIMIT: usize = 200_000;
    let s = setup(scheme).await;
    let mut queued = 0;
    let full = loop {
        assert!(queued < LIMIT, "{LIMIT} frames queued and never full");
        match s.client.try_send(frame(queued, 1000)) {
            Ok(()) => queued += 1,
            Err(TransportError::Full) => break true,
            Err(other) => panic!("frame {queued}: {other}"),
        }
    };
    assert!(full && queued > 0);
    let last = Arc::clone(&s.client);
    let send = tokio::spawn(async move { last.send(frame(queued, 1000)).await });
    for i in 0..=queued {
        let got = s
            .server
            .recv()
            .await
            .unwrap_or_else(|e| panic!("recv {i}: {e}"));
        assert_eq!(got, frame(i, 1000), "frame {i}");
    }
    send.await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|e| panic!("{e}"));
    s.client
        .try_send(b"again".to_vec())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.server.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"again"
    );
}

/// While a close waits on a peer that reads nothing, with a `send` waiting for room, further
/// sends fail as closed at once: not as `Full`, which a relay takes for a slow client, and
/// not queued behind the close.
async fn sends_during_a_close(scheme: &str) {
    const LIMIT: usize = 200_000;
    let s = setup(scheme).await;
    let mut queued = 0;
    while s.client.try_send(frame(queued, 1000)).is_ok() {
        queued += 1;
        assert!(queued < LIMIT, "{LIMIT} frames queued and never full");
    }
    let waiting = tokio::spawn({
        let client = Arc::clone(&s.client);
        async move { client.send(frame(queued, 1000)).await }
    });
    let closing = tokio::spawn({
        let client = Arc::clone(&s.client);
        async move { client.close().await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let queued = s.client.try_send(b"late".to_vec());
    assert!(
        matches!(queued, Err(TransportError::ClosedLocally)),
        "{queued:?}"
    );
    let sent = tokio::time::timeout(Duration::from_millis(100), s.client.send(b"late".to_vec()))
        .await
        .unwrap_or_else(|_| panic!("send waited for the close"));
    assert!(
        matches!(sent, Err(TransportError::ClosedLocally)),
        "{sent:?}"
    );
    closing.await.unwrap_or_else(|e| panic!("{e}"));
    waiting.abort();
}

async fn graceful_close(scheme: &str) {
    let s = setup(scheme).await;
    for i in 0..50 {
        s.client
            .send(frame(i, 100))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    s.client.close().await;
    for i in 0..50 {
        assert_eq!(
            s.server.recv().await.unwrap_or_else(|e| panic!("{i}: {e}")),
            frame(i, 100)
        );
    }
    match s.server.recv().await {
        Err(TransportError::Closed) => {}
        other => panic!("expected Closed, got {other:?}"),
    }
    assert!(s.client.send(b"late".to_vec()).await.is_err());
}

async fn peer_death(scheme: &str) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = options(&dir);
    let url = match scheme {
        "mem" => "mem://conformance-peer-death".to_string(),
        other => format!("{other}://127.0.0.1:0"),
    };
    let listener = listen(&url, &options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // The client lives on a runtime of its own, which is then torn down mid-connection: its
    // tasks stop without closing anything, as when a process dies.
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let (target, client_options) = (listener.local_url(), options.clone());
    let client = client_rt.spawn(async move {
        let conn = connect(&target, &client_options)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        conn.send(b"last words".to_vec())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        conn
    });
    let server = listener.accept().await.unwrap_or_else(|e| panic!("{e}"));
    let client = client.await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        server.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"last words"
    );
    // Wait until the runtime's tasks are gone, so that dropping the handle below cannot
    // start a graceful close through a driver that is still running.
    tokio::task::spawn_blocking(move || client_rt.shutdown_timeout(Duration::from_secs(5)))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    drop(client);
    let started = tokio::time::Instant::now();
    match server.recv().await {
        Err(TransportError::Closed) => panic!("a dead peer must not look like a graceful close"),
        Err(_) => {}
        Ok(frame) => panic!("unexpected frame {frame:?}"),
    }
    let bound = options.idle_timeout + Duration::from_secs(2);
    assert!(started.elapsed() < bound, "{:?}", started.elapsed());
}

async fn listener_close_keeps_connections(scheme: &str) {
    let s = setup(scheme).await;
    s.listener.close();
    assert!(matches!(
        s.listener.accept().await,
        Err(TransportError::ListenerClosed)
    ));
    s.client
        .send(b"still here".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.server.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"still here"
    );
    s.server
        .send(b"me too".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.client.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"me too"
    );
}

/// A task that waits with `poll_recv` and no future of its own (as the relay does for each of
/// thousands of connections) is woken by each frame, and by its own side's close.
async fn poll_recv_wakes_its_task(scheme: &str) {
    let s = setup(scheme).await;
    let (server, read) = (Arc::clone(&s.server), Arc::new(AtomicUsize::new(0)));
    let counter = Arc::clone(&read);
    let reader = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| server.poll_recv(cx)).await {
                Ok(_) => counter.fetch_add(1, Ordering::Relaxed),
                Err(end) => return end,
            };
        }
    });
    for i in 0..20 {
        // Each frame finds the reader parked, so each needs a wake-up.
        tokio::time::sleep(Duration::from_millis(2)).await;
        s.client
            .send(frame(i, 16))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    while read.load(Ordering::Relaxed) < 20 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    s.server.close().await;
    let end = reader.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(end, TransportError::ClosedLocally | TransportError::Closed),
        "{end:?}"
    );
    assert_eq!(read.load(Ordering::Relaxed), 20);
}

/// Each end names the other with the transport's kind of peer: the listener's address as the
/// client sees it and the client's socket as the server sees it, or a mem connection's names.
async fn peers(scheme: &str) {
    let s = setup(scheme).await;
    let url = s.listener.local_url();
    let (host, port) = match url.parse::<Address>() {
        Ok(Address::Mem { .. }) => {
            assert_eq!(s.server.peer(), Peer::Memory("mem-client".into()));
            assert_eq!(s.client.peer(), Peer::Memory("mem-server".into()));
            return;
        }
        Ok(
            Address::Udp { host, port }
            | Address::Quic { host, port, .. }
            | Address::Ws { host, port }
            | Address::Wss { host, port, .. },
        ) => (host, port),
        other => panic!("{url}: {other:?}"),
    };
    let listener = SocketAddr::new(host.parse().unwrap_or_else(|e| panic!("{e}")), port);
    assert_eq!(s.client.peer(), Peer::Socket(listener));
    let Peer::Socket(client) = s.server.peer() else {
        panic!("{scheme}: {:?}", s.server.peer())
    };
    assert_eq!(client.ip(), Ipv4Addr::LOCALHOST);
    assert!(client.port() != 0 && client.port() != port, "{client}");
}

/// An idle timeout of `Duration::MAX` means never: every transport serves it.
async fn idle_timeout_of_never(scheme: &str) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        idle_timeout: Duration::MAX,
        ..options(&dir)
    };
    let s = setup_with(scheme, dir, &options).await;
    s.client
        .send(frame(1, 10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.server.recv().await.ok(), Some(frame(1, 10)));
    s.server
        .send(frame(2, 10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.client.recv().await.ok(), Some(frame(2, 10)));
    s.client.close().await;
}

/// A closed listener lets go of its address once the connections it accepted are closed and
/// dropped: listening on it again succeeds as soon as `closed` returns.
async fn a_closed_listener_frees_its_address(scheme: &str) {
    let s = setup(scheme).await;
    // The address alone, without what a client needs to trust it.
    let url = s.listener.local_url();
    let url = url.split_once('?').map_or(url.as_str(), |(bare, _)| bare);
    s.listener.close();
    s.server.close().await;
    drop(s.server);
    s.listener.closed().await;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    listen(url, &options(&dir))
        .await
        .unwrap_or_else(|e| panic!("listen on {url} again: {e}"));
}

macro_rules! suite {
    ($($scheme:ident),*) => {
        $(
            mod $scheme {
                use super::*;

                fn run(test: impl std::future::Future<Output = ()>) {
                    let rt = tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(2)
                        .enable_all()
                        .build()
                        .unwrap_or_else(|e| panic!("{e}"));
                    rt.block_on(async {
                        tokio::time::timeout(TEST_TIMEOUT, test).await.unwrap_or_else(|_| panic!("timed out"));
                    });
                }

                #[test]
                fn ordering() { run(super::ordering(stringify!($scheme))) }
                #[test]
                fn peers() { run(super::peers(stringify!($scheme))) }
                #[test]
                fn large_frames() { run(super::large_frames(stringify!($scheme))) }
                #[test]
                fn oversized_frame_refused() { run(super::oversized_frame_refused(stringify!($scheme))) }
                #[test]
                fn try_send_until_full() { run(super::try_send_until_full(stringify!($scheme))) }
                #[test]
                fn sends_during_a_close() { run(super::sends_during_a_close(stringify!($scheme))) }
                #[test]
                fn graceful_close() { run(super::graceful_close(stringify!($scheme))) }
                #[test]
                fn peer_death() { run(super::peer_death(stringify!($scheme))) }
                #[test]
                fn poll_recv_wakes_its_task() { run(super::poll_recv_wakes_its_task(stringify!($scheme))) }
                #[test]
                fn idle_timeout_of_never() { run(super::idle_timeout_of_never(stringify!($scheme))) }
                #[test]
                fn listener_close_keeps_connections() {
                    run(super::listener_close_keeps_connections(stringify!($scheme)))
                }
                #[test]
                fn a_closed_listener_frees_its_address() {
                    run(super::a_closed_listener_frees_its_address(stringify!($scheme)))
                }
            }
        )*
    };
}

suite!(mem);
#[cfg(feature = "udp")]
suite!(udp);
#[cfg(feature = "quic")]
suite!(quic);
#[cfg(feature = "ws")]
suite!(ws, wss);

#[tokio::test]
async fn unknown_schemes_and_missing_listeners_are_typed_errors() {
    let options = Options::default();
    assert!(matches!(
        connect("tcp://127.0.0.1:1", &options).await,
        Err(TransportError::InvalidUrl { .. })
    ));
    assert!(matches!(
        connect("mem://nobody-listens-here", &options).await,
        Err(TransportError::NoListener(_))
    ));
    let first = listen("mem://taken", &options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        listen("mem://taken", &options).await,
        Err(TransportError::NameInUse(_))
    ));
    first.close();
    assert!(matches!(
        first.accept().await,
        Err(TransportError::ListenerClosed)
    ));
    let again = listen("mem://taken", &options).await;
    assert!(again.is_ok(), "a closed listener frees its name");
    assert!(matches!(
        connect("quic://127.0.0.1:1", &options).await,
        Err(TransportError::InvalidUrl { .. })
    ));
}

#[cfg(feature = "quic")]
#[tokio::test]
async fn quic_client_settings_come_from_the_url() {
    let options = Options::default();
    for url in [
        "udp://127.0.0.1:1",
        "quic://127.0.0.1:1",
        "quic://127.0.0.1:1?fp=zz",
        "quic://[::1]:1?fp=zz",
    ] {
        match xq_transport::quic_client(url, &options).await {
            Err(TransportError::InvalidUrl { url: reported, .. }) => assert_eq!(reported, url),
            other => panic!("{url}: {other:?}"),
        }
    }
    let (addr, _) = xq_transport::quic_client("quic://127.0.0.1:7879?insecure", &options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(addr, SocketAddr::from(([127, 0, 0, 1], 7879)));
}

/// A QUIC peer whose side is dropped without a close vanished, as a dropped mem peer does: that
/// is a lost connection, not a QUIC failure of some other kind.
#[cfg(feature = "quic")]
#[tokio::test]
async fn a_dropped_quic_peer_is_a_lost_connection() {
    let s = setup("quic").await;
    s.client
        .send(b"bye".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        s.server.recv().await.unwrap_or_else(|e| panic!("{e}")),
        b"bye"
    );
    drop(s.client);
    let received = tokio::time::timeout(TEST_TIMEOUT, s.server.recv())
        .await
        .unwrap_or_else(|_| panic!("timed out"));
    assert!(
        matches!(received, Err(TransportError::ConnectionLost)),
        "{received:?}"
    );
}

/// A listener bound to every interface gives a URL that a client on this machine can use: no
/// client can connect to `0.0.0.0`.
#[cfg(all(feature = "udp", feature = "quic"))]
#[tokio::test]
async fn a_listener_on_every_interface_gives_a_url_clients_can_use() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = options(&dir);
    for url in ["udp://0.0.0.0:0", "quic://0.0.0.0:0"] {
        let listener = listen(url, &options)
            .await
            .unwrap_or_else(|e| panic!("listen {url}: {e}"));
        let target = listener.local_url();
        assert!(target.contains("://127.0.0.1:"), "{target}");
        let (client, server) = tokio::join!(connect(&target, &options), listener.accept());
        let client = client.unwrap_or_else(|e| panic!("connect {target}: {e}"));
        let server = server.unwrap_or_else(|e| panic!("accept: {e}"));
        client
            .send(b"hello".to_vec())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            server.recv().await.unwrap_or_else(|e| panic!("{e}")),
            b"hello"
        );
    }
}

/// The certificate a QUIC listener on every interface makes is valid for the loopback address
/// its URL gives, so a client that trusts the certificate file (`?ca=`) rather than pinning its
/// fingerprint passes the name check too.
#[cfg(feature = "quic")]
#[tokio::test]
async fn a_wildcard_quic_listener_is_valid_for_its_url() {
    for (bind, loopback) in [
        ("quic://0.0.0.0:0", "127.0.0.1"),
        ("quic://[::]:0", "[::1]"),
    ] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = options(&dir);
        let listener = listen(bind, &options)
            .await
            .unwrap_or_else(|e| panic!("listen {bind}: {e}"));
        let url = listener.local_url();
        let (authority, _) = url
            .split_once('?')
            .unwrap_or_else(|| panic!("no query in {url}"));
        assert!(authority.contains(loopback), "{authority}");
        let ca = dir.path().join(xq_transport_quic::CERT_FILE);
        let target = format!("{authority}?ca={}", ca.display());
        // Fails as soon as either side does: a refused certificate leaves `accept` waiting.
        tokio::try_join!(connect(&target, &options), listener.accept())
            .unwrap_or_else(|e| panic!("connect {target}: {e}"));
    }
}

/// With the default options a QUIC listener makes a certificate of its own and writes
/// nothing: a test or a throwaway relay leaves no private key in the current directory.
#[cfg(feature = "quic")]
#[tokio::test]
async fn a_quic_listener_by_default_keeps_its_identity_in_memory() {
    let options = Options::default();
    let first = listen("quic://127.0.0.1:0", &options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let second = listen("quic://127.0.0.1:0", &options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!std::path::Path::new("xq-relay-identity").exists());
    let fingerprint = |url: String| url.split_once("fp=").map(|(_, fp)| fp.to_owned());
    assert_ne!(
        fingerprint(first.local_url()),
        fingerprint(second.local_url()),
        "each listener has its own certificate"
    );
    let target = first.local_url();
    let (client, server) = tokio::join!(connect(&target, &options), first.accept());
    client.unwrap_or_else(|e| panic!("connect {target}: {e}"));
    server.unwrap_or_else(|e| panic!("accept: {e}"));
}

/// A handshake that nothing answers fails as unreachable, not as a lost connection: there
/// never was one.
#[cfg(all(feature = "udp", feature = "quic"))]
#[tokio::test]
async fn a_silent_address_is_unreachable() {
    let options = Options {
        idle_timeout: Duration::from_millis(300),
        ..Options::default()
    };
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let addr = silent.local_addr().unwrap_or_else(|e| panic!("{e}"));
    for url in [format!("udp://{addr}"), format!("quic://{addr}?insecure")] {
        let connected = connect(&url, &options).await;
        assert!(
            matches!(connected, Err(TransportError::Unreachable)),
            "{url}: {:?}",
            connected.err()
        );
    }
}

/// A WebSocket listener on every interface gives a loopback URL that works, as the others do;
/// one for `wss` names its certificate, so that a client on this machine trusts it.
#[cfg(feature = "ws")]
#[tokio::test]
async fn a_wildcard_ws_listener_gives_a_url_clients_can_use() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let options = options(&dir);
    for (bind, prefix) in [
        ("ws://0.0.0.0:0", "ws://127.0.0.1:"),
        ("wss://0.0.0.0:0", "wss://127.0.0.1:"),
    ] {
        let listener = listen(bind, &options)
            .await
            .unwrap_or_else(|e| panic!("listen {bind}: {e}"));
        let target = listener.local_url();
        assert!(target.starts_with(prefix), "{target}");
        let (client, server) = tokio::try_join!(connect(&target, &options), listener.accept())
            .unwrap_or_else(|e| panic!("connect {target}: {e}"));
        client
            .send(b"hello".to_vec())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            server.recv().await.unwrap_or_else(|e| panic!("{e}")),
            b"hello"
        );
    }
}

/// What a WebSocket client or listener cannot do fails at once with a typed error: a port
/// nobody listens on is unreachable, a `wss` listener needs its certificate, and a `wss`
/// client that trusts nothing the server shows does not connect.
#[cfg(feature = "ws")]
#[tokio::test]
async fn ws_failures_are_typed() {
    let defaults = Options::default();
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let addr = free.local_addr().unwrap_or_else(|e| panic!("{e}"));
    drop(free);
    let refused = connect(&format!("ws://{addr}"), &defaults).await;
    assert!(
        matches!(refused, Err(TransportError::Unreachable)),
        "{:?}",
        refused.err()
    );
    let uncertified = listen("wss://127.0.0.1:0", &defaults).await;
    assert!(
        matches!(uncertified, Err(TransportError::InvalidUrl { .. })),
        "{:?}",
        uncertified.err()
    );
    // The server's certificate is self-signed: the web's roots do not vouch for it.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let listener = listen("wss://127.0.0.1:0", &options(&dir))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = listener.local_url();
    let bare = url.split_once('?').map_or(url.as_str(), |(bare, _)| bare);
    let untrusted = connect(bare, &defaults).await;
    assert!(
        matches!(
            untrusted,
            Err(TransportError::Ws(xq_transport_ws::Error::TlsHandshake(_)))
        ),
        "{:?}",
        untrusted.err()
    );
    let insecure = format!("{bare}?insecure");
    tokio::try_join!(connect(&insecure, &defaults), listener.accept())
        .unwrap_or_else(|e| panic!("connect {insecure}: {e}"));
}
