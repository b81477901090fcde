//! Connections over loopback, through the public API only.

use std::error::Error as StdError;
use std::future::Future;
use std::time::{Duration, Instant};

use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::time::timeout;
use xq_transport_quic::{
    CERT_FILE, ClientConfig, ClientEndpoint, Connection, Error, Fingerprint, Identity, KEY_FILE,
    Listener, ServerConfig, TransportConfig, Verify, connect,
};

type TestResult = Result<(), Box<dyn StdError + Send + Sync>>;

/// Upper bound for any single test, so that a hang fails instead of stalling the run.
const LIMIT: Duration = Duration::from_secs(15);

async fn within<T>(test: impl Future<Output = T>) -> T {
    timeout(LIMIT, test).await.expect("test timed out")
}

/// A listener on loopback with a fresh identity, and the directory that holds the identity.
async fn listen(transport: TransportConfig) -> Result<(Listener, TempDir), Error> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let identity = Identity::load_or_generate(dir.path(), &["localhost"]).expect("identity");
    let mut config = ServerConfig::new(identity);
    config.transport = transport;
    let listener = Listener::bind("127.0.0.1:0".parse().expect("address"), config).await?;
    Ok((listener, dir))
}

fn client_config(verify: Verify, transport: TransportConfig) -> ClientConfig {
    let mut config = ClientConfig::new(verify, "localhost");
    config.transport = transport;
    config
}

/// A connected client and the server's side of the same connection.
async fn pair(
    transport: TransportConfig,
) -> Result<(Connection, Connection, Listener, TempDir), Error> {
    let (listener, dir) = listen(transport.clone()).await?;
    let config = client_config(Verify::Insecure, transport);
    let (client, server) = tokio::join!(connect(listener.local_addr(), config), listener.accept());
    Ok((client?, server?, listener, dir))
}

#[tokio::test]
async fn frames_flow_both_ways() -> TestResult {
    within(async {
        let (client, server, listener, _dir) = pair(TransportConfig::default()).await?;
        assert_eq!(server.peer_addr().ip(), listener.local_addr().ip());
        assert_eq!(client.peer_addr(), listener.local_addr());

        client.send(b"h2e2".to_vec()).await?;
        client.send(Vec::new()).await?;
        assert_eq!(server.recv().await?, b"h2e2");
        assert_eq!(server.recv().await?, b"");
        server.send(b"h9g7".to_vec()).await?;
        assert_eq!(client.recv().await?, b"h9g7");

        let stats = client.stats();
        assert_eq!((stats.frames_sent, stats.frames_received), (2, 1));
        assert!(stats.bytes_sent > 0 && stats.bytes_received > 0);
        assert!(stats.rtt > Duration::ZERO);
        Ok(())
    })
    .await
}

