//! The page's conversation with the relay: a [`ClientCore`] on its way into a room and then
//! in it, with no IO, so the browser's driver around it is a few lines of sockets and timers.

use std::collections::VecDeque;

use xq_client::{Answer, ClientCore, ClientError, ClientEvent, ClientOptions, CoreEvent, Room};
use xq_gui_model::{BackendError, RelayNews};
use xq_protocol::{ErrorCode, RequestId, ResumeToken, RoomCode, RoomOptions};
use xq_session::{Action, Timestamp};

use crate::Entry;

/// A [`ClientCore`] that enters the room an [`Entry`] names, then carries the game's
/// requests and news.
///
/// It opens with a hello on the first connection, and once welcomed asks for the entry
/// (create, join, watch, quick match); an entry that comes with this browser's resume token
/// for the room takes the seat back in the hello itself ([`ClientCore::resuming`]). The entry
/// is reported once by [`poll_entered`](Self::poll_entered); from then on the client's events
/// are the game's news ([`poll_news`](Self::poll_news)), each with the mirror as it stands
/// after it.
///
/// **Calling order**, as for the core: after every `handle_*` input, send every
/// [`poll_transmit`](Self::poll_transmit) on the connection, open a new connection if
/// [`take_connect`](Self::take_connect) says so, and re-arm the timer from
/// [`poll_timeout`](Self::poll_timeout).
#[derive(Debug)]
pub struct Session {
    core: ClientCore,
    entry: Entry,
    /// Whether the first hello takes the seat back (its answer is the room).
    resuming: bool,
    stage: Stage,
    /// The outcome of the entry, until it is polled.
    entered: Option<Result<Room, EntryError>>,
    news: VecDeque<RelayNews>,
    /// The core asked for a new connection.
    connect: bool,
    /// The WebSocket URL of the node of a relay cluster that owns the room, named by the
    /// relay's redirect, for the next connection.
    redirect: Option<String>,
    /// The relay refused to give the seat back: its token is worthless.
    seat_lost: bool,
}

/// Where the entry stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// No connection yet.
    Connecting,
    /// The hello waits for its welcome; the entry is asked for then.
    Greeting(RequestId),
    /// The hello carried the resume token: its answer is the room.
    Resuming(RequestId),
    /// The entry request waits for its answer.
    Entering(RequestId),
    /// In the room, or failed.
    Done,
}

