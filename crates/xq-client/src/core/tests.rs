//! The core driven by scripted frames: requests out, the relay's answers in, time by argument.

use std::time::Duration;

use xq_protocol::{SeatInfo, Snapshot};
use xq_rules::{ByColor, Color, Move, Square};
use xq_session::{Event, Match, MatchConfig, MoveText};

use super::*;

const TOKEN: ResumeToken = ResumeToken([7; 16]);

const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

fn code() -> RoomCode {
    "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"))
}

fn options() -> ClientOptions {
    ClientOptions {
        reconnect: crate::ReconnectPolicy {
            period: Duration::from_secs(10),
            first_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        },
        keepalive: Some(Keepalive {
            interval: Duration::from_secs(5),
            timeout: Duration::from_secs(15),
        }),
        ..ClientOptions::default()
    }
}

/// The next request the core sends.
fn sent(core: &mut ClientCore) -> Request {
    let frame = core
        .poll_transmit()
        .unwrap_or_else(|| panic!("nothing sent"));
    codec::decode(&frame).unwrap_or_else(|e| panic!("{e}"))
}

fn nothing_sent(core: &mut ClientCore) {
    if let Some(frame) = core.poll_transmit() {
        panic!("sent {:?}", codec::decode::<Request>(&frame));
    }
}

fn hear(core: &mut ClientCore, now: Timestamp, msg: &ServerMsg) {
    let frame = codec::to_frame(msg).unwrap_or_else(|e| panic!("{e}"));
    core.handle_frame(now, &frame);
}

fn events(core: &mut ClientCore) -> Vec<CoreEvent> {
    std::iter::from_fn(|| core.poll_event()).collect()
}

fn welcome(id: RequestId) -> ServerMsg {
    ServerMsg::Welcome {
        id,
        version: PROTOCOL_VERSION,
        server: "test".into(),
    }
}

/// A core connected and welcomed at 0.
fn connected() -> ClientCore {
    let mut core = ClientCore::new(options());
    let hello = core
        .handle_connected(ms(0))
        .unwrap_or_else(|| panic!("a closed core"));
    assert!(matches!(
        sent(&mut core).msg,
        ClientMsg::Hello { resume: None, .. }
    ));
    hear(&mut core, ms(0), &welcome(hello));
    assert!(matches!(
        events(&mut core)[..],
        [CoreEvent::Answered { id, outcome: Ok(Answer::Welcome) }] if id == hello
    ));
    core
}

fn seats() -> ByColor<SeatInfo> {
    let here = SeatInfo {
        taken: true,
        connected: true,
    };
    ByColor {
        red: here,
        black: here,
    }
}

fn snapshot(game: &Match) -> ServerMsg {
    let standing = game.standing(ms(0));
    ServerMsg::Snapshot(Box::new(Snapshot::new(code(), standing, seats(), None, 0)))
}

/// A match at its start.
fn fresh() -> Match {
    Match::new(MatchConfig::default(), ms(0))
}

/// The relay lets the core into the room at `now`, at `seat` (a spectator without one),
/// in answer to request `id` (or to none), and shows it `game`.
fn enter(
    core: &mut ClientCore,
    now: Timestamp,
    id: Option<RequestId>,
    seat: Option<Color>,
    game: &Match,
) {
    let joined = ServerMsg::Joined {
        id,
        code: code(),
        seat,
        resume: seat.map(|_| TOKEN),
    };
    hear(core, now, &joined);
    hear(core, now, &snapshot(game));
}

/// A core seated at Red in a started match, and that match.
fn seated() -> (ClientCore, Match) {
    let mut core = connected();
    let id = core
        .create(RoomOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(sent(&mut core).msg, ClientMsg::CreateRoom(_)));
    let game = fresh();
    enter(&mut core, ms(1), Some(id), Some(Color::Red), &game);
    let room = Room {
        code: code(),
        seat: Some(Color::Red),
    };
    assert!(matches!(
        events(&mut core)[..],
        [CoreEvent::Answered { id: answered, outcome: Ok(Answer::Entered(entered)) }]
            if answered == id && entered == room
    ));
    assert_eq!(core.resume_token(), Some(TOKEN));
    (core, game)
}

