//! The core, driven exactly: a virtual clock, connections by number, and every frame decoded.
//! No sleeps, no sockets.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, PROTOCOL_VERSION, Request, RequestId, ResumeToken,
    RoomCode, RoomOptions, SeatChoice, ServerMsg, Snapshot, codec,
};
use xq_rules::iccs::Iccs;
use xq_rules::{Color, Move};
use xq_server::{ClusterMode, Config, ConnId, Located, Lookup, Output, Persist, Relay};
use xq_session::{
    Action, CommandError, DrawReason, Event, GameResult, Match, Status, TimeControl, Timestamp,
    WinReason,
};
use xq_transport::Peer;

const GRACE: Duration = Duration::from_secs(60);

/// A relay, a virtual clock and what each connection has been sent. Each message goes in a
/// request with an id of its own, counting up across connections.
struct Harness {
    relay: Relay,
    now: u64,
    next_conn: u64,
    next_id: u32,
    /// The id of the last request sent; `None` after raw bytes.
    last_id: Option<RequestId>,
    inbox: HashMap<ConnId, Vec<ServerMsg>>,
    closed: Vec<(ConnId, DisconnectReason)>,
    /// Every output of the last input, in order.
    last: Vec<Output>,
    /// Every change the relay persisted.
    persisted: Vec<Persist>,
    /// The codes it asked the cluster to claim, not settled yet.
    claims: Vec<RoomCode>,
    /// The requests it asked the cluster to locate a room for, not answered yet.
    locates: Vec<(ConnId, Request, Lookup)>,
}

/// A player as the tests see it: its connection, room, colour and token.
#[derive(Clone, Copy, Debug)]
struct Player {
    conn: ConnId,
    code: RoomCode,
    color: Color,
    token: ResumeToken,
}

impl Harness {
    fn new() -> Self {
        Self::with_config(Config {
            grace: GRACE,
            ..Config::default()
        })
    }

    fn with_config(config: Config) -> Self {
        let mut harness = Self {
            relay: Relay::new(config, [42; 32]),
            now: 1_000,
            next_conn: 1,
            next_id: 1,
            last_id: None,
            inbox: HashMap::new(),
            closed: Vec::new(),
            last: Vec::new(),
            persisted: Vec::new(),
            claims: Vec::new(),
            locates: Vec::new(),
        };
        harness.collect();
        harness
    }

    /// A node of a cluster keeping `reserve` claimed codes ready, all of its first claims won.
    fn node(reserve: usize) -> Self {
        let mut node = Self::with_config(Config {
            grace: GRACE,
            cluster: Some(ClusterMode { reserve }),
            ..Config::default()
        });
        for code in std::mem::take(&mut node.claims) {
            node.relay.handle_claim(code, true);
            node.collect();
        }
        // Winning claims asks for none: the reserve is full.
        assert_eq!(node.claims, []);
        node
    }

    /// Answers the one request waiting for the cluster with `located`.
    fn locate(&mut self, located: Located) -> (ConnId, Lookup) {
        let [(conn, request, lookup)] = &std::mem::take(&mut self.locates)[..] else {
            panic!("expected one request to locate");
        };
        let (conn, lookup) = (*conn, *lookup);
        self.relay
            .handle_located(self.now(), conn, request.clone(), located);
        self.collect();
        (conn, lookup)
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_millis(self.now)
    }

    fn collect(&mut self) {
        self.last.clear();
        while let Some(output) = self.relay.poll_output() {
            match &output {
                Output::Send { to, frame } => {
                    let msg = codec::decode(frame).expect("the relay sends valid frames");
                    self.inbox.entry(*to).or_default().push(msg);
                }
                Output::Close { conn, reason } => self.closed.push((*conn, *reason)),
                Output::Persist(change) => self.persisted.push(change.clone()),
                Output::Claim(code) => self.claims.push(*code),
                Output::Locate {
                    conn,
                    request,
                    lookup,
                } => self.locates.push((*conn, request.clone(), *lookup)),
            }
            self.last.push(output);
        }
    }

    /// Moves the clock on, calling `handle_timeout` at every deadline on the way as a driver
    /// would.
    fn advance(&mut self, millis: u64) {
        let end = self.now + millis;
        while let Some(at) = self.relay.poll_timeout() {
            if at.as_millis() > end {
                break;
            }
            self.now = self.now.max(at.as_millis());
            self.relay.handle_timeout(self.now());
            self.collect();
        }
        self.now = end;
    }

    /// A connection that has not said hello yet.
    fn raw(&mut self) -> ConnId {
        self.raw_from(&Peer::Memory("mem-client".into()))
    }

    /// A connection from `peer` that has not said hello yet.
    fn raw_from(&mut self, peer: &Peer) -> ConnId {
        let conn = ConnId(self.next_conn);
        self.next_conn += 1;
        self.relay.handle_connect(self.now(), conn, "mem", peer);
        self.collect();
        conn
    }

    /// A connection that said hello and was welcomed.
    fn client(&mut self) -> ConnId {
        self.client_from(&Peer::Memory("mem-client".into()))
    }

    /// A connection from `peer` that said hello and was welcomed.
    fn client_from(&mut self, peer: &Peer) -> ConnId {
        let conn = self.raw_from(peer);
        let id = self.send(conn, hello(None));
        assert!(
            matches!(self.take(conn)[..], [ServerMsg::Welcome { id: answered, .. }] if answered == id)
        );
        conn
    }

    /// Has `creator` create a room that a passing player joins and leaves at once: a started
    /// room, held for the grace period whatever its creator does next.
    fn joined_room(&mut self, creator: ConnId) -> RoomCode {
        self.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
        let code = match &self.take(creator)[..] {
            [ServerMsg::Joined { code, .. }, ..] => *code,
            other => panic!("expected a room, got {other:?}"),
        };
        let passer = self.client();
        self.send(passer, ClientMsg::JoinRoom { code });
        self.disconnect(passer);
        self.take(creator);
        code
    }

    /// Sends `msg` from `conn` in a request with a fresh id, which it returns.
    fn send(&mut self, conn: ConnId, msg: ClientMsg) -> RequestId {
        let id = RequestId(self.next_id);
        self.next_id += 1;
        let frame = codec::to_frame(&Request { id, msg }).expect("test messages encode");
        self.send_bytes(conn, &frame);
        self.last_id = Some(id);
        id
    }

    fn send_bytes(&mut self, conn: ConnId, frame: &[u8]) {
        self.last_id = None;
        self.relay.handle_frame(self.now(), conn, frame);
        self.collect();
    }

    fn disconnect(&mut self, conn: ConnId) {
        self.relay.handle_disconnect(self.now(), conn);
        self.collect();
    }

    /// Everything `conn` has been sent since the last call.
    fn take(&mut self, conn: ConnId) -> Vec<ServerMsg> {
        self.inbox.remove(&conn).unwrap_or_default()
    }

    /// The one error `conn` got, which must name the last request (none after raw bytes);
    /// fails if it got anything else.
    fn error(&mut self, conn: ConnId) -> ErrorCode {
        let last = self.last_id;
        match &self.take(conn)[..] {
            [ServerMsg::Error { id, code, .. }] if *id == last => *code,
            other => panic!("expected one error answering {last:?}, got {other:?}"),
        }
    }

    /// A connection watching the room `code`, its greeting taken.
    fn spectator(&mut self, code: RoomCode) -> ConnId {
        let spectator = self.client();
        self.send(spectator, ClientMsg::Spectate { code });
        self.take(spectator);
        spectator
    }

    /// Checks that a new connection presenting `token` is refused the seat.
    fn assert_resume_refused(&mut self, token: ResumeToken) {
        let late = self.raw();
        self.send(late, hello(Some(token)));
        assert_eq!(self.error(late), ErrorCode::ResumeRefused);
    }

    /// Checks that `conn` was sent one disconnect, for `reason`, and was closed for it, and
    /// that nobody else has been closed.
    fn assert_cut_off(&mut self, conn: ConnId, reason: DisconnectReason) {
        match &self.take(conn)[..] {
            [ServerMsg::Disconnect { reason: sent, .. }] => assert_eq!(*sent, reason),
            other => panic!("expected one disconnect, got {other:?}"),
        }
        assert_eq!(self.closed, [(conn, reason)]);
    }

    fn assert_silent(&mut self, conns: &[ConnId]) {
        for &conn in conns {
            assert_eq!(self.take(conn), [], "{conn} should have been sent nothing");
        }
    }

    fn game(&self, code: RoomCode) -> Match {
        self.relay.game(code).expect("the match runs").clone()
    }

    /// A room created by a new client with `options`; returns the creator.
    fn create(&mut self, options: RoomOptions) -> Player {
        let conn = self.client();
        let id = self.send(conn, ClientMsg::CreateRoom(options));
        let msgs = self.take(conn);
        let [
            ServerMsg::Joined {
                id: Some(answered),
                code,
                seat: Some(color),
                resume: Some(token),
            },
            ServerMsg::Snapshot(snapshot),
        ] = &msgs[..]
        else {
            panic!("expected joined and a snapshot, got {msgs:?}");
        };
        assert_eq!(*answered, id);
        assert_eq!(snapshot.next_seq, 0);
        assert!(!snapshot.clocks_running);
        assert!(!snapshot.seats[!*color].taken);
        Player {
            conn,
            code: *code,
            color: *color,
            token: *token,
        }
    }

