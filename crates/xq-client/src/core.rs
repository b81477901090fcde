//! The client's whole conversation with a relay as a state machine, with no IO and no clock.

mod backoff;
mod request;

use std::collections::VecDeque;
use std::time::Duration;

use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, PROTOCOL_VERSION, Request, RequestId, ResumeToken,
    RoomCode, RoomOptions, ServerMsg, codec,
};
use xq_session::{Action, Timestamp};

use self::backoff::Backoff;
use self::request::{Ask, Entry, Purpose};
use crate::{Applied, ClientError, ClientEvent, ClientOptions, Mirror, Room};

/// A client's conversation with a relay, in [quinn-proto]'s shape: it does no IO and reads no
/// clock, so the same core runs under tokio ([`crate::Client`]), in a browser over a
/// WebSocket, in a load generator that drives thousands from one task, or in a test that
/// scripts every frame.
///
/// - **Inputs**: [`handle_connected`](Self::handle_connected) when a transport connection is
///   up, [`handle_frame`](Self::handle_frame) for each frame from the relay,
///   [`handle_disconnected`](Self::handle_disconnected) when the connection fails,
///   [`handle_timeout`](Self::handle_timeout) when [`poll_timeout`](Self::poll_timeout)'s time
///   comes, and the owner's requests ([`create`](Self::create), [`act`](Self::act),
///   [`leave`](Self::leave) …), each returning the [`RequestId`] its answer will name. Every
///   input takes the current [`Timestamp`] on the driver's clock.
/// - **Outputs**: [`poll_transmit`](Self::poll_transmit) gives frames to send, in order;
///   [`poll_event`](Self::poll_event) gives [`CoreEvent`]s: the owner's [`ClientEvent`]s, the
///   answers to its requests, [`CoreEvent::Connect`] when the core wants a (new)
///   connection, and [`CoreEvent::Redirected`] before it when a relay sent the client to
///   another node of its cluster.
///
/// **Calling order**: after every input, send every transmit, handle every event, then re-arm
/// the timer from `poll_timeout`.
///
/// The core speaks the protocol's conversation (see `xq_protocol`): the hello, entering a
/// room, actions, rematch, leave, pings to keep the link alive, and, when the connection
/// fails, reconnecting with growing pauses for [`crate::ReconnectPolicy::period`] and taking
/// the seat back with its resume token (a spectator watches again).
///
/// A node of a relay cluster answers a hello with a resume token, a join or a spectate whose
/// room another node owns with [`ServerMsg::Redirect`] and closes the connection. That is no
/// outage: the core asks for a connection to the owner at once ([`CoreEvent::Redirected`],
/// then [`CoreEvent::Connect`]), with no pause and no event for the owner, and on it repeats
/// what was redirected (the hello, then the join or spectate, under the same request id), so
/// the owner's request is answered by the node that owns the room. After
/// [`REDIRECT_LIMIT`] redirects in a row with no answer it gives up with
/// [`ClientError::TooManyRedirects`]. A node that gives a room up
/// ([`DisconnectReason::Moved`]) and a cluster out of reach ([`ErrorCode::Unavailable`] to a
/// resume) are outages: reconnect, with pauses, and resume; after an `Unavailable` the same
/// relay is asked once more first ([`CoreEvent::Retry`]). Every request carries an
/// id of the core's choosing and every answer names it, so no answer is matched by counting.
/// It keeps the room's [`Mirror`], advanced by the relay's events through the session's own
/// code.
///
/// # Examples
///
/// ```
/// use xq_client::{ClientCore, ClientOptions, CoreEvent};
/// use xq_protocol::{PROTOCOL_VERSION, Request, ServerMsg, codec};
/// use xq_session::Timestamp;
///
/// let now = Timestamp::from_millis(0);
/// let mut core = ClientCore::new(ClientOptions::default());
/// core.handle_connected(now);
/// let hello: Request = codec::decode(&core.poll_transmit().expect("a hello"))?;
/// let welcome = ServerMsg::Welcome { id: hello.id, version: PROTOCOL_VERSION, server: "doc".into() };
/// core.handle_frame(now, &codec::to_frame(&welcome)?);
/// assert!(matches!(core.poll_event(), Some(CoreEvent::Answered { id, outcome: Ok(_) }) if id == hello.id));
/// assert!(core.is_connected());
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// [quinn-proto]: https://docs.rs/quinn-proto
#[derive(Debug)]
pub struct ClientCore {
    options: ClientOptions,
    link: Link,
    next_id: u32,
    /// The token a first hello carries ([`ClientCore::resuming`]), until the seat is back.
    initial_token: Option<ResumeToken>,
    /// The room and seat, once the relay has said `Joined`.
    room: Option<Seating>,
    mirror: Option<Mirror>,
    /// When the mirror's snapshot arrived: the mirror takes each event's arrival from then.
    snapshot_at: Timestamp,
    /// The entry into a room that waits for `Joined` and a snapshot.
    entry: Option<Entry>,
    /// The owner's leave, waiting for its answer; never at the same time as an entry.
    leaving: Option<RequestId>,
    /// The keep-alive ping waiting for its pong.
    ping: Option<RequestId>,
    /// When the relay was last heard from.
    last_heard: Timestamp,
    outage: Option<Outage>,
    /// Redirects followed since the relay last answered (the connection came up).
    hops: u8,
    /// Whether the last failure was a relay asking for time that is being asked again
    /// ([`CoreEvent::Retry`]): a second one in a row moves on.
    retried: bool,
    /// Whether a connection has come up: failures from then on are outages, not the first
    /// connection's failure.
    greeted: bool,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<CoreEvent>,
}

