//! The relay's sans-IO core: connections in, frames out.

use std::sync::Arc;

use xq_protocol::codec::{self, DecodeError};
use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, MIN_CLOCK, PROTOCOL_VERSION, Request, RequestId,
    ResumeToken, RoomCode, RoomOptions, SeatChoice, ServerMsg,
};
use xq_session::{Action, Match, Seat, Timestamp};
use xq_store::{OpenRoom, Persist};
use xq_transport::Peer;

use crate::cluster::CodeReserve;
use crate::conn::Place;
use crate::lobby::Lobby;
use crate::metrics::RelayMetrics;
use crate::output::{Outbox, Output};
use crate::quick::QuickQueue;
use crate::quotas::Quotas;
use crate::room::{Asker, Vacated};
use crate::rooms::{Fate, RestoreError, Rooms};
use crate::source::Source;
use crate::{Config, ConnId, Located, Lookup};

const SHUTTING_DOWN: &str = "the relay is shutting down";

/// The relay as a state machine: it hosts rooms, seats players, runs every match and decides
/// what each connection is sent. It does no IO, reads no clock and draws its randomness (room
/// codes, resume tokens, colours) from a seed, so a test drives it exactly.
///
/// In [quinn-proto]'s shape:
///
/// - **Inputs**: [`handle_connect`](Self::handle_connect),
///   [`handle_frame`](Self::handle_frame) (one whole frame from a transport),
///   [`handle_disconnect`](Self::handle_disconnect), [`handle_timeout`](Self::handle_timeout)
///   and [`shutdown`](Self::shutdown), each with the current [`Timestamp`].
/// - **Outputs**: [`poll_output`](Self::poll_output) yields frames to send, connections to
///   close and changes to persist; [`poll_timeout`](Self::poll_timeout) says when to call
///   `handle_timeout` next.
///
/// **Calling order**: after every `handle_*` call, drain `poll_output` until it returns `None`
/// and carry the outputs out in order, then re-arm the timer from `poll_timeout`.
///
/// Every request is checked against the sender's place (its seat, or none), then by the
/// match; a refusal goes to the sender alone as [`ServerMsg::Error`] and changes nothing.
/// Each decoded [`Request`] gets exactly one answer naming its id ([`xq_protocol`]'s crate
/// docs list which): an accepted action is answered by the first event it made, in the copy
/// the actor receives. A frame that does not decode is answered by an error with no id.
///
/// # Examples
///
/// ```
/// use xq_protocol::{ClientMsg, PROTOCOL_VERSION, Request, RequestId, ServerMsg, codec};
/// use xq_server::{Config, ConnId, Output, Relay};
/// use xq_session::Timestamp;
/// use xq_transport::Peer;
///
/// let mut relay = Relay::new(Config::default(), [7; 32]);
/// let now = Timestamp::from_millis(0);
/// relay.handle_connect(now, ConnId(1), "mem", &Peer::Memory("doc".into()));
/// let msg = ClientMsg::Hello { version: PROTOCOL_VERSION, client: "doc".into(), resume: None };
/// let hello = Request { id: RequestId(1), msg };
/// relay.handle_frame(now, ConnId(1), &codec::to_frame(&hello)?);
/// let Some(Output::Send { to, frame }) = relay.poll_output() else { panic!("no answer") };
/// assert_eq!(to, ConnId(1));
/// assert!(matches!(
///     codec::decode(&frame)?,
///     ServerMsg::Welcome { id: RequestId(1), .. }
/// ));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// [quinn-proto]: https://docs.rs/quinn-proto
#[derive(Debug)]
pub struct Relay {
    config: Config,
    lobby: Lobby,
    rooms: Rooms,
    quotas: Quotas,
    quick: QuickQueue,
    outbox: Outbox,
    shutting_down: bool,
    metrics: RelayMetrics,
    /// In a cluster: the codes claimed for new rooms.
    reserve: Option<CodeReserve>,
}

/// What a request that finds no room (or no seat for its token) here does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Miss {
    /// Asks the cluster where it is ([`Output::Locate`]).
    Locate,
    /// Is refused: the relay is alone, or the cluster was asked already.
    Refuse,
}

