//! The network side of the GUI: a tokio runtime on a background thread, and connecting to a
//! relay through it without blocking a frame.

use std::sync::mpsc as std_mpsc;
use std::thread;
use std::time::Duration;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use xq_client::{Client, ClientError, ClientOptions, ParseRelaysError, Relays};
use xq_protocol::{RoomCode, RoomOptions};
use xq_transport::{Address, TransportError};

use crate::{RemoteGame, Wake, remote};

/// How long connecting may take before the relay counts as unreachable: long enough for a
/// distant relay, short enough that a wrong address is soon reported.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// The runtime every network game and hosted relay of the GUI runs on: one background thread
/// (two players and a relay need no more), stopped when this is dropped.
pub struct Network {
    handle: Handle,
    /// Dropping it ends the thread, and with it every task.
    _stop: oneshot::Sender<()>,
}

/// How to enter a room on the relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Create a room and wait in it; the code is shown to share.
    Create(RoomOptions),
    /// Take the free seat of the room with this code.
    Join(RoomCode),
    /// Be paired with the next player who asks the same.
    QuickMatch(RoomOptions),
    /// Watch the room with this code.
    Spectate(RoomCode),
}

/// Why no game came of a connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The list of relay URLs has an empty item, or none at all.
    #[error("bad relay list: {0}")]
    Relays(#[source] ParseRelaysError),
    /// A relay URL does not parse.
    #[error("bad relay URL: {0}")]
    Url(#[source] TransportError),
    /// The relay could not be reached or did not answer, or connecting found the URL wrong
    /// where parsing cannot tell (a host that does not resolve, a QUIC URL with no valid way
    /// to trust the relay).
    #[error("cannot reach the relay: {0}")]
    Unreachable(#[source] ClientError),
    /// The relay refused to seat the player, or the connection failed meanwhile.
    #[error("{0}")]
    Entry(#[source] ClientError),
}

/// A result that a network task will deliver: poll it each frame.
#[derive(Debug)]
pub struct Pending<T> {
    receiver: std_mpsc::Receiver<T>,
}

impl Network {
    /// Starts the runtime's thread.
    ///
    /// # Errors
    ///
    /// The operating system refused the runtime or the thread.
    pub fn new() -> std::io::Result<Self> {
        let runtime = Builder::new_current_thread().enable_all().build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        thread::Builder::new()
            .name("xq-network".to_owned())
            .spawn(move || {
                // Either a stop or the sender's drop ends the wait; both mean stop.
                let _ = runtime.block_on(stopped);
            })?;
        Ok(Self {
            handle,
            _stop: stop,
        })
    }

    /// Connects to the relay at `url` and enters a room as `entry` says, in the background.
    /// `wake` is called whenever the game has news, once it exists.
    ///
    /// `url` may be a relay cluster's nodes as a comma-separated list
    /// (`udp://relay-a:7878,udp://relay-b:7878`): the game goes through the first that
    /// answers, follows a node's redirect to the node that owns the room, and when its relay
    /// goes away resumes through the next one (see [`xq_client::Client`]).
    ///
    /// # Errors
    ///
    /// [`ConnectError::Relays`] at once for an empty list or item, [`ConnectError::Url`] when
    /// an item does not parse as a transport URL. What only
    /// connecting checks (that the host resolves; for QUIC, that the URL names a valid way to
    /// trust the relay, such as a well-formed `fp`) is reported later, through the
    /// [`Pending`], as [`ConnectError::Unreachable`].
    pub fn connect(
        &self,
        url: &str,
        entry: Entry,
        wake: Wake,
    ) -> Result<Pending<Result<RemoteGame, ConnectError>>, ConnectError> {
        let relays: Relays = url.parse().map_err(ConnectError::Relays)?;
        for url in relays.iter() {
            url.parse::<Address>().map_err(ConnectError::Url)?;
        }
        Ok(self.spawn(async move { enter(&relays, entry, wake).await }))
    }

    /// Runs `task` on the runtime; its output arrives through the [`Pending`].
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        task: impl Future<Output = T> + Send + 'static,
    ) -> Pending<T> {
        let (pending, deliver) = Pending::channel();
        self.handle.spawn(async move {
            // The receiver is gone when the GUI gave up waiting; the result is dropped then.
            let _ = deliver.send(task.await);
        });
        pending
    }

    /// Runs `task` on the runtime, for a caller that awaits it there.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        task: impl Future<Output = T> + Send + 'static,
    ) -> JoinHandle<T> {
        self.handle.spawn(task)
    }
}

impl<T> Pending<T> {
    /// A result to come, and the sender that delivers it.
    pub(crate) fn channel() -> (Self, std_mpsc::Sender<T>) {
        let (sender, receiver) = std_mpsc::channel();
        (Self { receiver }, sender)
    }

    /// The result, once it has arrived (only once).
    pub fn poll(&self) -> Option<T> {
        self.receiver.try_recv().ok()
    }
}

/// Connects, enters the room and starts the game's task.
async fn enter(relays: &Relays, entry: Entry, wake: Wake) -> Result<RemoteGame, ConnectError> {
    let options = ClientOptions {
        name: concat!("xq-gui/", env!("CARGO_PKG_VERSION")).to_owned(),
        handshake_timeout: HANDSHAKE_TIMEOUT,
        ..ClientOptions::default()
    };
    let client = Client::connect_relays(relays, options)
        .await
        .map_err(ConnectError::Unreachable)?;
    let room = match entry {
        Entry::Create(options) => client.create(options).await,
        Entry::Join(code) => client.join(code).await,
        Entry::QuickMatch(options) => client.quick_match(options).await,
        Entry::Spectate(code) => client.spectate(code).await,
    }
    .map_err(ConnectError::Entry)?;
    remote::start(client, room, wake).ok_or(ConnectError::Entry(ClientError::NotSeated))
}
