//! The relay's sans-IO core: connections in, frames out.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};
use std::net::IpAddr;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use xq_protocol::codec::{self, DecodeError};
use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, MIN_CLOCK, PROTOCOL_VERSION, ResumeToken, RoomCode,
    RoomOptions, SeatChoice, ServerMsg,
};
use xq_session::{Action, Command, Match, RebuildError, Seat, Timestamp};
use xq_store::{OpenRoom, Persist};

use crate::conn::{Conn, Place};
use crate::deadlines::Deadlines;
use crate::metrics::RelayMetrics;
use crate::output::{Outbox, Output};
use crate::quick::QuickQueue;
use crate::room::Room;
use crate::seat::{SEATS, SeatState, Seats};
use crate::tally::Tally;
use crate::{Config, ConnId};

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
///
/// # Examples
///
/// ```
/// use xq_protocol::{ClientMsg, PROTOCOL_VERSION, ServerMsg, codec};
/// use xq_server::{Config, ConnId, Output, Relay};
/// use xq_session::Timestamp;
///
/// let mut relay = Relay::new(Config::default(), [7; 32]);
/// let now = Timestamp::from_millis(0);
/// relay.handle_connect(now, ConnId(1), "mem", None);
/// let hello = ClientMsg::Hello { version: PROTOCOL_VERSION, client: "doc".into(), resume: None };
/// relay.handle_frame(now, ConnId(1), &codec::to_frame(&hello)?);
/// let Some(Output::Send { to, frame }) = relay.poll_output() else { panic!("no answer") };
/// assert_eq!(to, ConnId(1));
/// assert!(matches!(codec::decode(&frame)?, ServerMsg::Welcome { .. }));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// [quinn-proto]: https://docs.rs/quinn-proto
#[derive(Debug)]
pub struct Relay {
    config: Config,
    rng: StdRng,
    conns: HashMap<ConnId, Conn>,
    /// Boxed: a room is several hundred bytes, and a hash table keeps up to twice the slots it
    /// fills, so inline rooms would double the memory of every idle match.
    rooms: HashMap<RoomCode, Box<Room>>,
    /// The token of every held seat, and where that seat is.
    tokens: HashMap<ResumeToken, (RoomCode, Seat)>,
    quick: QuickQueue,
    deadlines: Deadlines,
    /// How many open rooms connections from each address have made open.
    rooms_by_origin: Tally<IpAddr>,
    /// The connections gone while rooms they made open are still held: their address, and
    /// how many such rooms, so the address's count drops as those rooms close.
    departed: HashMap<ConnId, (IpAddr, u32)>,
    /// When to look again at connections in the lobby, earliest first: at most one entry per
    /// connection (`Conn::lobby_armed`), so leaving rooms in a loop does not grow it.
    lobby: BinaryHeap<Reverse<(Timestamp, ConnId)>>,
    outbox: Outbox,
    shutting_down: bool,
    metrics: RelayMetrics,
}

impl Relay {
    /// A relay with no connections and no rooms, drawing its randomness from `seed` (use a
    /// fresh random seed in production: room codes and resume tokens must not be guessable).
    #[must_use]
    pub fn new(config: Config, seed: [u8; 32]) -> Self {
        Self {
            config,
            rng: StdRng::from_seed(seed),
            conns: HashMap::new(),
            rooms: HashMap::new(),
            tokens: HashMap::new(),
            quick: QuickQueue::default(),
            deadlines: Deadlines::default(),
            rooms_by_origin: Tally::default(),
            departed: HashMap::new(),
            lobby: BinaryHeap::new(),
            outbox: Outbox::default(),
            shutting_down: false,
            metrics: RelayMetrics::default(),
        }
    }

