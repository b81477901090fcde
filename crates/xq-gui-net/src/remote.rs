//! A game on a relay: the model's [`RelayGame`] over `xq_client`'s tokio client.

mod worker;

use std::sync::mpsc as std_mpsc;

use tokio::sync::mpsc;
use xq_client::{Client, Room};
use xq_gui_model::{BackendError, RelayGame, RelayLink, RelayNews};
use xq_session::Action;

use self::worker::Request;

pub use self::worker::Wake;

/// A game in a room on a relay, played (or watched) from this screen: what it shows and what
/// it allows is the model's [`RelayGame`], read off the client's mirror; the client itself
/// lives in a task on the [`crate::Network`]'s runtime, behind a [`TaskLink`].
///
/// Each report from the task also calls the [`Wake`] given at connection, so an idle window
/// redraws when the opponent moves. Dropping the game leaves the room and closes the
/// connection.
pub type RemoteGame = RelayGame<TaskLink>;

/// The link from a [`RemoteGame`] to its client's task: it only sends on one channel and
/// polls another, so the GUI's frame never waits for the network.
pub struct TaskLink {
    requests: mpsc::UnboundedSender<Request>,
    reports: std_mpsc::Receiver<RelayNews>,
}

/// Takes over a client that has entered `room`: spawns its task on the current tokio runtime.
/// `None` if the client has no mirror, i.e. is in no room.
pub(crate) fn start(client: Client, room: Room, wake: Wake) -> Option<RemoteGame> {
    let mirror = client.mirror()?;
    let (requests, requests_out) = mpsc::unbounded_channel();
    let (reports_in, reports) = std_mpsc::channel();
    tokio::spawn(worker::run(client, requests_out, reports_in, wake));
    Some(RelayGame::new(
        mirror,
        room.seat,
        TaskLink { requests, reports },
    ))
}

impl TaskLink {
    /// Hands a request to the client's task; fails once the task has ended.
    fn request(&self, request: Request) -> Result<(), BackendError> {
        self.requests
            .send(request)
            .map_err(|_| BackendError::Offline)
    }
}

impl RelayLink for TaskLink {
    fn act(&mut self, action: Action) -> Result<(), BackendError> {
        self.request(Request::Act(action))
    }

    fn rematch(&mut self) -> Result<(), BackendError> {
        self.request(Request::Rematch)
    }

    fn poll(&mut self) -> Option<RelayNews> {
        self.reports.try_recv().ok()
    }
}
