//! The server side: an endpoint that accepts connections and hands out their frame streams.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use quinn::{Endpoint, Incoming, VarInt};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;
use tokio::time::timeout;

use crate::error::{CLOSE_LISTENER, CLOSE_PROTOCOL};
use crate::framing::STREAM_HEADER;
use crate::handshakes::{Handshakes, MAX_HANDSHAKES, MAX_HANDSHAKES_PER_ADDRESS};
use crate::{Closed, Connection, Error, Fingerprint, ServerConfig, socket, tls};

/// How many handshaken connections may wait for [`Listener::accept`]. While that many wait, no
/// new handshake starts: further clients wait in quinn's queue, and give up after their idle
/// timeout. Handshakes already under way finish and wait too.
pub(crate) const ACCEPT_QUEUE: usize = 32;

/// A QUIC server endpoint that accepts connections.
///
/// Handshakes run in the background, concurrently, so a slow or malicious client cannot hold up
/// the others; [`accept`](Self::accept) returns connections whose stream is open and whose
/// header checked out. Closing or dropping the listener stops accepting, closes the connections
/// it has not handed out yet, and leaves accepted ones open.
#[derive(Debug)]
pub struct Listener {
    endpoint: Endpoint,
    local_addr: SocketAddr,
    fingerprint: Fingerprint,
    ready: Mutex<mpsc::Receiver<Connection>>,
    handshakes: JoinHandle<()>,
    closed: AtomicBool,
    socket: Closed,
}

impl Listener {
    /// Binds a UDP socket to `addr` and starts accepting connections.
    ///
    /// # Errors
    ///
    /// Fails if the identity's key does not fit its certificate or the socket cannot be bound.
    pub async fn bind(addr: SocketAddr, config: ServerConfig) -> Result<Self, Error> {
        let fingerprint = config.identity.fingerprint();
        let tls = tls::server(config.identity)?;
        let mut quinn_config = quinn::ServerConfig::with_crypto(Arc::new(tls));
        quinn_config.transport_config(config.transport.to_quinn(1));
        let (endpoint, closed) = socket::endpoint(addr, Some(quinn_config)).map_err(Error::Bind)?;
        let local_addr = endpoint.local_addr().map_err(Error::Bind)?;
        let (sender, receiver) = mpsc::channel(ACCEPT_QUEUE);
        let handshakes = tokio::spawn(run_handshakes(
            endpoint.clone(),
            sender,
            config.transport.max_frame_size,
            config.transport.idle_timeout,
        ));
        Ok(Self {
            endpoint,
            local_addr,
            fingerprint,
            ready: Mutex::new(receiver),
            handshakes,
            closed: AtomicBool::new(false),
            socket: closed,
        })
    }

    /// The address the listener is bound to, with the actual port if bound to port 0.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The SHA-256 fingerprint of the server certificate, as lower-case hex, for clients to pin.
    #[must_use]
    pub fn fingerprint(&self) -> String {
        self.fingerprint.to_string()
    }

    /// Waits for the next connection.
    ///
    /// Clients that fail the handshake, send a wrong stream header or open no stream within the
    /// idle timeout are dropped without being returned.
    ///
    /// # Errors
    ///
    /// [`Error::ListenerClosed`] once the listener is closed.
    pub async fn accept(&self) -> Result<Connection, Error> {
        let mut ready = self.ready.lock().await;
        if !self.closed.load(Ordering::Acquire) {
            // Closing wakes this by ending the channel, unless a last connection slipped in.
            if let Some(connection) = ready.recv().await {
                if !self.closed.load(Ordering::Acquire) {
                    return Ok(connection);
                }
                refuse(&connection);
            }
        }
        // `close` could not drain the queue while this held it.
        refuse_queued(&mut ready);
        Err(Error::ListenerClosed)
    }

    /// A handle that waits until the socket is closed, so that its address can be bound again.
    ///
    /// quinn keeps the socket until the listener is closed and dropped **and** every connection
    /// it accepted is dropped and done: a closed connection drains for a few round trips, to
    /// answer the peer's packets with its close. The handle outlives the listener, so a caller
    /// can drop the listener and then wait.
    #[must_use]
    pub fn closed(&self) -> Closed {
        self.socket.clone()
    }

    /// Stops accepting connections; pending and later [`accept`](Self::accept) calls fail.
    ///
    /// Clients whose connections were never accepted are closed (they see
    /// [`Error::Connection`]) rather than left idling on keep-alives. Connections already
    /// accepted stay open.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.endpoint.set_server_config(None);
        // A pending `accept` holds the queue; it drains it itself once woken.
        if let Ok(mut ready) = self.ready.try_lock() {
            refuse_queued(&mut ready);
        }
        // Dropping the task's sender and handshakes ends the channel, waking `accept`, and
        // closes the connections still in their handshake.
        self.handshakes.abort();
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.close();
    }
}