/// What the core asks of its driver, or tells its owner.
#[derive(Debug)]
#[non_exhaustive]
pub enum CoreEvent {
    /// For the owner's event stream. [`ClientEvent::Disconnected`] is the last event.
    Client(ClientEvent),
    /// The answer to the owner's request `id`.
    Answered {
        /// The request.
        id: RequestId,
        /// What became of it.
        outcome: Result<Answer, ClientError>,
    },
    /// Open a new connection to the relay now and call
    /// [`ClientCore::handle_connected`] (or [`ClientCore::handle_disconnected`] if it fails);
    /// the previous connection, if any, is dead: drop it.
    ///
    /// A driver given several relays (a cluster's nodes, [`crate::Relays`]) connects to the
    /// next one each time, round the list, starting after the one it was on: the URLs of a
    /// [`CoreEvent::Redirected`] first, if one came.
    Connect,
    /// A relay sent the client to another node of its cluster, the room's owner: the
    /// [`CoreEvent::Connect`] that follows at once, and any further ones, try these URLs
    /// first, in order, before the driver's own relays. A driver with a single relay that
    /// ignores this reconnects there, and ends with [`ClientError::TooManyRedirects`] if it
    /// keeps being redirected.
    Redirected {
        /// The owning node's URLs, in its order of preference.
        urls: Vec<String>,
    },
    /// The relay just tried asked for time ([`ErrorCode::Unavailable`]: a cluster node
    /// taking the room over that moment, say): the next [`CoreEvent::Connect`], after a
    /// pause, goes to that relay again rather than to the next one of the list. Only once in
    /// a row: if it asks again, the client moves on. A driver with a single relay can
    /// ignore this.
    Retry,
}

/// How many redirects in a row, with no answer in between, the core follows: the next one
/// fails with [`ClientError::TooManyRedirects`], so two nodes of a cluster that disagree on
/// who owns a room cannot send a client back and forth for ever.
pub const REDIRECT_LIMIT: u8 = 4;

/// How the relay answered a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// The relay welcomed the client's first hello.
    Welcome,
    /// The client is in the room (created, joined, paired, watching or resumed), and the
    /// mirror shows its match.
    Entered(Room),
    /// The leave or rematch was done.
    Done,
    /// The action was accepted: its first event is in the mirror.
    Accepted,
    /// The ping came back.
    Pong,
}

/// This client's place in its room.
#[derive(Clone, Copy, Debug)]
struct Seating {
    room: Room,
    /// The secret that takes the seat back after a disconnect (players only).
    token: Option<ResumeToken>,
}

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    /// No connection yet: the driver opens one and calls `handle_connected`.
    Idle,
    /// The core asked for a connection ([`CoreEvent::Connect`]), after an outage or a
    /// redirect, by `deadline`.
    Connecting { deadline: Timestamp },
    /// The hello `id` waits for its welcome, by `deadline`.
    Greeting { id: RequestId, deadline: Timestamp },
    /// Welcomed, and taking the room back (or entering the room a redirect sent it here for)
    /// by `deadline`: nothing can be sent until its snapshot.
    Resuming { deadline: Timestamp },
    /// Connected and in step with the relay.
    Up,
    /// Down; the next attempt is at `at`.
    Waiting { at: Timestamp },
    /// Closed by the owner, or ended for good.
    Closed,
}