/// A core watching `game` since 1 ms, and the id of its spectate request.
fn watching(game: &Match) -> (ClientCore, RequestId) {
    let mut core = connected();
    let spectate = core.spectate(code()).unwrap_or_else(|e| panic!("{e}"));
    sent(&mut core);
    enter(&mut core, ms(1), Some(spectate), None, game);
    events(&mut core);
    (core, spectate)
}

/// A core built with a resume token, connected at 0, and the id of its first hello.
fn resuming() -> (ClientCore, RequestId) {
    let mut core = ClientCore::resuming(options(), TOKEN);
    let hello = core
        .handle_connected(ms(0))
        .unwrap_or_else(|| panic!("a closed core"));
    assert_resumes(&sent(&mut core).msg);
    (core, hello)
}

/// Asserts that `msg` is a hello that resumes with [`TOKEN`].
fn assert_resumes(msg: &ClientMsg) {
    assert!(
        matches!(
            msg,
            ClientMsg::Hello {
                resume: Some(TOKEN),
                ..
            }
        ),
        "{msg:?}"
    );
}

/// The cause the core reports of a failed connection, asserted to be followed by a new
/// connection at once.
fn reconnecting(core: &mut ClientCore) -> ClientError {
    let seen = events(core);
    match <[CoreEvent; 2]>::try_from(seen) {
        Ok(
            [
                CoreEvent::Client(ClientEvent::Reconnecting { cause }),
                CoreEvent::Connect,
            ],
        ) => cause,
        seen => panic!("{seen:?}"),
    }
}

/// Asserts that the core's only news is that its room is back.
fn assert_reconnected(core: &mut ClientCore) {
    assert!(matches!(
        &events(core)[..],
        [CoreEvent::Client(ClientEvent::Reconnected)]
    ));
}

const CANNON: Move = Move::new(Square::H2, Square::E2);

#[test]
fn every_request_carries_a_new_id() {
    let mut core = connected();
    let ping = core.ping().unwrap_or_else(|e| panic!("{e}"));
    let spectate = core.spectate(code()).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(ping, spectate);
    assert_eq!(sent(&mut core).id, ping);
    assert_eq!(sent(&mut core).id, spectate);
    // A second room request waits for the first one's answer.
    assert!(matches!(
        core.join(code()),
        Err(ClientError::RequestPending)
    ));
    hear(&mut core, ms(1), &ServerMsg::Pong { id: ping });
    assert!(matches!(
        events(&mut core)[..],
        [CoreEvent::Answered { id, outcome: Ok(Answer::Pong) }] if id == ping
    ));
}

#[test]
fn an_accepted_action_is_answered_by_its_first_event() {
    let (mut core, mut game) = seated();
    let id = core
        .act(Action::Play(CANNON))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sent(&mut core).msg, ClientMsg::Act(Action::Play(CANNON)));
    game.handle(ms(2), Action::Play(CANNON).by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    let event = game.poll_event().unwrap_or_else(|| panic!("an event"));
    let msg = ServerMsg::Event {
        seq: 0,
        event: event.clone(),
        answers: Some(id),
    };
    hear(&mut core, ms(3), &msg);
    let seen = events(&mut core);
    assert!(matches!(&seen[..], [
        CoreEvent::Client(ClientEvent::Match { seq: 0, event: e }),
        CoreEvent::Answered { id: answered, outcome: Ok(Answer::Accepted) },
    ] if *e == event && *answered == id));
    assert_eq!(core.mirror().map(Mirror::position), Some(game.position()));
}

