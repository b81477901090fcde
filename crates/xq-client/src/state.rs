//! What the client's handle and its background driver share.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;
use xq_protocol::ResumeToken;
use xq_transport::Connection;

use crate::{ClientError, Mirror, Room};

/// The state behind a [`crate::Client`]. The lock is never held across an `await`.
pub(crate) struct Shared {
    state: Mutex<State>,
}

/// Everything the handle reads and the driver writes.
pub(crate) struct State {
    pub(crate) link: Link,
    /// The room and seat, once the relay has said `Joined`.
    pub(crate) room: Option<Seating>,
    pub(crate) mirror: Option<Mirror>,
    /// The entry into a room that waits for `Joined` and a snapshot.
    pub(crate) entry: Option<Entry>,
    /// The leave that waits for the relay; never at the same time as an entry.
    pub(crate) leaving: Option<Leaving>,
    /// The nonce of the last ping sent as a fence ([`Entry::fence`], [`Leaving::done`]).
    pub(crate) fences: u64,
}

/// Whether commands can be sent.
pub(crate) enum Link {
    /// Connected and in step with the relay.
    Up(Arc<dyn Connection>),
    /// The connection failed and is being restored, or the room is being resumed.
    Restoring,
    /// Closed by the owner, or ended for good.
    Closed,
}

/// This client's place in its room.
#[derive(Clone, Copy)]
pub(crate) struct Seating {
    pub(crate) room: Room,
    /// The secret that takes the seat back after a disconnect (players only).
    pub(crate) token: Option<ResumeToken>,
}

/// An entry into a room in progress: complete once `Joined` and then a snapshot arrive.
pub(crate) struct Entry {
    pub(crate) kind: EntryKind,
    /// The nonce of the ping sent just before the request, until its pong arrives. The relay
    /// answers in order and refusals carry no request id, so an error before the pong
    /// answers an earlier request (a command), and the first answer after it is the entry's.
    pub(crate) fence: Option<u64>,
    /// Whether `Joined` has arrived.
    pub(crate) joined: bool,
    /// Whether the answer starts the room's match (a join or a quick match), which the owner
    /// is told with [`crate::ClientEvent::MatchStarted`], as the creator is when its room
    /// fills.
    pub(crate) starts_match: bool,
}

impl Entry {
    /// Whether a `Joined` or an error now answers this entry.
    pub(crate) fn is_answered_next(&self) -> bool {
        self.fence.is_none()
    }
}

/// The owner's leave in progress. The relay only answers a leave to refuse it, so a ping
/// follows it too: its pong, with no refusal before, says that the relay took it.
pub(crate) struct Leaving {
    pub(crate) reply: oneshot::Sender<Result<(), ClientError>>,
    /// The nonce of the ping sent just before the leave, until its pong arrives, as
    /// [`Entry::fence`]: the first refusal after it answers the leave.
    pub(crate) fence: Option<u64>,
    /// The nonce of the ping sent just after the leave.
    pub(crate) done: u64,
}

/// Who waits for an entry.
pub(crate) enum EntryKind {
    /// The owner's create, join, quick match or spectate request, or the resume that
    /// [`crate::Client::resume`] waits for.
    Request(oneshot::Sender<Result<Room, ClientError>>),
    /// The driver, resuming the room on a new connection.
    Resume,
}

impl Shared {
    /// Shared state for a client connected over `conn`, waiting for `entry` if any.
    pub(crate) fn new(conn: Arc<dyn Connection>, entry: Option<Entry>) -> Arc<Self> {
        let state = State {
            link: Link::Up(conn),
            room: None,
            mirror: None,
            entry,
            leaving: None,
            fences: 0,
        };
        Arc::new(Self {
            state: Mutex::new(state),
        })
    }

    /// Locks the state.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the state consistent before anything can panic, so a
        // poisoned lock holds usable data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// The connection to send a command on.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotConnected`] while restoring, [`ClientError::Closed`] once closed.
    pub(crate) fn connection(&self) -> Result<Arc<dyn Connection>, ClientError> {
        match &self.link {
            Link::Up(conn) => Ok(Arc::clone(conn)),
            Link::Restoring => Err(ClientError::NotConnected),
            Link::Closed => Err(ClientError::Closed),
        }
    }

    /// Whether a room request, a resume or a leave waits for the relay.
    pub(crate) const fn is_waiting(&self) -> bool {
        self.entry.is_some() || self.leaving.is_some()
    }

    /// A nonce for a fence, never used before on this client.
    pub(crate) const fn next_fence(&mut self) -> u64 {
        self.fences += 1;
        self.fences
    }

    /// Fails the owner's pending room request or leave, if there is one, with `error`.
    pub(crate) fn fail_request(&mut self, error: impl FnOnce() -> ClientError) {
        let (entry, leaving) = (self.entry.take(), self.leaving.take());
        // At most one waits: a request is refused while another does.
        if let Some(Entry {
            kind: EntryKind::Request(reply),
            ..
        }) = entry
        {
            let _ = reply.send(Err(error()));
        } else if let Some(leaving) = leaving {
            let _ = leaving.reply.send(Err(error()));
        }
    }

    /// Withdraws the owner's request whose answer nobody waits for any more (sending it
    /// failed), leaving any other (the driver's resume) in place.
    pub(crate) fn withdraw_abandoned(&mut self) {
        self.entry.take_if(|entry| match &entry.kind {
            EntryKind::Request(reply) => reply.is_closed(),
            EntryKind::Resume => false,
        });
        self.leaving.take_if(|leaving| leaving.reply.is_closed());
    }
}