/// Closes `connection`, which the listener will never hand out, telling its client why.
fn refuse(connection: &Connection) {
    connection.close_now(CLOSE_LISTENER, b"listener closed");
}

/// Closes the queue and every connection still in it.
fn refuse_queued(ready: &mut mpsc::Receiver<Connection>) {
    ready.close();
    while let Ok(connection) = ready.try_recv() {
        refuse(&connection);
    }
}

/// Accepts incoming connections and runs their handshakes concurrently, queueing the ones that
/// succeed for [`Listener::accept`].
async fn run_handshakes(
    endpoint: Endpoint,
    ready: mpsc::Sender<Connection>,
    max_frame_size: u32,
    stream_timeout: Duration,
) {
    let mut handshakes = Handshakes::new(MAX_HANDSHAKES, MAX_HANDSHAKES_PER_ADDRESS);
    loop {
        tokio::select! {
            incoming = endpoint.accept() => {
                let Some(incoming) = incoming else { break };
                let ip = incoming.remote_address().ip();
                if !handshakes.admits(ip) {
                    tracing::debug!(%ip, "refusing a connection: too many handshakes from there");
                    incoming.refuse();
                    continue;
                }
                // The client waits, unanswered, while the queue is full. A closed queue means
                // the listener is gone.
                if ready.reserve().await.is_err() {
                    break;
                }
                let ready = ready.clone();
                handshakes.start(ip, async move {
                    match handshake(incoming, max_frame_size, stream_timeout).await {
                        Ok(connection) => {
                            if let Err(mpsc::error::SendError(connection)) =
                                ready.send(connection).await
                            {
                                refuse(&connection);
                            }
                        }
                        Err(error) => tracing::debug!(%error, "dropping incoming connection"),
                    }
                });
            }
            () = handshakes.reap() => {}
        }
    }
}

/// Completes the QUIC handshake, then waits for the client's stream and checks its header.
async fn handshake(
    incoming: Incoming,
    max_frame_size: u32,
    stream_timeout: Duration,
) -> Result<Connection, Error> {
    let conn = incoming.await?;
    let opened = timeout(stream_timeout, async {
        let (send, mut recv) = conn.accept_bi().await?;
        let mut header = [0; STREAM_HEADER.len()];
        recv.read_exact(&mut header)
            .await
            .map_err(|error| match error {
                quinn::ReadExactError::FinishedEarly(_) => Error::BadHeader,
                quinn::ReadExactError::ReadError(error) => error.into(),
            })?;
        if header == STREAM_HEADER {
            Ok((send, recv))
        } else {
            Err(Error::BadHeader)
        }
    })
    .await
    .unwrap_or(Err(Error::StreamTimeout));
    match opened {
        Ok((send, recv)) => Ok(Connection::new(conn, send, recv, max_frame_size, None)),
        Err(error) => {
            conn.close(VarInt::from_u32(CLOSE_PROTOCOL), b"no valid stream");
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;

    use quinn::ConnectionError;

    use super::*;
    use crate::tests::listener;
    use crate::{ClientConfig, Verify, connect};

    fn client() -> ClientConfig {
        ClientConfig::new(Verify::Insecure, "localhost")
    }

    /// Waits until `count` handshaken connections wait for `accept`.
    async fn queued(listener: &Listener, count: usize) {
        while listener.ready.lock().await.len() < count {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    #[tokio::test]
    async fn closing_closes_the_connections_never_accepted() {
        let listener = listener(1024).await;
        let client = connect(listener.local_addr(), client())
            .await
            .expect("connect");
        queued(&listener, 1).await;
        listener.close();
        // Keep-alives would hold a connection that is still open well past this.
        let ended = timeout(Duration::from_secs(3), client.recv())
            .await
            .expect("the client is still connected");
        assert!(
            matches!(&ended, Err(Error::Connection(ConnectionError::ApplicationClosed(close)))
                if close.error_code == VarInt::from_u32(CLOSE_LISTENER)),
            "{ended:?}"
        );
        assert!(matches!(
            listener.accept().await,
            Err(Error::ListenerClosed)
        ));
    }

    #[tokio::test]
    async fn handshakes_wait_while_the_accept_queue_is_full() {
        let listener = listener(1024).await;
        let mut waiting = Vec::new();
        for _ in 0..ACCEPT_QUEUE {
            waiting.push(
                connect(listener.local_addr(), client())
                    .await
                    .expect("connect"),
            );
        }
        queued(&listener, ACCEPT_QUEUE).await;
        let mut late = pin!(connect(listener.local_addr(), client()));
        assert!(
            timeout(Duration::from_millis(300), &mut late)
                .await
                .is_err(),
            "a handshake completed with the accept queue full"
        );
        listener.accept().await.expect("accept");
        late.await.expect("connect once there is room");
    }
}
