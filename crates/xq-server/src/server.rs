//! The relay as a service: listeners, the driver task, and a handle to stop it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rand::TryRng;
use rand::rngs::SysRng;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use xq_session::Timestamp;
use xq_store::{OpenRoom, Storage, StoreError};
use xq_transport::{Listener, Options, TransportError};

use crate::admission::Admission;
use crate::committer::Committer;
use crate::driver::{Driver, DriverSettings, transport_label};
use crate::{ClusterMode, Config, Directory, MetricsHandle, Relay};

/// A running relay: it serves every listener it was built with until it is shut down.
///
/// Build one with [`Server::builder`]. Dropping the handle shuts the relay down in the
/// background; [`Server::shutdown`] does it and waits until it is done.
///
/// With [storage](Builder::storage), every accepted command is committed before its events
/// are sent, in groups: a relay killed at any moment and restarted on the same storage has
/// every move any client saw, and its open rooms back.
#[derive(Debug)]
pub struct Server {
    urls: Vec<String>,
    metrics: MetricsHandle,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), StoreError>>,
}

/// Settings for a [`Server`]: where to listen, the core's [`Config`], the transports'
/// [`Options`] and the storage, if any.
#[derive(Debug)]
pub struct Builder {
    listen: Vec<String>,
    config: Config,
    transport: Options,
    max_connections: usize,
    max_connections_per_address: usize,
    seed: Option<[u8; 32]>,
    storage: Option<Box<dyn Storage>>,
    directory: Option<Arc<dyn Directory>>,
}

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// No listener URL was given.
    #[error("no address to listen on")]
    NoListener,
    /// A listener could not be opened (bad URL, address in use, unreadable certificate…).
    #[error("cannot listen on {url}: {source}")]
    Listen {
        /// The URL as given.
        url: String,
        /// What the transport reported.
        source: TransportError,
    },
    /// The operating system gave no randomness for room codes and tokens.
    #[error("no randomness for the relay's seed: {0}")]
    Seed(String),
    /// The open rooms could not be read from the storage.
    #[error("cannot read the open rooms: {0}")]
    Restore(#[source] StoreError),
    /// The storage thread could not be started.
    #[error("cannot start the storage thread: {0}")]
    StorageThread(#[source] std::io::Error),
}

impl Server {
    /// Settings with no listener, the default [`Config`] and the default transport
    /// [`Options`].
    #[must_use]
    pub fn builder() -> Builder {
        Builder {
            listen: Vec::new(),
            config: Config::default(),
            transport: Options::default(),
            max_connections: 10_000,
            max_connections_per_address: 64,
            seed: None,
            storage: None,
            directory: None,
        }
    }

    /// The URLs clients connect to, one per listener in the order they were given, with the
    /// real port where port 0 was asked for and, for QUIC, the certificate fingerprint.
    #[must_use]
    pub fn local_urls(&self) -> &[String] {
        &self.urls
    }

    /// A handle that reads the relay's counters while it serves (for a metrics endpoint).
    #[must_use]
    pub fn metrics(&self) -> MetricsHandle {
        self.metrics.clone()
    }

    /// Serves until `signal` completes (SIGINT, a test's trigger…), then shuts down as
    /// [`Server::shutdown`] does.
    ///
    /// # Errors
    ///
    /// The storage failed: the relay stopped serving at once rather than send what it could
    /// not commit.
    pub async fn run_until(mut self, signal: impl Future<Output = ()>) -> Result<(), StoreError> {
        tokio::select! {
            () = signal => {
                let _ = self.stop.send(());
                report(self.task.await)
            }
            result = &mut self.task => report(result),
        }
    }

    /// Shuts down gracefully and waits until it is done: stops accepting, pauses running
    /// clocks (and commits that, with storage), sends every client
    /// [`xq_protocol::DisconnectReason::ShuttingDown`], closes every connection after its
    /// last frames (waiting a few seconds at most for slow peers), and then waits, as long at
    /// most, until the listeners' sockets are closed, ending at once the connections of peers
    /// that did not answer: a relay started again on the same ports binds them. A storage
    /// failure is logged; [`run_until`](Self::run_until) returns it.
    pub async fn shutdown(self) {
        // The driver may have stopped already; then there is nobody to tell.
        let _ = self.stop.send(());
        if let Err(err) = report(self.task.await) {
            tracing::error!(%err, "the relay stopped on a storage failure");
        }
    }
}

impl Builder {
    /// Adds a listener (`mem://name`, `udp://host:port`, `quic://host:port`, and with the
    /// `ws` feature `ws://host:port` and `wss://host:port`; port 0 picks a free port, see
    /// [`Server::local_urls`]). The caps per address count a WebSocket client by its TCP
    /// peer's address, as they count the others.
    #[must_use]
    pub fn listen(mut self, url: impl Into<String>) -> Self {
        self.listen.push(url.into());
        self
    }

    /// Sets the core's settings.
    #[must_use]
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets how long a disconnected player's seat is held (see [`Config::grace`]).
    #[must_use]
    pub fn grace(mut self, grace: Duration) -> Self {
        self.config.grace = grace;
        self
    }

    /// Sets the transport options every listener uses (frame limit, idle timeout, where the
    /// QUIC certificate is kept, and with the `ws` feature the WebSocket listeners' TLS
    /// files, allowed origins and site).
    #[must_use]
    pub fn transport(mut self, options: Options) -> Self {
        self.transport = options;
        self
    }

    /// Sets how many connections the relay holds at once (default 10 000); more are turned
    /// away at accept with [`xq_protocol::DisconnectReason::RelayFull`].
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Sets how many connections one source address (IP, whatever the port) may hold at once
    /// (default 64, room for a household or an office behind one NAT); more are turned away at
    /// accept with [`xq_protocol::DisconnectReason::RelayFull`].
    #[must_use]
    pub fn max_connections_per_address(mut self, connections: usize) -> Self {
        self.max_connections_per_address = connections;
        self
    }

    /// Fixes the seed of room codes, tokens and colour draws (tests); by default it is drawn
    /// from the operating system.
    #[must_use]
    pub fn seed(mut self, seed: [u8; 32]) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Keeps the relay's state in `storage` (such as [`xq_store::SqliteStore`]): every
    /// accepted command is committed before its events are sent, and the rooms open in the
    /// storage are restored at start. Without it (the default) nothing survives the process.
    #[must_use]
    pub fn storage(mut self, storage: impl Storage + 'static) -> Self {
        self.storage = Some(Box::new(storage));
        self
    }

    /// Makes the relay a node of a cluster that shares rooms with other relays: new rooms
    /// take codes claimed in `directory`, and a room this node does not hold is looked up
    /// there (see [`ClusterMode`], kept as configured, or the default). The cluster's own
    /// storage goes to [`storage`](Self::storage).
    #[must_use]
    pub fn cluster(mut self, directory: Arc<dyn Directory>) -> Self {
        self.directory = Some(directory);
        self
    }

    /// Opens every listener and starts serving. Must be called within a tokio runtime.
    ///
    /// With storage, the open rooms are restored first ([`Relay::restore`]): their matches
    /// are rebuilt, their players can resume with their tokens within the grace period, and
    /// their clocks restart now. A room whose journal does not replay is logged and left out.
    ///
    /// # Errors
    ///
    /// A [`StartError`] if there is no listener, one cannot be opened, no seed can be drawn,
    /// or the storage cannot be read. Listeners opened before the failure are closed again.
    pub async fn start(mut self) -> Result<Server, StartError> {
        if self.listen.is_empty() {
            return Err(StartError::NoListener);
        }
        let seed = match self.seed {
            Some(seed) => seed,
            None => {
                let mut seed = [0; 32];
                SysRng
                    .try_fill_bytes(&mut seed)
                    .map_err(|err| StartError::Seed(err.to_string()))?;
                seed
            }
        };
        let restored = match self.storage {
            Some(storage) => Some(open_rooms(storage).await.map_err(StartError::Restore)?),
            None => None,
        };
        let mut listeners: Vec<(Arc<dyn Listener>, Arc<str>)> =
            Vec::with_capacity(self.listen.len());
        let mut urls = Vec::with_capacity(self.listen.len());
        for url in &self.listen {
            let listener: Arc<dyn Listener> = match xq_transport::listen(url, &self.transport).await
            {
                Ok(listener) => Arc::from(listener),
                Err(source) => {
                    for (opened, _) in &listeners {
                        opened.close();
                    }
                    let url = url.clone();
                    return Err(StartError::Listen { url, source });
                }
            };
            let local = listener.local_url();
            tracing::info!(url = %local, "listening");
            // The listener's own URL spells its scheme as the transport names itself, however
            // the URL to listen on was typed (`UDP://` parses too).
            let label = transport_label(&local);
            urls.push(local);
            listeners.push((listener, label));
        }
        // A cluster mode needs a cluster: without a directory the relay is alone.
        match &self.directory {
            Some(directory) => {
                directory.listening_on(&urls);
                self.config.cluster.get_or_insert_with(ClusterMode::default);
            }
            None => self.config.cluster = None,
        }
        let mut relay = Relay::new(self.config, seed);
        let origin = Instant::now();
        let committer = match restored {
            Some((storage, rooms)) => {
                let count = rooms.len();
                for room in rooms {
                    if let Err(err) = relay.restore(Timestamp::from_millis(0), room) {
                        tracing::error!(%err, "room not restored");
                    }
                }
                tracing::info!(rooms = relay.room_count(), of = count, "rooms restored");
                match Committer::start(storage) {
                    Ok(committer) => Some(committer),
                    Err(err) => {
                        for (listener, _) in &listeners {
                            listener.close();
                        }
                        return Err(StartError::StorageThread(err));
                    }
                }
            }
            None => None,
        };
        let (requests, metrics) = mpsc::channel(8);
        let settings = DriverSettings {
            listeners,
            committer,
            admission: Admission::new(self.max_connections, self.max_connections_per_address),
            metrics,
            directory: self.directory,
        };
        let driver = Driver::new(relay, origin, settings);
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(driver.run(stopped));
        Ok(Server {
            urls,
            metrics: MetricsHandle { requests },
            stop,
            task,
        })
    }
}

/// Reads the open rooms off the runtime's threads, and hands the storage back.
async fn open_rooms(
    mut storage: Box<dyn Storage>,
) -> Result<(Box<dyn Storage>, Vec<OpenRoom>), StoreError> {
    let read = tokio::task::spawn_blocking(move || {
        let rooms = storage.open_rooms();
        rooms.map(|rooms| (storage, rooms))
    });
    read.await
        .unwrap_or_else(|err| Err(StoreError::Engine(Box::new(err))))
}

/// The driver's verdict; a driver that panicked is logged, and counts as stopped.
fn report(
    result: Result<Result<(), StoreError>, tokio::task::JoinError>,
) -> Result<(), StoreError> {
    result.unwrap_or_else(|err| {
        tracing::error!(%err, "the relay's task failed");
        Ok(())
    })
}