    /// A new client joining `code`; returns the joiner and checks both got the started match.
    fn join(&mut self, creator: Player) -> Player {
        let conn = self.client();
        let id = self.send(conn, ClientMsg::JoinRoom { code: creator.code });
        let msgs = self.take(conn);
        let [
            ServerMsg::Joined {
                id: Some(answered),
                code,
                seat: Some(color),
                resume: Some(token),
            },
            ServerMsg::Snapshot(snapshot),
        ] = &msgs[..]
        else {
            panic!("expected joined and a snapshot, got {msgs:?}");
        };
        assert_eq!(*answered, id);
        assert_eq!(*code, creator.code);
        assert_eq!(*color, !creator.color);
        assert!(snapshot.seats.red.taken && snapshot.seats.black.taken);
        let creator_saw = snapshot_of(&self.take(creator.conn));
        assert_eq!(creator_saw, **snapshot);
        Player {
            conn,
            code: *code,
            color: *color,
            token: *token,
        }
    }

    /// Two players in a started room, Red first.
    fn pair(&mut self, options: RoomOptions) -> (Player, Player) {
        let creator = self.create(RoomOptions {
            seat: SeatChoice::Red,
            ..options
        });
        let joiner = self.join(creator);
        (creator, joiner)
    }

    fn play(&mut self, player: Player, iccs: &str) -> RequestId {
        self.send(player.conn, ClientMsg::Act(Action::Play(mv(iccs))))
    }
}

fn hello(resume: Option<ResumeToken>) -> ClientMsg {
    ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        client: "test".into(),
        resume,
    }
}

/// A peer across the network at `ip` and `port`.
fn at(ip: &str, port: u16) -> Peer {
    Peer::Socket(SocketAddr::new(ip.parse().expect("an IP address"), port))
}

fn mv(iccs: &str) -> Move {
    let iccs: Iccs = iccs.parse().expect("valid ICCS");
    Move::new(iccs.from, iccs.to)
}

fn snapshot_of(msgs: &[ServerMsg]) -> Snapshot {
    match msgs {
        [ServerMsg::Snapshot(snapshot)] => (**snapshot).clone(),
        other => panic!("expected one snapshot, got {other:?}"),
    }
}

/// The numbered events among `msgs`.
fn events(msgs: &[ServerMsg]) -> Vec<(u64, Event)> {
    msgs.iter()
        .filter_map(|msg| match msg {
            ServerMsg::Event { seq, event, .. } => Some((*seq, event.clone())),
            _ => None,
        })
        .collect()
}

fn blitz() -> RoomOptions {
    RoomOptions {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(10),
            increment: Duration::ZERO,
        },
        ..RoomOptions::default()
    }
}

#[test]
fn hello_is_welcomed_and_a_ping_answered() {
    let mut h = Harness::new();
    let conn = h.client();
    let id = h.send(conn, ClientMsg::Ping);
    assert_eq!(h.take(conn), [ServerMsg::Pong { id }]);
}

#[test]
fn another_protocol_version_is_disconnected_clearly() {
    let mut h = Harness::new();
    let conn = h.raw();
    h.send(
        conn,
        ClientMsg::Hello {
            version: PROTOCOL_VERSION + 1,
            client: "future".into(),
            resume: None,
        },
    );
    h.assert_cut_off(conn, DisconnectReason::VersionMismatch);
    assert_eq!(h.relay.connection_count(), 0);

    // The hello a version 4 client sends, byte for byte (its golden encoding): refused as
    // clearly, though nothing after the version byte means the same any more.
    let old = h.raw();
    h.send_bytes(old, &[4, 0, 4, 2, b'x', b'q', 0]);
    assert!(matches!(
        h.take(old)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::VersionMismatch,
            ..
        }]
    ));

    // A frame written by another version does not even decode: the same clear answer.
    let other = h.raw();
    let mut frame = codec::to_frame(&hello(None)).expect("encodes");
    frame[0] = PROTOCOL_VERSION + 1;
    h.send_bytes(other, &frame);
    assert!(matches!(
        h.take(other)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::VersionMismatch,
            ..
        }]
    ));
}

/// A connection the driver's caps turn away hears that the relay is full, not that a room
/// is, and is never served.
#[test]
fn a_connection_over_the_caps_is_told_the_relay_is_full() {
    let mut relay = Relay::new(Config::default(), [9; 32]);
    relay.refuse_connect(ConnId(1), "the relay is full");
    let Some(Output::Send { to, frame }) = relay.poll_output() else {
        panic!("no refusal");
    };
    assert_eq!(to, ConnId(1));
    assert!(matches!(
        codec::decode(&frame).expect("decodes"),
        ServerMsg::Disconnect {
            reason: DisconnectReason::RelayFull,
            ..
        }
    ));
    assert_eq!(
        relay.poll_output(),
        Some(Output::Close {
            conn: ConnId(1),
            reason: DisconnectReason::RelayFull
        })
    );
    assert_eq!(relay.connection_count(), 0);
}

#[test]
fn nothing_is_served_before_hello_and_hello_comes_once() {
    let mut h = Harness::new();
    let conn = h.raw();
    h.send(conn, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.error(conn), ErrorCode::HelloExpected);
    h.send(conn, hello(None));
    assert!(matches!(h.take(conn)[..], [ServerMsg::Welcome { .. }]));
    h.send(conn, hello(None));
    assert_eq!(h.error(conn), ErrorCode::HelloExpected);
    assert_eq!(h.relay.room_count(), 0);
}

#[test]
fn create_then_join_starts_the_match_for_both() {
    let mut h = Harness::new();
    let creator = h.create(RoomOptions {
        seat: SeatChoice::Black,
        ..blitz()
    });
    assert_eq!(creator.color, Color::Black);
    let joiner = h.join(creator);
    assert_eq!(joiner.color, Color::Red);
    let game = h.game(creator.code);
    assert!(game.clocks_running());
    assert_eq!(game.turn(), Color::Red);

    // A third player finds the room full; the players hear nothing of it.
    let late = h.client();
    h.send(late, ClientMsg::JoinRoom { code: creator.code });
    assert_eq!(h.error(late), ErrorCode::RoomFull);
    h.assert_silent(&[creator.conn, joiner.conn]);

    // Creating or joining from inside a room is refused.
    h.send(creator.conn, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.error(creator.conn), ErrorCode::AlreadyInRoom);
    assert_eq!(h.relay.room_count(), 1);
}

#[test]
fn room_codes_are_unique() {
    let mut h = Harness::new();
    let mut codes = std::collections::HashSet::new();
    for _ in 0..200 {
        assert!(codes.insert(h.create(RoomOptions::default()).code));
    }
}

#[test]
fn quick_match_pairs_the_next_two_players_who_ask_for_the_same_game() {
    let mut h = Harness::new();
    let first = h.client();
    let id = h.send(first, ClientMsg::QuickMatch(blitz()));
    assert_eq!(h.take(first), [ServerMsg::Queued { id }]);
    h.send(first, ClientMsg::QuickMatch(blitz()));
    assert_eq!(h.error(first), ErrorCode::AlreadyInRoom);

    // Another kind of game waits apart; the same kind is paired, whatever seat it asks for.
    let other = h.client();
    let id = h.send(other, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.take(other), [ServerMsg::Queued { id }]);
    assert_eq!(h.take(first), []);
    let second = h.client();
    let red = RoomOptions {
        seat: SeatChoice::Red,
        ..blitz()
    };
    let paired = h.send(second, ClientMsg::QuickMatch(red));
    let (a, b) = (h.take(first), h.take(second));
    let seat = |msgs: &[ServerMsg], answers: Option<RequestId>| match msgs {
        [
            ServerMsg::Joined {
                id,
                seat: Some(color),
                resume: Some(_),
                ..
            },
            ServerMsg::Snapshot(s),
        ] if *id == answers => (*color, s.clone()),
        other => panic!("expected joined answering {answers:?} and a snapshot, got {other:?}"),
    };
    // The waiting player's request was answered by `Queued`: its pairing answers nothing.
    let ((color_a, snap_a), (color_b, snap_b)) = (seat(&a, None), seat(&b, Some(paired)));
    assert_eq!(color_a, !color_b);
    assert_eq!(snap_a, snap_b);
    assert_eq!(snap_a.config.time_control, blitz().time_control);
    assert_eq!(h.take(other), []);
}

#[test]
fn a_queued_player_who_leaves_is_not_paired() {
    let mut h = Harness::new();
    let first = h.client();
    h.send(first, ClientMsg::QuickMatch(RoomOptions::default()));
    h.take(first);
    h.disconnect(first);
    let second = h.client();
    let id = h.send(second, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.take(second), [ServerMsg::Queued { id }]);
    h.send(second, ClientMsg::Leave);
    let third = h.client();
    let id = h.send(third, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.take(third), [ServerMsg::Queued { id }]);
    assert_eq!(h.relay.room_count(), 0);
}