#[test]
fn refusals_are_answered_by_id() {
    let (mut core, _) = seated();
    let act = core
        .act(Action::Play(Move::new(Square::H9, Square::G7)))
        .unwrap_or_else(|e| panic!("{e}"));
    let refusal = |id| ServerMsg::Error {
        id: Some(id),
        code: ErrorCode::Rejected(xq_session::CommandError::NotYourTurn),
        message: "not your turn".into(),
    };
    hear(&mut core, ms(2), &refusal(act));
    let seen = events(&mut core);
    assert!(matches!(&seen[..], [
        CoreEvent::Answered { id, outcome: Err(ClientError::Refused { .. }) },
        CoreEvent::Client(ClientEvent::Rejected { .. }),
    ] if *id == act));
    // A refused leave answers the leave alone, and the client stays in its room.
    let leave = core.leave().unwrap_or_else(|e| panic!("{e}"));
    hear(&mut core, ms(3), &refusal(leave));
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Answered { id, outcome: Err(ClientError::Refused { .. }) }] if *id == leave
    ));
    assert!(core.room().is_some());
    // A frame the relay could not read is refused with no id: the owner hears of it.
    hear(
        &mut core,
        ms(4),
        &ServerMsg::Error {
            id: None,
            code: ErrorCode::Malformed,
            message: String::new(),
        },
    );
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Client(ClientEvent::Rejected {
            code: ErrorCode::Malformed,
            ..
        })]
    ));
}

#[test]
fn a_leave_is_done_when_the_relay_says_so() {
    let (mut core, _) = seated();
    while core.poll_transmit().is_some() {}
    let id = core.leave().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sent(&mut core).msg, ClientMsg::Leave);
    assert!(core.room().is_some(), "in the room until the answer");
    hear(&mut core, ms(2), &ServerMsg::Done { id });
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Answered { id: done, outcome: Ok(Answer::Done) }] if *done == id
    ));
    assert_eq!(core.room(), None);
    assert!(core.mirror().is_none());
    assert!(matches!(core.leave(), Err(ClientError::NotInRoom)));
}

#[test]
fn a_quick_match_waits_then_enters_with_the_pairing() {
    let mut core = connected();
    let id = core
        .quick_match(RoomOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    hear(&mut core, ms(1), &ServerMsg::Queued { id });
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Client(ClientEvent::Queued)]
    ));
    enter(&mut core, ms(9), None, Some(Color::Black), &fresh());
    assert!(matches!(&events(&mut core)[..], [
        CoreEvent::Client(ClientEvent::MatchStarted),
        CoreEvent::Answered { id: entered, outcome: Ok(Answer::Entered(room)) },
    ] if *entered == id && room.seat == Some(Color::Black)));
}

#[test]
fn a_quick_match_refused_at_its_pairing_is_answered() {
    let mut core = connected();
    let id = core
        .quick_match(RoomOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    hear(&mut core, ms(1), &ServerMsg::Queued { id });
    events(&mut core);
    let refused = ServerMsg::Error {
        id: None,
        code: ErrorCode::TooManyRooms,
        message: "too many rooms".into(),
    };
    hear(&mut core, ms(5), &refused);
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Answered { id: answered, outcome: Err(ClientError::Refused { code: ErrorCode::TooManyRooms, .. }) }]
            if *answered == id
    ));
    assert!(
        core.create(RoomOptions::default()).is_ok(),
        "free to ask again"
    );
}

#[test]
fn a_dropped_player_reconnects_and_takes_its_seat_back() {
    let (mut core, game) = seated();
    while core.poll_transmit().is_some() {}
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    reconnecting(&mut core);
    assert!(!core.is_connected());
    assert!(matches!(
        core.act(Action::Resign),
        Err(ClientError::NotConnected)
    ));
    // The first attempt fails; the next one is due after the first pause.
    core.handle_disconnected(ms(120), ClientError::Timeout);
    assert!(events(&mut core).is_empty());
    assert_eq!(core.poll_timeout(), Some(ms(220)));
    core.handle_timeout(ms(220));
    assert!(matches!(&events(&mut core)[..], [CoreEvent::Connect]));
    let hello = reconnect(&mut core, ms(230));
    assert_resumes(&hello.msg);
    hear(&mut core, ms(240), &welcome(hello.id));
    assert!(!core.is_connected(), "not until the room is back");
    enter(&mut core, ms(250), None, Some(Color::Red), &game);
    assert_reconnected(&mut core);
    assert!(core.is_connected());
    nothing_sent(&mut core);
}

