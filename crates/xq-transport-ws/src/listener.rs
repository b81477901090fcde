//! The server side: one TCP port that serves plain HTTP (the site) and upgrades requests for
//! [`WS_PATH`](crate::WS_PATH) to WebSocket connections.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex as AsyncMutex, mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::timeout;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::Role;

use crate::counted::{Counted, Counters};
use crate::origin::Origins;
use crate::routes::{Answer, Routes};
use crate::slots::{Slot, Slots};
use crate::{Connection, Error, HandshakeLimits, ServerConfig, ServerTls, TransportConfig};

/// How many upgraded connections may wait for [`Listener::accept`]. While that many wait,
/// further upgraded connections wait in their place (see [`HandshakeLimits`]).
const ACCEPT_QUEUE: usize = 32;
/// How long the accept loop rests after a failed accept (out of file descriptors…), so that
/// it cannot spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// A WebSocket server: it accepts TCP connections, answers their HTTP requests, and hands out
/// those that upgrade at [`WS_PATH`](crate::WS_PATH).
///
/// Connections are served concurrently in the background, each bounded by the
/// [`HandshakeLimits`], so a slow or malicious client cannot hold up the others;
/// [`accept`](Self::accept) returns upgraded connections only. Closing or dropping the
/// listener stops accepting and closes the connections it has not handed out; accepted ones
/// stay open.
#[derive(Debug)]
pub struct Listener {
    local_addr: SocketAddr,
    tls: bool,
    ready: AsyncMutex<mpsc::Receiver<Connection>>,
    closed: AtomicBool,
    accepting: AbortHandle,
    /// Ends when the accept loop, and with it the listening socket, is gone.
    released: watch::Receiver<()>,
}

impl Listener {
    /// Binds a TCP socket to `addr` and starts serving.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOrigin`] for an allowed origin that is none, [`Error::Bind`] if the
    /// socket cannot be bound.
    pub async fn bind(addr: SocketAddr, config: ServerConfig) -> Result<Self, Error> {
        let ServerConfig {
            transport,
            tls,
            allowed_origins,
            site,
            limits,
        } = config;
        let is_tls = tls.is_some();
        let routes = Routes {
            origins: Origins::new(&allowed_origins)?,
            tls: is_tls,
            site,
        };
        let socket = TcpListener::bind(addr).await.map_err(Error::Bind)?;
        let local_addr = socket.local_addr().map_err(Error::Bind)?;
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_header_size(limits.max_header_size);
        let (sender, ready) = mpsc::channel(ACCEPT_QUEUE);
        let (released_tx, released) = watch::channel(());
        let server = Arc::new(Server {
            routes: Arc::new(routes),
            tls,
            http,
            transport,
            limits,
        });
        let socket = Socket {
            listener: socket,
            _released: released_tx,
        };
        let accepting = tokio::spawn(accept_loop(socket, server, sender)).abort_handle();
        Ok(Self {
            local_addr,
            tls: is_tls,
            ready: AsyncMutex::new(ready),
            closed: AtomicBool::new(false),
            accepting,
            released,
        })
    }

    /// The address the listener is bound to, with the actual port if bound to port 0.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Whether the listener serves `wss` (TLS) rather than `ws`.
    #[must_use]
    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// Waits for the next upgraded connection.
    ///
    /// # Errors
    ///
    /// [`Error::ListenerClosed`] once the listener is closed.
    pub async fn accept(&self) -> Result<Connection, Error> {
        let mut ready = self.ready.lock().await;
        if !self.closed.load(Ordering::Acquire) {
            // Closing wakes this by ending the channel, unless a last connection slipped in.
            if let Some(connection) = ready.recv().await
                && !self.closed.load(Ordering::Acquire)
            {
                return Ok(connection);
            }
        }
        // `close` could not drain the queue while this held it.
        drop_queued(&mut ready);
        Err(Error::ListenerClosed)
    }

    /// Stops accepting: the listening socket closes, pending and later
    /// [`accept`](Self::accept) calls fail, and connections not handed out yet are dropped
    /// (their clients see the connection lost). Accepted connections stay open.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        // The loop's task holds the socket and every connection not handed out.
        self.accepting.abort();
        // A pending `accept` holds the queue; it drains it itself once woken.
        if let Ok(mut ready) = self.ready.try_lock() {
            drop_queued(&mut ready);
        }
    }

    /// Waits until the listener, once [closed](Self::close), has let go of its socket, so
    /// that its address can be bound again. Accepted connections have sockets of their own.
    pub async fn closed(&self) {
        let mut released = self.released.clone();
        // Only ever ends with the sender; there is no value to wait for.
        while released.changed().await.is_ok() {}
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.close();
    }
}