#[test]
fn a_spectator_sees_every_event_and_cannot_play() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    h.play(red, "h2e2");

    let spectator = h.client();
    h.send(spectator, ClientMsg::Spectate { code: red.code });
    let msgs = h.take(spectator);
    let [
        ServerMsg::Joined {
            seat: None,
            resume: None,
            ..
        },
        ServerMsg::Snapshot(snapshot),
    ] = &msgs[..]
    else {
        panic!("expected joined and a snapshot, got {msgs:?}");
    };
    assert_eq!(snapshot.moves, [mv("h2e2")]);
    assert_eq!(snapshot.next_seq, 1);

    h.play(black, "h9g7");
    h.send(red.conn, ClientMsg::Act(Action::OfferDraw));
    h.send(
        black.conn,
        ClientMsg::Act(Action::AnswerDraw { accept: true }),
    );
    let seen = events(&h.take(spectator));
    let seqs: Vec<u64> = seen.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(seqs, [1, 2, 3]);
    let red_saw = events(&h.take(red.conn));
    assert_eq!(seen, red_saw[1..]);
    assert_eq!(events(&h.take(black.conn)), red_saw);
    assert!(matches!(
        seen.last(),
        Some((_, Event::GameOver(GameResult::Draw { .. })))
    ));

    let before = h.game(red.code);
    h.send(spectator, ClientMsg::Act(Action::Resign));
    assert_eq!(h.error(spectator), ErrorCode::Spectator);
    h.send(spectator, ClientMsg::Rematch);
    assert_eq!(h.error(spectator), ErrorCode::Spectator);
    assert_eq!(h.game(red.code), before);
    h.assert_silent(&[red.conn, black.conn]);

    let left = h.send(spectator, ClientMsg::Leave);
    assert_eq!(h.take(spectator), [ServerMsg::Done { id: left }]);
    h.send(red.conn, ClientMsg::Rematch);
    h.assert_silent(&[spectator]);
}

/// Each hostile request gets its typed error, alone, and changes nothing for anyone.
#[test]
fn hostile_requests_are_refused_and_change_nothing() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let spectator = h.spectator(red.code);
    h.play(red, "h2e2");
    h.send(red.conn, ClientMsg::Act(Action::RequestUndo));
    for conn in [red.conn, black.conn, spectator] {
        h.take(conn);
    }
    let before = h.game(red.code);

    let cases: Vec<(ConnId, ClientMsg, ErrorCode)> = vec![
        // Out of turn.
        (
            red.conn,
            ClientMsg::Act(Action::Play(mv("b2e2"))),
            ErrorCode::Rejected(CommandError::NotYourTurn),
        ),
        // Accepting one's own undo request.
        (
            red.conn,
            ClientMsg::Act(Action::AnswerUndo { accept: true }),
            ErrorCode::Rejected(CommandError::CannotAnswerOwnRequest),
        ),
        // Joining or watching a room that does not exist.
        (
            spectator,
            ClientMsg::JoinRoom {
                code: RoomCode::from_u64(12_345),
            },
            ErrorCode::AlreadyInRoom,
        ),
        // Rematch while the game is on.
        (black.conn, ClientMsg::Rematch, ErrorCode::GameNotOver),
        // A second hello.
        (black.conn, hello(None), ErrorCode::HelloExpected),
    ];
    for (conn, msg, code) in cases {
        h.send(conn, msg.clone());
        assert_eq!(h.error(conn), code, "{msg:?}");
        h.assert_silent(&[red.conn, black.conn, spectator]);
        assert_eq!(h.game(red.code), before, "{msg:?} changed the match");
    }

    // An illegal move (a horse jumping over its leg), on Black's turn.
    h.send(black.conn, ClientMsg::Act(Action::Play(mv("b9b5"))));
    assert!(matches!(
        h.error(black.conn),
        ErrorCode::Rejected(CommandError::IllegalMove(_))
    ));
    h.assert_silent(&[red.conn, spectator]);
    assert_eq!(h.game(red.code), before);

    // An unknown room code, from a client in no room.
    let stranger = h.client();
    h.send(
        stranger,
        ClientMsg::JoinRoom {
            code: RoomCode::from_u64(12_345),
        },
    );
    assert_eq!(h.error(stranger), ErrorCode::RoomNotFound);
    h.send(
        stranger,
        ClientMsg::Spectate {
            code: RoomCode::from_u64(12_345),
        },
    );
    assert_eq!(h.error(stranger), ErrorCode::RoomNotFound);
    h.send(stranger, ClientMsg::Act(Action::Resign));
    assert_eq!(h.error(stranger), ErrorCode::NotInRoom);
    h.send(stranger, ClientMsg::Leave);
    assert_eq!(h.error(stranger), ErrorCode::NotInRoom);
    h.assert_silent(&[red.conn, black.conn, spectator]);
    assert_eq!(h.game(red.code), before);
}

#[test]
fn malformed_frames_get_errors_then_a_disconnect() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let before = h.game(red.code);
    for garbage in [&[][..], &[PROTOCOL_VERSION, 0xff, 0xff][..]] {
        h.send_bytes(black.conn, garbage);
        assert_eq!(h.error(black.conn), ErrorCode::Malformed);
        h.assert_silent(&[red.conn]);
    }
    // The third one in a row is too many: the sender is cut off, its seat held for it.
    h.send_bytes(black.conn, &[PROTOCOL_VERSION, 0x05]);
    h.assert_cut_off(black.conn, DisconnectReason::Malformed);
    assert_eq!(
        h.take(red.conn),
        [ServerMsg::Presence {
            seat: Color::Black,
            connected: false
        }]
    );
    assert_eq!(h.game(red.code), before);
}

#[test]
fn nothing_can_be_played_before_the_opponent_arrives() {
    let mut h = Harness::new();
    let creator = h.create(RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    });
    h.play(creator, "h2e2");
    assert_eq!(h.error(creator.conn), ErrorCode::NoOpponentYet);
    h.send(creator.conn, ClientMsg::Act(Action::Play(mv("h9g7"))));
    assert_eq!(h.error(creator.conn), ErrorCode::NoOpponentYet);
    h.send(creator.conn, ClientMsg::Rematch);
    assert_eq!(h.error(creator.conn), ErrorCode::GameNotOver);
}

/// A room nobody has joined yet closes when its creator leaves or drops: nobody can join it
/// to win against an empty seat, its token is void, and the creator's room count is freed.
#[test]
fn a_waiting_room_goes_with_its_creator() {
    let mut h = Harness::with_config(Config {
        max_rooms_per_connection: 1,
        ..Config::default()
    });
    let left = h.create(RoomOptions::default());
    let watcher = h.spectator(left.code);
    let id = h.send(left.conn, ClientMsg::Leave);
    assert_eq!(h.take(left.conn), [ServerMsg::Done { id }]);
    assert!(h.last.iter().any(
        |out| matches!(out, Output::Persist(Persist::RoomClosed { code }) if *code == left.code)
    ));
    h.assert_cut_off(watcher, DisconnectReason::NotFound);
    assert_eq!(h.relay.room_count(), 0);
    h.assert_resume_refused(left.token);
    let joiner = h.client();
    h.send(joiner, ClientMsg::JoinRoom { code: left.code });
    assert_eq!(h.error(joiner), ErrorCode::RoomNotFound);
    // The creator, still connected, may open another room: the first no longer counts.
    h.send(left.conn, ClientMsg::CreateRoom(RoomOptions::default()));
    assert!(matches!(
        h.take(left.conn)[..],
        [ServerMsg::Joined { .. }, ..]
    ));

    let dropped = h.create(RoomOptions::default());
    h.disconnect(dropped.conn);
    assert_eq!(h.relay.room_count(), 1);
    h.send(joiner, ClientMsg::JoinRoom { code: dropped.code });
    assert_eq!(h.error(joiner), ErrorCode::RoomNotFound);
}

#[test]
fn a_resumed_player_misses_nothing_and_sees_nothing_twice() {
    let mut h = Harness::new();
    let (red, black) = h.pair(blitz());
    let spectator = h.spectator(red.code);
    h.play(red, "h2e2");
    h.play(black, "h9g7");
    let red_saw = events(&h.take(red.conn));
    assert_eq!(red_saw.len(), 2);
    assert_eq!(events(&h.take(black.conn)), red_saw);
    assert_eq!(events(&h.take(spectator)), red_saw);

    h.disconnect(red.conn);
    let gone = ServerMsg::Presence {
        seat: Color::Red,
        connected: false,
    };
    assert_eq!(h.take(black.conn), std::slice::from_ref(&gone));
    assert_eq!(h.take(spectator), [gone]);

    // Red's clock runs while it is away; Black waits for it.
    h.advance(3_000);
    h.assert_silent(&[black.conn]);

    // Back on a new connection with the token: the snapshot holds everything so far.
    let back = h.raw();
    let id = h.send(back, hello(Some(red.token)));
    let msgs = h.take(back);
    // The welcome answers the hello; the seat it brings back names no request.
    let [
        ServerMsg::Welcome { id: welcomed, .. },
        ServerMsg::Joined {
            id: None,
            code,
            seat: Some(Color::Red),
            resume: Some(token),
        },
        ServerMsg::Snapshot(snapshot),
    ] = &msgs[..]
    else {
        panic!("expected welcome, joined and a snapshot, got {msgs:?}");
    };
    assert_eq!(*welcomed, id);
    assert_eq!((*code, *token), (red.code, red.token));
    assert_eq!(snapshot.moves, [mv("h2e2"), mv("h9g7")]);
    assert_eq!(snapshot.next_seq, 2);
    assert!(snapshot.seats.red.connected);
    let clocks = snapshot.clocks.expect("timed");
    assert_eq!(clocks.red, Duration::from_secs(7));
    let here = ServerMsg::Presence {
        seat: Color::Red,
        connected: true,
    };
    assert_eq!(h.take(black.conn), std::slice::from_ref(&here));
    assert_eq!(h.take(spectator), [here]);

    // Play goes on, numbered from the snapshot's next_seq.
    let red = Player { conn: back, ..red };
    h.play(red, "b0c2");
    let next = events(&h.take(back));
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].0, snapshot.next_seq);
    assert_eq!(events(&h.take(black.conn)), next);
}