#[test]
fn a_refused_resume_ends_the_client() {
    let (mut core, _) = seated();
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    let hello = core
        .handle_connected(ms(110))
        .unwrap_or_else(|| panic!("a closed core"));
    events(&mut core);
    // The relay refuses a hello whose token holds no seat.
    hear(
        &mut core,
        ms(130),
        &ServerMsg::Error {
            id: Some(hello),
            code: ErrorCode::ResumeRefused,
            message: "the seat is gone".into(),
        },
    );
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Client(ClientEvent::Disconnected {
            cause: ClientError::Refused {
                code: ErrorCode::ResumeRefused,
                ..
            }
        }),]
    ));
    assert!(core.is_closed());
    assert_eq!(core.poll_timeout(), None);
}

#[test]
fn reconnecting_stops_when_the_period_runs_out() {
    let (mut core, _) = seated();
    core.handle_disconnected(ms(0), ClientError::ConnectionLost);
    events(&mut core);
    let mut now = ms(0);
    while let Some(at) = core.poll_timeout() {
        assert!(at <= ms(10_000), "{at:?}");
        now = at;
        core.handle_timeout(now);
        if events(&mut core)
            .iter()
            .any(|event| matches!(event, CoreEvent::Connect))
        {
            core.handle_disconnected(now, ClientError::Timeout);
        }
    }
    assert!(core.is_closed());
    assert!(now <= ms(10_000));
}

#[test]
fn a_quiet_relay_is_pinged_then_given_up() {
    let (mut core, _) = seated();
    while core.poll_transmit().is_some() {}
    assert_eq!(core.poll_timeout(), Some(ms(5_001)));
    core.handle_timeout(ms(5_001));
    let ping = sent(&mut core);
    assert_eq!(ping.msg, ClientMsg::Ping);
    // Its pong is the keep-alive's own business.
    hear(&mut core, ms(5_010), &ServerMsg::Pong { id: ping.id });
    assert!(events(&mut core).is_empty());
    // Silent again: a second ping, then the connection counts as failed 15 s after the
    // relay was last heard from.
    core.handle_timeout(ms(10_010));
    assert_eq!(sent(&mut core).msg, ClientMsg::Ping);
    assert_eq!(core.poll_timeout(), Some(ms(20_010)));
    core.handle_timeout(ms(20_010));
    assert!(matches!(reconnecting(&mut core), ClientError::Timeout));
}

#[test]
fn a_first_hello_that_fails_answers_the_owner_and_ends() {
    let mut core = ClientCore::new(options());
    let hello = core
        .handle_connected(ms(0))
        .unwrap_or_else(|| panic!("a closed core"));
    core.handle_timeout(ms(10_000));
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Answered { id, outcome: Err(ClientError::Timeout) }] if *id == hello
    ));
    assert!(core.is_closed());
}

#[test]
fn a_resuming_core_enters_its_room_with_its_first_hello() {
    let (mut core, hello) = resuming();
    hear(&mut core, ms(1), &welcome(hello));
    enter(&mut core, ms(1), None, Some(Color::Black), &fresh());
    assert!(matches!(&events(&mut core)[..], [
        CoreEvent::Answered { id, outcome: Ok(Answer::Entered(room)) },
    ] if *id == hello && room.seat == Some(Color::Black)));
}

#[test]
fn garbage_from_the_relay_fails_the_connection_not_the_core() {
    let (mut core, _) = seated();
    core.handle_frame(ms(5), &[PROTOCOL_VERSION, 250, 1, 2]);
    assert!(matches!(reconnecting(&mut core), ClientError::Decode(_)));
    // An event out of line is refused by the mirror, and costs the connection too.
    let (mut core, _) = seated();
    let text = MoveText::new(&xq_rules::Position::startpos(), CANNON);
    let late = ServerMsg::Event {
        seq: 5,
        event: Event::MovePlayed {
            by: Color::Red,
            mv: CANNON,
            text,
            captured: None,
            gives_check: false,
            ply: 1,
            clocks: None,
        },
        answers: None,
    };
    hear(&mut core, ms(5), &late);
    assert!(matches!(reconnecting(&mut core), ClientError::Mirror(_)));
}

