//! Tests with a raw quinn client that breaks the framing protocol on purpose.

use std::sync::Arc;
use std::time::Duration;

use quinn::{ConnectionError, Endpoint, SendStream, VarInt};
use tokio::time::timeout;

use crate::error::CLOSE_PROTOCOL;
use crate::framing::STREAM_HEADER;
use crate::handshakes::MAX_HANDSHAKES_PER_ADDRESS;
use crate::{Error, Identity, Listener, ServerConfig, TransportConfig, Verify, tls};

const LIMIT: Duration = Duration::from_secs(10);

pub(crate) async fn listener(max_frame_size: u32) -> Listener {
    let dir = tempfile::tempdir().expect("temporary directory");
    let identity = Identity::load_or_generate(dir.path(), &["localhost"]).expect("identity");
    let mut config = ServerConfig::new(identity);
    config.transport = TransportConfig {
        max_frame_size,
        ..TransportConfig::default()
    };
    Listener::bind(([127, 0, 0, 1], 0).into(), config)
        .await
        .expect("bind")
}

/// A quinn endpoint on `ip` that trusts any server.
fn raw_endpoint(ip: [u8; 4]) -> Endpoint {
    let (tls, _) = tls::client(&Verify::Insecure).expect("client tls");
    let mut endpoint = Endpoint::client((ip, 0).into()).expect("client endpoint");
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(tls)));
    endpoint
}

/// A quinn connection to `listener` with its bidirectional stream open, but nothing written.
async fn raw_client(listener: &Listener) -> (Endpoint, quinn::Connection, SendStream) {
    let endpoint = raw_endpoint([127, 0, 0, 1]);
    let conn = endpoint
        .connect(listener.local_addr(), "localhost")
        .expect("connect")
        .await
        .expect("handshake");
    let (send, _recv) = conn.open_bi().await.expect("open stream");
    (endpoint, conn, send)
}

fn closed_for_protocol(error: &ConnectionError) -> bool {
    matches!(error, ConnectionError::ApplicationClosed(close)
        if close.error_code == VarInt::from_u32(CLOSE_PROTOCOL))
}

#[tokio::test]
async fn an_oversized_incoming_length_fails_the_connection() {
    timeout(LIMIT, async {
        let listener = listener(1024).await;
        let (_endpoint, conn, mut send) = raw_client(&listener).await;
        send.write_all(&STREAM_HEADER).await.expect("header");
        // Four gigabytes announced; were they allocated, the test would abort.
        send.write_all(&u32::MAX.to_be_bytes())
            .await
            .expect("length");

        let server = listener.accept().await.expect("accept");
        let received = server.recv().await;
        assert!(
            matches!(
                received,
                Err(Error::IncomingFrameTooLarge {
                    len: u32::MAX,
                    max: 1024
                })
            ),
            "{received:?}"
        );
        assert!(closed_for_protocol(&conn.closed().await));
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_wrong_stream_header_is_refused() {
    timeout(LIMIT, async {
        let listener = listener(1024).await;
        let (_endpoint, conn, mut send) = raw_client(&listener).await;
        send.write_all(b"GET ").await.expect("header");
        assert!(closed_for_protocol(&conn.closed().await));
    })
    .await
    .expect("test timed out");
}

/// Clients that complete the handshake and never open their stream hold the listener's state
/// only up to a bound per address: the next one from there is refused, others still get in,
/// and a slot given back is free again.
#[tokio::test]
async fn half_open_connections_are_bounded_per_address() {
    timeout(LIMIT, async {
        let listener = listener(1024).await;
        let hoarder = raw_endpoint([127, 0, 0, 1]);
        let handshake = || async {
            hoarder
                .connect(listener.local_addr(), "localhost")
                .expect("connect")
                .await
        };
        let mut held = Vec::new();
        for _ in 0..MAX_HANDSHAKES_PER_ADDRESS {
            held.push(handshake().await.expect("a handshake within the bound"));
        }
        let refused = handshake().await;
        assert!(
            matches!(refused, Err(ConnectionError::ConnectionClosed(_))),
            "{refused:?}"
        );

        let other = raw_endpoint([127, 0, 0, 2]);
        let conn = other
            .connect(listener.local_addr(), "localhost")
            .expect("connect")
            .await
            .expect("another address gets in");
        let (mut send, _recv) = conn.open_bi().await.expect("open stream");
        send.write_all(&STREAM_HEADER).await.expect("header");
        listener.accept().await.expect("accepted");

        // Once the listener has seen one go, its slot takes a new handshake.
        let gone = held.pop().expect("one held");
        gone.close(VarInt::from_u32(0), b"bye");
        loop {
            match handshake().await {
                Ok(conn) => break held.push(conn),
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    })
    .await
    .expect("test timed out");
}