#[test]
fn a_resume_replaces_a_connection_that_has_not_failed_yet() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let back = h.raw();
    h.send(back, hello(Some(black.token)));
    assert_eq!(h.take(back).len(), 3);
    assert!(matches!(
        h.take(black.conn)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::Kicked,
            ..
        }]
    ));
    // The opponent never saw the seat empty.
    h.assert_silent(&[red.conn]);
    h.play(red, "h2e2");
    assert_eq!(events(&h.take(back)).len(), 1);
    h.assert_silent(&[black.conn]);
}

#[test]
fn an_unknown_token_is_refused_and_the_connection_stays() {
    let mut h = Harness::new();
    let conn = h.raw();
    h.send(conn, hello(Some(ResumeToken([1; 16]))));
    // The refusal is the hello's one answer: the connection is not greeted, and says hello
    // again without the token.
    assert_eq!(h.error(conn), ErrorCode::ResumeRefused);
    h.send(conn, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.error(conn), ErrorCode::HelloExpected);
    let id = h.send(conn, hello(None));
    assert!(
        matches!(h.take(conn)[..], [ServerMsg::Welcome { id: welcomed, .. }] if welcomed == id)
    );
    h.send(conn, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.take(conn).len(), 2);
}

#[test]
fn staying_away_past_the_grace_period_abandons_the_game() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    h.play(red, "h2e2");
    h.take(red.conn);
    h.take(black.conn);
    h.disconnect(black.conn);
    h.take(red.conn);

    h.advance(GRACE.as_millis() as u64 - 1);
    h.assert_silent(&[red.conn]);
    h.advance(1);
    let over = events(&h.take(red.conn));
    assert_eq!(
        over.last().map(|(_, event)| event),
        Some(&Event::GameOver(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Abandonment
        }))
    );
    assert_eq!(over[0].0, 1);

    // The token is void now.
    h.assert_resume_refused(black.token);

    // Once the winner goes too and its grace ends, the room closes.
    h.disconnect(red.conn);
    h.advance(GRACE.as_millis() as u64);
    assert_eq!(h.relay.room_count(), 0);
    assert_eq!(h.relay.poll_timeout(), None);
}

/// Players who leave together (as when a restarted relay waits for both) and stay away both
/// lose their seats at the same moment: neither lost alone, so the game is drawn.
#[test]
fn both_staying_away_past_the_same_grace_period_draws_the_game() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    h.play(red, "h2e2");
    let spectator = h.spectator(red.code);
    h.disconnect(red.conn);
    h.disconnect(black.conn);

    h.advance(GRACE.as_millis() as u64);
    let over = events(&h.take(spectator));
    assert_eq!(
        over.iter().map(|(_, event)| event).collect::<Vec<_>>(),
        [&Event::GameOver(GameResult::Draw {
            reason: DrawReason::Abandonment
        })]
    );
    for token in [red.token, black.token] {
        h.assert_resume_refused(token);
    }
}

/// Grace periods that end at different moments are not ended together because the relay
/// looks late (`handle_timeout` may be called late, and `handle_frame` catches up itself): the
/// seat that left first lost first, and the game is its loss, not a draw.
#[test]
fn seats_lost_at_different_moments_seen_late_are_not_a_draw() {
    for red_leaves_first in [true, false] {
        let mut h = Harness::new();
        let (red, black) = h.pair(RoomOptions::default());
        h.play(red, "h2e2");
        let spectator = h.spectator(red.code);
        let (first, second) = if red_leaves_first {
            (red, black)
        } else {
            (black, red)
        };
        h.disconnect(first.conn);
        h.advance(5_000);
        h.disconnect(second.conn);
        h.take(spectator);

        // The first grace period ended 5 s before the second; the relay hears of time only
        // now.
        h.now += GRACE.as_millis() as u64 + 5_000;
        h.send(spectator, ClientMsg::Ping);
        let over = events(&h.take(spectator));
        assert_eq!(
            over.iter().map(|(_, event)| event).collect::<Vec<_>>(),
            [&Event::GameOver(GameResult::Win {
                winner: second.color,
                reason: WinReason::Abandonment
            })],
            "{:?} left first and lost first",
            first.color
        );
    }
}

/// An abandonment counts from when the grace period ended, however late the relay looks: a
/// flag that would have fallen only after it does not turn the loss into a time forfeit.
#[test]
fn an_abandonment_seen_late_is_not_overtaken_by_the_flag() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions {
        time_control: TimeControl::Increment {
            base: GRACE * 2,
            increment: Duration::ZERO,
        },
        ..RoomOptions::default()
    });
    h.play(red, "h2e2");
    let spectator = h.spectator(red.code);
    h.disconnect(black.conn);
    // Black's grace period ends at 60 s, its flag would fall at 120 s; the relay looks at 150 s.
    h.now += GRACE.as_millis() as u64 * 5 / 2;
    h.send(spectator, ClientMsg::Ping);
    let over = events(&h.take(spectator));
    assert_eq!(
        over.iter().map(|(_, event)| event).collect::<Vec<_>>(),
        [&Event::GameOver(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Abandonment
        })]
    );
}

#[test]
fn a_flag_falls_when_the_timer_fires() {
    let mut h = Harness::new();
    let (red, black) = h.pair(blitz());
    h.advance(2_000);
    h.play(red, "h2e2");
    h.take(red.conn);
    h.take(black.conn);
    // Black has 10 s from Red's move.
    let deadline = h.relay.poll_timeout().expect("Black's clock runs");
    assert_eq!(deadline, Timestamp::from_millis(h.now + 10_000));
    h.advance(9_999);
    h.assert_silent(&[red.conn, black.conn]);
    h.advance(1);
    let over = GameResult::Win {
        winner: Color::Red,
        reason: WinReason::TimeForfeit,
    };
    for conn in [red.conn, black.conn] {
        assert_eq!(events(&h.take(conn)), [(1, Event::GameOver(over))]);
    }
    assert_eq!(h.game(red.code).status(), Status::Finished(over));
}

#[test]
fn rematch_swaps_colours_once_both_ask() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    h.play(red, "h2e2");
    h.send(black.conn, ClientMsg::Act(Action::Resign));
    h.take(red.conn);
    h.take(black.conn);

    let id = h.send(red.conn, ClientMsg::Rematch);
    let asked = ServerMsg::RematchRequested { by: Color::Red };
    assert_eq!(h.take(red.conn), [asked.clone(), ServerMsg::Done { id }]);
    assert_eq!(h.take(black.conn), [asked]);
    // Asking again changes nothing, and is done.
    let id = h.send(red.conn, ClientMsg::Rematch);
    assert_eq!(h.take(red.conn), [ServerMsg::Done { id }]);
    h.assert_silent(&[black.conn]);

    let agreed = h.send(black.conn, ClientMsg::Rematch);
    for (player, color) in [(red, Color::Black), (black, Color::Red)] {
        let mut msgs = h.take(player.conn);
        // The agreement is done once the new match has gone out; its seats answer nothing.
        if player.conn == black.conn {
            assert_eq!(msgs.pop(), Some(ServerMsg::Done { id: agreed }));
        }
        let [
            ServerMsg::Joined {
                id: None,
                seat: Some(seat),
                resume: Some(token),
                ..
            },
            ServerMsg::Snapshot(snapshot),
        ] = &msgs[..]
        else {
            panic!("expected joined and a snapshot, got {msgs:?}");
        };
        assert_eq!((*seat, *token), (color, player.token));
        assert_eq!(snapshot.next_seq, 0);
        assert!(snapshot.moves.is_empty());
        assert_eq!(snapshot.status, Status::Ongoing);
    }
    // The old Black opens the new game, numbered from 0.
    let new_red = Player {
        color: Color::Red,
        ..black
    };
    h.play(new_red, "h2e2");
    assert_eq!(events(&h.take(red.conn))[0].0, 0);
}

#[test]
fn accepted_commands_are_persisted_before_their_events_go_out() {
    let mut h = Harness::new();
    let creator = h.create(RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    });
    let conn = h.client();
    h.send(conn, ClientMsg::JoinRoom { code: creator.code });
    assert!(matches!(
        h.last.iter().find(|out| matches!(out, Output::Persist(_))),
        Some(Output::Persist(Persist::MatchStarted { code, .. })) if *code == creator.code
    ));
    h.play(creator, "h2e2");
    let first_send = h
        .last
        .iter()
        .position(|out| matches!(out, Output::Send { .. }));
    let persist = h
        .last
        .iter()
        .position(|out| matches!(out, Output::Persist(Persist::Entry { .. })));
    assert!(persist.is_some() && persist < first_send, "{:?}", h.last);

    // A refusal persists nothing.
    h.play(creator, "h2e2");
    assert!(!h.last.iter().any(|out| matches!(out, Output::Persist(_))));
}