impl Relay {
    /// A relay with no connections and no rooms, drawing its randomness from `seed` (use a
    /// fresh random seed in production: room codes and resume tokens must not be guessable).
    #[must_use]
    ///
    /// In a cluster ([`Config::cluster`]) it starts by claiming codes for new rooms
    /// ([`Output::Claim`]).
    pub fn new(config: Config, seed: [u8; 32]) -> Self {
        let mut relay = Self {
            lobby: Lobby::new(config.lobby_timeout),
            reserve: config.cluster.as_ref().map(CodeReserve::new),
            config,
            rooms: Rooms::new(seed),
            quotas: Quotas::default(),
            quick: QuickQueue::default(),
            outbox: Outbox::default(),
            shutting_down: false,
            metrics: RelayMetrics::default(),
        };
        relay.top_up();
        relay
    }

    /// Seeds the relay with a room its storage kept ([`xq_store::Storage::open_rooms`]), after
    /// a restart and before it serves anyone. The room's match is rebuilt from its journal and
    /// the resume tokens of the seats not lost before are valid again. Nobody is connected
    /// yet, so those seats wait for a resume for the grace period from `now`; a room whose
    /// seats were both lost closes.
    ///
    /// A match with clocks is sent [`xq_session::Command::ResumeClocks`] at `now`, so the time the relay
    /// was down is charged to nobody: after a graceful shutdown the clocks were paused then
    /// ([`shutdown`](Self::shutdown)); after a crash, the time from the last accepted input to
    /// the crash goes uncharged as well, since nobody can know when the relay died. The restart
    /// is journaled like any accepted input, so carry out the outputs as usual.
    ///
    /// # Errors
    ///
    /// A [`RestoreError`] if the journal does not replay or the room is already open; the
    /// relay is unchanged then.
    pub fn restore(&mut self, now: Timestamp, stored: OpenRoom) -> Result<(), RestoreError> {
        let code = stored.code;
        if self
            .rooms
            .restore(now, stored, &mut self.outbox)?
            .is_deserted()
        {
            self.close_room(now, code);
        } else {
            self.rooms.rearm(code, &self.config);
        }
        Ok(())
    }

    /// A transport accepted connection `conn`; `transport` names it for the logs and the
    /// metrics (`udp`, `quic`, `mem`: pass an `Arc<str>` shared by the transport's connections
    /// to spare each its own copy), and `peer` is who connected
    /// ([`Connection::peer`](xq_transport::Connection::peer)).
    /// [`Config::max_rooms_per_address`] counts a [`Peer::Socket`]'s rooms by its host: the IP
    /// address without the port, an IPv6 address by its /64 network. A [`Peer::Memory`]
    /// (in-process) is not counted by address. The connection's first frame must be a hello.
    /// After [`shutdown`](Self::shutdown) it is turned away at once.
    pub fn handle_connect(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        transport: impl Into<Arc<str>>,
        peer: &Peer,
    ) {
        if self.shutting_down {
            self.outbox
                .disconnect(conn, DisconnectReason::ShuttingDown, SHUTTING_DOWN);
            return;
        }
        let transport = transport.into();
        tracing::debug!(%conn, %transport, %peer, "connected");
        self.metrics.connected(&transport);
        self.lobby
            .connect(now, conn, transport, self.config.rate_limit);
        self.quotas.connect(conn, Source::of(peer).host());
    }

    /// Turns connection `conn` away before it is served, telling it `message`: the driver's
    /// connection caps are full ([`DisconnectReason::RelayFull`]).
    pub fn refuse_connect(&mut self, conn: ConnId, message: &str) {
        self.outbox
            .disconnect(conn, DisconnectReason::RelayFull, message);
    }

