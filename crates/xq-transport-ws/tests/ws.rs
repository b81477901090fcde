//! The listener against clients that break the rules on purpose (slow, oversized, too many,
//! from another origin, speaking text, vanishing), over real sockets on loopback.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::{Instant, timeout};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use xq_transport_ws::bytes::Bytes;
use xq_transport_ws::http::{Response, StatusCode, request};
use xq_transport_ws::{
    ClientConfig, Connection, Error, Listener, ServerConfig, ServerTls, Site, connect,
};

/// Bounds any one wait, so that a hang fails the test instead of blocking the run.
const LIMIT: Duration = Duration::from_secs(20);

/// An upgrade request for `/ws`, as a browser or a native client sends it, before its end.
const UPGRADE: &str = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n\
    Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
    Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

async fn bind(config: ServerConfig) -> Listener {
    Listener::bind(([127, 0, 0, 1], 0).into(), config)
        .await
        .unwrap_or_else(|e| panic!("bind: {e}"))
}

async fn tcp(listener: &Listener) -> TcpStream {
    TcpStream::connect(listener.local_addr())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"))
}

/// A TCP connection to `to` from the loopback address `from` (Linux routes all of 127/8 to
/// the loopback interface).
async fn tcp_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap_or_else(|e| panic!("{e}"));
    socket
        .bind((from, 0).into())
        .unwrap_or_else(|e| panic!("bind {from:?}: {e}"));
    socket
        .connect(to)
        .await
        .unwrap_or_else(|e| panic!("connect from {from:?}: {e}"))
}