/// Closes the queue and drops every connection still in it.
fn drop_queued(ready: &mut mpsc::Receiver<Connection>) {
    ready.close();
    while ready.try_recv().is_ok() {}
}

/// The listening socket, and the signal that it is gone: the socket is declared first, so it
/// is closed first.
struct Socket {
    listener: TcpListener,
    _released: watch::Sender<()>,
}

/// What every connection of a listener is served with.
struct Server {
    routes: Arc<Routes>,
    tls: Option<ServerTls>,
    http: http1::Builder,
    transport: TransportConfig,
    limits: HandshakeLimits,
}

/// Accepts TCP connections and serves each in a task of its own, as long as it has a place.
/// The tasks live in a set that goes with this future: when the listener is closed, every
/// connection not handed out goes too.
async fn accept_loop(socket: Socket, server: Arc<Server>, ready: mpsc::Sender<Connection>) {
    let limits = &server.limits;
    let slots = Slots::new(limits.max_pending, limits.max_pending_per_address);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            accepted = socket.listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let Some(slot) = slots.take(peer.ip()) else {
                        tracing::debug!(%peer, "refusing a connection: too many handshakes from there or in all");
                        continue;
                    };
                    tasks.spawn(serve(stream, peer, slot, Arc::clone(&server), ready.clone()));
                }
                Err(error) => {
                    tracing::debug!(%error, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            Some(_) = tasks.join_next() => {}
        }
    }
}

/// Serves one TCP connection until it upgrades or ends; an upgraded one is queued for
/// [`Listener::accept`], and gives its place back once it is taken.
async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    _slot: Slot,
    server: Arc<Server>,
    ready: mpsc::Sender<Connection>,
) {
    // Frames are small and wanted at once.
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "cannot disable Nagle's algorithm");
    }
    let counters = Arc::new(Counters::default());
    let stream = Counted::new(stream, Arc::clone(&counters));
    let upgraded = match &server.tls {
        None => server.http(stream, &counters).await,
        Some(tls) => {
            let limit = server.limits.handshake_timeout;
            match timeout(limit, tls.acceptor().accept(stream)).await {
                Ok(Ok(stream)) => server.http(stream, &counters).await,
                Ok(Err(error)) => {
                    tracing::debug!(%peer, %error, "tls handshake failed");
                    None
                }
                Err(_) => {
                    tracing::debug!(%peer, "tls handshake timed out");
                    None
                }
            }
        }
    };
    let Some(upgraded) = upgraded else {
        return;
    };
    let config = server.transport.websocket();
    let ws =
        WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config)).await;
    let connection = Connection::start(ws, peer, counters, &server.transport);
    // Waits while the queue is full, holding its place; fails once the listener is closed,
    // and dropping the connection ends it.
    let _ = ready.send(connection).await;
}

impl Server {
    /// Answers the requests on `io` until the connection upgrades (and returns it) or ends.
    async fn http<S>(&self, io: S, counters: &Counters) -> Option<Upgraded>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let upgrade: Arc<Mutex<Option<OnUpgrade>>> = Arc::default();
        let service = {
            let (routes, upgrade) = (Arc::clone(&self.routes), Arc::clone(&upgrade));
            service_fn(move |request: Request<Incoming>| {
                let (parts, body) = request.into_parts();
                let response = match routes.answer(&parts) {
                    Answer::Upgrade(response) => {
                        let on = hyper::upgrade::on(Request::from_parts(parts, body));
                        *upgrade.lock().unwrap_or_else(PoisonError::into_inner) = Some(on);
                        response
                    }
                    Answer::Plain(response) => response,
                };
                std::future::ready(Ok::<_, Infallible>(response))
            })
        };
        let connection = self
            .http
            .serve_connection(TokioIo::new(io), service)
            .with_upgrades();
        tokio::select! {
            served = connection => {
                // A header timeout, a head too large (answered with 431), a peer gone…
                if let Err(error) = served {
                    tracing::debug!(%error, "http connection ended");
                }
            }
            () = stalled(counters, self.limits.stall_timeout) => {
                tracing::debug!("closing a stalled http connection");
                return None;
            }
        }
        let on = upgrade
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        match timeout(self.limits.handshake_timeout, on).await {
            Ok(Ok(upgraded)) => Some(upgraded),
            Ok(Err(error)) => {
                tracing::debug!(%error, "upgrade failed");
                None
            }
            Err(_) => {
                tracing::debug!("upgrade timed out");
                None
            }
        }
    }
}

/// Returns once no byte has moved through the socket counted by `counters` for a whole
/// `after` (so within twice that of the last one).
async fn stalled(counters: &Counters, after: Duration) {
    let mut moved = counters.moved();
    loop {
        tokio::time::sleep(after).await;
        let now = counters.moved();
        if now == moved {
            return;
        }
        moved = now;
    }
}