    /// A whole frame arrived on `conn`: a [`Request`], which is answered once by its id. Frames
    /// for unknown (or already closed) connections are ignored.
    ///
    /// Before anything is decoded, the frame's size is checked against
    /// [`Config::max_frame_size`] and the connection's rate against [`Config::rate_limit`]:
    /// either failing disconnects it, and nobody else notices.
    ///
    /// Whatever fell due by `now` (a flag, the end of a grace period) happens first, as
    /// [`handle_timeout`](Self::handle_timeout) would: a driver busy with input may call that
    /// late, and a frame must not find the relay as it was before its deadlines.
    pub fn handle_frame(&mut self, now: Timestamp, conn: ConnId, frame: &[u8]) {
        if self.lobby.get(conn).is_none() {
            return;
        }
        if frame.len() > self.config.max_frame_size {
            self.metrics.oversized_frames += 1;
            let message = format!(
                "a frame of {} bytes exceeds the limit of {}",
                frame.len(),
                self.config.max_frame_size
            );
            self.close(now, conn, DisconnectReason::Malformed, &message);
            return;
        }
        let within_rate = self
            .lobby
            .get_mut(conn)
            .is_some_and(|state| state.bucket.take(now, self.config.rate_limit));
        if !within_rate {
            tracing::info!(%conn, "rate limit exceeded");
            self.metrics.rate_limited += 1;
            let message = "frames sent faster than the relay serves them";
            self.close(now, conn, DisconnectReason::RateLimited, message);
            return;
        }
        self.handle_timeout(now);
        // Time catching up may have closed the connection (its lobby time ran out): what it
        // sent then is not served.
        if self.lobby.get(conn).is_none() {
            return;
        }
        match codec::decode::<Request>(frame) {
            Ok(Request { id, msg }) => {
                tracing::trace!(%conn, %id, ?msg, "received");
                let miss = if self.reserve.is_some() {
                    Miss::Locate
                } else {
                    Miss::Refuse
                };
                if let Err(code) = self.dispatch(now, conn, id, msg, miss) {
                    self.refuse(conn, Some(id), code, describe(code));
                }
            }
            Err(DecodeError::Version { found }) => self.version_mismatch(now, conn, found),
            Err(err) => self.malformed(now, conn, &err),
        }
    }

    /// `conn` failed or was closed by its peer. A player's seat is held for the grace period
    /// and the room is told, but for the creator of a room nobody has joined yet, whose room
    /// closes; a spectator or a queued player is simply gone.
    pub fn handle_disconnect(&mut self, now: Timestamp, conn: ConnId) {
        self.forget(now, conn);
    }