#[test]
fn a_dead_connection_reported_again_changes_nothing() {
    let (mut core, _) = seated();
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    core.handle_disconnected(ms(120), ClientError::Timeout);
    events(&mut core);
    let next = core.poll_timeout();
    // A driver that reports the dead connection again and again pushes no attempt back.
    for _ in 0..10 {
        core.handle_disconnected(ms(121), ClientError::ConnectionLost);
    }
    assert_eq!(core.poll_timeout(), next);
    assert!(events(&mut core).is_empty());
}

#[test]
fn a_connection_given_up_on_is_not_listened_to() {
    let (mut core, game) = seated();
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    events(&mut core);
    // The old connection's last frames arrive late: they change nothing.
    hear(&mut core, ms(101), &snapshot(&game));
    assert!(events(&mut core).is_empty());
    assert!(core.is_reconnecting());
    // A closed core says nothing, not even on a new connection.
    core.close();
    assert_eq!(core.handle_connected(ms(102)), None);
    nothing_sent(&mut core);
}

fn urls(node: &str) -> Vec<String> {
    vec![
        format!("udp://{node}.example:7878"),
        format!("quic://{node}.example:7879"),
    ]
}

fn redirect(id: RequestId, node: &str) -> ServerMsg {
    ServerMsg::Redirect {
        id,
        urls: urls(node),
    }
}

/// The events of a redirect to `node`: a connection there, at once, and nothing for the owner.
fn assert_redirected(core: &mut ClientCore, node: &str) {
    let seen = events(core);
    assert!(
        matches!(&seen[..], [CoreEvent::Redirected { urls: to }, CoreEvent::Connect] if *to == urls(node)),
        "{seen:?}"
    );
    assert!(
        core.is_reconnecting(),
        "the redirected connection is dropped"
    );
    assert!(!core.is_closed());
}

/// Opens the connection the core asked for at `now`, and returns its hello.
fn reconnect(core: &mut ClientCore, now: Timestamp) -> Request {
    let id = core
        .handle_connected(now)
        .unwrap_or_else(|| panic!("a closed core"));
    let hello = sent(core);
    assert_eq!(hello.id, id);
    assert!(matches!(hello.msg, ClientMsg::Hello { .. }), "{hello:?}");
    hello
}

/// [`reconnect`], the relay's welcome at once, and the hello it answers.
fn welcomed(core: &mut ClientCore, now: Timestamp) -> Request {
    let hello = reconnect(core, now);
    hear(core, now, &welcome(hello.id));
    hello
}

#[test]
fn a_redirected_join_is_asked_again_on_the_owner() {
    let mut core = connected();
    let join = core.join(code()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sent(&mut core).msg, ClientMsg::JoinRoom { code: code() });
    hear(&mut core, ms(1), &redirect(join, "relay-b"));
    assert_redirected(&mut core, "relay-b");
    assert!(matches!(
        core.act(Action::Resign),
        Err(ClientError::NotConnected)
    ));
    // No pause: the connection is asked for at once, and the deadline is the handshake's.
    assert_eq!(
        core.poll_timeout(),
        Some(ms(1) + options().handshake_timeout)
    );

    let hello = welcomed(&mut core, ms(2));
    assert!(matches!(hello.msg, ClientMsg::Hello { resume: None, .. }));
    // The join again, under the id its owner waits on.
    let again = sent(&mut core);
    assert_eq!(
        (again.id, again.msg),
        (join, ClientMsg::JoinRoom { code: code() })
    );
    assert!(events(&mut core).is_empty(), "no answer to the hello");
    enter(&mut core, ms(4), Some(join), Some(Color::Black), &fresh());
    assert!(matches!(&events(&mut core)[..], [
        CoreEvent::Client(ClientEvent::MatchStarted),
        CoreEvent::Answered { id, outcome: Ok(Answer::Entered(room)) },
    ] if *id == join && room.seat == Some(Color::Black)));
    assert!(core.is_connected());
    assert_eq!(core.resume_token(), Some(TOKEN));
}