/// A resume token is only worth handing out once a restarted relay would know it: the
/// match's start is journaled before anyone is told the seat it holds.
#[test]
fn a_match_is_stored_before_its_players_get_their_tokens() {
    let stored_first = |last: &[Output]| {
        let started = last
            .iter()
            .position(|out| matches!(out, Output::Persist(Persist::MatchStarted { .. })));
        let told = last
            .iter()
            .position(|out| matches!(out, Output::Send { .. }));
        assert!(started.is_some() && started < told, "{last:?}");
    };
    let mut h = Harness::new();
    let creator = h.create(RoomOptions::default());
    let joiner = h.client();
    h.send(joiner, ClientMsg::JoinRoom { code: creator.code });
    stored_first(&h.last);
    let first = h.client();
    h.send(first, ClientMsg::QuickMatch(RoomOptions::default()));
    let second = h.client();
    h.send(second, ClientMsg::QuickMatch(RoomOptions::default()));
    stored_first(&h.last);
}

/// A driver busy with input may fire the timer late: a resume that arrives after the grace
/// period is refused even so, and the game is lost by abandonment.
#[test]
fn a_resume_after_the_grace_period_is_refused_before_the_timer_fires() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    h.disconnect(black.conn);
    h.take(red.conn);
    // No handle_timeout in between: the resume is the next input.
    h.now += GRACE.as_millis() as u64 + 1;
    let late = h.raw();
    h.send(late, hello(Some(black.token)));
    assert_eq!(
        h.error(late),
        ErrorCode::ResumeRefused,
        "resumed after the grace period"
    );
    assert!(h.take(red.conn).iter().any(|msg| matches!(
        msg,
        ServerMsg::Event {
            event: Event::GameOver(_),
            ..
        }
    )));
}

#[test]
fn shutdown_pauses_clocks_and_says_goodbye_to_everyone() {
    let mut h = Harness::new();
    let (red, black) = h.pair(blitz());
    let idle = h.client();
    h.advance(1_000);
    h.relay.shutdown(h.now());
    h.collect();
    for conn in [red.conn, black.conn] {
        let msgs = h.take(conn);
        assert!(
            matches!(
                msgs[..],
                [
                    ServerMsg::Event {
                        event: Event::ClocksPaused { .. },
                        ..
                    },
                    ServerMsg::Disconnect {
                        reason: DisconnectReason::ShuttingDown,
                        ..
                    }
                ]
            ),
            "{msgs:?}"
        );
    }
    assert!(matches!(
        h.take(idle)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::ShuttingDown,
            ..
        }]
    ));
    assert_eq!(h.closed.len(), 3);
    assert_eq!(h.relay.poll_timeout(), None);
    // Latecomers are turned away.
    let late = h.raw();
    assert!(matches!(
        h.take(late)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::ShuttingDown,
            ..
        }]
    ));
}

/// Two players in a running game, and a check that they play on: `red` moves and `black`
/// sees it.
fn plays_on(h: &mut Harness, red: Player, black: Player, iccs: &str) {
    h.play(red, iccs);
    let seen = events(&h.take(black.conn));
    assert!(
        matches!(seen[..], [(_, Event::MovePlayed { .. })]),
        "{seen:?}"
    );
    h.take(red.conn);
}

/// Sends `action` from `player` and returns the refusal, if any; whatever else it was sent
/// is taken.
fn ask(h: &mut Harness, player: Player, action: Action) -> Option<ErrorCode> {
    h.send(player.conn, ClientMsg::Act(action));
    h.take(player.conn).iter().find_map(|msg| match msg {
        ServerMsg::Error { code, .. } => Some(*code),
        _ => None,
    })
}

/// A player may offer a draw, and ask for an undo, once each per point of the game: offering
/// and withdrawing, or asking for an undo and having it granted, in a loop would otherwise
/// grow the match's record without end. Moving on lets the player ask again.
#[test]
fn a_player_asks_once_per_point_of_the_game() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let offer = Action::OfferDraw;
    assert_eq!(ask(&mut h, red, offer), None);
    assert_eq!(ask(&mut h, red, Action::WithdrawDraw), None);
    assert_eq!(ask(&mut h, red, offer), Some(ErrorCode::AlreadyAsked));
    // The refusal changed nothing: the opponent heard only of the first offer and its end.
    assert_eq!(events(&h.take(black.conn)).len(), 2);
    let undo = Action::RequestUndo;
    plays_on(&mut h, red, black, "h2e2");
    assert_eq!(ask(&mut h, red, undo), None);
    let grant = Action::AnswerUndo { accept: true };
    assert_eq!(ask(&mut h, black, grant), None);
    // Back before the move: playing it again reaches the point the undo was asked at. A draw
    // offer is another question, asked at an earlier point.
    plays_on(&mut h, red, black, "h2e2");
    assert_eq!(ask(&mut h, red, undo), Some(ErrorCode::AlreadyAsked));
    assert_eq!(ask(&mut h, red, offer), None);
    // Past that point Red may ask again (Black's move lapsed the offer).
    h.play(black, "h9g7");
    assert!(matches!(
        events(&h.take(red.conn))[..],
        [(_, Event::MovePlayed { .. }), (_, Event::DrawLapsed)]
    ));
    assert_eq!(ask(&mut h, red, offer), None);
    assert_eq!(ask(&mut h, red, undo), None);
    assert_eq!(h.relay.metrics().rejected.get("already_asked"), Some(&2));
}

/// Clocks that start with less than a second would lose Red's game before a move could
/// arrive: such rooms are refused, for creating and for quick matching alike.
#[test]
fn rooms_with_clocks_below_a_second_are_refused() {
    let mut h = Harness::new();
    let instant = RoomOptions {
        time_control: TimeControl::Increment {
            base: Duration::from_millis(999),
            increment: Duration::from_secs(5),
        },
        ..RoomOptions::default()
    };
    let conn = h.client();
    h.send(conn, ClientMsg::CreateRoom(instant));
    assert_eq!(h.error(conn), ErrorCode::InvalidOptions);
    h.send(conn, ClientMsg::QuickMatch(instant));
    assert_eq!(h.error(conn), ErrorCode::InvalidOptions);
    assert_eq!(h.relay.room_count(), 0);
    let second = RoomOptions {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(1),
            increment: Duration::ZERO,
        },
        ..RoomOptions::default()
    };
    h.send(conn, ClientMsg::CreateRoom(second));
    assert!(matches!(h.take(conn)[..], [ServerMsg::Joined { .. }, _]));
}

#[test]
fn a_flooding_connection_is_rate_limited_and_the_others_play_on() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let (flooder, victim) = h.pair(RoomOptions::default());
    // The flooder has said hello and created its room: the rest of its burst is pings.
    let pings = u64::from(Config::default().rate_limit.burst) - 2;
    for _ in 0..pings {
        h.send(flooder.conn, ClientMsg::Ping);
    }
    let pongs = h.take(flooder.conn);
    assert!(
        pongs
            .iter()
            .all(|msg| matches!(msg, ServerMsg::Pong { .. }))
    );
    assert_eq!(pongs.len() as u64, pings);
    plays_on(&mut h, red, black, "h2e2");
    // One frame more within the same instant is over the limit.
    h.send(flooder.conn, ClientMsg::Ping);
    h.assert_cut_off(flooder.conn, DisconnectReason::RateLimited);
    assert!(matches!(
        h.take(victim.conn)[..],
        [ServerMsg::Presence { .. }]
    ));
    assert_eq!(h.relay.metrics().rate_limited, 1);
    // The bucket refills with time: steady play never comes near the limit.
    plays_on(&mut h, black, red, "h9g7");
    for (mover, other, iccs) in [(red, black, "h0g2"), (black, red, "i9h9")] {
        h.advance(50);
        plays_on(&mut h, mover, other, iccs);
    }
}

#[test]
fn a_connection_may_not_open_rooms_without_end() {
    let mut h = Harness::with_config(Config {
        grace: GRACE,
        // Waiting through the grace period in the lobby is not idling here.
        lobby_timeout: 2 * GRACE,
        max_rooms_per_connection: 2,
        ..Config::default()
    });
    let (red, black) = h.pair(RoomOptions::default());
    let hoarder = h.client();
    for _ in 0..2 {
        // A room nobody joined goes when its creator leaves; a joined one waits for it.
        h.joined_room(hoarder);
        h.send(hoarder, ClientMsg::Leave);
        h.take(hoarder);
    }
    h.send(hoarder, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.error(hoarder), ErrorCode::TooManyRooms);
    assert_eq!(h.relay.room_count(), 3);
    // Everyone else is served as before.
    h.create(RoomOptions::default());
    plays_on(&mut h, red, black, "h2e2");
    // Once its rooms are gone, the connection may open another.
    h.advance(GRACE.as_millis() as u64);
    h.send(hoarder, ClientMsg::CreateRoom(RoomOptions::default()));
    assert!(matches!(h.take(hoarder)[..], [ServerMsg::Joined { .. }, _]));
}