    /// Time has passed: flags fall, grace periods end (abandoning games still on), deserted
    /// rooms close. Harmless to call early or often.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        while let Some(conn) = self.lobby.pop_idle(now) {
            let message = "in no room for too long";
            self.close(now, conn, DisconnectReason::Idle, message);
        }
        while let Some((code, fate)) = self.rooms.pop_due(now, &self.config, &mut self.outbox) {
            match fate {
                Fate::Open => {}
                Fate::Deserted => self.close_room(now, code),
                Fate::Expired => {
                    tracing::info!(room = %code, "room expired");
                    self.metrics.rooms_expired += 1;
                    self.close_room(now, code);
                }
            }
        }
    }

    /// Shuts the relay down: running clocks are paused (so nobody loses time to the outage),
    /// every connection is told [`DisconnectReason::ShuttingDown`] and closed, and new ones
    /// are turned away. The rooms stay as they are, for a driver with storage to keep.
    pub fn shutdown(&mut self, now: Timestamp) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        tracing::info!(
            connections = self.lobby.len(),
            rooms = self.rooms.len(),
            "shutting down"
        );
        self.rooms.pause_clocks(now, &mut self.outbox);
        for (conn, state) in self.lobby.drain() {
            self.metrics.disconnected(&state.transport);
            self.outbox
                .disconnect(conn, DisconnectReason::ShuttingDown, SHUTTING_DOWN);
        }
        self.quick = QuickQueue::default();
    }

    /// The cluster settled the claim of `code` ([`Output::Claim`]): `won` if `code` is this
    /// node's now, ready for a new room. A claim lost (or failed) is replaced by another.
    /// Codes the relay did not ask for are ignored.
    pub fn handle_claim(&mut self, code: RoomCode, won: bool) {
        if let Some(reserve) = &mut self.reserve
            && reserve.settle(code, won)
            && !self.shutting_down
        {
            self.top_up();
        }
    }

    /// The cluster answered the [`Output::Locate`] of `conn`'s `request`: a room another node
    /// owns sends the client there ([`ServerMsg::Redirect`], then the connection closes); a
    /// room this node took over is restored (as [`restore`](Self::restore) does) and the
    /// request is served as it would have been had the room been here; a room this node is
    /// taking over at that moment serves the request if it has arrived meanwhile, and refuses
    /// it with [`ErrorCode::Unavailable`] (try again) if not; otherwise the request gets the
    /// refusal it would have had ([`ErrorCode::Unavailable`] if the cluster could not be
    /// asked). A room taken over is restored even if `conn` is gone meanwhile.
    pub fn handle_located(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        request: Request,
        located: Located,
    ) {
        let Request { id, msg } = request;
        match located {
            Located::Elsewhere(urls) => {
                if self.lobby.get(conn).is_some() {
                    tracing::debug!(%conn, ?urls, "redirected");
                    self.metrics.redirects += 1;
                    self.outbox.send(conn, &ServerMsg::Redirect { id, urls });
                    self.outbox.close(conn, DisconnectReason::Moved);
                    self.forget(now, conn);
                }
                return;
            }
            Located::Unreachable | Located::Settling => {
                // A room this node was taking over meanwhile may be here now: then it serves.
                let settling = located == Located::Settling;
                if !settling || self.missing(&msg, self.greeted(conn)).is_some() {
                    if self.lobby.get(conn).is_some() {
                        let message = if settling {
                            "the room is moving to this node: try again"
                        } else {
                            "the relay's cluster is out of reach: try again later"
                        };
                        self.refuse(conn, Some(id), ErrorCode::Unavailable, message.into());
                    }
                    return;
                }
            }
            Located::Here(room) => self.take_over(now, *room),
            Located::Nowhere => {}
        }
        if self.lobby.get(conn).is_some()
            && let Err(code) = self.dispatch(now, conn, id, msg, Miss::Refuse)
        {
            self.refuse(conn, Some(id), code, describe(code));
        }
    }

    /// Restores a room this node of a cluster took over from a node that no longer owned it
    /// (as [`restore`](Self::restore) does), counting it; a room whose journal does not
    /// replay is logged and left out.
    pub fn take_over(&mut self, now: Timestamp, room: OpenRoom) {
        let code = room.code;
        match self.restore(now, room) {
            Ok(()) => self.metrics.takeovers += 1,
            Err(err) => tracing::warn!(room = %code, %err, "a room taken over does not restore"),
        }
    }

    /// Gives room `code` up without closing it, because another node of the cluster owns it
    /// now (this node's storage refused its changes, or its lease was lost): nothing is
    /// persisted, and whoever is in it is told [`DisconnectReason::Moved`] and closed, to
    /// resume through any node. Returns those connections: what the driver still holds back
    /// for them (waiting for the refused changes) must not be sent.
    ///
    /// A code claimed for a new room and not used yet is dropped from the reserve instead,
    /// and another claimed in its place.
    pub fn evict(&mut self, now: Timestamp, code: RoomCode) -> Vec<ConnId> {
        if let Some(reserve) = &mut self.reserve
            && reserve.forget(code)
        {
            self.top_up();
            return Vec::new();
        }
        let message = "the room moved to another node of the relay's cluster: resume there";
        if self.rooms.get(code).is_some() {
            tracing::info!(room = %code, "room given up to another node");
            self.metrics.evictions += 1;
        }
        self.remove_room(now, code, DisconnectReason::Moved, message)
    }

    /// The next thing for the driver to do, in order.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outbox.pop()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next, if anything is waiting
    /// for time to pass.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let idle = self.lobby.next_timeout();
        self.rooms.next_deadline().into_iter().chain(idle).min()
    }

    /// The match running in room `code` (the last one, once it is over), for inspection.
    #[must_use]
    pub fn game(&self, code: RoomCode) -> Option<&Match> {
        self.rooms.get(code)?.game()
    }

    /// How many rooms are open.
    #[must_use]
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// How many connections the relay knows.
    #[must_use]
    pub fn connection_count(&self) -> usize {
        self.lobby.len()
    }

    /// The relay's counters now.
    #[must_use]
    pub fn metrics(&self) -> RelayMetrics {
        RelayMetrics {
            rooms: self.rooms.len() as u64,
            ..self.metrics.clone()
        }
    }

    /// Serves request `id` of `conn`. Each handler sends the request's one answer when it
    /// succeeds; an error it returns is the answer instead, and the request changed nothing.
    fn dispatch(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        msg: ClientMsg,
        miss: Miss,
    ) -> Result<(), ErrorCode> {
        let greeted = self.greeted(conn);
        if miss == Miss::Locate
            && let Some(lookup) = self.missing(&msg, greeted)
        {
            self.outbox.ask(Output::Locate {
                conn,
                request: Request { id, msg },
                lookup,
            });
            return Ok(());
        }
        match msg {
            ClientMsg::Hello {
                version,
                client,
                resume,
            } if !greeted => self.hello(now, conn, id, version, &client, resume),
            _ if !greeted => {
                self.metrics.malformed_hellos += 1;
                Err(ErrorCode::HelloExpected)
            }
            ClientMsg::Hello { .. } => Err(ErrorCode::HelloExpected),
            ClientMsg::CreateRoom(options) => self.create_room(now, conn, id, options),
            ClientMsg::JoinRoom { code } => self.join_room(now, conn, id, code),
            ClientMsg::QuickMatch(options) => self.quick_match(now, conn, id, options),
            ClientMsg::Spectate { code } => self.spectate(now, conn, id, code),
            ClientMsg::Act(action) => self.act(now, conn, id, action),
            ClientMsg::Rematch => self.rematch(now, conn, id),
            ClientMsg::Ping => {
                self.outbox.send(conn, &ServerMsg::Pong { id });
                Ok(())
            }
            ClientMsg::Leave => self.leave(now, conn, id),
            // A message of a later protocol revision that this relay cannot serve.
            _ => Err(ErrorCode::Malformed),
        }
    }

    /// Whether `conn` has said hello.
    fn greeted(&self, conn: ConnId) -> bool {
        self.lobby.get(conn).is_some_and(|state| state.greeted)
    }

    /// What a request asks for that this relay does not hold and the cluster may: the room
    /// of a resume token, or the room a join or spectate names.
    fn missing(&self, msg: &ClientMsg, greeted: bool) -> Option<Lookup> {
        match *msg {
            ClientMsg::Hello {
                version,
                resume: Some(token),
                ..
            } if !greeted && version == PROTOCOL_VERSION && !self.rooms.holds(token) => {
                Some(Lookup::Token(token))
            }
            ClientMsg::JoinRoom { code } | ClientMsg::Spectate { code }
                if greeted && self.rooms.get(code).is_none() && !self.is_reserved(code) =>
            {
                Some(Lookup::Room(code))
            }
            _ => None,
        }
    }

    /// Whether `code` is one this node claimed for a room it has not opened yet (a code it is
    /// still claiming may be another node's: it is looked up).
    fn is_reserved(&self, code: RoomCode) -> bool {
        self.reserve
            .as_ref()
            .is_some_and(|reserve| reserve.is_ready(code))
    }

    /// A code for a new room: drawn here for a relay alone, from the claimed ones in a
    /// cluster (then another is claimed in its place).
    fn new_code(&mut self) -> Result<RoomCode, ErrorCode> {
        let Some(reserve) = &mut self.reserve else {
            return Ok(self.rooms.draw_code());
        };
        let code = reserve.take().ok_or(ErrorCode::Unavailable)?;
        self.top_up();
        Ok(code)
    }

    /// Whether a new room could have a code now.
    fn ensure_code(&self) -> Result<(), ErrorCode> {
        match &self.reserve {
            Some(reserve) if reserve.is_empty() => Err(ErrorCode::Unavailable),
            _ => Ok(()),
        }
    }

    /// Claims codes until the reserve is back at its target (nothing for a relay alone).
    fn top_up(&mut self) {
        let Some(reserve) = &mut self.reserve else {
            return;
        };
        for _ in 0..reserve.shortfall() {
            let code = loop {
                let code = self.rooms.draw_code();
                if !reserve.holds(code) {
                    break code;
                }
            };
            reserve.claiming(code);
            self.outbox.ask(Output::Claim(code));
        }
    }

    /// Welcomes `conn`, answering its hello `id`, and puts it back in the seat `resume` holds.
    /// A token that holds no seat refuses the whole hello: the connection is not greeted, and
    /// may say hello again (without the token).
    fn hello(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        version: u8,
        client: &str,
        resume: Option<ResumeToken>,
    ) -> Result<(), ErrorCode> {
        if version != PROTOCOL_VERSION {
            // Not answered: the connection is closed, with the reason in its disconnect.
            self.version_mismatch(now, conn, version);
            return Ok(());
        }
        if resume.is_some_and(|token| !self.rooms.holds(token)) {
            return Err(ErrorCode::ResumeRefused);
        }
        if let Some(state) = self.lobby.get_mut(conn) {
            state.greeted = true;
        }
        tracing::debug!(%conn, client, resume = resume.is_some(), "hello");
        let welcome = ServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            server: self.config.server_name.clone(),
        };
        self.outbox.send(conn, &welcome);
        if let Some(token) = resume {
            self.resume(now, conn, token);
        }
        Ok(())
    }

    /// Puts `conn` back in the seat `token` holds ([`Rooms::resume`]), which the hello checked;
    /// a connection replaced in the seat goes quietly, as the player never left as far as the
    /// room knows.
    fn resume(&mut self, now: Timestamp, conn: ConnId, token: ResumeToken) {
        let Some((code, seat, replaced)) =
            self.rooms
                .resume(now, token, conn, &self.config, &mut self.outbox)
        else {
            // The hello found the seat held a moment ago, with nothing in between.
            tracing::warn!(%conn, "resume token lost its seat during the hello");
            return;
        };
        tracing::info!(room = %code, %conn, ?seat, "seat resumed");
        self.metrics.resumes += 1;
        self.lobby.set_place(conn, Place::Player { code, seat });
        if let Some(old) = replaced {
            self.lobby.set_place(old, Place::Lobby);
            let message = "the seat was resumed on another connection";
            self.close(now, old, DisconnectReason::Kicked, message);
        }
    }

    /// Opens a room with `conn` in its first seat, answering `id` with `Joined`.
    fn create_room(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        options: RoomOptions,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        self.ensure_room_left(conn)?;
        options.check()?;
        let code = self.new_code()?;
        let red = match options.seat {
            SeatChoice::Red => Seat::First,
            SeatChoice::Black => Seat::Second,
            SeatChoice::Random => self.rooms.draw_seat(),
        };
        self.rooms.open(now, code, options, red);
        self.seat_player(code, Seat::First, conn);
        self.count_room(code, Seat::First, conn);
        if let Some(room) = self.rooms.get(code) {
            // A room waiting for its second player is not stored (a restart loses it and
            // refuses its token), so its creator is told at once.
            room.announce(Seat::First, Some(id), &mut self.outbox);
            room.send_snapshot(now, &mut self.outbox, conn);
        }
        self.rooms.rearm(code, &self.config);
        Ok(())
    }

    /// Seats `conn` in room `code`'s second seat, answering `id` with `Joined`.
    fn join_room(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        code: RoomCode,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        let room = self.rooms.get(code).ok_or(ErrorCode::RoomNotFound)?;
        if room.is_full() {
            return Err(ErrorCode::RoomFull);
        }
        self.seat_player(code, Seat::Second, conn);
        self.begin(now, code, &[(Seat::Second, Some(id))]);
        Ok(())
    }

    /// Pairs `conn` with the player waiting for the same game, answering `id` with `Joined`,
    /// or queues it, answering `Queued`; the waiting player's `Joined` names no request.
    fn quick_match(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        options: RoomOptions,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        self.ensure_room_left(conn)?;
        options.check()?;
        self.ensure_code()?;
        let mut partner = self.quick.pair(conn, options);
        // The partner passed these checks when it asked, but its address may have made rooms
        // open since: then it is refused now, and `conn` waits in its place. Its request was
        // answered (`Queued`) when it asked, so this refusal names none, as its pairing would
        // not have.
        if let Some(first) = partner
            && let Err(code) = self.ensure_room_left(first)
        {
            self.lobby.enter(now, first);
            self.refuse(first, None, code, describe(code));
            partner = self.quick.pair(conn, options);
        }
        let Some(first) = partner else {
            self.lobby.set_place(conn, Place::Queued);
            self.outbox.send(conn, &ServerMsg::Queued { id });
            return Ok(());
        };
        let options = RoomOptions {
            seat: SeatChoice::Random,
            ..options
        };
        let code = self.new_code()?;
        let red = self.rooms.draw_seat();
        self.rooms.open(now, code, options, red);
        self.seat_player(code, Seat::First, first);
        self.seat_player(code, Seat::Second, conn);
        self.count_room(code, Seat::First, first);
        self.count_room(code, Seat::Second, conn);
        self.begin(now, code, &[(Seat::First, None), (Seat::Second, Some(id))]);
        Ok(())
    }

    /// Adds `conn` to room `code`'s spectators, answering `id` with `Joined`.
    fn spectate(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        code: RoomCode,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        let room = self.rooms.get_mut(code).ok_or(ErrorCode::RoomNotFound)?;
        room.add_spectator(conn);
        let joined = ServerMsg::Joined {
            id: Some(id),
            code,
            seat: None,
            resume: None,
        };
        self.outbox.send(conn, &joined);
        room.send_snapshot(now, &mut self.outbox, conn);
        tracing::debug!(room = %code, %conn, "spectating");
        self.lobby.set_place(conn, Place::Spectator { code });
        Ok(())
    }

    /// Hands a player's action to its room's match, as the action of the sender's seat; the
    /// first event it makes answers `id` in the copy `conn` receives.
    fn act(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        id: RequestId,
        action: Action,
    ) -> Result<(), ErrorCode> {
        let (code, seat) = self.player(conn)?;
        let asker = Asker { conn, id };
        let played = self.rooms.act(
            now,
            code,
            seat,
            action,
            asker,
            &self.config,
            &mut self.outbox,
        )?;
        if played {
            self.metrics.moves_accepted += 1;
        }
        Ok(())
    }

    /// Asks for a rematch for `conn`'s seat, answering `id` with `Done` once what it changed
    /// (the announcement, or the new match's `Joined` and snapshot) has gone out.
    fn rematch(&mut self, now: Timestamp, conn: ConnId, id: RequestId) -> Result<(), ErrorCode> {
        let (code, seat) = self.player(conn)?;
        let room = self.rooms.get_mut(code).ok_or(ErrorCode::NotInRoom)?;
        room.ask_rematch(now, seat, &mut self.outbox)?;
        self.rooms.rearm(code, &self.config);
        self.outbox.send(conn, &ServerMsg::Done { id });
        Ok(())
    }

    /// Takes `conn` out of its room (or the queue), answering `id` with `Done` last: nothing
    /// of the room reaches it after that.
    fn leave(&mut self, now: Timestamp, conn: ConnId, id: RequestId) -> Result<(), ErrorCode> {
        let place = self.lobby.place(conn);
        if place == Place::Lobby {
            return Err(ErrorCode::NotInRoom);
        }
        self.detach(now, conn, place);
        self.lobby.enter(now, conn);
        self.outbox.send(conn, &ServerMsg::Done { id });
        Ok(())
    }

    /// Seats `conn` at `seat` of room `code`; the room tells it ([`Room::announce`]) once
    /// that is stored.
    ///
    /// [`Room::announce`]: crate::room::Room::announce
    fn seat_player(&mut self, code: RoomCode, seat: Seat, conn: ConnId) {
        if self.rooms.seat(code, seat, conn) {
            tracing::debug!(room = %code, %conn, ?seat, "seated");
            self.lobby.set_place(conn, Place::Player { code, seat });
        }
    }

    /// Starts room `code`'s first match and tells the players at `seated` their seats, each
    /// `Joined` naming the request it answers, if any.
    fn begin(&mut self, now: Timestamp, code: RoomCode, seated: &[(Seat, Option<RequestId>)]) {
        if let Some(room) = self.rooms.get_mut(code) {
            room.begin(now, seated, &mut self.outbox);
        }
        self.rooms.rearm(code, &self.config);
    }

    /// Takes `conn` out of wherever it is; a player's seat waits for it, or the room closes if
    /// nobody has joined it yet.
    fn detach(&mut self, now: Timestamp, conn: ConnId, place: Place) {
        match place {
            Place::Lobby => {}
            Place::Queued => self.quick.remove(conn),
            Place::Spectator { code } => {
                if let Some(room) = self.rooms.get_mut(code) {
                    room.remove_spectator(conn);
                }
            }
            Place::Player { code, seat } => {
                let Some(room) = self.rooms.get_mut(code) else {
                    return;
                };
                match room.vacate(now, seat, conn, &mut self.outbox) {
                    Vacated::NotSeated => {}
                    Vacated::Closing => {
                        tracing::info!(room = %code, %conn, "creator left a waiting room");
                        self.close_room(now, code);
                    }
                    Vacated::Away => {
                        tracing::info!(room = %code, %conn, ?seat, "player away");
                        self.rooms.rearm(code, &self.config);
                    }
                }
            }
        }
    }

    /// Closes a room that is deserted or expired: its seats' tokens are void, and whoever is
    /// still in it (spectators, a player waiting in an expired room) is sent away.
    fn close_room(&mut self, now: Timestamp, code: RoomCode) {
        if self.rooms.get(code).is_none() {
            return;
        }
        self.outbox.persist(Persist::RoomClosed { code });
        tracing::info!(room = %code, "room closed");
        self.remove_room(now, code, DisconnectReason::NotFound, "the room closed");
    }

    /// Takes room `code` out of the relay, closing every connection in it with `reason`;
    /// returns them.
    fn remove_room(
        &mut self,
        now: Timestamp,
        code: RoomCode,
        reason: DisconnectReason,
        message: &str,
    ) -> Vec<ConnId> {
        let Some(room) = self.rooms.remove(code) else {
            return Vec::new();
        };
        for conn in room.counted() {
            self.quotas.uncount(conn);
        }
        let conns: Vec<_> = room.recipients().collect();
        for &conn in &conns {
            // Out of the room first, so that closing the connection leaves no seat behind.
            self.lobby.set_place(conn, Place::Lobby);
            self.close(now, conn, reason, message);
        }
        conns
    }

    fn version_mismatch(&mut self, now: Timestamp, conn: ConnId, found: u8) {
        self.metrics.version_mismatches += 1;
        let message = format!("this relay speaks protocol version {PROTOCOL_VERSION}, not {found}");
        self.close(now, conn, DisconnectReason::VersionMismatch, &message);
    }

    fn malformed(&mut self, now: Timestamp, conn: ConnId, err: &DecodeError) {
        let Some(state) = self.lobby.get_mut(conn) else {
            return;
        };
        state.malformed += 1;
        if !state.greeted {
            self.metrics.malformed_hellos += 1;
        }
        tracing::debug!(%conn, %err, count = state.malformed, "malformed frame");
        if state.malformed >= self.config.malformed_limit {
            let message = "too many frames that do not decode";
            self.close(now, conn, DisconnectReason::Malformed, message);
        } else {
            // No id: none could be read from the frame.
            self.refuse(conn, None, ErrorCode::Malformed, err.to_string());
        }
    }

    /// Tells `conn` that request `id` was refused, for `code`.
    fn refuse(&mut self, conn: ConnId, id: Option<RequestId>, code: ErrorCode, message: String) {
        tracing::debug!(%conn, ?id, ?code, "refused");
        self.metrics.rejected(code);
        let msg = ServerMsg::Error { id, code, message };
        self.outbox.send(conn, &msg);
    }

    /// Tells `conn` why, closes it and forgets it.
    fn close(&mut self, now: Timestamp, conn: ConnId, reason: DisconnectReason, message: &str) {
        self.outbox.disconnect(conn, reason, message);
        self.forget(now, conn);
    }

    fn forget(&mut self, now: Timestamp, conn: ConnId) {
        if let Some(state) = self.lobby.remove(conn) {
            // Its rooms are held for the grace period, still counting against its address.
            self.quotas.disconnect(conn);
            let secs = now.saturating_duration_since(state.since).as_secs();
            tracing::debug!(%conn, secs, "disconnected");
            self.metrics.disconnected(&state.transport);
            self.detach(now, conn, state.place);
        }
    }

    /// Whether `conn` may make another room open ([`Quotas::check`]).
    fn ensure_room_left(&self, conn: ConnId) -> Result<(), ErrorCode> {
        self.quotas.check(conn, self.rooms.len(), &self.config)
    }

    /// Counts room `code` against `conn`, which made it open and sits at `seat`, and against
    /// its address.
    fn count_room(&mut self, code: RoomCode, seat: Seat, conn: ConnId) {
        if let Some(room) = self.rooms.get_mut(code)
            && self.quotas.count(conn)
        {
            room.count_against(seat, conn);
        }
    }

    fn ensure_lobby(&self, conn: ConnId) -> Result<(), ErrorCode> {
        match self.lobby.place(conn) {
            Place::Lobby => Ok(()),
            _ => Err(ErrorCode::AlreadyInRoom),
        }
    }

    /// The room and seat of a player, or why `conn` is not one.
    fn player(&self, conn: ConnId) -> Result<(RoomCode, Seat), ErrorCode> {
        match self.lobby.place(conn) {
            Place::Player { code, seat } => Ok((code, seat)),
            Place::Spectator { .. } => Err(ErrorCode::Spectator),
            Place::Lobby | Place::Queued => Err(ErrorCode::NotInRoom),
        }
    }
}

/// A refusal in words, for people.
fn describe(code: ErrorCode) -> String {
    let text = match code {
        ErrorCode::Rejected(err) => return err.to_string(),
        ErrorCode::HelloExpected => "say hello first, and only once",
        ErrorCode::RoomNotFound => "no room has this code",
        ErrorCode::RoomFull => "both seats are taken",
        ErrorCode::AlreadyInRoom => "leave your room first",
        ErrorCode::NotInRoom => "you are in no room",
        ErrorCode::Spectator => "spectators cannot send commands",
        ErrorCode::GameNotOver => "the game is not over",
        ErrorCode::ResumeRefused => "unknown or expired resume token",
        ErrorCode::NoOpponentYet => "no opponent has joined yet",
        ErrorCode::TooManyRooms => "too many rooms are open; try again once one has closed",
        ErrorCode::AlreadyAsked => {
            "you asked this at this point of the game (or later, in moves since taken back) \
             already: ask again once the game has gone past it"
        }
        ErrorCode::InvalidOptions => {
            return format!("the clocks must start with at least {MIN_CLOCK:?}");
        }
        ErrorCode::Malformed => "this relay does not understand that message",
        _ => "request refused",
    };
    text.to_string()
}
