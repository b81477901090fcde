//! The tokio endpoint: one bound socket and its driver task.

use std::net::SocketAddr;
use std::pin::pin;
use std::sync::{Arc, Weak};
use std::time::Instant;

use rand::TryRng;
use rand::rngs::SysRng;
use tokio::sync::watch;

use crate::connection::{Connection, Output};
use crate::driver::{self, ConnState, Shared};
use crate::proto::{self, LinkState};
use crate::{Config, Error, socket};

/// A bound UDP socket that makes and accepts connections.
///
/// A driver task spawned on the current tokio runtime does the IO. Dropping the endpoint
/// stops accepting; connections already made keep working until they are closed or dropped.
#[derive(Debug)]
pub struct Endpoint {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    closed: Closed,
}

impl Endpoint {
    /// Binds a socket and starts the driver. Must be called within a tokio runtime.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the socket cannot be created, configured or bound, or if the operating
    /// system gives no randomness for the seed.
    pub async fn bind(addr: SocketAddr, config: Config) -> Result<Self, Error> {
        let socket = socket::bind(addr, config.socket_buffer_size)?;
        let local_addr = socket.local_addr()?;
        let seed = match config.rng_seed {
            Some(seed) => seed,
            None => {
                let mut seed = [0; 32];
                SysRng
                    .try_fill_bytes(&mut seed)
                    .map_err(std::io::Error::other)?;
                seed
            }
        };
        let shared = Arc::new(Shared::new(proto::Endpoint::new(
            config,
            seed,
            Instant::now(),
        )));
        let (socket_open, closed) = watch::channel(());
        let bound = driver::Bound {
            socket,
            _open: socket_open,
        };
        tokio::spawn(driver::run(Arc::clone(&shared), bound));
        let closed = Closed {
            signal: closed,
            shared: Arc::downgrade(&shared),
        };
        Ok(Self {
            shared,
            local_addr,
            closed,
        })
    }

    /// The address the socket is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Connects to a server; completes once the handshake has, even if the server has closed
    /// the connection since: its frames are then received before the close.
    ///
    /// # Errors
    ///
    /// [`Error::Connection`] with [`TimedOut`](proto::ConnectionError::TimedOut) if the server
    /// does not answer within [`Config::idle_timeout`]; [`Error::EndpointClosed`] after
    /// [`close`](Self::close).
    pub async fn connect(&self, remote: SocketAddr) -> Result<Connection, Error> {
        let connection = {
            let mut state = self.shared.lock();
            if !state.open {
                return Err(Error::EndpointClosed);
            }
            let id = state.core.connect(Instant::now(), remote);
            state.conns.insert(id, ConnState::default());
            // Made before waiting, so that a cancelled `connect` drops it and the link goes.
            Connection::new(Arc::clone(&self.shared), id, remote)
        };
        self.shared.wake_driver.notify_one();
        let connected = connection
            .wait(Output::None, |link| match link.state() {
                // The server may have closed already, right after its last frames (a relay
                // turning the client away says why, then closes): those are still to be read,
                // and the close is reported after them, by `recv`.
                _ if link.is_established() => Some(Ok(())),
                LinkState::Connecting => None,
                _ => Some(
                    link.close_reason()
                        .cloned()
                        .map_or(Ok(()), |reason| Err(reason.into())),
                ),
            })
            .await;
        match connected {
            Err(_) if !self.shared.lock().open => Err(Error::EndpointClosed),
            connected => connected.map(|()| connection),
        }
    }

    /// Waits for a client to complete its handshake.
    ///
    /// # Errors
    ///
    /// [`Error::EndpointClosed`] once the endpoint is closed.
    pub async fn accept(&self) -> Result<Connection, Error> {
        loop {
            let mut notified = pin!(self.shared.incoming.notified());
            notified.as_mut().enable();
            {
                let mut state = self.shared.lock();
                if !state.open {
                    return Err(Error::EndpointClosed);
                }
                while let Some(id) = state.core.poll_incoming() {
                    let Some(remote) = state.core.remote_addr(id) else {
                        continue;
                    };
                    state.conns.insert(id, ConnState::default());
                    return Ok(Connection::new(Arc::clone(&self.shared), id, remote));
                }
            }
            notified.await;
        }
    }

    /// A handle that waits until the socket is closed, so that its address can be bound again.
    ///
    /// The driver keeps the socket until the endpoint is closed or dropped **and** every
    /// connection is dropped and has finished closing: a graceful close drains for a few
    /// round trips after the last exchange, to acknowledge the peer's repeated close. The
    /// handle outlives the endpoint, so a caller can drop the endpoint and then wait.
    #[must_use]
    pub fn closed(&self) -> Closed {
        self.closed.clone()
    }

    /// Stops accepting and closes every connection gracefully. Pending and future `accept`
    /// and `connect` calls fail with [`Error::EndpointClosed`]; the driver ends once every
    /// connection has finished closing.
    pub fn close(&self) {
        {
            let mut state = self.shared.lock();
            state.stop();
            let ids: Vec<_> = state.core.link_ids().collect();
            for &id in &ids {
                if let Some(link) = state.core.link_mut(id) {
                    link.close();
                }
            }
            // A link still connecting is closed at once, and only its waiting `connect` would
            // notice.
            state.wake(&ids);
        }
        self.shared.incoming.notify_waiters();
        self.shared.wake_driver.notify_one();
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.shared.lock().stop();
        self.shared.incoming.notify_waiters();
        self.shared.wake_driver.notify_one();
    }
}

/// Waits until an [`Endpoint`]'s socket is closed, without holding the endpoint: see
/// [`Endpoint::closed`]. Clones wait for the same socket.
#[derive(Debug, Clone)]
pub struct Closed {
    signal: watch::Receiver<()>,
    /// Only for [`abort`](Self::abort): the handle does not keep the driver's state alive.
    shared: Weak<Shared>,
}

impl Closed {
    /// Returns once the socket is closed (at once if it is already).
    pub async fn wait(mut self) {
        // Nothing is ever sent: the driver's task drops the sender, after the socket.
        while self.signal.changed().await.is_ok() {}
    }

    /// Ends at once every connection still on the socket, without the close exchange, so
    /// that the socket closes as soon as the endpoint is closed or dropped: for a caller that
    /// has waited long enough for peers that do not answer, whose graceful close would last
    /// until the idle timeout. Their handles then report
    /// [`ConnectionError::LocallyClosed`](crate::proto::ConnectionError::LocallyClosed).
    pub fn abort(&self) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        {
            let mut state = shared.lock();
            let ids: Vec<_> = state.core.link_ids().collect();
            for &id in &ids {
                if let Some(link) = state.core.link_mut(id) {
                    link.abort();
                }
            }
            state.wake(&ids);
        }
        shared.wake_driver.notify_one();
    }
}