/// Connecting again lets a client make more rooms open, each held for the grace period after
/// it leaves; the relay's own room cap bounds them all, and a room that closes makes room.
#[test]
fn the_relay_holds_no_more_rooms_than_its_cap() {
    let mut h = Harness::with_config(Config {
        grace: GRACE,
        max_rooms: 2,
        ..Config::default()
    });
    let (red, black) = h.pair(RoomOptions::default());
    let waiting = h.create(RoomOptions::default());
    for request in [
        ClientMsg::CreateRoom(RoomOptions::default()),
        ClientMsg::QuickMatch(RoomOptions::default()),
    ] {
        let late = h.client();
        h.send(late, request);
        assert_eq!(h.error(late), ErrorCode::TooManyRooms);
    }
    assert_eq!(h.relay.room_count(), 2);
    plays_on(&mut h, red, black, "h2e2");
    h.send(waiting.conn, ClientMsg::Leave);
    h.create(RoomOptions::default());
}

/// Rooms made open by connections gone since still count against their address while they
/// are held, so connecting again does not let one host take every room; other addresses are
/// served, and the address may open rooms again once those close.
#[test]
fn one_address_may_not_take_every_room() {
    let mut h = Harness::with_config(Config {
        grace: GRACE,
        max_rooms_per_address: 2,
        lobby_timeout: 2 * GRACE,
        ..Config::default()
    });
    for port in [4000, 4001] {
        let conn = h.client_from(&at("10.0.0.1", port));
        h.joined_room(conn);
        h.disconnect(conn);
    }
    assert_eq!(h.relay.room_count(), 2);
    let again = h.client_from(&at("10.0.0.1", 4002));
    for request in [
        ClientMsg::CreateRoom(RoomOptions::default()),
        ClientMsg::QuickMatch(RoomOptions::default()),
    ] {
        h.send(again, request);
        assert_eq!(h.error(again), ErrorCode::TooManyRooms);
    }
    let elsewhere = h.client_from(&at("10.0.0.2", 4000));
    h.joined_room(elsewhere);
    h.advance(GRACE.as_millis() as u64);
    assert_eq!(h.relay.room_count(), 1);
    h.joined_room(again);
}

/// The address cap counts hosts: an IPv6 host's addresses in one /64 share it, another /64 is
/// another host, and in-process connections are not counted at all.
#[test]
fn the_address_cap_counts_hosts_not_sockets() {
    let mut h = Harness::with_config(Config {
        max_rooms_per_address: 1,
        ..Config::default()
    });
    let create = |h: &mut Harness, conn| {
        h.send(conn, ClientMsg::CreateRoom(RoomOptions::default()));
        h.take(conn)
    };
    let first = h.client_from(&at("2001:db8:0:1::1", 4000));
    assert!(matches!(
        create(&mut h, first)[..],
        [ServerMsg::Joined { .. }, _]
    ));
    let neighbour = h.client_from(&at("2001:db8:0:1:ffff::2", 4001));
    h.send(neighbour, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(h.error(neighbour), ErrorCode::TooManyRooms);
    let elsewhere = h.client_from(&at("2001:db8:0:2::1", 4000));
    assert!(matches!(
        create(&mut h, elsewhere)[..],
        [ServerMsg::Joined { .. }, _]
    ));
    for _ in 0..2 {
        let local = h.client();
        assert!(matches!(
            create(&mut h, local)[..],
            [ServerMsg::Joined { .. }, _]
        ));
    }
    assert_eq!(h.relay.room_count(), 4);
}

/// A player waiting for a quick match is checked again when a partner comes: if its address
/// has made rooms open meanwhile up to the cap, it is refused then, and the partner waits.
#[test]
fn a_waiting_quick_matcher_over_its_address_cap_is_refused_at_pairing() {
    let mut h = Harness::with_config(Config {
        max_rooms_per_address: 1,
        ..Config::default()
    });
    let waiting = h.client_from(&at("10.0.0.1", 4000));
    let id = h.send(waiting, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.take(waiting), [ServerMsg::Queued { id }]);
    let creator = h.client_from(&at("10.0.0.1", 4001));
    h.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
    assert!(matches!(h.take(creator)[..], [ServerMsg::Joined { .. }, _]));
    let partner = h.client_from(&at("10.0.0.2", 4000));
    let id = h.send(partner, ClientMsg::QuickMatch(RoomOptions::default()));
    // The waiting player's request was answered by `Queued`: this refusal names none.
    assert!(matches!(
        h.take(waiting)[..],
        [ServerMsg::Error {
            id: None,
            code: ErrorCode::TooManyRooms,
            ..
        }]
    ));
    assert_eq!(h.take(partner), [ServerMsg::Queued { id }]);
    assert_eq!(h.relay.room_count(), 1);
    // The refused player is back in the lobby, in no room and no queue.
    h.send(waiting, ClientMsg::Leave);
    assert_eq!(h.error(waiting), ErrorCode::NotInRoom);
}

/// Quick matching and leaving in a loop opens rooms as surely as creating them does, so each
/// such room counts against both its players.
#[test]
fn quick_matching_and_leaving_in_a_loop_is_capped_too() {
    let mut h = Harness::with_config(Config {
        grace: GRACE,
        // Waiting through the grace period in the lobby is not idling here.
        lobby_timeout: 2 * GRACE,
        max_rooms_per_connection: 2,
        ..Config::default()
    });
    let (a, b) = (h.client(), h.client());
    for _ in 0..2 {
        h.send(a, ClientMsg::QuickMatch(RoomOptions::default()));
        h.send(b, ClientMsg::QuickMatch(RoomOptions::default()));
        for conn in [a, b] {
            h.send(conn, ClientMsg::Leave);
            h.take(conn);
        }
    }
    assert_eq!(h.relay.room_count(), 2);
    h.send(a, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.error(a), ErrorCode::TooManyRooms);
    // Its partner, counted as much, is turned away too, before it waits in the queue.
    h.send(b, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.error(b), ErrorCode::TooManyRooms);
    assert_eq!(h.relay.room_count(), 2);
    // Once the rooms are gone, both may play again.
    h.advance(GRACE.as_millis() as u64);
    let id = h.send(a, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(h.take(a), [ServerMsg::Queued { id }]);
}

#[test]
fn an_oversized_frame_disconnects_its_sender_before_decoding() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let (big, other) = h.pair(RoomOptions::default());
    let limit = Config::default().max_frame_size;
    // A valid hello padded past the limit: it is never decoded.
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION,
        client: "x".repeat(limit),
        resume: None,
    };
    h.send(big.conn, hello);
    h.assert_cut_off(big.conn, DisconnectReason::Malformed);
    assert!(matches!(
        h.take(other.conn)[..],
        [ServerMsg::Presence { .. }]
    ));
    assert_eq!(h.relay.metrics().oversized_frames, 1);
    plays_on(&mut h, red, black, "h2e2");
}

/// A connection in no room is closed once the lobby timeout passes, counted from its connecting
/// or from its leaving a room; playing, watching and waiting for a quick match are not idle.
#[test]
fn connections_in_no_room_are_closed_when_idle() {
    let minute = Duration::from_secs(60);
    let mut h = Harness::with_config(Config {
        grace: 60 * minute,
        lobby_timeout: minute,
        ..Config::default()
    });
    let silent = h.raw();
    let greeted = h.client();
    let (red, black) = h.pair(RoomOptions::default());
    let watcher = h.spectator(red.code);
    let queued = h.client();
    h.send(queued, ClientMsg::QuickMatch(RoomOptions::default()));
    h.take(queued);
    let (leaver, _) = h.pair(RoomOptions::default());
    h.advance(30_000);
    h.send(leaver.conn, ClientMsg::Leave);
    h.take(leaver.conn);
    h.advance(30_000);
    let mut closed = std::mem::take(&mut h.closed);
    closed.sort_by_key(|&(conn, _)| conn);
    assert_eq!(
        closed,
        [
            (silent, DisconnectReason::Idle),
            (greeted, DisconnectReason::Idle)
        ]
    );
    for conn in [silent, greeted] {
        assert!(matches!(
            h.take(conn)[..],
            [ServerMsg::Disconnect {
                reason: DisconnectReason::Idle,
                ..
            }]
        ));
    }
    // The one who left a room has its own minute, from leaving.
    h.advance(29_000);
    assert_eq!(h.closed, []);
    h.advance(1_000);
    assert_eq!(h.closed, [(leaver.conn, DisconnectReason::Idle)]);
    // Everyone else is still served.
    h.advance(10 * 60_000);
    assert_eq!(h.closed.len(), 1);
    plays_on(&mut h, red, black, "h2e2");
    assert!(!h.take(watcher).is_empty());
    let id = h.send(queued, ClientMsg::Ping);
    assert_eq!(h.take(queued), [ServerMsg::Pong { id }]);
}

