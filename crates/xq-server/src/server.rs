//! The relay as a service: listeners, the driver task, and a handle to stop it.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rand::TryRng;
use rand::rngs::SysRng;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use xq_transport::{Listener, Options, TransportError};

use crate::driver::{Driver, transport_label};
use crate::{Config, Relay};

/// A running relay: it serves every listener it was built with until it is shut down.
///
/// Build one with [`Server::builder`]. Dropping the handle shuts the relay down in the
/// background; [`Server::shutdown`] does it and waits until it is done.
#[derive(Debug)]
pub struct Server {
    urls: Vec<String>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

/// Settings for a [`Server`]: where to listen, the core's [`Config`] and the transports'
/// [`Options`].
#[derive(Clone, Debug)]
pub struct Builder {
    listen: Vec<String>,
    config: Config,
    transport: Options,
    queue_frames: usize,
    seed: Option<[u8; 32]>,
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
            queue_frames: 1024,
            seed: None,
        }
    }

    /// The URLs clients connect to, one per listener in the order they were given, with the
    /// real port where port 0 was asked for and, for QUIC, the certificate fingerprint.
    #[must_use]
    pub fn local_urls(&self) -> &[String] {
        &self.urls
    }

    /// Serves until `signal` completes (SIGINT, a test's trigger…), then shuts down as
    /// [`Server::shutdown`] does.
    pub async fn run_until(mut self, signal: impl Future<Output = ()>) {
        tokio::select! {
            () = signal => self.shutdown().await,
            result = &mut self.task => report(result),
        }
    }

    /// Shuts down gracefully and waits until it is done: stops accepting, pauses running
    /// clocks, sends every client [`xq_protocol::DisconnectReason::ShuttingDown`] and closes
    /// every connection after its last frames (waiting a few seconds at most for slow peers).
    pub async fn shutdown(self) {
        // The driver may have stopped already; then there is nobody to tell.
        let _ = self.stop.send(());
        report(self.task.await);
    }
}

impl Builder {
    /// Adds a listener (`mem://name`, `udp://host:port`, `quic://host:port`; port 0 picks a
    /// free port, see [`Server::local_urls`]).
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
    /// QUIC certificate is kept).
    #[must_use]
    pub fn transport(mut self, options: Options) -> Self {
        self.transport = options;
        self
    }

    /// Sets how many frames may wait for one connection before the relay gives up on it as
    /// too slow (default 1024).
    #[must_use]
    pub fn queue_frames(mut self, frames: usize) -> Self {
        self.queue_frames = frames;
        self
    }

    /// Fixes the seed of room codes, tokens and colour draws (tests); by default it is drawn
    /// from the operating system.
    #[must_use]
    pub fn seed(mut self, seed: [u8; 32]) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Opens every listener and starts serving. Must be called within a tokio runtime.
    ///
    /// # Errors
    ///
    /// A [`StartError`] if there is no listener, one cannot be opened, or no seed can be
    /// drawn. Listeners opened before the failure are closed again.
    pub async fn start(self) -> Result<Server, StartError> {
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
            urls.push(local);
            listeners.push((listener, transport_label(url)));
        }
        let relay = Relay::new(self.config, seed);
        let driver = Driver::new(relay, listeners, self.queue_frames);
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(driver.run(stopped));
        Ok(Server { urls, stop, task })
    }
}

fn report(result: Result<(), tokio::task::JoinError>) {
    if let Err(err) = result {
        tracing::error!(%err, "the relay's task failed");
    }
}