/// Connections that share a client socket are separate: each carries its own frames, and one
/// closing leaves the others (and the socket) working.
#[tokio::test]
async fn connections_sharing_a_client_socket_are_independent() -> TestResult {
    within(async {
        let (listener, _dir) = listen(TransportConfig::default()).await?;
        let shared = ClientEndpoint::bind("127.0.0.1:0".parse()?)?;
        let config = client_config(Verify::Insecure, TransportConfig::default());
        let mut pairs = Vec::new();
        for _ in 0..3 {
            let (client, server) = tokio::join!(
                shared.connect(listener.local_addr(), &config),
                listener.accept()
            );
            pairs.push((client?, server?));
        }
        let port = pairs[0].1.peer_addr().port();
        assert!(
            pairs
                .iter()
                .all(|(_, server)| server.peer_addr().port() == port)
        );
        for (i, (client, _)) in pairs.iter().enumerate() {
            client.send(vec![u8::try_from(i)?]).await?;
        }
        for (i, (_, server)) in pairs.iter().enumerate() {
            assert_eq!(server.recv().await?, [u8::try_from(i)?]);
        }
        let (first, first_server) = pairs.remove(0);
        first.close().await;
        assert!(matches!(
            first_server.recv().await,
            Err(Error::ClosedByPeer)
        ));
        for (client, server) in &pairs {
            server.send(b"still here".to_vec()).await?;
            assert_eq!(client.recv().await?, b"still here");
        }
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_cancelled_recv_loses_nothing() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        let cancelled = timeout(Duration::from_millis(50), server.recv()).await;
        assert!(cancelled.is_err(), "nothing was sent yet");
        client.send(b"after".to_vec()).await?;
        assert_eq!(server.recv().await?, b"after");
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_frames_arrive_in_order_while_echoed() -> TestResult {
    const COUNT: u32 = 10_000;
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        // The server echoes every frame, so both directions are busy at once, and the client
        // sends from one task while receiving on a clone in another.
        let echo = tokio::spawn(async move {
            for _ in 0..COUNT {
                let frame = server.recv().await?;
                server.send(frame).await?;
            }
            Ok::<_, Error>(server)
        });
        let sender = client.clone();
        let send = tokio::spawn(async move {
            for i in 0..COUNT {
                sender.send(i.to_be_bytes().to_vec()).await?;
            }
            Ok::<_, Error>(())
        });
        for i in 0..COUNT {
            assert_eq!(client.recv().await?, i.to_be_bytes());
        }
        send.await??;
        let server = echo.await??;
        assert_eq!(server.stats().frames_received, u64::from(COUNT));
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_60_kib_frame_arrives_whole() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        let frame: Vec<u8> = (0..60 * 1024).map(|i| (i % 251) as u8).collect();
        client.send(frame.clone()).await?;
        assert_eq!(server.recv().await?, frame);
        server.send(frame.clone()).await?;
        assert_eq!(client.recv().await?, frame);
        Ok(())
    })
    .await
}

#[tokio::test]
async fn an_oversized_send_is_refused_and_harmless() -> TestResult {
    within(async {
        let mut transport = TransportConfig::default();
        transport.max_frame_size = 1000;
        let (client, server, _listener, _dir) = pair(transport).await?;
        let refused = client.send(vec![0; 1001]).await;
        assert!(matches!(
            refused,
            Err(Error::FrameTooLarge {
                len: 1001,
                max: 1000
            })
        ));
        client.send(vec![1; 1000]).await?;
        assert_eq!(server.recv().await?, vec![1; 1000]);
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_graceful_close_is_seen_after_the_last_frame() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        for i in 0..3u8 {
            client.send(vec![i]).await?;
        }
        client.close().await;
        for i in 0..3u8 {
            assert_eq!(server.recv().await?, [i]);
        }
        assert!(matches!(server.recv().await, Err(Error::ClosedByPeer)));
        assert!(matches!(server.recv().await, Err(Error::ClosedByPeer)));
        assert!(matches!(
            client.send(vec![0]).await,
            Err(Error::ClosedLocally)
        ));
        assert!(matches!(client.recv().await, Err(Error::ClosedLocally)));
        Ok(())
    })
    .await
}

/// Frames that arrived but were not read before `close` are not handed out after it.
#[tokio::test]
async fn recv_after_close_fails_even_with_frames_unread() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        for i in 0..3u8 {
            client.send(vec![i]).await?;
        }
        // Returns once the server has acknowledged every frame: all three are there to read.
        client.close().await;
        assert_eq!(server.recv().await?, [0]);
        server.close().await;
        let received = server.recv().await;
        assert!(
            matches!(received, Err(Error::ClosedLocally)),
            "{received:?}"
        );
        Ok(())
    })
    .await
}

/// A frame that failed to go out does not stay behind looking like a full buffer: `try_send`
/// reports what is wrong with the connection.
#[tokio::test]
async fn try_send_after_a_failed_send_reports_the_failure() -> TestResult {
    within(async {
        let (client, _server, _listener, _dir) = pair(TransportConfig::default()).await?;
        client.close().await;
        assert!(matches!(
            client.send(vec![1]).await,
            Err(Error::ClosedLocally)
        ));
        let queued = client.try_send(vec![2]);
        assert!(matches!(queued, Err(Error::ClosedLocally)), "{queued:?}");
        Ok(())
    })
    .await
}