#[test]
fn waiting_and_idle_rooms_expire() {
    let minute = Duration::from_secs(60);
    let mut h = Harness::with_config(Config {
        grace: 60 * minute,
        waiting_room: 10 * minute,
        idle_room: 2 * minute,
        ..Config::default()
    });
    let (red, black) = h.pair(RoomOptions::default());
    let waiting = h.create(RoomOptions::default());
    let (gone, away) = h.pair(RoomOptions::default());
    h.disconnect(gone.conn);
    h.disconnect(away.conn);
    assert_eq!(h.relay.room_count(), 3);
    // Nobody is connected to the abandoned room: it goes after the idle bound, well within
    // the grace period, and its tokens with it.
    h.advance(2 * 60_000);
    assert_eq!(h.relay.room_count(), 2);
    h.assert_resume_refused(gone.token);
    // Nobody joins the waiting room: it expires, and its creator is told.
    h.advance(8 * 60_000);
    assert_eq!(h.relay.room_count(), 1);
    assert!(matches!(
        h.take(waiting.conn)[..],
        [ServerMsg::Disconnect {
            reason: DisconnectReason::NotFound,
            ..
        }]
    ));
    assert_eq!(h.relay.metrics().rooms_expired, 2);
    // The game with its players connected is untouched.
    plays_on(&mut h, red, black, "h2e2");
}

/// The request a message answers, if it answers one.
fn answers(msg: &ServerMsg) -> Option<RequestId> {
    match msg {
        ServerMsg::Welcome { id, .. }
        | ServerMsg::Queued { id }
        | ServerMsg::Pong { id }
        | ServerMsg::Done { id } => Some(*id),
        ServerMsg::Joined { id, .. } | ServerMsg::Error { id, .. } => *id,
        ServerMsg::Event { answers, .. } => *answers,
        _ => None,
    }
}

/// One request of every kind, accepted and refused, from several connections at once: each
/// is answered by exactly one message, of the kind its request calls for, to its sender.
#[test]
fn every_request_is_answered_once_by_its_id() {
    type Kind = fn(&ServerMsg) -> bool;
    let welcome: Kind = |msg| matches!(msg, ServerMsg::Welcome { .. });
    let joined: Kind = |msg| matches!(msg, ServerMsg::Joined { .. });
    let queued: Kind = |msg| matches!(msg, ServerMsg::Queued { .. });
    let event: Kind = |msg| matches!(msg, ServerMsg::Event { .. });
    let pong: Kind = |msg| matches!(msg, ServerMsg::Pong { .. });
    let done: Kind = |msg| matches!(msg, ServerMsg::Done { .. });
    let error: Kind = |msg| matches!(msg, ServerMsg::Error { .. });

    let mut h = Harness::new();
    let mut asked: Vec<(RequestId, ConnId, Kind, &str)> = Vec::new();
    let [red, black, watcher, waiter, pairer, stranger] = [(); 6].map(|()| h.raw());
    for conn in [red, black, watcher, waiter, pairer] {
        asked.push((h.send(conn, hello(None)), conn, welcome, "hello"));
    }
    let token = ResumeToken([3; 16]);
    asked.push((
        h.send(stranger, hello(Some(token))),
        stranger,
        error,
        "unknown token",
    ));
    asked.push((
        h.send(stranger, ClientMsg::Ping),
        stranger,
        error,
        "before hello",
    ));

    let create = ClientMsg::CreateRoom(RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    });
    asked.push((h.send(red, create), red, joined, "create"));
    let code = match h.inbox[&red][..] {
        [.., ServerMsg::Joined { code, .. }, ServerMsg::Snapshot(_)] => code,
        ref other => panic!("expected a room, got {other:?}"),
    };
    asked.push((
        h.send(black, ClientMsg::JoinRoom { code }),
        black,
        joined,
        "join",
    ));
    let spectate = ClientMsg::Spectate { code };
    asked.push((h.send(watcher, spectate), watcher, joined, "spectate"));
    let quick = ClientMsg::QuickMatch(RoomOptions::default());
    asked.push((
        h.send(waiter, quick.clone()),
        waiter,
        queued,
        "quick, waiting",
    ));
    asked.push((h.send(pairer, quick), pairer, joined, "quick, paired"));

    let play = |iccs| ClientMsg::Act(Action::Play(mv(iccs)));
    asked.push((h.send(red, play("h2e2")), red, event, "accepted move"));
    asked.push((h.send(red, play("h0g2")), red, error, "out of turn"));
    let resign = ClientMsg::Act(Action::Resign);
    asked.push((h.send(black, resign), black, event, "resignation"));
    asked.push((h.send(watcher, ClientMsg::Ping), watcher, pong, "ping"));
    asked.push((h.send(red, ClientMsg::Rematch), red, done, "rematch asked"));
    asked.push((
        h.send(black, ClientMsg::Rematch),
        black,
        done,
        "rematch agreed",
    ));
    asked.push((h.send(watcher, ClientMsg::Leave), watcher, done, "leave"));
    asked.push((
        h.send(watcher, ClientMsg::Leave),
        watcher,
        error,
        "leave again",
    ));
    h.send_bytes(waiter, &[PROTOCOL_VERSION, 0xff, 0xff, 0xff]);

    let sent: Vec<(ConnId, ServerMsg)> = h
        .inbox
        .drain()
        .flat_map(|(conn, msgs)| msgs.into_iter().map(move |msg| (conn, msg)))
        .collect();
    for &(id, from, kind, what) in &asked {
        let named: Vec<_> = sent
            .iter()
            .filter(|(_, msg)| answers(msg) == Some(id))
            .collect();
        match &named[..] {
            [(to, msg)] => {
                assert_eq!(*to, from, "{what}: answered to another connection");
                assert!(kind(msg), "{what}: answered by {msg:?}");
            }
            other => panic!("{what} ({id}): expected one answer, got {other:?}"),
        }
    }
    // Nothing names a request that was not sent, and the frame that did not decode gets the
    // one error that names none.
    let ids: Vec<RequestId> = asked.iter().map(|&(id, ..)| id).collect();
    assert!(
        sent.iter()
            .filter_map(|(_, msg)| answers(msg))
            .all(|id| ids.contains(&id))
    );
    let unnamed: Vec<_> = sent
        .iter()
        .filter(|(_, msg)| matches!(msg, ServerMsg::Error { id: None, .. }))
        .collect();
    assert!(
        matches!(
            unnamed[..],
            [(
                to,
                ServerMsg::Error {
                    code: ErrorCode::Malformed,
                    ..
                }
            )] if *to == waiter
        ),
        "{unnamed:?}"
    );
}

/// An accepted action is answered by the first event it made, in the actor's copy alone: the
/// opponent's and the spectators' copies, and the actor's later events of the action, answer
/// nothing. The answer is the one frame encoded apart; everyone else shares one.
#[test]
fn an_action_is_answered_by_its_first_event_in_the_actors_copy() {
    let mut h = Harness::new();
    let (red, black) = h.pair(RoomOptions::default());
    let spectator = h.spectator(red.code);
    h.send(red.conn, ClientMsg::Act(Action::OfferDraw));
    h.play(red, "h2e2");
    for conn in [red.conn, black.conn, spectator] {
        h.take(conn);
    }
    // Black moves instead of answering: the move, then the offer's lapse.
    let id = h.play(black, "h9g7");
    let actor = h.take(black.conn);
    assert!(
        matches!(
            actor[..],
            [
                ServerMsg::Event {
                    seq: 2,
                    event: Event::MovePlayed { .. },
                    answers: Some(answered),
                },
                ServerMsg::Event {
                    seq: 3,
                    event: Event::DrawLapsed,
                    answers: None,
                },
            ] if answered == id
        ),
        "{actor:?}"
    );
    let others = h.take(red.conn);
    assert_eq!(h.take(spectator), others);
    let unanswered: Vec<ServerMsg> = actor
        .iter()
        .map(|msg| match msg.clone() {
            ServerMsg::Event { seq, event, .. } => ServerMsg::Event {
                seq,
                event,
                answers: None,
            },
            other => other,
        })
        .collect();
    assert_eq!(others, unanswered);
    // Frames: the actor's first differs, the lapse is the same bytes for everyone.
    let frames = |to: ConnId| -> Vec<Vec<u8>> {
        h.last
            .iter()
            .filter_map(|out| match out {
                Output::Send { to: conn, frame } if *conn == to => Some(frame.clone()),
                _ => None,
            })
            .collect()
    };
    let (mine, theirs, watched) = (frames(black.conn), frames(red.conn), frames(spectator));
    assert_eq!(theirs, watched);
    assert_ne!(mine[0], theirs[0]);
    assert_eq!(mine[1], theirs[1]);

    // A refused action answers with its error alone, and nobody else hears of it.
    let refused = h.play(black, "b9c7");
    assert!(matches!(
        h.take(black.conn)[..],
        [ServerMsg::Error { id: Some(answered), .. }] if answered == refused
    ));
    h.assert_silent(&[red.conn, spectator]);
}

/// A frame that arrives after its connection's lobby time ran out, before any timer fired, is
/// not served: time catches up first and closes the connection, and a hello with a token on it
/// would otherwise seat a connection that is gone.
#[test]
fn a_frame_on_a_connection_time_has_closed_is_not_served() {
    let minute = Duration::from_secs(60);
    let mut h = Harness::with_config(Config {
        lobby_timeout: minute,
        ..Config::default()
    });
    let late = h.raw();
    h.now += 61_000;
    h.send(late, hello(None));
    let seen = h.take(late);
    assert!(
        !seen
            .iter()
            .any(|msg| matches!(msg, ServerMsg::Welcome { .. })),
        "{seen:?}"
    );
    assert_eq!(h.closed, [(late, DisconnectReason::Idle)]);
}