/// A connection failure being repaired.
#[derive(Clone, Debug)]
struct Outage {
    since: Timestamp,
    pauses: Backoff,
}

impl ClientCore {
    /// A core that will say hello on the first connection its driver opens.
    #[must_use]
    pub fn new(options: ClientOptions) -> Self {
        Self {
            options,
            link: Link::Idle,
            next_id: 0,
            initial_token: None,
            room: None,
            mirror: None,
            snapshot_at: Timestamp::default(),
            entry: None,
            leaving: None,
            ping: None,
            last_heard: Timestamp::default(),
            outage: None,
            hops: 0,
            retried: false,
            greeted: false,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// A core whose first hello takes back the seat `token` holds; the hello's answer is
    /// [`Answer::Entered`] once the seat and the mirror are back.
    #[must_use]
    pub fn resuming(options: ClientOptions, token: ResumeToken) -> Self {
        Self {
            initial_token: Some(token),
            ..Self::new(options)
        }
    }

    /// A transport connection is up at `now`: the core says hello (with the seat's resume
    /// token, to take it back). Returns the hello's id; `None` from a closed core, which says
    /// nothing any more.
    pub fn handle_connected(&mut self, now: Timestamp) -> Option<RequestId> {
        if self.link == Link::Closed {
            return None;
        }
        let resume = self
            .room
            .and_then(|seating| seating.token)
            .or(self.initial_token);
        // A first hello with a token that a relay redirected is asked again under its id: its
        // owner waits for that id's answer.
        let id = self
            .entry
            .filter(Entry::is_resume_hello)
            .map_or_else(|| self.new_id(), |entry| entry.id);
        self.send_as(
            id,
            ClientMsg::Hello {
                version: PROTOCOL_VERSION,
                client: self.options.name.clone(),
                resume,
            },
        );
        // One deadline for the whole attempt: the transport's handshake, the hello and, for a
        // resume, the room's snapshot.
        let deadline = match self.link {
            Link::Connecting { deadline } => deadline,
            _ => self.attempt_deadline(now),
        };
        self.link = Link::Greeting { id, deadline };
        self.last_heard = now;
        if self.room.is_none() && self.initial_token.is_some() {
            // The hello itself is the entry: `Joined` and the snapshot follow its welcome.
            self.entry = Some(
                Entry::new(
                    id,
                    Purpose::Owner {
                        starts_match: false,
                    },
                )
                .resuming(),
            );
        }
        Some(id)
    }

    /// One whole frame from the relay, at `now`. A frame that does not decode, or that the
    /// mirror cannot follow, fails the connection (a new one brings a fresh snapshot).
    pub fn handle_frame(&mut self, now: Timestamp, frame: &[u8]) {
        // Only a connection the core is using speaks to it: one it gave up on (closed, or
        // failed and waiting for the next attempt) is dead, whatever still arrives on it.
        if !matches!(
            self.link,
            Link::Greeting { .. } | Link::Resuming { .. } | Link::Up
        ) {
            return;
        }
        self.last_heard = now;
        let dispatched = codec::decode::<ServerMsg>(frame)
            .map_err(ClientError::from)
            .and_then(|msg| self.dispatch(now, msg));
        if let Err(cause) = dispatched {
            self.fail(now, cause);
        }
    }

    /// The connection failed at `now`, or the attempt the core asked for did.
    pub fn handle_disconnected(&mut self, now: Timestamp, cause: ClientError) {
        self.fail(now, cause);
    }

    /// Handles the passing of time: a handshake or a resume that took too long, a reconnect
    /// attempt that is due, a keep-alive ping, a relay not heard from. Harmless to call early.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        if let Some(outage) = &self.outage
            && now >= outage.since + self.options.reconnect.period
            && self.link != Link::Closed
        {
            return self.finish(Some(ClientError::Timeout));
        }
        match self.link {
            Link::Connecting { deadline }
            | Link::Greeting { deadline, .. }
            | Link::Resuming { deadline }
                if now >= deadline =>
            {
                self.fail(now, ClientError::Timeout);
            }
            Link::Waiting { at } if now >= at => {
                self.link = Link::Connecting {
                    deadline: self.attempt_deadline(now),
                };
                self.events.push_back(CoreEvent::Connect);
            }
            Link::Up => {
                let Some(keepalive) = self.options.keepalive else {
                    return;
                };
                if now >= self.last_heard + keepalive.timeout {
                    self.fail(now, ClientError::Timeout);
                } else if now >= self.last_heard + keepalive.interval && self.ping.is_none() {
                    self.ping = Some(self.send_now(ClientMsg::Ping));
                }
            }
            _ => {}
        }
    }

    /// The next frame to send, oldest first.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<CoreEvent> {
        self.events.pop_front()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next, if anything waits for time.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let outage = self
            .outage
            .as_ref()
            .map(|outage| outage.since + self.options.reconnect.period);
        let link = match self.link {
            Link::Connecting { deadline }
            | Link::Greeting { deadline, .. }
            | Link::Resuming { deadline } => Some(deadline),
            Link::Waiting { at } => Some(at),
            Link::Up => self.options.keepalive.map(|keepalive| {
                let silence = if self.ping.is_some() {
                    keepalive.timeout
                } else {
                    keepalive.interval
                };
                self.last_heard + silence
            }),
            Link::Idle | Link::Closed => None,
        };
        match (self.link, outage, link) {
            (Link::Closed, ..) => None,
            (_, Some(a), Some(b)) => Some(a.min(b)),
            (_, a, b) => a.or(b),
        }
    }

