//! Tests with a raw quinn client that breaks the framing protocol on purpose.

use std::sync::Arc;
use std::time::Duration;

use quinn::{ConnectionError, Endpoint, SendStream, VarInt};
use tokio::time::timeout;

use crate::error::CLOSE_PROTOCOL;
use crate::framing::STREAM_HEADER;
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

/// A quinn connection to `listener` with its bidirectional stream open, but nothing written.
async fn raw_client(listener: &Listener) -> (Endpoint, quinn::Connection, SendStream) {
    let (tls, _) = tls::client(&Verify::Insecure).expect("client tls");
    let mut endpoint = Endpoint::client(([127, 0, 0, 1], 0).into()).expect("client endpoint");
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(tls)));
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