#[test]
fn a_cluster_node_opens_rooms_only_with_codes_it_claimed() {
    let mut node = Harness::with_config(Config {
        cluster: Some(ClusterMode { reserve: 2 }),
        ..Config::default()
    });
    let first = node.claims.clone();
    assert_eq!(first.len(), 2, "the node claims its reserve at once");
    let creator = node.client();
    node.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(
        node.error(creator),
        ErrorCode::Unavailable,
        "no code is ready yet"
    );
    node.send(creator, ClientMsg::QuickMatch(RoomOptions::default()));
    assert_eq!(node.error(creator), ErrorCode::Unavailable);

    // A claim lost to another node is replaced by a new one; a won claim is ready.
    node.claims.clear();
    node.relay.handle_claim(first[0], false);
    node.collect();
    assert_eq!(node.claims.len(), 1, "a lost claim is replaced");
    assert!(!first.contains(&node.claims[0]));
    node.claims.clear();
    node.relay.handle_claim(first[1], true);
    node.collect();
    assert_eq!(node.claims, [], "the reserve counts the claim still out");
    node.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
    match &node.take(creator)[..] {
        [ServerMsg::Joined { code, .. }, ServerMsg::Snapshot(_)] => assert_eq!(*code, first[1]),
        other => panic!("expected the room with the claimed code, got {other:?}"),
    }
    assert_eq!(node.claims.len(), 1, "the code used is replaced");
    // A code it never asked for changes nothing.
    node.relay.handle_claim(RoomCode::from_u64(99), true);
    node.collect();
    assert_eq!(node.claims.len(), 1);
}

#[test]
fn a_room_another_node_owns_is_redirected_to_it() {
    let mut node = Harness::node(1);
    let urls = vec!["udp://127.0.0.1:7001".to_string()];
    let code = RoomCode::from_u64(12_345);
    for msg in [ClientMsg::JoinRoom { code }, ClientMsg::Spectate { code }] {
        let conn = node.client();
        let id = node.send(conn, msg);
        assert_eq!(node.take(conn), [], "the request waits for the cluster");
        assert_eq!(
            node.locate(Located::Elsewhere(urls.clone())).1,
            Lookup::Room(code)
        );
        assert_eq!(
            node.take(conn),
            [ServerMsg::Redirect {
                id,
                urls: urls.clone()
            }]
        );
        assert_eq!(node.closed.pop(), Some((conn, DisconnectReason::Moved)));
    }
    let token = ResumeToken([9; 16]);
    let conn = node.raw();
    let id = node.send(conn, hello(Some(token)));
    assert_eq!(node.take(conn), []);
    assert_eq!(
        node.locate(Located::Elsewhere(urls.clone())).1,
        Lookup::Token(token)
    );
    assert_eq!(node.take(conn), [ServerMsg::Redirect { id, urls }]);
    assert_eq!(node.relay.connection_count(), 0);
}

#[test]
fn what_the_cluster_does_not_know_is_refused_as_by_a_relay_alone() {
    let mut node = Harness::node(1);
    let code = RoomCode::from_u64(777);
    let conn = node.client();
    node.send(conn, ClientMsg::JoinRoom { code });
    node.locate(Located::Nowhere);
    assert_eq!(node.error(conn), ErrorCode::RoomNotFound);
    node.send(conn, ClientMsg::Spectate { code });
    node.locate(Located::Unreachable);
    assert_eq!(node.error(conn), ErrorCode::Unavailable);

    let late = node.raw();
    node.send(late, hello(Some(ResumeToken([3; 16]))));
    node.locate(Located::Nowhere);
    assert_eq!(node.error(late), ErrorCode::ResumeRefused);
    // The hello was refused as a whole: the connection says hello again, and is welcomed.
    node.send(late, hello(None));
    assert!(matches!(node.take(late)[..], [ServerMsg::Welcome { .. }]));
    // A room of its own is never looked up elsewhere.
    let player = node.create(RoomOptions::default());
    let watcher = node.client();
    node.send(watcher, ClientMsg::Spectate { code: player.code });
    assert!(node.locates.is_empty());
    assert!(matches!(
        node.take(watcher)[..],
        [ServerMsg::Joined { .. }, ServerMsg::Snapshot(_)]
    ));
}

#[test]
fn a_room_taken_over_is_restored_and_its_players_resume() {
    // The first owner: a game with a move in it, its changes as the storage got them.
    let mut owner = Harness::node(2);
    let (red, black) = owner.pair(RoomOptions::default());
    owner.play(red, "h2e2");
    let mut store = xq_store::SqliteStore::open(":memory:").expect("opens");
    xq_store::Storage::commit(&mut store, &owner.persisted).expect("commits");
    let [room] = &xq_store::Storage::open_rooms(&mut store).expect("reads")[..] else {
        panic!("one open room");
    };

    // The owner died; a client resumes through another node, which takes the room over.
    let mut node = Harness::node(2);
    let conn = node.raw();
    let id = node.send(conn, hello(Some(black.token)));
    node.locate(Located::Here(Box::new(room.clone())));
    match &node.take(conn)[..] {
        [
            ServerMsg::Welcome { id: answered, .. },
            ServerMsg::Joined {
                code,
                seat: Some(color),
                ..
            },
            ServerMsg::Snapshot(snapshot),
        ] => {
            assert_eq!((*answered, *code, *color), (id, red.code, black.color));
            assert_eq!(
                snapshot.moves,
                [mv("h2e2")],
                "the move made on the first owner is there"
            );
        }
        other => panic!("expected the seat back, got {other:?}"),
    }
    // The other player finds its seat here too, without asking the cluster again.
    let again = node.raw();
    node.send(again, hello(Some(red.token)));
    assert!(node.locates.is_empty());
    assert!(matches!(
        node.take(again)[..],
        [ServerMsg::Welcome { .. }, ServerMsg::Joined { .. }, ..]
    ));
    assert_eq!(node.relay.metrics().takeovers, 1);
}

#[test]
fn an_evicted_room_sends_everyone_away_and_persists_nothing() {
    let mut node = Harness::node(2);
    let (red, black) = node.pair(RoomOptions::default());
    let watcher = node.spectator(red.code);
    node.persisted.clear();
    let mut conns = node.relay.evict(node.now(), red.code);
    node.collect();
    conns.sort();
    let mut expected = vec![red.conn, black.conn, watcher];
    expected.sort();
    assert_eq!(conns, expected);
    for conn in expected {
        assert!(matches!(
            node.take(conn)[..],
            [ServerMsg::Disconnect {
                reason: DisconnectReason::Moved,
                ..
            }]
        ));
    }
    assert_eq!(node.persisted, [], "the room is not this node's to close");
    assert_eq!(node.relay.room_count(), 0);
    assert_eq!(node.relay.metrics().evictions, 1);
}

#[test]
fn a_claimed_code_the_node_lost_is_replaced_and_never_used() {
    let mut node = Harness::with_config(Config {
        cluster: Some(ClusterMode { reserve: 1 }),
        ..Config::default()
    });
    let [lost] = node.claims[..] else {
        panic!("one claim");
    };
    node.claims.clear();
    node.relay.handle_claim(lost, true);
    node.collect();
    // The lease on the code lapsed (the node was paused, say): it is given up and replaced.
    assert_eq!(node.relay.evict(node.now(), lost), []);
    node.collect();
    let [replacement] = node.claims[..] else {
        panic!("a new claim in its place");
    };
    let creator = node.client();
    node.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
    assert_eq!(
        node.error(creator),
        ErrorCode::Unavailable,
        "the lost code is not used"
    );
    node.relay.handle_claim(replacement, true);
    node.send(creator, ClientMsg::CreateRoom(RoomOptions::default()));
    match &node.take(creator)[..] {
        [ServerMsg::Joined { code, .. }, ..] => assert_eq!(*code, replacement),
        other => panic!("expected a room, got {other:?}"),
    }
    assert_eq!(node.relay.metrics().evictions, 0, "no room was given up");
}

#[test]
fn a_room_this_node_is_taking_over_is_served_once_it_is_here() {
    let mut owner = Harness::node(1);
    let (red, _black) = owner.pair(RoomOptions::default());
    let mut store = xq_store::SqliteStore::open(":memory:").expect("opens");
    xq_store::Storage::commit(&mut store, &owner.persisted).expect("commits");
    let room = xq_store::Storage::open_rooms(&mut store)
        .expect("reads")
        .remove(0);

    let mut node = Harness::node(1);
    let early = node.raw();
    node.send(early, hello(Some(red.token)));
    // The lookup finds the room being taken over by this node: not yet here, try again.
    node.locate(Located::Settling);
    assert_eq!(node.error(early), ErrorCode::Unavailable);
    let late = node.raw();
    node.send(late, hello(Some(red.token)));
    // The takeover lands before the lookup's answer: the seat is served.
    node.relay.restore(node.now(), room).expect("restores");
    node.collect();
    node.locate(Located::Settling);
    assert!(matches!(
        node.take(late)[..],
        [ServerMsg::Welcome { .. }, ServerMsg::Joined { .. }, ..]
    ));
}