/// While a close waits on a peer that reads nothing, `try_send` says that the connection is
/// closing, not that its buffer is full: a relay would take the latter for a slow client.
#[tokio::test]
async fn try_send_during_a_close_reports_the_close() -> TestResult {
    within(async {
        let (client, _server, _listener, _dir) = pair(TransportConfig::default()).await?;
        // The server reads nothing, so flow control soon leaves a frame half written.
        while client.try_send(vec![0; 1000]).is_ok() {}
        let closing = tokio::spawn({
            let client = client.clone();
            async move { client.close().await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !closing.is_finished(),
            "the close did not wait for the peer"
        );
        let queued = client.try_send(vec![1]);
        assert!(matches!(queued, Err(Error::ClosedLocally)), "{queued:?}");
        let sent = client.send(vec![1]).await;
        assert!(matches!(sent, Err(Error::ClosedLocally)), "{sent:?}");
        closing.await?;
        Ok(())
    })
    .await
}

/// A `try_send` whose frame is still being written in the background when the last handle is
/// dropped does not keep the connection alive.
#[tokio::test]
async fn dropping_the_last_handle_closes_even_during_a_background_write() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        // The server reads nothing, so flow control soon leaves a frame half written.
        let mut queued = 0;
        while client.try_send(vec![0; 1000]).is_ok() {
            queued += 1;
            assert!(queued < 200_000, "never full");
        }
        drop(client);
        // Keep-alives would hold a connection that is still open well past this.
        let noticed = timeout(Duration::from_secs(3), async {
            while server.send(vec![0]).await.is_ok() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(
            noticed.is_ok(),
            "still open after its last handle was dropped"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_peer_that_drops_its_connection_is_gone_not_closed() -> TestResult {
    within(async {
        let (client, server, _listener, _dir) = pair(TransportConfig::default()).await?;
        client.send(b"bye".to_vec()).await?;
        assert_eq!(server.recv().await?, b"bye");
        drop(client);
        let received = server.recv().await;
        assert!(matches!(received, Err(Error::PeerGone)), "{received:?}");
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_dead_peer_is_detected_within_the_idle_timeout() -> TestResult {
    within(async {
        let mut transport = TransportConfig::default();
        transport.keep_alive = Duration::from_millis(200);
        transport.idle_timeout = Duration::from_secs(1);
        let (listener, _dir) = listen(transport.clone()).await?;
        let config = client_config(Verify::Insecure, transport.clone());
        let addr = listener.local_addr();

        // The client lives on a runtime of its own. Once that runtime is gone nothing drives the
        // client's connection: it falls silent without sending a close, as a crashed process or
        // a pulled cable would.
        let (dead, client) = oneshot::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let connected = runtime.block_on(async {
                let client = connect(addr, config).await?;
                client.send(b"ping".to_vec()).await?;
                client.recv().await?;
                Ok::<_, Error>(client)
            });
            drop(runtime);
            let _ = dead.send(connected);
        });

        let server = listener.accept().await?;
        assert_eq!(server.recv().await?, b"ping");
        server.send(b"pong".to_vec()).await?;
        let client = client.await??;

        let silent_since = Instant::now();
        assert!(matches!(server.recv().await, Err(Error::TimedOut)));
        let detected_after = silent_since.elapsed();
        assert!(
            detected_after < transport.idle_timeout + Duration::from_millis(500),
            "took {detected_after:?}"
        );
        drop(client);
        Ok(())
    })
    .await
}

#[test]
fn the_identity_is_persisted_and_reused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let first = Identity::load_or_generate(dir.path(), &["localhost"])?;
    assert!(dir.path().join(CERT_FILE).is_file());
    assert!(dir.path().join(KEY_FILE).is_file());
    let again = Identity::load_or_generate(dir.path(), &["localhost"])?;
    assert_eq!(first.fingerprint(), again.fingerprint());

    let elsewhere = tempfile::tempdir()?;
    let other = Identity::load_or_generate(elsewhere.path(), &["localhost"])?;
    assert_ne!(first.fingerprint(), other.fingerprint());
    Ok(())
}

/// A key file left behind with other permissions (say, by a copy or an editor) does not pass
/// them on to a newly generated key.
#[cfg(unix)]
#[test]
fn a_generated_key_is_private_even_over_an_old_file() -> TestResult {
    use std::fs::{self, Permissions};
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir()?;
    let key = dir.path().join(KEY_FILE);
    fs::write(&key, "old")?;
    fs::set_permissions(&key, Permissions::from_mode(0o644))?;
    let generated = Identity::load_or_generate(dir.path(), &["localhost"])?;
    let mode = fs::metadata(&key)?.permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    let loaded = Identity::load_or_generate(dir.path(), &["localhost"])?;
    assert_eq!(loaded.fingerprint(), generated.fingerprint());
    Ok(())
}

#[tokio::test]
async fn a_reloaded_identity_keeps_its_pin_valid() -> TestResult {
    within(async {
        let (listener, dir) = listen(TransportConfig::default()).await?;
        let pin: Fingerprint = listener.fingerprint().parse()?;
        listener.close();
        drop(listener);

        let identity = Identity::load_or_generate(dir.path(), &["localhost"])?;
        let listener = Listener::bind("127.0.0.1:0".parse()?, ServerConfig::new(identity)).await?;
        assert_eq!(listener.fingerprint(), pin.to_string());
        let config = ClientConfig::new(Verify::Fingerprint(pin), "localhost");
        let (client, _server) =
            tokio::join!(connect(listener.local_addr(), config), listener.accept());
        client?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_pinned_fingerprint_must_match() -> TestResult {
    within(async {
        let (listener, _dir) = listen(TransportConfig::default()).await?;
        let pin: Fingerprint = listener.fingerprint().parse()?;

        let config = ClientConfig::new(Verify::Fingerprint(pin), "localhost");
        let (client, server) =
            tokio::join!(connect(listener.local_addr(), config), listener.accept());
        // Keep the client until the frame is read: dropping it closes it abruptly.
        let client = client?;
        client.send(b"pinned".to_vec()).await?;
        assert_eq!(server?.recv().await?, b"pinned");
        drop(client);

        let mut wrong = *pin.as_bytes();
        wrong[0] ^= 1;
        let config = ClientConfig::new(
            Verify::Fingerprint(Fingerprint::from_bytes(wrong)),
            "localhost",
        );
        let refused = connect(listener.local_addr(), config).await;
        assert!(
            matches!(refused, Err(Error::FingerprintMismatch { found }) if found == pin),
            "{refused:?}"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_ca_file_verifies_the_server() -> TestResult {
    within(async {
        let (listener, dir) = listen(TransportConfig::default()).await?;
        let ca = dir.path().join(CERT_FILE);

        let config = ClientConfig::new(Verify::CaFile(ca.clone()), "localhost");
        let (client, server) =
            tokio::join!(connect(listener.local_addr(), config), listener.accept());
        // Keep the client until the frame is read: dropping it closes it abruptly.
        let client = client?;
        client.send(b"trusted".to_vec()).await?;
        assert_eq!(server?.recv().await?, b"trusted");
        drop(client);

        // The certificate is not valid for another name.
        let config = ClientConfig::new(Verify::CaFile(ca), "example.org");
        let refused = connect(listener.local_addr(), config).await;
        assert!(matches!(refused, Err(Error::Connection(_))), "{refused:?}");

        // Another server's certificate does not vouch for this one.
        let (_other, other_dir) = listen(TransportConfig::default()).await?;
        let config = ClientConfig::new(
            Verify::CaFile(other_dir.path().join(CERT_FILE)),
            "localhost",
        );
        let refused = connect(listener.local_addr(), config).await;
        assert!(matches!(refused, Err(Error::Connection(_))), "{refused:?}");

        let missing = ClientConfig::new(Verify::CaFile(dir.path().join("none.pem")), "localhost");
        let refused = connect(listener.local_addr(), missing).await;
        assert!(matches!(refused, Err(Error::CaFile { .. })), "{refused:?}");
        Ok(())
    })
    .await
}

/// quinn keeps the socket while a connection the listener accepted uses it, and closes it
/// once that is done too: from then on, and not before `closed` says so, its address is free.
#[tokio::test]
async fn a_listener_says_when_its_address_is_free() -> TestResult {
    within(async {
        let (client, server, listener, _dir) = pair(TransportConfig::default()).await?;
        let address = listener.local_addr();
        let closed = listener.closed();
        listener.close();
        drop(listener);
        let early = timeout(Duration::from_millis(100), closed.clone().wait()).await;
        assert!(early.is_err(), "closed under a live connection");
        server.send(b"still here".to_vec()).await?;
        assert_eq!(client.recv().await?, b"still here");
        server.close().await;
        drop(server);
        closed.wait().await;
        std::net::UdpSocket::bind(address)?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_closed_listener_accepts_nothing() -> TestResult {
    within(async {
        let (listener, _dir) = listen(TransportConfig::default()).await?;
        let (accepted, ()) = tokio::join!(listener.accept(), async {
            tokio::task::yield_now().await;
            listener.close();
        });
        assert!(matches!(accepted, Err(Error::ListenerClosed)));
        assert!(matches!(
            listener.accept().await,
            Err(Error::ListenerClosed)
        ));
        Ok(())
    })
    .await
}