#[test]
fn a_redirected_spectate_watches_on_the_owner() {
    let mut core = connected();
    let spectate = core.spectate(code()).unwrap_or_else(|e| panic!("{e}"));
    sent(&mut core);
    hear(&mut core, ms(1), &redirect(spectate, "relay-c"));
    assert_redirected(&mut core, "relay-c");
    welcomed(&mut core, ms(2));
    let again = sent(&mut core);
    assert_eq!(
        (again.id, again.msg),
        (spectate, ClientMsg::Spectate { code: code() })
    );
    enter(&mut core, ms(3), Some(spectate), None, &fresh());
    assert!(matches!(&events(&mut core)[..], [
        CoreEvent::Answered { id, outcome: Ok(Answer::Entered(room)) },
    ] if *id == spectate && room.seat.is_none()));
}

#[test]
fn a_spectator_dropped_watches_again_on_the_owner_it_is_sent_to() {
    let game = fresh();
    let (mut core, _) = watching(&game);
    core.handle_disconnected(ms(10), ClientError::ConnectionLost);
    events(&mut core);
    // The next node takes the hello, and sends the watch on to the room's owner.
    welcomed(&mut core, ms(10));
    let watch = sent(&mut core);
    assert_eq!(watch.msg, ClientMsg::Spectate { code: code() });
    hear(&mut core, ms(12), &redirect(watch.id, "relay-b"));
    assert_redirected(&mut core, "relay-b");
    welcomed(&mut core, ms(13));
    let watch = sent(&mut core);
    assert_eq!(watch.msg, ClientMsg::Spectate { code: code() });
    enter(&mut core, ms(15), Some(watch.id), None, &game);
    assert_reconnected(&mut core);
}

#[test]
fn a_redirected_resume_hello_takes_the_seat_back_on_the_owner() {
    let (mut core, game) = seated();
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    reconnecting(&mut core);
    let hello = reconnect(&mut core, ms(110));
    assert_resumes(&hello.msg);
    // Any node takes the hello; this one sends the client to the seat's owner.
    hear(&mut core, ms(120), &redirect(hello.id, "relay-b"));
    assert_redirected(&mut core, "relay-b");
    let hello = welcomed(&mut core, ms(130));
    assert_resumes(&hello.msg);
    enter(&mut core, ms(150), None, Some(Color::Red), &game);
    assert_reconnected(&mut core);
    assert!(core.is_connected());
}

#[test]
fn a_redirected_first_resume_answers_its_first_hello() {
    let (mut core, first) = resuming();
    hear(&mut core, ms(1), &redirect(first, "relay-b"));
    assert_redirected(&mut core, "relay-b");
    // The same hello again, under the id the owner waits on.
    let hello = welcomed(&mut core, ms(2));
    assert_eq!(hello.id, first);
    assert_resumes(&hello.msg);
    enter(&mut core, ms(3), None, Some(Color::Black), &fresh());
    assert!(matches!(&events(&mut core)[..], [
        CoreEvent::Answered { id, outcome: Ok(Answer::Entered(room)) },
    ] if *id == first && room.seat == Some(Color::Black)));
}