/// Reads a response head, up to its blank line.
async fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0];
        match timeout(LIMIT, stream.read(&mut byte)).await {
            Ok(Ok(1)) => head.push(byte[0]),
            Ok(_) => break,
            Err(_) => panic!("no response within {LIMIT:?}"),
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Sends `request` and returns the head and body of the answer, which must close the
/// connection after it (`Connection: close`).
async fn exchange(listener: &Listener, request: &str) -> (String, String) {
    let mut stream = tcp(listener).await;
    stream
        .write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let head = read_head(&mut stream).await;
    let mut body = String::new();
    timeout(LIMIT, stream.read_to_string(&mut body))
        .await
        .unwrap_or_else(|_| panic!("the connection stays open"))
        .unwrap_or_else(|e| panic!("{e}"));
    (head, body)
}

/// Waits until the server ends `stream` (an end of file or a reset), reading what it sends
/// meanwhile; returns how long that took.
async fn ended(stream: &mut TcpStream) -> Duration {
    let start = Instant::now();
    let mut buf = [0; 1024];
    loop {
        match timeout(LIMIT, stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return start.elapsed(),
            Ok(Ok(_)) => {}
            Err(_) => panic!("the server kept the connection for {LIMIT:?}"),
        }
    }
}

/// Upgrades `stream` by hand, leaving the socket to the test.
async fn upgrade_by_hand(stream: &mut TcpStream) {
    let request = format!("{UPGRADE}\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let head = read_head(stream).await;
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
}

async fn accept(listener: &Listener) -> Connection {
    timeout(LIMIT, listener.accept())
        .await
        .unwrap_or_else(|_| panic!("nothing to accept"))
        .unwrap_or_else(|e| panic!("accept: {e}"))
}

async fn recv(connection: &Connection) -> Result<Vec<u8>, Error> {
    timeout(LIMIT, connection.recv())
        .await
        .unwrap_or_else(|_| panic!("nothing received"))
}

/// A site that names the path and method it was asked for.
struct Echo;

impl Site for Echo {
    fn respond(&self, request: &request::Parts) -> Response<Bytes> {
        Response::new(Bytes::from(format!(
            "{} {}",
            request.method,
            request.uri.path()
        )))
    }
}

#[tokio::test]
async fn the_site_answers_plain_requests_on_the_same_port() {
    let mut config = ServerConfig::new();
    config.site = Some(Arc::new(Echo));
    let listener = bind(config).await;
    for (path, expected) in [
        ("/", "GET /"),
        ("/app.js", "GET /app.js"),
        ("/ws", "GET /ws"),
    ] {
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let (head, body) = exchange(&listener, &request).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert_eq!(body, expected);
    }
    // And the upgrade still works beside it.
    let client = connect(listener.local_addr(), &ClientConfig::new("127.0.0.1"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let server = accept(&listener).await;
    client
        .send(b"h2e2".to_vec())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(recv(&server).await.ok(), Some(b"h2e2".to_vec()));
}

#[tokio::test]
async fn without_a_site_only_the_upgrade_is_served() {
    let listener = bind(ServerConfig::new()).await;
    let (head, _) = exchange(
        &listener,
        "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    let (head, _) = exchange(
        &listener,
        "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 426"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("upgrade: websocket"),
        "{head}"
    );
}

/// A page of another origin may not connect: its upgrade gets 403 and never becomes a
/// connection. The listener's own page, and a listed origin, may.
#[tokio::test]
async fn upgrades_from_other_origins_are_refused() {
    let listener = bind(ServerConfig::new()).await;
    let addr = listener.local_addr();
    let upgrade_from = |origin: &str| {
        let mut request = format!("ws://{addr}/ws")
            .into_client_request()
            .unwrap_or_else(|e| panic!("{e}"));
        let origin = origin.parse().unwrap_or_else(|e| panic!("{e}"));
        request.headers_mut().insert("origin", origin);
        async move {
            let stream = TcpStream::connect(addr)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            tokio_tungstenite::client_async(request, stream).await
        }
    };
    match upgrade_from("http://evil.example").await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), StatusCode::FORBIDDEN),
        other => panic!("expected 403, got {:?}", other.map(|_| ())),
    }
    match upgrade_from(&format!("http://{}", addr.to_string().to_uppercase())).await {
        Ok(_) => {}
        Err(e) => panic!("the relay's own page is refused: {e}"),
    }
    // Only the second became a connection.
    accept(&listener).await;
    let nothing = timeout(Duration::from_millis(200), listener.accept()).await;
    assert!(nothing.is_err(), "a refused upgrade was handed out");

    let mut config = ServerConfig::new();
    config.allowed_origins = vec!["https://XQ.example".into()];
    let listed = bind(config).await;
    let addr = listed.local_addr();
    let mut request = format!("ws://{addr}/ws")
        .into_client_request()
        .unwrap_or_else(|e| panic!("{e}"));
    request.headers_mut().insert(
        "origin",
        "https://xq.example"
            .parse()
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let stream = TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    tokio_tungstenite::client_async(request, stream)
        .await
        .unwrap_or_else(|e| panic!("a listed origin is refused: {e}"));
}

/// A client that trickles its request head, a byte at a time, is dropped once the header
/// timeout has passed, however much it still sends.
#[tokio::test]
async fn a_slow_loris_is_dropped_within_the_header_timeout() {
    let mut config = ServerConfig::new();
    config.limits.header_timeout = Duration::from_millis(500);
    let listener = bind(config).await;
    let mut stream = tcp(&listener).await;
    let (mut reader, mut writer) = stream.split();
    let trickle = async {
        for byte in UPGRADE.bytes().cycle() {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let start = Instant::now();
    let end = async {
        let mut buf = [0; 256];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    timeout(LIMIT, async {
        tokio::select! {
            () = trickle => panic!("the server took the trickle forever"),
            () = end => {}
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the slow client is still connected"));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(5),
        "dropped after {took:?}"
    );
}

/// A kept-alive connection that asks for nothing more is closed too: page loads do not hold
/// their places forever.
#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let mut config = ServerConfig::new();
    config.limits.header_timeout = Duration::from_millis(500);
    let listener = bind(config).await;
    let mut stream = tcp(&listener).await;
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let head = read_head(&mut stream).await;
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    let took = ended(&mut stream).await;
    assert!(took < Duration::from_secs(5), "closed after {took:?}");
}

/// A request head over the limit is answered with 431 as soon as the limit is reached, while
/// the client is still sending it: the server does not buffer it whole.
#[tokio::test]
async fn an_oversized_head_is_refused_with_431() {
    let mut config = ServerConfig::new();
    config.limits.max_header_size = 8 * 1024;
    let listener = bind(config).await;
    let mut stream = tcp(&listener).await;
    let (mut reader, mut writer) = stream.split();
    let flood = async {
        writer
            .write_all(UPGRADE.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // Far more than the limit; the server answers and stops reading long before.
        let line = format!("X-Padding: {}\r\n", "a".repeat(1000));
        for _ in 0..4096 {
            if writer.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
        // Closed on the writer or not, it waits for the answer.
        std::future::pending::<()>().await;
    };
    let answer = async {
        let mut head = Vec::new();
        let mut buf = [0; 256];
        while let Ok(n @ 1..) = reader.read(&mut buf).await {
            head.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&head).into_owned()
    };
    let head = timeout(LIMIT, async {
        tokio::select! {
            () = flood => unreachable!(),
            head = answer => head,
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no answer to a 4 MB head"));
    assert!(head.starts_with("HTTP/1.1 431"), "{head:?}");
    assert!(accept_nothing(&listener).await);
}

async fn accept_nothing(listener: &Listener) -> bool {
    timeout(Duration::from_millis(200), listener.accept())
        .await
        .is_err()
}

/// Connections that never finish their request are capped per address: beyond the cap, one
/// more from the same address is closed at once, while one from another address still gets
/// in; and a place given back is taken again.
#[tokio::test]
async fn half_open_connections_are_capped_per_address() {
    let mut config = ServerConfig::new();
    config.limits.max_pending_per_address = 4;
    config.limits.header_timeout = Duration::from_secs(60);
    let listener = bind(config).await;
    let addr = listener.local_addr();
    let mut half_open = Vec::new();
    for _ in 0..4 {
        half_open.push(tcp_from([127, 0, 0, 1], addr).await);
    }
    let mut refused = tcp_from([127, 0, 0, 1], addr).await;
    let took = ended(&mut refused).await;
    assert!(took < Duration::from_secs(5), "refused after {took:?}");

    let mut other = tcp_from([127, 0, 0, 2], addr).await;
    upgrade_by_hand(&mut other).await;
    let server = accept(&listener).await;
    assert_eq!(server.peer_addr().ip().to_string(), "127.0.0.2");

    drop(half_open.pop());
    // The place comes back once the server notices the close; until then this is refused.
    let again = timeout(LIMIT, async {
        loop {
            let mut stream = tcp_from([127, 0, 0, 1], addr).await;
            let request = format!("{UPGRADE}\r\n");
            if stream.write_all(request.as_bytes()).await.is_ok()
                && read_head(&mut stream).await.starts_with("HTTP/1.1 101")
            {
                return stream;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the place given back is never taken again"));
    drop(again);
    drop(half_open);
}

/// A WebSocket message longer than the frame limit fails the connection from its header: a
/// header announcing a gigabyte, with none of it sent, is enough.
#[tokio::test]
async fn an_oversized_message_fails_from_its_header() {
    let mut config = ServerConfig::new();
    config.transport.max_frame_size = 1024;
    let listener = bind(config).await;
    let mut stream = tcp(&listener).await;
    upgrade_by_hand(&mut stream).await;
    let server = accept(&listener).await;
    // FIN and binary; masked, with a 64-bit length of 2^30; the mask.
    let mut header = vec![0x82, 0xff];
    header.extend_from_slice(&(1u64 << 30).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    stream
        .write_all(&header)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    match recv(&server).await {
        Err(Error::IncomingFrameTooLarge { len, max }) => {
            assert_eq!((len, max), (1 << 30, 1024));
        }
        other => panic!("expected IncomingFrameTooLarge, got {other:?}"),
    }
    // The peer is told why: a close frame with 1009, Message Too Big.
    let mut close = [0; 4];
    timeout(LIMIT, stream.read_exact(&mut close))
        .await
        .unwrap_or_else(|_| panic!("no close frame"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(close[0], 0x88, "{close:?}");
    assert_eq!(u16::from_be_bytes([close[2], close[3]]), 1009);
}

/// A text message is a peer of another protocol: the connection fails with a typed error,
/// and the peer hears close code 1003.
#[tokio::test]
async fn a_text_message_fails_the_connection() {
    let listener = bind(ServerConfig::new()).await;
    let stream = tcp(&listener).await;
    let request = format!("ws://{}/ws", listener.local_addr());
    let (mut client, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let server = accept(&listener).await;
    for message in [
        Message::Binary(Bytes::from_static(b"fine")),
        Message::text("not xq"),
    ] {
        client.send(message).await.unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(recv(&server).await.ok(), Some(b"fine".to_vec()));
    assert!(matches!(recv(&server).await, Err(Error::TextMessage)));
    assert!(matches!(
        server.send(b"more".to_vec()).await,
        Err(Error::TextMessage)
    ));
    let closed = loop {
        match timeout(LIMIT, client.next()).await {
            Ok(Some(Ok(Message::Close(frame)))) => break frame,
            Ok(Some(Ok(_))) => {}
            other => panic!("no close frame: {other:?}"),
        }
    };
    assert_eq!(closed.map(|frame| frame.code), Some(CloseCode::Unsupported));
}

/// A peer that vanishes without a word (its socket open, but nothing read or written, as
/// when a network cable is pulled) is lost once the idle timeout has passed, although it
/// never closed its socket.
#[tokio::test]
async fn a_silent_peer_times_out() {
    let mut config = ServerConfig::new();
    config.transport.idle_timeout = Duration::from_millis(600);
    config.transport.keep_alive = Duration::from_millis(150);
    let listener = bind(config).await;
    let mut silent = tcp(&listener).await;
    upgrade_by_hand(&mut silent).await;
    let server = accept(&listener).await;
    let start = Instant::now();
    assert!(matches!(recv(&server).await, Err(Error::TimedOut)));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(600) && took < Duration::from_secs(5),
        "{took:?}"
    );
    drop(silent);
}

/// A TLS client that connects and says nothing is dropped after the handshake timeout.
#[tokio::test]
async fn a_silent_tls_handshake_is_dropped() {
    let rcgen::CertifiedKey { cert, signing_key } =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
            .unwrap_or_else(|e| panic!("{e}"));
    let key = rustls_key(&signing_key);
    let mut config = ServerConfig::new();
    config.tls =
        Some(ServerTls::new(vec![cert.der().clone()], key).unwrap_or_else(|e| panic!("{e}")));
    config.limits.handshake_timeout = Duration::from_millis(500);
    let listener = bind(config).await;
    assert!(listener.is_tls());
    let mut stream = tcp(&listener).await;
    let took = ended(&mut stream).await;
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

fn rustls_key(key: &rcgen::KeyPair) -> PrivateKeyDer<'static> {
    PrivatePkcs8KeyDer::from(key.serialize_der()).into()
}

/// Statistics count the frames each end queued and read, the bytes that crossed the socket
/// (the upgrade and the framing included), and, once a ping's pong came back, its round trip.
#[tokio::test]
async fn stats_count_frames_bytes_and_the_round_trip() {
    let mut config = ServerConfig::new();
    config.transport.keep_alive = Duration::from_millis(50);
    let listener = bind(config).await;
    let mut client_config = ClientConfig::new("127.0.0.1");
    client_config.transport.keep_alive = Duration::from_millis(50);
    let client = connect(listener.local_addr(), &client_config)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let server = accept(&listener).await;
    for i in 0..10 {
        client
            .send(vec![i; 100])
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for i in 0..10 {
        assert_eq!(recv(&server).await.ok(), Some(vec![i; 100]));
    }
    let (sent, received) = (client.stats(), server.stats());
    assert_eq!((sent.frames_sent, received.frames_received), (10, 10));
    assert_eq!((sent.frames_received, received.frames_sent), (0, 0));
    // Each frame's 100 bytes, a header of 2 and a mask of 4; and the upgrade request.
    assert!(sent.bytes_sent > 10 * 106, "{sent:?}");
    assert!(received.bytes_received > 10 * 106, "{received:?}");
    timeout(LIMIT, async {
        while client.stats().rtt.is_none() || server.stats().rtt.is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no pong came back"));
}

/// A connection towards a peer that reads nothing (a slow consumer a relay gives up on)
/// lets go of it within a linger, closed or just dropped, even with no idle timeout to end
/// it: what it could not send is dropped with the socket, not kept for that peer forever.
#[tokio::test]
async fn a_peer_that_reads_nothing_is_let_go_of() {
    let mut config = ServerConfig::new();
    config.transport.idle_timeout = Duration::MAX;
    let listener = Arc::new(bind(config).await);
    let let_go = |close: bool| {
        let listener = Arc::clone(&listener);
        async move {
            let mut stream = tcp(&listener).await;
            upgrade_by_hand(&mut stream).await;
            let server = accept(&listener).await;
            // Until the socket's buffers are full too, and nothing more goes out.
            let mut queued = 0;
            loop {
                let before = queued;
                while server.try_send(vec![0; 1000]).is_ok() {
                    queued += 1000;
                }
                if queued == before {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if close {
                timeout(LIMIT, server.close())
                    .await
                    .unwrap_or_else(|_| panic!("close waits for the peer"));
            }
            drop(server);
            // Only now does the peer read: had the server kept the connection, reading would
            // let it send every frame it queued.
            tokio::time::sleep(Duration::from_secs(3)).await;
            let mut read = 0;
            let mut buf = vec![0; 64 * 1024];
            while let Ok(Ok(n @ 1..)) = timeout(LIMIT, stream.read(&mut buf)).await {
                read += n;
            }
            assert!(
                read < queued,
                "close {close}: {read} bytes of {queued} arrived"
            );
        }
    };
    tokio::join!(let_go(true), let_go(false));
}
