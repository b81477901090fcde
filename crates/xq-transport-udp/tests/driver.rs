//! The tokio driver over real sockets on 127.0.0.1, each test bounded by a timeout.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use xq_transport_udp::proto::{ConnectionError, SendError};
use xq_transport_udp::{Config, Connection, Endpoint, Error};

const LIMIT: Duration = Duration::from_secs(10);

fn localhost() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, future)
        .await
        .expect("test timed out")
}

async fn pair(config: Config) -> Result<(Endpoint, Endpoint, Connection, Connection), Error> {
    let server = Endpoint::bind(localhost(), config.clone()).await?;
    let client = Endpoint::bind(localhost(), config).await?;
    let (outgoing, incoming) = tokio::join!(client.connect(server.local_addr()), server.accept());
    Ok((server, client, outgoing?, incoming?))
}

#[tokio::test]
async fn connect_accept_and_exchange() -> Result<(), Error> {
    bounded(async {
        let (server, client, outgoing, incoming) = pair(Config::default()).await?;
        assert_eq!(outgoing.peer_addr(), server.local_addr());
        assert_eq!(incoming.peer_addr(), client.local_addr());
        outgoing.send(b"ping".to_vec()).await?;
        assert_eq!(incoming.recv().await?, b"ping");
        incoming.send(b"pong".to_vec()).await?;
        assert_eq!(outgoing.recv().await?, b"pong");
        let stats = outgoing.stats();
        assert_eq!((stats.frames_sent, stats.frames_received), (1, 1));
        assert!(stats.bytes_sent > 0 && stats.bytes_received > 0);
        Ok(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_frames_arrive_in_order_with_concurrent_send_and_recv() -> Result<(), Error> {
    bounded(async {
        let (_server, _client, outgoing, incoming) = pair(Config::default()).await?;
        let count = 20_000u32;
        let sender = outgoing.clone();
        let send = tokio::spawn(async move {
            for index in 0..count {
                sender.send(index.to_be_bytes().repeat(8)).await?;
            }
            Ok::<_, Error>(())
        });
        // The receiving side echoes a count back on a clone while it reads.
        let echo = incoming.clone();
        for index in 0..count {
            assert_eq!(incoming.recv().await?, index.to_be_bytes().repeat(8));
            if index % 1000 == 0 {
                echo.send(index.to_be_bytes().to_vec()).await?;
            }
        }
        send.await.expect("sender task")?;
        for index in (0..count).step_by(1000) {
            assert_eq!(outgoing.recv().await?, index.to_be_bytes());
        }
        Ok(())
    })
    .await
}

#[tokio::test]
async fn large_frame_round_trips_and_oversized_is_refused() -> Result<(), Error> {
    bounded(async {
        let config = Config::default();
        let max = config.max_frame_size;
        let (_server, _client, outgoing, incoming) = pair(config).await?;
        let large: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
        outgoing.send(large.clone()).await?;
        assert_eq!(incoming.recv().await?, large);
        let refused = outgoing.send(vec![0; max + 1]).await;
        assert!(
            matches!(refused, Err(Error::Send(SendError::FrameTooLarge { .. }))),
            "{refused:?}"
        );
        Ok(())
    })
    .await
}

/// A task polling with `poll_recv` (no future of its own) is woken by each frame and by the
/// peer's close, like one waiting in `recv`.
#[tokio::test]
async fn poll_recv_wakes_its_task_for_frames_and_the_close() -> Result<(), Error> {
    bounded(async {
        let (_server, _client, outgoing, incoming) = pair(Config::default()).await?;
        let reader = tokio::spawn(async move {
            let mut frames = Vec::new();
            loop {
                match std::future::poll_fn(|cx| incoming.poll_recv(cx)).await {
                    Ok(frame) => frames.push(frame),
                    Err(end) => return (frames, end),
                }
            }
        });
        for index in 0..50u8 {
            // Each frame waits until the reader is parked again, so each needs a wake-up.
            tokio::time::sleep(Duration::from_millis(2)).await;
            outgoing.send(vec![index; 10]).await?;
        }
        outgoing.close().await;
        let (frames, end) = reader.await.expect("reader task");
        let expected: Vec<Vec<u8>> = (0..50u8).map(|index| vec![index; 10]).collect();
        assert_eq!(frames, expected);
        assert!(
            matches!(end, Error::Connection(ConnectionError::ClosedByPeer)),
            "{end:?}"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
async fn graceful_close_reaches_the_peer_after_its_frames() -> Result<(), Error> {
    bounded(async {
        let (server, _client, outgoing, incoming) = pair(Config::default()).await?;
        for index in 0..100u8 {
            outgoing.send(vec![index; 3000]).await?;
        }
        let closing = outgoing.clone();
        let close = tokio::spawn(async move { closing.close().await });
        for index in 0..100u8 {
            assert_eq!(incoming.recv().await?, vec![index; 3000]);
        }
        let end = incoming.recv().await;
        assert!(
            matches!(end, Err(Error::Connection(ConnectionError::ClosedByPeer))),
            "{end:?}"
        );
        close.await.expect("close task");
        let end = outgoing.recv().await;
        assert!(
            matches!(end, Err(Error::Connection(ConnectionError::LocallyClosed))),
            "{end:?}"
        );
        let late = outgoing.send(vec![1]).await;
        assert!(
            matches!(late, Err(Error::Connection(ConnectionError::LocallyClosed))),
            "{late:?}"
        );

        server.close();
        assert!(matches!(server.accept().await, Err(Error::EndpointClosed)));
        Ok(())
    })
    .await
}

/// A server may say something and close at once (a relay turning a client away): the client's
/// `connect` succeeds though the close arrived before it looked, and the frame comes first.
#[tokio::test]
async fn a_server_that_closes_at_once_is_heard_before_its_close() -> Result<(), Error> {
    bounded(async {
        let server = Endpoint::bind(localhost(), Config::default()).await?;
        let client = Endpoint::bind(localhost(), Config::default()).await?;
        let mut connecting = pin!(client.connect(server.local_addr()));
        // Polled once, to send the `Initial`, then left alone until the server is done: the
        // client's driver completes the handshake and the close exchange on its own.
        let first = std::future::poll_fn(|cx| Poll::Ready(connecting.as_mut().poll(cx))).await;
        assert!(first.is_pending(), "connected without a server answer");
        let incoming = server.accept().await?;
        incoming.send(b"go away".to_vec()).await?;
        incoming.close().await;
        let outgoing = connecting.await?;
        assert_eq!(outgoing.recv().await?, b"go away");
        let end = outgoing.recv().await;
        assert!(
            matches!(end, Err(Error::Connection(ConnectionError::ClosedByPeer))),
            "{end:?}"
        );
        Ok(())
    })
    .await
}

/// The socket outlives the endpoint while a connection uses it, and closes once that is done
/// closing too: from then on, and not before `closed` says so, its address is free.
#[tokio::test]
async fn an_endpoint_says_when_its_address_is_free() -> Result<(), Error> {
    bounded(async {
        let (server, _client, outgoing, incoming) = pair(Config::default()).await?;
        let address = server.local_addr();
        let closed = server.closed();
        drop(server);
        let early = tokio::time::timeout(Duration::from_millis(100), closed.clone().wait()).await;
        assert!(early.is_err(), "closed under a live connection");
        incoming.send(b"still here".to_vec()).await?;
        assert_eq!(outgoing.recv().await?, b"still here");
        incoming.close().await;
        drop(incoming);
        closed.wait().await;
        std::net::UdpSocket::bind(address)?;
        Ok(())
    })
    .await
}

/// Binds an address the moment it is woken: a waiter on [`Closed`] that takes the address
/// back as soon as it is told that it is free.
struct BindOnWake {
    address: SocketAddr,
    bound: Mutex<Option<std::io::Result<()>>>,
}

impl Wake for BindOnWake {
    fn wake(self: Arc<Self>) {
        let bound = std::net::UdpSocket::bind(self.address).map(drop);
        *self.bound.lock().unwrap_or_else(PoisonError::into_inner) = Some(bound);
    }
}

/// `closed` never says the address is free while the socket still holds it, even when the
/// driver's task never ran: here its runtime shuts down right after the bind, which completes
/// at its first poll, so the task is dropped without ever being polled.
#[test]
fn closed_fires_after_the_socket_even_if_the_driver_never_ran() -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let endpoint = runtime.block_on(Endpoint::bind(localhost(), Config::default()))?;
    let address = endpoint.local_addr();
    let closed = endpoint.closed();
    drop(endpoint);
    let probe = Arc::new(BindOnWake {
        address,
        bound: Mutex::new(None),
    });
    let waker = Waker::from(Arc::clone(&probe));
    let mut wait = pin!(closed.wait());
    assert!(
        wait.as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending(),
        "closed before the runtime shut down"
    );
    drop(runtime);
    let bound = probe
        .bound
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    assert!(
        matches!(bound, Some(Ok(()))),
        "told the address was free while it was still bound: {bound:?}"
    );
    Ok(())
}

#[tokio::test]
async fn connect_to_a_silent_port_times_out() -> Result<(), Error> {
    bounded(async {
        let config = Config {
            idle_timeout: Duration::from_millis(300),
            ..Config::default()
        };
        let silent = std::net::UdpSocket::bind(localhost())?;
        let client = Endpoint::bind(localhost(), config).await?;
        let result = client.connect(silent.local_addr()?).await;
        assert!(
            matches!(result, Err(Error::Connection(ConnectionError::TimedOut))),
            "{result:?}"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
async fn closing_the_endpoint_fails_a_pending_connect_at_once() -> Result<(), Error> {
    bounded(async {
        let silent = std::net::UdpSocket::bind(localhost())?;
        let target = silent.local_addr()?;
        let client = Arc::new(Endpoint::bind(localhost(), Config::default()).await?);
        // In a task of its own, so that only a wake-up can tell it of the close.
        let connecting = Arc::clone(&client);
        let connect = tokio::spawn(async move { connecting.connect(target).await.map(drop) });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!connect.is_finished(), "the silent port answered");
        client.close();
        // Well within the idle timeout (10 s), which would fail it otherwise.
        let result = tokio::time::timeout(Duration::from_secs(1), connect).await;
        assert!(
            matches!(result, Ok(Ok(Err(Error::EndpointClosed)))),
            "{result:?}"
        );
        Ok(())
    })
    .await
}

/// A reader whose buffer filled while it paused tells the sender at once when it reads again
/// (a window update), so the rest comes now, not at the sender's next probe.
#[tokio::test]
async fn a_reader_that_reads_again_gets_the_rest_before_the_next_probe() -> Result<(), Error> {
    bounded(async {
        let config = Config {
            recv_buffer_size: 10_000,
            // No probe, keep-alive or timeout falls within the test's ten seconds: only a
            // window update can move what the full buffer refused.
            min_rto: Duration::from_secs(20),
            max_rto: Duration::from_secs(20),
            keep_alive_interval: None,
            idle_timeout: Duration::from_secs(60),
            ..Config::default()
        };
        let (_server, _client, outgoing, incoming) = pair(config).await?;
        let sent: Vec<Vec<u8>> = (0..100_u8).map(|index| vec![index; 996]).collect();
        for frame in &sent {
            outgoing.send(frame.clone()).await?;
        }
        // Time for the buffer to fill and the rest to be refused.
        tokio::time::sleep(Duration::from_millis(500)).await;
        for frame in &sent {
            assert_eq!(&incoming.recv().await?, frame);
        }
        assert!(
            outgoing.stats().retransmits > 0,
            "nothing was refused: the test did not pause the reader long enough"
        );
        Ok(())
    })
    .await
}
