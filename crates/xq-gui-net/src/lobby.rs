//! The connect panel's logic: finding a game on a relay, or hosting one.

use tokio::task::JoinHandle;
use xq_protocol::{RoomCode, RoomOptions};

use crate::host::Launch;
use crate::{ConnectError, Entry, Host, HostConfig, Network, Pending, RemoteGame, Wake};

/// What the connect panel does, without the panel: it starts connections and a hosted relay
/// in the background, reports progress and errors in words, and hands over each game once it
/// exists ([`poll`](Self::poll), every frame).
///
/// Hosting chains two steps: once the relay is up, this screen's own client creates a room
/// on it, so the host plays through the same [`RemoteGame`] as everyone else.
#[derive(Default)]
pub struct Lobby {
    /// Started on first use: a GUI that never goes online runs no network thread.
    network: Option<Network>,
    connecting: Option<Pending<Result<RemoteGame, ConnectError>>>,
    starting: Option<Launch>,
    host: Option<Host>,
    /// The last hosted relay's shutdown: the next one waits for it, as the old relay holds
    /// its ports until it is done.
    stopping: Option<JoinHandle<()>>,
    /// Called when a game has news; kept for the room a hosted relay creates.
    wake: Option<Wake>,
    room: Option<RoomCode>,
    status: Option<String>,
    error: Option<String>,
}

impl Lobby {
    /// An idle lobby.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Connects to the relay at `url` (or the first that answers of a comma-separated list
    /// of a cluster's nodes) and enters a room as `entry` says. The game arrives through
    /// [`poll`](Self::poll). A URL or list that does not parse is reported at once in
    /// [`error`](Self::error), any other failure there once connecting gives up.
    pub fn connect(&mut self, url: &str, entry: Entry, wake: Wake) {
        self.error = None;
        let Some(network) = self.network() else {
            return;
        };
        match network.connect(url.trim(), entry, wake) {
            Ok(pending) => {
                self.connecting = Some(pending);
                self.status = Some(match entry {
                    Entry::QuickMatch(_) => format!("Looking for an opponent on {url}…"),
                    _ => format!("Connecting to {url}…"),
                });
            }
            Err(error) => self.fail(error.to_string()),
        }
    }

    /// Creates a room on the relay at `url`.
    pub fn create(&mut self, url: &str, wake: Wake) {
        self.connect(url, Entry::Create(RoomOptions::default()), wake);
    }

    /// Joins the room with the code typed in `code`.
    pub fn join(&mut self, url: &str, code: &str, wake: Wake) {
        if let Some(code) = self.code(code) {
            self.connect(url, Entry::Join(code), wake);
        }
    }

    /// Waits for an opponent on the relay at `url`.
    pub fn quick_match(&mut self, url: &str, wake: Wake) {
        self.connect(url, Entry::QuickMatch(RoomOptions::default()), wake);
    }

    /// Watches the room with the code typed in `code`.
    pub fn spectate(&mut self, url: &str, code: &str, wake: Wake) {
        if let Some(code) = self.code(code) {
            self.connect(url, Entry::Spectate(code), wake);
        }
    }

    /// Starts a relay in this process as `config` says, then creates a room on it.
    pub fn host(&mut self, config: HostConfig, wake: Wake) {
        self.error = None;
        self.stop_hosting();
        let after = self.stopping.take();
        let Some(network) = self.network() else {
            return;
        };
        self.starting = Some(Host::launch(network, config, after));
        self.wake = Some(wake);
        self.status = Some("Starting the relay…".to_owned());
    }

    /// Shuts the hosted relay down (its games end for every player), or the one being
    /// started once it is up.
    pub fn stop_hosting(&mut self) {
        self.status = None;
        let Some(network) = self.network.as_ref() else {
            return;
        };
        if let Some(launch) = self.starting.take() {
            self.stopping = Some(launch.stop(network));
        } else if let Some(host) = self.host.take() {
            self.stopping = Some(host.stop(network));
        }
    }

    /// Takes in what the background tasks finished: the new game, once there is one.
    pub fn poll(&mut self) -> Option<RemoteGame> {
        if let Some(result) = self
            .starting
            .as_ref()
            .and_then(|launch| launch.pending.poll())
        {
            self.starting = None;
            match result {
                Ok(host) => {
                    let url = host.own_url().to_owned();
                    self.host = Some(host);
                    if let Some(wake) = self.wake.take() {
                        self.create(&url, wake);
                    }
                }
                Err(error) => self.fail(format!("cannot host: {error}")),
            }
        }
        let result = self.connecting.as_ref().and_then(Pending::poll)?;
        self.connecting = None;
        match result {
            Ok(game) => {
                self.room = Some(game.code());
                self.status = None;
                Some(game)
            }
            Err(error) => {
                self.fail(error.to_string());
                None
            }
        }
    }

    /// Whether a connection or a relay is being started: the buttons wait.
    #[must_use]
    pub const fn is_busy(&self) -> bool {
        self.connecting.is_some() || self.starting.is_some()
    }

    /// What is being done, in words.
    #[must_use]
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// Why the last attempt failed, in words.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The code of the room last entered, to share with the opponent.
    #[must_use]
    pub const fn room(&self) -> Option<RoomCode> {
        self.room
    }

    /// The relay hosted in this process, once it is up.
    #[must_use]
    pub const fn hosted(&self) -> Option<&Host> {
        self.host.as_ref()
    }

    /// The network thread, started on first use; `None` (with the error noted) if it cannot
    /// start.
    fn network(&mut self) -> Option<&Network> {
        if self.network.is_none() {
            match Network::new() {
                Ok(network) => self.network = Some(network),
                Err(error) => self.fail(format!("cannot start the network thread: {error}")),
            }
        }
        self.network.as_ref()
    }

    /// Parses a typed room code, noting the error if it is none.
    fn code(&mut self, text: &str) -> Option<RoomCode> {
        match text.trim().parse() {
            Ok(code) => Some(code),
            Err(error) => {
                self.fail(format!("{error}"));
                None
            }
        }
    }

    fn fail(&mut self, error: String) {
        self.status = None;
        self.error = Some(error);
    }
}