    /// Seeds the relay with a room its storage kept ([`xq_store::Storage::open_rooms`]), after
    /// a restart and before it serves anyone. The room's match is rebuilt from its journal and
    /// the resume tokens of the seats not lost before are valid again. Nobody is connected
    /// yet, so those seats wait for a resume for the grace period from `now`; a room whose
    /// seats were both lost closes.
    ///
    /// A match with clocks is sent [`Command::ResumeClocks`] at `now`, so the time the relay
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
        if self.rooms.contains_key(&code) {
            return Err(RestoreError::AlreadyOpen(code));
        }
        let mut room =
            Room::restore(now, stored).map_err(|source| RestoreError::Journal { code, source })?;
        if let Some(game) = &mut room.game {
            // Untimed and finished matches have no clock to restart: they refuse and nothing
            // changes, which is all that is needed.
            let _ = game.handle(now, Command::ResumeClocks);
        }
        room.flush(&mut self.outbox);
        for seat in SEATS {
            if room.seats[seat].is_held() {
                self.tokens.insert(room.tokens[seat], (code, seat));
            }
        }
        let deserted = room.is_deserted();
        self.rooms.insert(code, Box::new(room));
        tracing::info!(room = %code, "room restored");
        if deserted {
            self.close_room(now, code);
        } else {
            self.rearm(code);
        }
        Ok(())
    }

    /// A transport accepted connection `conn`; `transport` names it for the logs and the
    /// metrics (`udp`, `quic`, `mem`: pass an `Arc<str>` shared by the transport's connections
    /// to spare each its own copy), and `origin` is the IP address it came from, which
    /// [`Config::max_rooms_per_address`] counts by (`None` for an in-process connection). Its
    /// first frame must be a hello. After [`shutdown`](Self::shutdown) the connection is
    /// turned away at once.
    pub fn handle_connect(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        transport: impl Into<Arc<str>>,
        origin: Option<IpAddr>,
    ) {
        if self.shutting_down {
            self.outbox
                .disconnect(conn, DisconnectReason::ShuttingDown, SHUTTING_DOWN);
            return;
        }
        let transport = transport.into();
        tracing::debug!(%conn, %transport, "connected");
        self.metrics.connected(&transport);
        let state = Conn::new(now, transport, origin, self.config.rate_limit);
        self.conns.insert(conn, state);
        self.lobby
            .push(Reverse((now + self.config.lobby_timeout, conn)));
    }

    /// Turns connection `conn` away before it is served, telling it `message`: the driver's
    /// connection caps are full ([`DisconnectReason::RoomFull`]: the relay has no place left).
    pub fn refuse_connect(&mut self, conn: ConnId, message: &str) {
        self.outbox
            .disconnect(conn, DisconnectReason::RoomFull, message);
    }

    /// A whole frame arrived on `conn`. Frames for unknown (or already closed) connections are
    /// ignored.
    ///
    /// Before anything is decoded, the frame's size is checked against
    /// [`Config::max_frame_size`] and the connection's rate against [`Config::rate_limit`]:
    /// either failing disconnects it, and nobody else notices.
    ///
    /// Whatever fell due by `now` (a flag, the end of a grace period) happens first, as
    /// [`handle_timeout`](Self::handle_timeout) would: a driver busy with input may call that
    /// late, and a frame must not find the relay as it was before its deadlines.
    pub fn handle_frame(&mut self, now: Timestamp, conn: ConnId, frame: &[u8]) {
        if !self.conns.contains_key(&conn) {
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
            .conns
            .get_mut(&conn)
            .is_some_and(|state| state.bucket.take(now, self.config.rate_limit));
        if !within_rate {
            tracing::info!(%conn, "rate limit exceeded");
            self.metrics.rate_limited += 1;
            let message = "frames sent faster than the relay serves them";
            self.close(now, conn, DisconnectReason::RateLimited, message);
            return;
        }
        self.handle_timeout(now);
        match codec::decode::<ClientMsg>(frame) {
            Ok(msg) => {
                tracing::trace!(%conn, ?msg, "received");
                if let Err(code) = self.dispatch(now, conn, msg) {
                    self.refuse(conn, code, describe(code));
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
        while let Some(&Reverse((due, conn))) = self.lobby.peek()
            && due <= now
        {
            self.lobby.pop();
            let Some(state) = self.conns.get_mut(&conn) else {
                continue;
            };
            let idle_until = state.lobby_since + self.config.lobby_timeout;
            if state.place != Place::Lobby {
                // Armed again if it comes back ([`Self::leave`]).
                state.lobby_armed = false;
            } else if idle_until > now {
                // It left a room since this entry was made.
                self.lobby.push(Reverse((idle_until, conn)));
            } else {
                let message = "in no room for too long";
                self.close(now, conn, DisconnectReason::Idle, message);
            }
        }
        while let Some(code) = self.deadlines.pop_due(now) {
            let Some(room) = self.rooms.get_mut(&code) else {
                continue;
            };
            room.armed = None;
            room.handle_timeout(now, self.config.grace, &mut self.outbox);
            for seat in SEATS {
                if room.seats[seat] == SeatState::Gone {
                    self.tokens.remove(&room.tokens[seat]);
                }
            }
            if room.is_deserted() {
                self.close_room(now, code);
            } else if room.is_expired(now, &self.config) {
                tracing::info!(room = %code, "room expired");
                self.metrics.rooms_expired += 1;
                self.close_room(now, code);
            } else {
                self.rearm(code);
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
            connections = self.conns.len(),
            rooms = self.rooms.len(),
            "shutting down"
        );
        for room in self.rooms.values_mut() {
            if let Some(game) = room.game.as_mut().filter(|game| game.clocks_running()) {
                if let Err(err) = game.handle(now, Command::PauseClocks) {
                    tracing::warn!(room = %room.code, %err, "cannot pause the clocks");
                }
                room.flush(&mut self.outbox);
                self.deadlines.rearm(room.code, &mut room.armed, None);
            }
        }
        for (conn, state) in self.conns.drain() {
            self.metrics.disconnected(&state.transport);
            self.outbox
                .disconnect(conn, DisconnectReason::ShuttingDown, SHUTTING_DOWN);
        }
        self.quick = QuickQueue::default();
        self.lobby.clear();
    }

    /// The next thing for the driver to do, in order.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outbox.pop()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout) next, if anything is waiting
    /// for time to pass.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let idle = self.lobby.peek().map(|&Reverse((due, _))| due);
        self.deadlines.next().into_iter().chain(idle).min()
    }

    /// The match running in room `code` (the last one, once it is over), for inspection.
    #[must_use]
    pub fn game(&self, code: RoomCode) -> Option<&Match> {
        self.rooms.get(&code)?.game.as_ref()
    }

    /// How many rooms are open.
    #[must_use]
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// How many connections the relay knows.
    #[must_use]
    pub fn connection_count(&self) -> usize {
        self.conns.len()
    }

    /// The relay's counters now.
    #[must_use]
    pub fn metrics(&self) -> RelayMetrics {
        RelayMetrics {
            rooms: self.rooms.len() as u64,
            ..self.metrics.clone()
        }
    }

    fn dispatch(&mut self, now: Timestamp, conn: ConnId, msg: ClientMsg) -> Result<(), ErrorCode> {
        let greeted = self.conns.get(&conn).is_some_and(|state| state.greeted);
        match msg {
            ClientMsg::Hello {
                version,
                client,
                resume,
            } if !greeted => self.hello(now, conn, version, &client, resume),
            _ if !greeted => {
                self.metrics.malformed_hellos += 1;
                Err(ErrorCode::HelloExpected)
            }
            ClientMsg::Hello { .. } => Err(ErrorCode::HelloExpected),
            ClientMsg::CreateRoom(options) => self.create_room(now, conn, options),
            ClientMsg::JoinRoom { code } => self.join_room(now, conn, code),
            ClientMsg::QuickMatch(options) => self.quick_match(now, conn, options),
            ClientMsg::Spectate { code } => self.spectate(now, conn, code),
            ClientMsg::Act(action) => self.act(now, conn, action),
            ClientMsg::Rematch => self.rematch(now, conn),
            ClientMsg::Ping { nonce } => {
                self.outbox.send(conn, &ServerMsg::Pong { nonce });
                Ok(())
            }
            ClientMsg::Leave => self.leave(now, conn),
            // A message of a later protocol revision that this relay cannot serve.
            _ => Err(ErrorCode::Malformed),
        }
    }

    fn hello(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        version: u8,
        client: &str,
        resume: Option<ResumeToken>,
    ) -> Result<(), ErrorCode> {
        if version != PROTOCOL_VERSION {
            self.version_mismatch(now, conn, version);
            return Ok(());
        }
        if let Some(state) = self.conns.get_mut(&conn) {
            state.greeted = true;
        }
        tracing::debug!(%conn, client, resume = resume.is_some(), "hello");
        let welcome = ServerMsg::Welcome {
            version: PROTOCOL_VERSION,
            server: self.config.server_name.clone(),
        };
        self.outbox.send(conn, &welcome);
        match resume {
            Some(token) => self.resume(now, conn, token),
            None => Ok(()),
        }
    }

    /// Puts `conn` back in the seat `token` holds. A connection still in the seat (whose
    /// failure the relay has not noticed yet) is replaced.
    fn resume(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        token: ResumeToken,
    ) -> Result<(), ErrorCode> {
        let &(code, seat) = self.tokens.get(&token).ok_or(ErrorCode::ResumeRefused)?;
        let room = self.rooms.get_mut(&code).ok_or(ErrorCode::ResumeRefused)?;
        let replaced = room.seats[seat].conn();
        room.seats[seat] = SeatState::Connected(conn);
        let color = room.color_of(seat);
        let joined = ServerMsg::Joined {
            code,
            seat: Some(color),
            resume: Some(token),
        };
        self.outbox.send(conn, &joined);
        room.send_snapshot(now, &mut self.outbox, conn);
        if replaced.is_none() {
            let back = ServerMsg::Presence {
                seat: color,
                connected: true,
            };
            room.broadcast_except(&mut self.outbox, conn, &back);
        }
        tracing::info!(room = %code, %conn, ?seat, "seat resumed");
        self.metrics.resumes += 1;
        self.set_place(conn, Place::Player { code, seat });
        if let Some(old) = replaced {
            // The player never left, as far as the room knows: the old connection goes quietly.
            self.set_place(old, Place::Lobby);
            let message = "the seat was resumed on another connection";
            self.close(now, old, DisconnectReason::Kicked, message);
        }
        self.rearm(code);
        Ok(())
    }

    fn create_room(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        options: RoomOptions,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        self.ensure_room_left(conn)?;
        options.check()?;
        let red = match options.seat {
            SeatChoice::Red => Seat::First,
            SeatChoice::Black => Seat::Second,
            SeatChoice::Random => self.draw_seat(),
        };
        let code = self.open_room(now, options, red);
        self.seat_player(code, Seat::First, conn);
        self.count_room(code, Seat::First, conn);
        if let Some(room) = self.rooms.get_mut(&code) {
            // A room waiting for its second player is not stored (a restart loses it and
            // refuses its token), so its creator is told at once.
            room.announce(Seat::First, &mut self.outbox);
            room.send_snapshot(now, &mut self.outbox, conn);
        }
        self.rearm(code);
        Ok(())
    }

    fn join_room(&mut self, now: Timestamp, conn: ConnId, code: RoomCode) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        let room = self.rooms.get(&code).ok_or(ErrorCode::RoomNotFound)?;
        if room.seats.second.is_taken() {
            return Err(ErrorCode::RoomFull);
        }
        self.seat_player(code, Seat::Second, conn);
        self.begin(now, code, &[Seat::Second]);
        Ok(())
    }

    fn quick_match(
        &mut self,
        now: Timestamp,
        conn: ConnId,
        options: RoomOptions,
    ) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        self.ensure_room_left(conn)?;
        options.check()?;
        let mut partner = self.quick.pair(conn, options);
        // The partner passed these checks when it asked, but its address may have made rooms
        // open since: then it is refused now, and `conn` waits in its place.
        if let Some(first) = partner
            && let Err(code) = self.ensure_room_left(first)
        {
            self.enter_lobby(now, first);
            self.refuse(first, code, describe(code));
            partner = self.quick.pair(conn, options);
        }
        let Some(first) = partner else {
            self.set_place(conn, Place::Queued);
            self.outbox.send(conn, &ServerMsg::Queued);
            return Ok(());
        };
        let options = RoomOptions {
            seat: SeatChoice::Random,
            ..options
        };
        let red = self.draw_seat();
        let code = self.open_room(now, options, red);
        self.seat_player(code, Seat::First, first);
        self.seat_player(code, Seat::Second, conn);
        self.count_room(code, Seat::First, first);
        self.count_room(code, Seat::Second, conn);
        self.begin(now, code, &SEATS);
        Ok(())
    }

    fn spectate(&mut self, now: Timestamp, conn: ConnId, code: RoomCode) -> Result<(), ErrorCode> {
        self.ensure_lobby(conn)?;
        let room = self.rooms.get_mut(&code).ok_or(ErrorCode::RoomNotFound)?;
        room.spectators.push(conn);
        let joined = ServerMsg::Joined {
            code,
            seat: None,
            resume: None,
        };
        self.outbox.send(conn, &joined);
        room.send_snapshot(now, &mut self.outbox, conn);
        tracing::debug!(room = %code, %conn, "spectating");
        self.set_place(conn, Place::Spectator { code });
        Ok(())
    }

    /// Hands a player's action to its room's match, as the action of the sender's seat.
    fn act(&mut self, now: Timestamp, conn: ConnId, action: Action) -> Result<(), ErrorCode> {
        let (code, seat) = self.player(conn)?;
        let room = self.rooms.get_mut(&code).ok_or(ErrorCode::NotInRoom)?;
        let by = room.color_of(seat);
        let game = room.game.as_mut().ok_or(ErrorCode::NoOpponentYet)?;
        let moves = u16::try_from(game.moves().len()).unwrap_or(u16::MAX);
        if room.asked[seat]
            .mark(action)
            .is_some_and(|mark| moves < *mark)
        {
            return Err(ErrorCode::AlreadyAsked);
        }
        let result = game.handle(now, action.by(by));
        if result.is_ok() {
            if let Some(mark) = room.asked[seat].mark(action) {
                *mark = moves.saturating_add(1);
            }
            if matches!(action, Action::Play(_)) {
                self.metrics.moves_accepted += 1;
            }
        }
        // Even a refused command may let time catch up (a flag that fell before it arrived).
        room.flush(&mut self.outbox);
        self.rearm(code);
        result.map_err(ErrorCode::Rejected)
    }

    fn rematch(&mut self, now: Timestamp, conn: ConnId) -> Result<(), ErrorCode> {
        let (code, seat) = self.player(conn)?;
        let room = self.rooms.get_mut(&code).ok_or(ErrorCode::NotInRoom)?;
        room.ask_rematch(now, seat, &mut self.outbox)?;
        self.rearm(code);
        Ok(())
    }

    fn leave(&mut self, now: Timestamp, conn: ConnId) -> Result<(), ErrorCode> {
        let place = self.place(conn);
        if place == Place::Lobby {
            return Err(ErrorCode::NotInRoom);
        }
        self.detach(now, conn, place);
        self.enter_lobby(now, conn);
        Ok(())
    }

    /// Puts `conn` back in the lobby, its lobby timeout counting from `now`.
    fn enter_lobby(&mut self, now: Timestamp, conn: ConnId) {
        self.set_place(conn, Place::Lobby);
        if let Some(state) = self.conns.get_mut(&conn) {
            state.lobby_since = now;
            if !state.lobby_armed {
                state.lobby_armed = true;
                self.lobby
                    .push(Reverse((now + self.config.lobby_timeout, conn)));
            }
        }
    }

    /// Opens a room with a fresh code and fresh tokens; nobody sits in it yet.
    fn open_room(&mut self, now: Timestamp, options: RoomOptions, red: Seat) -> RoomCode {
        let code = loop {
            let code = RoomCode::from_u64(self.rng.next_u64());
            if !self.rooms.contains_key(&code) {
                break code;
            }
        };
        let tokens = Seats {
            first: self.draw_token(),
            second: self.draw_token(),
        };
        self.rooms
            .insert(code, Box::new(Room::new(code, options, red, tokens, now)));
        tracing::info!(room = %code, "room opened");
        code
    }

    /// Seats `conn` at `seat` of room `code`; the room tells it ([`Room::announce`]) once
    /// that is stored.
    fn seat_player(&mut self, code: RoomCode, seat: Seat, conn: ConnId) {
        let Some(room) = self.rooms.get_mut(&code) else {
            return;
        };
        room.seats[seat] = SeatState::Connected(conn);
        self.tokens.insert(room.tokens[seat], (code, seat));
        tracing::debug!(room = %code, %conn, ?seat, "seated");
        self.set_place(conn, Place::Player { code, seat });
    }

    /// Starts room `code`'s first match and tells the players at `seated` their seats.
    fn begin(&mut self, now: Timestamp, code: RoomCode, seated: &[Seat]) {
        if let Some(room) = self.rooms.get_mut(&code) {
            room.begin(now, seated, &mut self.outbox);
        }
        self.rearm(code);
    }

    /// Takes `conn` out of wherever it is; a player's seat waits for it, or the room closes if
    /// nobody has joined it yet.
    fn detach(&mut self, now: Timestamp, conn: ConnId, place: Place) {
        match place {
            Place::Lobby => {}
            Place::Queued => self.quick.remove(conn),
            Place::Spectator { code } => {
                if let Some(room) = self.rooms.get_mut(&code) {
                    room.spectators.retain(|&spectator| spectator != conn);
                }
            }
            Place::Player { code, seat } => {
                let Some(room) = self.rooms.get_mut(&code) else {
                    return;
                };
                if room.seats[seat].conn() != Some(conn) {
                    return;
                }
                if room.game.is_none() {
                    // Nobody else has sat down: the room goes with its creator, rather than
                    // wait for a creator who may not come back and start a match without them.
                    room.seats[seat] = SeatState::Gone;
                    tracing::info!(room = %code, %conn, "creator left a waiting room");
                    self.close_room(now, code);
                    return;
                }
                room.seats[seat] = SeatState::Away(now);
                let gone = ServerMsg::Presence {
                    seat: room.color_of(seat),
                    connected: false,
                };
                room.broadcast(&mut self.outbox, &gone);
                tracing::info!(room = %code, %conn, ?seat, "player away");
                self.rearm(code);
            }
        }
    }

    /// Closes a room that is deserted or expired: its seats' tokens are void, and whoever is
    /// still in it (spectators, a player waiting in an expired room) is sent away.
    fn close_room(&mut self, now: Timestamp, code: RoomCode) {
        let Some(mut room) = self.rooms.remove(&code) else {
            return;
        };
        self.deadlines.rearm(code, &mut room.armed, None);
        for seat in SEATS {
            self.tokens.remove(&room.tokens[seat]);
        }
        for conn in SEATS.iter().filter_map(|&seat| room.counted[seat]) {
            self.uncount_room(conn);
        }
        self.outbox.persist(Persist::RoomClosed { code });
        tracing::info!(room = %code, "room closed");
        let players = SEATS.iter().filter_map(|&seat| room.seats[seat].conn());
        for conn in players.chain(room.spectators).collect::<Vec<_>>() {
            // Out of the room first, so that closing the connection leaves no seat behind.
            self.set_place(conn, Place::Lobby);
            self.close(now, conn, DisconnectReason::NotFound, "the room closed");
        }
    }

    fn version_mismatch(&mut self, now: Timestamp, conn: ConnId, found: u8) {
        self.metrics.version_mismatches += 1;
        let message = format!("this relay speaks protocol version {PROTOCOL_VERSION}, not {found}");
        self.close(now, conn, DisconnectReason::VersionMismatch, &message);
    }

    fn malformed(&mut self, now: Timestamp, conn: ConnId, err: &DecodeError) {
        let Some(state) = self.conns.get_mut(&conn) else {
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
            self.refuse(conn, ErrorCode::Malformed, err.to_string());
        }
    }

    fn refuse(&mut self, conn: ConnId, code: ErrorCode, message: String) {
        tracing::debug!(%conn, ?code, "refused");
        self.metrics.rejected(code);
        self.outbox.send(conn, &ServerMsg::Error { code, message });
    }

    /// Tells `conn` why, closes it and forgets it.
    fn close(&mut self, now: Timestamp, conn: ConnId, reason: DisconnectReason, message: &str) {
        self.outbox.disconnect(conn, reason, message);
        self.forget(now, conn);
    }

    fn forget(&mut self, now: Timestamp, conn: ConnId) {
        if let Some(state) = self.conns.remove(&conn) {
            if let Some(origin) = state.origin.filter(|_| state.rooms_open > 0) {
                // Its rooms are held for the grace period, still counting against its address.
                self.departed.insert(conn, (origin, state.rooms_open));
            }
            let secs = now.saturating_duration_since(state.since).as_secs();
            tracing::debug!(%conn, secs, "disconnected");
            self.metrics.disconnected(&state.transport);
            self.detach(now, conn, state.place);
        }
    }

    /// Moves room `code`'s entry in the deadlines to what the room now waits for.
    fn rearm(&mut self, code: RoomCode) {
        if let Some(room) = self.rooms.get_mut(&code) {
            let next = room.deadline(&self.config);
            self.deadlines.rearm(code, &mut room.armed, next);
        }
    }

    fn place(&self, conn: ConnId) -> Place {
        self.conns
            .get(&conn)
            .map_or(Place::Lobby, |state| state.place)
    }

    fn set_place(&mut self, conn: ConnId, place: Place) {
        if let Some(state) = self.conns.get_mut(&conn) {
            state.place = place;
        }
    }

    /// Whether `conn` may make another room open, under
    /// [`Config::max_rooms_per_connection`], [`Config::max_rooms_per_address`] and
    /// [`Config::max_rooms`].
    fn ensure_room_left(&self, conn: ConnId) -> Result<(), ErrorCode> {
        let state = self.conns.get(&conn).ok_or(ErrorCode::NotInRoom)?;
        let from_origin = state
            .origin
            .map_or(0, |origin| self.rooms_by_origin.get(&origin));
        if state.rooms_open >= self.config.max_rooms_per_connection
            || from_origin >= self.config.max_rooms_per_address
            || self.rooms.len() >= self.config.max_rooms
        {
            return Err(ErrorCode::TooManyRooms);
        }
        Ok(())
    }

    /// Counts room `code` against `conn`, which made it open and sits at `seat`, and against
    /// its address.
    fn count_room(&mut self, code: RoomCode, seat: Seat, conn: ConnId) {
        if let (Some(room), Some(state)) = (self.rooms.get_mut(&code), self.conns.get_mut(&conn)) {
            room.counted[seat] = Some(conn);
            state.rooms_open += 1;
            if let Some(origin) = state.origin {
                self.rooms_by_origin.add(origin);
            }
        }
    }

    /// A room counted against `conn` closed: `conn` (if still connected) and its address may
    /// make another open.
    fn uncount_room(&mut self, conn: ConnId) {
        let origin = if let Some(state) = self.conns.get_mut(&conn) {
            state.rooms_open = state.rooms_open.saturating_sub(1);
            state.origin
        } else if let Entry::Occupied(mut departed) = self.departed.entry(conn) {
            let (origin, rooms) = departed.get_mut();
            let origin = *origin;
            *rooms -= 1;
            if *rooms == 0 {
                departed.remove();
            }
            Some(origin)
        } else {
            None
        };
        if let Some(origin) = origin {
            self.rooms_by_origin.remove(origin);
        }
    }

    fn ensure_lobby(&self, conn: ConnId) -> Result<(), ErrorCode> {
        match self.place(conn) {
            Place::Lobby => Ok(()),
            _ => Err(ErrorCode::AlreadyInRoom),
        }
    }

    /// The room and seat of a player, or why `conn` is not one.
    fn player(&self, conn: ConnId) -> Result<(RoomCode, Seat), ErrorCode> {
        match self.place(conn) {
            Place::Player { code, seat } => Ok((code, seat)),
            Place::Spectator { .. } => Err(ErrorCode::Spectator),
            Place::Lobby | Place::Queued => Err(ErrorCode::NotInRoom),
        }
    }

    fn draw_seat(&mut self) -> Seat {
        if self.rng.next_u64() & 1 == 0 {
            Seat::First
        } else {
            Seat::Second
        }
    }

    /// A fresh secret token (128 random bits: a collision is not worth a check).
    fn draw_token(&mut self) -> ResumeToken {
        let mut token = [0; 16];
        self.rng.fill_bytes(&mut token);
        ResumeToken(token)
    }
}

/// Why [`Relay::restore`] refused a room.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestoreError {
    /// The room's journal does not replay (it was edited, or written under other rules).
    #[error("room {code}: {source}")]
    Journal {
        /// The room.
        code: RoomCode,
        /// The first entry that does not replay.
        source: RebuildError,
    },
    /// A room with this code is open already.
    #[error("room {0} is open already")]
    AlreadyOpen(RoomCode),
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use xq_protocol::{ClientMsg, PROTOCOL_VERSION, RoomOptions, codec};

    use super::*;

    /// Leaving rooms in a loop keeps one lobby timer entry per connection, and the timer still
    /// counts from the last leave.
    #[test]
    fn the_lobby_timer_holds_one_entry_per_connection() {
        let mut relay = Relay::new(Config::default(), [3; 32]);
        let mut now = Timestamp::from_millis(0);
        let send = |relay: &mut Relay, now, conn, msg: &ClientMsg| {
            let frame = codec::to_frame(msg).unwrap_or_else(|e| panic!("{e}"));
            relay.handle_frame(now, conn, &frame);
            while relay.poll_output().is_some() {}
        };
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "test".into(),
            resume: None,
        };
        let (creator, watcher) = (ConnId(1), ConnId(2));
        for conn in [creator, watcher] {
            relay.handle_connect(now, conn, "mem", None);
            send(&mut relay, now, conn, &hello);
        }
        send(
            &mut relay,
            now,
            creator,
            &ClientMsg::CreateRoom(RoomOptions::default()),
        );
        let code = relay
            .rooms
            .keys()
            .next()
            .copied()
            .unwrap_or_else(|| panic!("no room"));
        // Under the rate limit, and for longer than the timeout, so entries fall due meanwhile.
        for _ in 0..300 {
            now = now + Duration::from_millis(500);
            send(&mut relay, now, watcher, &ClientMsg::Spectate { code });
            send(&mut relay, now, watcher, &ClientMsg::Leave);
        }
        // The watcher's entry; the creator's went once it was found in its room.
        assert_eq!(relay.lobby.len(), 1);
        let left = now;
        relay.handle_timeout(left + (relay.config.lobby_timeout - Duration::from_millis(1)));
        assert_eq!(relay.connection_count(), 2);
        relay.handle_timeout(left + relay.config.lobby_timeout);
        assert_eq!(relay.connection_count(), 1);
    }
}