/// Why the page did not get into its room.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The relay could not be reached, or did not welcome the client.
    #[error("cannot reach the relay: {0}")]
    Unreachable(#[source] ClientError),
    /// The relay no longer holds this browser's seat in the room (the grace period ran out,
    /// or the room closed): the stored token is worthless.
    #[error("your seat in room {code} is gone: {source}")]
    SeatGone {
        /// The room.
        code: RoomCode,
        /// The relay's refusal.
        #[source]
        source: ClientError,
    },
    /// The relay refused the entry (no such room, the room is full …), or the connection
    /// failed before it answered.
    #[error("{0}")]
    Refused(#[source] ClientError),
}

impl Session {
    /// A session that will enter as `entry` says, taking the seat back with `token` when
    /// `entry` joins a room (the token this browser kept for that room).
    #[must_use]
    pub fn new(entry: Entry, token: Option<ResumeToken>, options: ClientOptions) -> Self {
        let (core, resuming) = match (entry, token) {
            (Entry::Join(_), Some(token)) => (ClientCore::resuming(options, token), true),
            _ => (ClientCore::new(options), false),
        };
        Self {
            core,
            entry,
            resuming,
            stage: Stage::Connecting,
            entered: None,
            news: VecDeque::new(),
            connect: false,
            redirect: None,
            seat_lost: false,
        }
    }

    /// The entry this session makes.
    #[must_use]
    pub const fn entry(&self) -> Entry {
        self.entry
    }

    /// Whether the session takes a seat back rather than entering afresh.
    #[must_use]
    pub const fn is_resume(&self) -> bool {
        self.resuming
    }

    /// A connection is up at `now`.
    pub fn handle_connected(&mut self, now: Timestamp) {
        let hello = self.core.handle_connected(now);
        if let (Stage::Connecting, Some(hello)) = (self.stage, hello) {
            self.stage = if self.resuming {
                Stage::Resuming(hello)
            } else {
                Stage::Greeting(hello)
            };
        }
        self.drain();
    }

    /// One frame from the relay, at `now`.
    pub fn handle_frame(&mut self, now: Timestamp, frame: &[u8]) {
        self.core.handle_frame(now, frame);
        // Time is due too: a relay that keeps sending must not hold off the core's deadlines.
        self.core.handle_timeout(now);
        self.drain();
    }

    /// The connection failed at `now` (or never opened).
    pub fn handle_disconnected(&mut self, now: Timestamp) {
        self.core
            .handle_disconnected(now, ClientError::ConnectionLost);
        self.drain();
    }

    /// The time [`poll_timeout`](Self::poll_timeout) named has come.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        self.core.handle_timeout(now);
        self.drain();
    }

    /// The next frame to send, in order.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.core.poll_transmit()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.core.poll_timeout()
    }

    /// Whether the core asked for a new connection since the last call: drop the old one
    /// (nothing on it counts any more) and open another.
    pub fn take_connect(&mut self) -> bool {
        std::mem::take(&mut self.connect)
    }

    /// Where the connection [`take_connect`](Self::take_connect) asks for goes, when the
    /// relay's cluster redirected the page to the room's owner: its WebSocket URL. `None`:
    /// the page's own relay, which redirects again if the room lives elsewhere.
    pub fn take_redirect(&mut self) -> Option<String> {
        self.redirect.take()
    }

    /// The outcome of the entry, once (the room entered, or why not).
    pub fn poll_entered(&mut self) -> Option<Result<Room, EntryError>> {
        self.entered.take()
    }

    /// The game's next news, oldest first.
    pub fn poll_news(&mut self) -> Option<RelayNews> {
        self.news.pop_front()
    }

    /// Sends an action of this browser's seat.
    ///
    /// # Errors
    ///
    /// [`BackendError::Offline`] while the connection is down or closed.
    pub fn act(&mut self, action: Action) -> Result<(), BackendError> {
        offline(self.core.act(action))
    }

    /// Asks for a rematch.
    ///
    /// # Errors
    ///
    /// As [`act`](Self::act).
    pub fn rematch(&mut self) -> Result<(), BackendError> {
        offline(self.core.rematch())
    }

    /// Closes for good, telling the relay the seat is left (send the transmits that follow).
    pub fn close(&mut self) {
        self.core.close();
    }

    /// The core: its room, mirror, resume token and connection.
    #[must_use]
    pub const fn core(&self) -> &ClientCore {
        &self.core
    }

    /// Whether the relay refused to give the seat back, on entry or after a lost connection:
    /// forget its token.
    #[must_use]
    pub const fn seat_lost(&self) -> bool {
        self.seat_lost
    }

    /// Routes the core's events: connection requests to the driver, answers to the entry,
    /// the client's events to the game.
    fn drain(&mut self) {
        while let Some(event) = self.core.poll_event() {
            match event {
                CoreEvent::Connect => self.connect = true,
                // A page can only follow a redirect to a WebSocket.
                CoreEvent::Redirected { urls } => {
                    self.redirect = urls
                        .into_iter()
                        .find(|url| url.starts_with("ws://") || url.starts_with("wss://"));
                }
                CoreEvent::Answered { id, outcome } => self.answered(id, outcome),
                // The first connection failed before the hello: no answer will come.
                CoreEvent::Client(ClientEvent::Disconnected { cause })
                    if self.stage == Stage::Connecting =>
                {
                    self.stage = Stage::Done;
                    self.entered = Some(Err(EntryError::Unreachable(cause)));
                }
                CoreEvent::Client(event) => {
                    if let ClientEvent::Disconnected {
                        cause: ClientError::Refused { code, .. },
                    } = &event
                    {
                        self.seat_lost |= *code == ErrorCode::ResumeRefused;
                    }
                    let mirror = self.core.mirror().cloned().map(Box::new);
                    self.news.push_back(RelayNews::Event(event, mirror));
                }
                // Later kinds of core event concern requests this session does not make.
                _ => {}
            }
        }
    }

    /// Takes in the answer to request `id`: the hello's or the entry's move the entry on;
    /// an action's refusal reaches the game as the client's `Rejected` event instead.
    fn answered(&mut self, id: RequestId, outcome: Result<Answer, ClientError>) {
        let done = match (self.stage, outcome) {
            (Stage::Greeting(hello), Ok(_)) if hello == id => match self.ask_entry() {
                Ok(entry) => {
                    self.stage = Stage::Entering(entry);
                    return;
                }
                Err(error) => Err(EntryError::Refused(error)),
            },
            (Stage::Greeting(hello), Err(error)) if hello == id => {
                Err(EntryError::Unreachable(error))
            }
            (Stage::Resuming(hello) | Stage::Entering(hello), Ok(Answer::Entered(room)))
                if hello == id =>
            {
                Ok(room)
            }
            (Stage::Resuming(hello), Err(error)) if hello == id => {
                Err(match (&error, self.entry.code()) {
                    (
                        ClientError::Refused {
                            code: ErrorCode::ResumeRefused,
                            ..
                        },
                        Some(code),
                    ) => {
                        self.seat_lost = true;
                        EntryError::SeatGone {
                            code,
                            source: error,
                        }
                    }
                    _ => EntryError::Unreachable(error),
                })
            }
            (Stage::Entering(entry), Err(error)) if entry == id => Err(EntryError::Refused(error)),
            (Stage::Resuming(hello) | Stage::Entering(hello), Ok(_)) if hello == id => {
                Err(EntryError::Refused(ClientError::Unexpected {
                    expected: "joined",
                }))
            }
            _ => return,
        };
        self.stage = Stage::Done;
        self.entered = Some(done);
    }

    /// Asks the core for the entry, once welcomed.
    fn ask_entry(&mut self) -> Result<RequestId, ClientError> {
        match self.entry {
            Entry::Create => self.core.create(RoomOptions::default()),
            Entry::Join(code) => self.core.join(code),
            Entry::Watch(code) => self.core.spectate(code),
            Entry::Quick => self.core.quick_match(RoomOptions::default()),
        }
    }
}

/// A request the core could not send means no connection to carry it.
fn offline(sent: Result<RequestId, ClientError>) -> Result<(), BackendError> {
    sent.map(drop).map_err(|_| BackendError::Offline)
}

#[cfg(test)]
mod tests;