#[test]
fn a_redirect_chain_is_cut_short() {
    // Two nodes that each think the other owns the room send a join back and forth.
    let mut core = connected();
    let join = core.join(code()).unwrap_or_else(|e| panic!("{e}"));
    sent(&mut core);
    let mut now = ms(1);
    for hop in 1..REDIRECT_LIMIT {
        let node = if hop % 2 == 0 { "relay-a" } else { "relay-b" };
        hear(&mut core, now, &redirect(join, node));
        assert_redirected(&mut core, node);
        welcomed(&mut core, now);
        assert_eq!(sent(&mut core).id, join);
        now = now + Duration::from_millis(1);
    }
    hear(&mut core, now, &redirect(join, "relay-b"));
    let seen = events(&mut core);
    assert!(
        matches!(&seen[..], [
            CoreEvent::Answered { id, outcome: Err(ClientError::TooManyRedirects) },
            CoreEvent::Client(ClientEvent::Reconnecting { cause: ClientError::TooManyRedirects }),
            CoreEvent::Connect,
        ] if *id == join),
        "{seen:?}"
    );
    // The connection is restored, in no room, and free to ask again.
    welcomed(&mut core, now);
    assert_reconnected(&mut core);
    assert!(core.join(code()).is_ok());

    // A first resume sent round ends its owner's wait with the error.
    let (mut core, first) = resuming();
    for _ in 1..REDIRECT_LIMIT {
        hear(&mut core, ms(1), &redirect(first, "relay-b"));
        assert_redirected(&mut core, "relay-b");
        reconnect(&mut core, ms(1));
    }
    hear(&mut core, ms(1), &redirect(first, "relay-a"));
    assert!(matches!(
        &events(&mut core)[..],
        [CoreEvent::Answered { id, outcome: Err(ClientError::TooManyRedirects) }] if *id == first
    ));
    assert!(core.is_closed());
}

#[test]
fn a_redirect_of_another_request_fails_the_connection() {
    let (mut core, _) = seated();
    let ping = core.ping().unwrap_or_else(|e| panic!("{e}"));
    hear(&mut core, ms(2), &redirect(ping, "relay-b"));
    assert!(matches!(
        reconnecting(&mut core),
        ClientError::Unexpected { .. }
    ));
}

#[test]
fn a_room_moved_to_another_node_is_resumed_through_any() {
    let (mut core, game) = seated();
    while core.poll_transmit().is_some() {}
    hear(
        &mut core,
        ms(100),
        &ServerMsg::Disconnect {
            reason: DisconnectReason::Moved,
            message: "the room moved".into(),
        },
    );
    assert!(matches!(
        reconnecting(&mut core),
        ClientError::ClosedByRelay {
            reason: DisconnectReason::Moved,
            ..
        }
    ));
    let hello = welcomed(&mut core, ms(110));
    assert_resumes(&hello.msg);
    enter(&mut core, ms(120), None, Some(Color::Red), &game);
    assert_reconnected(&mut core);
}

#[test]
fn a_cluster_out_of_reach_is_asked_again_after_a_pause() {
    let (mut core, game) = seated();
    core.handle_disconnected(ms(100), ClientError::ConnectionLost);
    events(&mut core);
    let unavailable = |id| ServerMsg::Error {
        id: Some(id),
        code: ErrorCode::Unavailable,
        message: "the relay's cluster is out of reach: try again later".into(),
    };
    // Refused twice: each time the next attempt waits longer (100 ms, then 200 ms). The
    // first time the same relay is asked again; the second, the driver moves on.
    let mut now = ms(100);
    for (pause, again) in [(100, true), (200, false)] {
        let hello = reconnect(&mut core, now);
        hear(&mut core, now, &unavailable(hello.id));
        let retry = matches!(&events(&mut core)[..], [CoreEvent::Retry]);
        assert_eq!(retry, again, "not final, and asked again once");
        assert!(core.is_reconnecting());
        now = now + Duration::from_millis(pause);
        assert_eq!(core.poll_timeout(), Some(now));
        core.handle_timeout(now);
        assert!(matches!(&events(&mut core)[..], [CoreEvent::Connect]));
    }
    welcomed(&mut core, now);
    enter(&mut core, now, None, Some(Color::Red), &game);
    assert_reconnected(&mut core);
    // A spectator that watches again is asked to wait the same way.
    let (mut core, _) = watching(&game);
    core.handle_disconnected(ms(10), ClientError::ConnectionLost);
    events(&mut core);
    welcomed(&mut core, ms(10));
    let watch = sent(&mut core);
    assert_eq!(watch.msg, ClientMsg::Spectate { code: code() });
    hear(&mut core, ms(11), &unavailable(watch.id));
    assert!(matches!(&events(&mut core)[..], [CoreEvent::Retry]));
    assert_eq!(core.poll_timeout(), Some(ms(111)));
}