    /// Creates a room and takes a seat in it; answered by [`Answer::Entered`].
    ///
    /// # Errors
    ///
    /// [`ClientError::NotConnected`] or [`ClientError::Closed`] when nothing can be sent,
    /// [`ClientError::RequestPending`] while another room request or a leave waits.
    pub fn create(&mut self, options: RoomOptions) -> Result<RequestId, ClientError> {
        self.enter(ClientMsg::CreateRoom(options), false)
    }

    /// Takes the free seat of the room with this code; answered by [`Answer::Entered`].
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn join(&mut self, code: RoomCode) -> Result<RequestId, ClientError> {
        let id = self.enter(ClientMsg::JoinRoom { code }, true)?;
        self.entry = self.entry.map(|entry| entry.asking(Ask::Join(code)));
        Ok(id)
    }

    /// Waits to be paired; [`ClientEvent::Queued`] while it waits, and [`Answer::Entered`]
    /// once paired.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn quick_match(&mut self, options: RoomOptions) -> Result<RequestId, ClientError> {
        self.enter(ClientMsg::QuickMatch(options), true)
    }

    /// Watches the room with this code; answered by [`Answer::Entered`].
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn spectate(&mut self, code: RoomCode) -> Result<RequestId, ClientError> {
        let id = self.enter(ClientMsg::Spectate { code }, false)?;
        self.entry = self.entry.map(|entry| entry.asking(Ask::Spectate(code)));
        Ok(id)
    }

    /// Sends a player's action, as given: answered by [`Answer::Accepted`] with its first
    /// event, or refused (also reported as [`ClientEvent::Rejected`]). The mirror's
    /// [`crate::Mirror::state`]`.check(..)` says beforehand whether the match will take it.
    ///
    /// If the connection fails before the answer, none comes (nor for a rematch or a ping):
    /// whether the relay took the action, the mirror rebuilt on the resume shows.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotConnected`] or [`ClientError::Closed`] when nothing can be sent.
    pub fn act(&mut self, action: Action) -> Result<RequestId, ClientError> {
        self.ensure_up()?;
        Ok(self.send_now(ClientMsg::Act(action)))
    }

    /// Asks for a rematch once the game is over; answered by [`Answer::Done`].
    ///
    /// # Errors
    ///
    /// As [`act`](Self::act).
    pub fn rematch(&mut self) -> Result<RequestId, ClientError> {
        self.ensure_up()?;
        Ok(self.send_now(ClientMsg::Rematch))
    }

    /// Asks for a pong; answered by [`Answer::Pong`].
    ///
    /// # Errors
    ///
    /// As [`act`](Self::act).
    pub fn ping(&mut self) -> Result<RequestId, ClientError> {
        self.ensure_up()?;
        Ok(self.send_now(ClientMsg::Ping))
    }

    /// Leaves the room, staying connected; answered by [`Answer::Done`], after which nothing
    /// of the room arrives and the core is in no room.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInRoom`] outside a room, [`ClientError::RequestPending`] while a room
    /// request waits; otherwise as [`act`](Self::act).
    pub fn leave(&mut self) -> Result<RequestId, ClientError> {
        self.ensure_up()?;
        self.ensure_no_request()?;
        if self.room.is_none() {
            return Err(ClientError::NotInRoom);
        }
        let id = self.send_now(ClientMsg::Leave);
        self.leaving = Some(id);
        Ok(id)
    }

    /// Closes for good, telling the relay that the client leaves its room (best effort: the
    /// relay notices the closed connection anyway). Requests waiting fail with
    /// [`ClientError::Closed`]; no event follows.
    pub fn close(&mut self) {
        if self.link == Link::Up && self.room.is_some() {
            self.send_now(ClientMsg::Leave);
        }
        self.fail_requests(|| ClientError::Closed);
        self.link = Link::Closed;
    }

    /// The options the core was made with.
    #[must_use]
    pub const fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// The room's mirror, once the client is in a room.
    #[must_use]
    pub const fn mirror(&self) -> Option<&Mirror> {
        self.mirror.as_ref()
    }

    /// The room this client is in, and its colour there.
    #[must_use]
    pub fn room(&self) -> Option<Room> {
        self.room.map(|seating| seating.room)
    }

    /// The secret that takes this client's seat back ([`ClientCore::resuming`]); `None`
    /// outside a room and for a spectator.
    #[must_use]
    pub fn resume_token(&self) -> Option<ResumeToken> {
        self.room.and_then(|seating| seating.token)
    }

    /// Whether requests can be sent now (connected and in step with the relay).
    #[must_use]
    pub fn is_connected(&self) -> bool {
        self.link == Link::Up
    }

    /// Whether the connection failed and the core waits to try again: the driver drops the
    /// failed connection (nothing on it counts any more) until [`CoreEvent::Connect`].
    #[must_use]
    pub fn is_reconnecting(&self) -> bool {
        matches!(self.link, Link::Waiting { .. } | Link::Connecting { .. })
    }

    /// Whether the core has ended for good (closed, or disconnected).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.link == Link::Closed
    }

    /// Sends a room request, which the relay answers with `Joined` and a snapshot.
    fn enter(&mut self, msg: ClientMsg, starts_match: bool) -> Result<RequestId, ClientError> {
        self.ensure_up()?;
        self.ensure_no_request()?;
        let id = self.send_now(msg);
        self.entry = Some(Entry::new(id, Purpose::Owner { starts_match }));
        Ok(id)
    }

    fn ensure_up(&self) -> Result<(), ClientError> {
        match self.link {
            Link::Up => Ok(()),
            Link::Closed => Err(ClientError::Closed),
            _ => Err(ClientError::NotConnected),
        }
    }

    fn ensure_no_request(&self) -> Result<(), ClientError> {
        if self.entry.is_some() || self.leaving.is_some() {
            return Err(ClientError::RequestPending);
        }
        Ok(())
    }

    /// Queues `msg` with a new id, and returns the id.
    fn send_now(&mut self, msg: ClientMsg) -> RequestId {
        let id = self.new_id();
        self.send_as(id, msg);
        id
    }

    fn new_id(&mut self) -> RequestId {
        self.next_id = self.next_id.wrapping_add(1);
        RequestId(self.next_id)
    }

    /// Queues `msg` with the id `id`: a new one, or that of a request asked again.
    fn send_as(&mut self, id: RequestId, msg: ClientMsg) {
        match codec::to_frame(&Request { id, msg }) {
            Ok(frame) => self.transmits.push_back(frame),
            // Only a huge client name could outgrow a frame; the relay then never answers,
            // and the handshake times out, as for a relay that does not answer.
            Err(error) => self.events.push_back(CoreEvent::Answered {
                id,
                outcome: Err(error.into()),
            }),
        }
    }

    /// When an attempt starting at `now` must have succeeded: the handshake timeout, within
    /// the reconnect period of an outage.
    fn attempt_deadline(&self, now: Timestamp) -> Timestamp {
        let attempt = now + self.options.handshake_timeout;
        self.outage.as_ref().map_or(attempt, |outage| {
            attempt.min(outage.since + self.options.reconnect.period)
        })
    }

    /// Applies one message from the relay.
    ///
    /// # Errors
    ///
    /// Why the connection cannot go on: the relay closed it, refused the resume, or sent
    /// something the mirror cannot follow.
    fn dispatch(&mut self, now: Timestamp, msg: ServerMsg) -> Result<(), ClientError> {
        match msg {
            ServerMsg::Welcome { id, version, .. } => self.welcomed(now, id, version)?,
            ServerMsg::Joined {
                id,
                code,
                seat,
                resume,
            } => {
                self.room = Some(Seating {
                    room: Room { code, seat },
                    token: resume,
                });
                self.initial_token = None;
                if let Some(entry) = self.entry.as_mut().filter(|entry| entry.is_joined_by(id)) {
                    entry.joined = true;
                }
            }
            ServerMsg::Queued { id } => {
                if let Some(entry) = self.entry.as_mut().filter(|entry| entry.id == id) {
                    *entry = entry.queued();
                }
                self.emit(ClientEvent::Queued);
            }
            ServerMsg::Snapshot(snapshot) => {
                let previous = self.mirror.replace(Mirror::from_snapshot(&snapshot)?);
                self.snapshot_at = now;
                self.snapshot_arrived(previous.as_ref());
            }
            ServerMsg::Event {
                seq,
                event,
                answers,
            } => {
                let mirror = self.mirror.as_mut().ok_or(ClientError::Unexpected {
                    expected: "a snapshot before events",
                })?;
                let since = now.saturating_duration_since(self.snapshot_at);
                if mirror.apply(since, seq, &event)? == Applied::New {
                    self.emit(ClientEvent::Match { seq, event });
                }
                if let Some(id) = answers {
                    self.answer(id, Ok(Answer::Accepted));
                }
            }
            ServerMsg::Presence { seat, connected } => {
                if let Some(mirror) = &mut self.mirror {
                    mirror.set_presence(seat, connected);
                }
                self.emit(ClientEvent::Presence { seat, connected });
            }
            ServerMsg::RematchRequested { by } => {
                if let Some(mirror) = &mut self.mirror {
                    mirror.note_rematch_request(by);
                }
                self.emit(ClientEvent::RematchRequested { by });
            }
            ServerMsg::Pong { id } => {
                if self.ping == Some(id) {
                    self.ping = None;
                } else {
                    self.answer(id, Ok(Answer::Pong));
                }
            }
            ServerMsg::Done { id } => {
                if self.leaving == Some(id) {
                    // The relay took the leave, and sends nothing more of the room.
                    self.leaving = None;
                    self.room = None;
                    self.mirror = None;
                }
                self.answer(id, Ok(Answer::Done));
            }
            ServerMsg::Error { id, code, message } => self.refused(id, code, message)?,
            ServerMsg::Redirect { id, urls } => self.redirected(now, id, urls)?,
            ServerMsg::Disconnect {
                reason: DisconnectReason::VersionMismatch,
                ..
            } => return Err(ClientError::VersionMismatch { relay: None }),
            ServerMsg::Disconnect { reason, message } => {
                return Err(ClientError::ClosedByRelay { reason, message });
            }
            _ => {
                return Err(ClientError::Unexpected {
                    expected: "a message of this protocol version",
                });
            }
        }
        Ok(())
    }

    /// The relay welcomed the hello `id`: the first connection is up, or a new one starts
    /// taking the room back.
    fn welcomed(&mut self, now: Timestamp, id: RequestId, version: u8) -> Result<(), ClientError> {
        let deadline = match self.link {
            Link::Greeting {
                id: hello,
                deadline,
            } if hello == id => deadline,
            _ => return Ok(()),
        };
        if version != PROTOCOL_VERSION {
            return Err(ClientError::VersionMismatch {
                relay: Some(version),
            });
        }
        self.last_heard = now;
        // A join or spectate that a relay redirected here is asked again, under its id.
        if let Some(msg) = self.entry.as_mut().and_then(Entry::take_unsent)
            && let Some(entry) = self.entry
        {
            self.send_as(entry.id, msg);
            self.link = Link::Resuming { deadline };
            return Ok(());
        }
        let first = self.outage.is_none();
        match self.room {
            // The first hello carried a token: its entry completes with the snapshot.
            _ if first && self.entry.is_some() => self.link = Link::Resuming { deadline },
            _ if first => {
                self.up();
                self.answer(id, Ok(Answer::Welcome));
            }
            Some(Seating { token: Some(_), .. }) => {
                // The hello carried the token: `Joined` and the snapshot follow.
                self.entry = Some(Entry::new(id, Purpose::Resume).resuming());
                self.link = Link::Resuming { deadline };
            }
            Some(Seating { room, .. }) => {
                let id = self.send_now(ClientMsg::Spectate { code: room.code });
                let ask = Ask::Spectate(room.code);
                self.entry = Some(Entry::new(id, Purpose::Resume).asking(ask));
                self.link = Link::Resuming { deadline };
            }
            None => {
                self.up();
                self.outage = None;
                self.emit(ClientEvent::Reconnected);
            }
        }
        Ok(())
    }

    /// The relay sent request `id` to `urls`, the node of its cluster that owns the room,
    /// and closes the connection: follow, unless the nodes have sent it round too often.
    ///
    /// # Errors
    ///
    /// [`ClientError::TooManyRedirects`] after [`REDIRECT_LIMIT`] redirects in a row, and
    /// [`ClientError::Unexpected`] for a redirect of a request that cannot be redirected:
    /// the connection fails with it.
    fn redirected(
        &mut self,
        now: Timestamp,
        id: RequestId,
        urls: Vec<String>,
    ) -> Result<(), ClientError> {
        let hello = matches!(self.link, Link::Greeting { id: hello, .. } if hello == id);
        let entry = self
            .entry
            .filter(|entry| entry.id == id && entry.is_redirectable());
        if !hello && entry.is_none() {
            return Err(ClientError::Unexpected {
                expected: "a redirect of a hello, a join or a spectate",
            });
        }
        self.hops += 1;
        if self.hops >= REDIRECT_LIMIT {
            self.hops = 0;
            // The owner's join or spectate on a connection that was up hears it; the
            // connection is then restored as after any failure.
            if self.greeted
                && let Some(entry) = self.entry.take_if(|entry| {
                    entry.id == id && matches!(entry.purpose, Purpose::Owner { .. })
                })
            {
                self.answer(entry.id, Err(ClientError::TooManyRedirects));
            }
            return Err(ClientError::TooManyRedirects);
        }
        // The connection is over; what waited to go out on it goes with it. The core's own
        // resume starts over on the next connection; the owner's entry is asked again there.
        self.ping = None;
        self.transmits.clear();
        self.entry.take_if(|entry| entry.purpose == Purpose::Resume);
        self.entry = self.entry.map(Entry::redirected);
        self.link = Link::Connecting {
            deadline: self.attempt_deadline(now),
        };
        self.events.push_back(CoreEvent::Redirected { urls });
        self.events.push_back(CoreEvent::Connect);
        Ok(())
    }

    /// The connection is up and in step: a redirect chain, if any, has ended.
    fn up(&mut self) {
        self.link = Link::Up;
        self.hops = 0;
        self.retried = false;
        self.greeted = true;
    }

    /// A snapshot arrived, after `previous` (the mirror it replaced): it completes an entry,
    /// or starts a match or a rematch.
    fn snapshot_arrived(&mut self, previous: Option<&Mirror>) {
        let room = self.room();
        match self.entry.take_if(|entry| entry.joined) {
            Some(Entry {
                id,
                purpose: Purpose::Owner { starts_match },
                ..
            }) => {
                // Told before the request is answered, so the event is waiting by then.
                if starts_match {
                    self.emit(ClientEvent::MatchStarted);
                }
                self.up();
                let outcome = room.ok_or(ClientError::Unexpected { expected: "joined" });
                self.answer(id, outcome.map(Answer::Entered));
            }
            Some(Entry {
                purpose: Purpose::Resume,
                ..
            }) => {
                self.up();
                self.outage = None;
                self.emit(ClientEvent::Reconnected);
            }
            None if previous.is_some_and(|mirror| !mirror.status().is_ongoing()) => {
                let seat = room.and_then(|room| room.seat);
                self.emit(ClientEvent::RematchStarted { seat });
            }
            None => self.emit(ClientEvent::MatchStarted),
        }
    }

    /// The relay refused request `id` (`None`: a frame it could not read).
    fn refused(
        &mut self,
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    ) -> Result<(), ClientError> {
        let refusal = || ClientError::Refused {
            code,
            message: message.clone(),
        };
        let Some(id) = id else {
            // A quick match that waited is refused when its pairing fails, its request
            // answered by `Queued` already.
            if let Some(entry) = self.entry.take_if(|entry| entry.is_queued()) {
                self.answer(entry.id, Err(refusal()));
                return Ok(());
            }
            self.emit(ClientEvent::Rejected { code, message });
            return Ok(());
        };
        if matches!(self.link, Link::Greeting { id: hello, .. } if hello == id) {
            return Err(refusal());
        }
        if let Some(entry) = self.entry.take_if(|entry| entry.id == id) {
            return match entry.purpose {
                Purpose::Owner { .. } => {
                    // A refused resume hello leaves a connected client in no room.
                    self.up();
                    self.answer(id, Err(refusal()));
                    Ok(())
                }
                // The room cannot be taken back (the seat was given up, the room is gone).
                Purpose::Resume => Err(refusal()),
            };
        }
        if self.leaving.take_if(|leaving| *leaving == id).is_some() {
            self.answer(id, Err(refusal()));
            return Ok(());
        }
        self.answer(id, Err(refusal()));
        self.emit(ClientEvent::Rejected { code, message });
        Ok(())
    }

    /// The connection failed at `now` with `cause`: reconnect with pauses, or end for good.
    fn fail(&mut self, now: Timestamp, cause: ClientError) {
        // Closed, or waiting for the next attempt: no connection is there to fail.
        if matches!(self.link, Link::Closed | Link::Waiting { .. }) {
            return;
        }
        // The first connection is not retried: its owner hears why it failed.
        let first = !self.greeted && self.outage.is_none() && self.room.is_none();
        if first || !cause.is_transient() || self.options.reconnect.period.is_zero() {
            return self.finish(Some(cause));
        }
        self.ping = None;
        // What waited to go out goes with the connection; a resume in progress starts over.
        self.transmits.clear();
        self.entry.take_if(|entry| entry.purpose == Purpose::Resume);
        self.hops = 0;
        self.retried = cause.asks_for_time() && !self.retried;
        if self.retried {
            self.events.push_back(CoreEvent::Retry);
        }
        let retry =
            matches!(self.link, Link::Up | Link::Resuming { .. }) && !cause.calls_for_a_pause();
        if let Some(outage) = &mut self.outage {
            // A connection that was up is tried again at once, a failed attempt after a
            // longer pause each time.
            let at = if retry {
                now
            } else {
                now + outage.pauses.next_pause()
            };
            if at >= outage.since + self.options.reconnect.period {
                return self.finish(Some(cause));
            }
            self.link = Link::Waiting { at };
        } else {
            self.fail_requests(|| ClientError::ConnectionLost);
            self.emit(ClientEvent::Reconnecting { cause });
            self.outage = Some(Outage {
                since: now,
                pauses: Backoff::new(self.options.reconnect),
            });
            self.link = Link::Waiting { at: now };
        }
        self.handle_timeout(now);
    }

    /// Ends for good; `cause` is why, unless the owner asked for it.
    fn finish(&mut self, cause: Option<ClientError>) {
        // The first hello's owner waits for its answer (a first resume's, for the room), and
        // the failure is that answer.
        let greeting = match self.link {
            _ if self.greeted || self.outage.is_some() || self.room.is_some() => None,
            Link::Greeting { id, .. } => {
                self.entry.take_if(|entry| entry.id == id);
                Some(id)
            }
            // A first resume or entry, redirected.
            Link::Connecting { .. } | Link::Resuming { .. } => {
                self.entry.take().map(|entry| entry.id)
            }
            _ => None,
        };
        self.transmits.clear();
        let lost = cause.is_some();
        self.fail_requests(|| {
            if lost {
                ClientError::ConnectionLost
            } else {
                ClientError::Closed
            }
        });
        self.link = Link::Closed;
        match (greeting, cause) {
            // A first resume cut off is a lost connection, as for any entry.
            (Some(id), Some(cause)) if cause.is_transport() => {
                self.answer(id, Err(ClientError::ConnectionLost));
            }
            (Some(id), Some(cause)) => self.answer(id, Err(cause)),
            (None, Some(cause)) => self.emit(ClientEvent::Disconnected { cause }),
            (_, None) => {}
        }
    }

    /// Fails the owner's waiting room request or leave with `error`.
    fn fail_requests(&mut self, error: impl Fn() -> ClientError) {
        if let Some(Entry {
            id,
            purpose: Purpose::Owner { .. },
            ..
        }) = self.entry.take()
        {
            self.answer(id, Err(error()));
        }
        if let Some(id) = self.leaving.take() {
            self.answer(id, Err(error()));
        }
    }

    fn answer(&mut self, id: RequestId, outcome: Result<Answer, ClientError>) {
        self.events.push_back(CoreEvent::Answered { id, outcome });
    }

    fn emit(&mut self, event: ClientEvent) {
        self.events.push_back(CoreEvent::Client(event));
    }
}

/// How long the relay may stay silent before the core pings it, and before it gives the
/// connection up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keepalive {
    /// Silence after which the core sends a ping.
    pub interval: Duration,
    /// Silence after which the connection counts as failed.
    pub timeout: Duration,
}

impl Default for Keepalive {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(15),
            timeout: Duration::from_secs(45),
        }
    }
}

#[cfg(test)]
mod tests;
