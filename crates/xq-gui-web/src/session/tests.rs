//! The session driven by scripted frames, as the browser's driver would drive it over a
//! WebSocket: the relay's answers in, requests out, time by argument.

use xq_protocol::{ClientMsg, PROTOCOL_VERSION, Request, SeatInfo, ServerMsg, Snapshot, codec};
use xq_rules::{ByColor, Color, Move, Square};
use xq_session::{Match, MatchConfig};

use super::*;

const TOKEN: ResumeToken = ResumeToken([7; 16]);

const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

fn code() -> RoomCode {
    "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"))
}

/// The next request the session sends.
fn sent(session: &mut Session) -> Request {
    let frame = session
        .poll_transmit()
        .unwrap_or_else(|| panic!("nothing sent"));
    codec::decode(&frame).unwrap_or_else(|e| panic!("{e}"))
}

fn hear(session: &mut Session, now: Timestamp, msg: &ServerMsg) {
    let frame = codec::to_frame(msg).unwrap_or_else(|e| panic!("{e}"));
    session.handle_frame(now, &frame);
}

fn welcome(id: RequestId) -> ServerMsg {
    ServerMsg::Welcome {
        id,
        version: PROTOCOL_VERSION,
        server: "test".into(),
    }
}

fn snapshot(full: bool) -> ServerMsg {
    let game = Match::new(MatchConfig::default(), ms(0));
    let seat = |taken| SeatInfo {
        taken,
        connected: taken,
    };
    let seats = ByColor {
        red: seat(true),
        black: seat(full),
    };
    ServerMsg::Snapshot(Box::new(Snapshot::new(
        code(),
        game.standing(ms(0)),
        seats,
        None,
        0,
    )))
}

fn joined(id: RequestId, seat: Option<Color>) -> ServerMsg {
    ServerMsg::Joined {
        id: Some(id),
        code: code(),
        seat,
        resume: seat.map(|_| TOKEN),
    }
}

/// A session connected at 0 that has said hello; the hello's request.
fn greeted(entry: Entry, token: Option<ResumeToken>) -> (Session, Request) {
    let mut session = Session::new(entry, token, ClientOptions::default());
    assert!(
        session.poll_transmit().is_none(),
        "nothing before a connection"
    );
    session.handle_connected(ms(0));
    let hello = sent(&mut session);
    (session, hello)
}

/// A session that created a room and sits at Red in it.
fn created() -> Session {
    let (mut session, hello) = greeted(Entry::Create, None);
    hear(&mut session, ms(1), &welcome(hello.id));
    let create = sent(&mut session);
    assert!(matches!(create.msg, ClientMsg::CreateRoom(_)));
    assert!(session.poll_entered().is_none());
    hear(&mut session, ms(2), &joined(create.id, Some(Color::Red)));
    hear(&mut session, ms(2), &snapshot(false));
    let room = session
        .poll_entered()
        .map(|entered| entered.map_err(|e| e.to_string()));
    assert_eq!(
        room,
        Some(Ok(Room {
            code: code(),
            seat: Some(Color::Red)
        }))
    );
    session
}

#[test]
fn creating_a_room_says_hello_then_asks_for_it() {
    let session = created();
    assert!(!session.is_resume());
    assert_eq!(session.entry(), Entry::Create);
    assert_eq!(session.core().resume_token(), Some(TOKEN));
    assert!(session.core().is_connected());
}

#[test]
fn each_entry_asks_for_its_own_request() {
    for (entry, asked) in [
        (Entry::Join(code()), "join"),
        (Entry::Watch(code()), "spectate"),
        (Entry::Quick, "quick"),
    ] {
        let (mut session, hello) = greeted(entry, None);
        assert!(matches!(hello.msg, ClientMsg::Hello { resume: None, .. }));
        hear(&mut session, ms(1), &welcome(hello.id));
        let request = sent(&mut session);
        let matches = match request.msg {
            ClientMsg::JoinRoom { code: to } => asked == "join" && to == code(),
            ClientMsg::Spectate { code: to } => asked == "spectate" && to == code(),
            ClientMsg::QuickMatch(_) => asked == "quick",
            _ => false,
        };
        assert!(matches, "{entry:?} sent {:?}", request.msg);
    }
}

#[test]
fn a_stored_token_takes_the_seat_back_in_the_hello() {
    let (mut session, hello) = greeted(Entry::Join(code()), Some(TOKEN));
    assert!(session.is_resume());
    assert!(matches!(
        hello.msg,
        ClientMsg::Hello {
            resume: Some(TOKEN),
            ..
        }
    ));
    hear(&mut session, ms(1), &welcome(hello.id));
    assert!(session.poll_transmit().is_none(), "no join after a resume");
    hear(&mut session, ms(1), &joined(hello.id, Some(Color::Black)));
    hear(&mut session, ms(1), &snapshot(true));
    let room = session
        .poll_entered()
        .map(|entered| entered.map_err(|e| e.to_string()));
    assert_eq!(
        room,
        Some(Ok(Room {
            code: code(),
            seat: Some(Color::Black)
        }))
    );
    assert!(!session.seat_lost());
}

#[test]
fn a_refused_resume_says_the_seat_is_gone() {
    let (mut session, hello) = greeted(Entry::Join(code()), Some(TOKEN));
    hear(&mut session, ms(1), &welcome(hello.id));
    let refusal = ServerMsg::Error {
        id: Some(hello.id),
        code: ErrorCode::ResumeRefused,
        message: "no such seat".into(),
    };
    hear(&mut session, ms(1), &refusal);
    assert!(session.seat_lost());
    let entered = session.poll_entered();
    assert!(
        matches!(&entered, Some(Err(EntryError::SeatGone { code: gone, .. })) if *gone == code()),
        "{entered:?}"
    );
    let message = entered.and_then(Result::err).map(|e| e.to_string());
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.starts_with("your seat in room K7QX3M is gone")),
        "{message:?}"
    );
}

#[test]
fn a_refused_join_and_an_unreachable_relay_are_told_apart() {
    let (mut session, hello) = greeted(Entry::Join(code()), None);
    hear(&mut session, ms(1), &welcome(hello.id));
    let join = sent(&mut session);
    let refusal = ServerMsg::Error {
        id: Some(join.id),
        code: ErrorCode::RoomNotFound,
        message: "no room K7QX3M".into(),
    };
    hear(&mut session, ms(2), &refusal);
    assert!(matches!(
        session.poll_entered(),
        Some(Err(EntryError::Refused(ClientError::Refused {
            code: ErrorCode::RoomNotFound,
            ..
        })))
    ));
    assert!(!session.seat_lost());

    let (mut session, _) = greeted(Entry::Create, None);
    session.handle_disconnected(ms(3));
    assert!(matches!(
        session.poll_entered(),
        Some(Err(EntryError::Unreachable(_)))
    ));
    assert!(
        !session.take_connect(),
        "the first connection is not retried"
    );

    // A socket that never opens (nothing listens, or no WebSocket at /ws) says so too.
    let mut session = Session::new(Entry::Create, None, ClientOptions::default());
    session.handle_disconnected(ms(3));
    assert!(matches!(
        session.poll_entered(),
        Some(Err(EntryError::Unreachable(_)))
    ));
    assert!(
        !session.take_connect(),
        "the first connection is not retried"
    );
}

#[test]
fn in_the_room_actions_go_out_and_news_comes_with_the_mirror() {
    let mut session = created();
    assert!(session.poll_news().is_none());
    hear(&mut session, ms(10), &snapshot(true));
    let news = session.poll_news();
    assert!(
        matches!(
            &news,
            Some(RelayNews::Event(ClientEvent::MatchStarted, Some(mirror))) if mirror.is_full()
        ),
        "{news:?}"
    );
    let mv = Move::new(Square::H2, Square::E2);
    assert_eq!(session.act(Action::Play(mv)), Ok(()));
    assert!(matches!(sent(&mut session).msg, ClientMsg::Act(Action::Play(m)) if m == mv));
}

#[test]
fn a_lost_connection_asks_for_another_and_holds_requests_meanwhile() {
    let mut session = created();
    session.handle_disconnected(ms(20));
    assert!(matches!(
        session.poll_news(),
        Some(RelayNews::Event(ClientEvent::Reconnecting { .. }, _))
    ));
    assert!(session.take_connect(), "a new connection at once");
    assert!(!session.take_connect(), "asked once");
    assert_eq!(
        session.act(Action::Resign),
        Err(BackendError::Offline),
        "nothing is sent while down"
    );
    // The new connection resumes with the seat's token.
    session.handle_connected(ms(21));
    let hello = sent(&mut session);
    assert!(matches!(
        hello.msg,
        ClientMsg::Hello {
            resume: Some(TOKEN),
            ..
        }
    ));
    hear(&mut session, ms(22), &welcome(hello.id));
    let refusal = ServerMsg::Error {
        id: Some(hello.id),
        code: ErrorCode::ResumeRefused,
        message: "gone".into(),
    };
    hear(&mut session, ms(22), &refusal);
    assert!(
        session.seat_lost(),
        "a seat refused on reconnecting is gone too"
    );
    assert!(
        session.poll_entered().is_none(),
        "the entry was reported once"
    );
}

#[test]
fn a_redirect_sends_the_next_connection_to_the_owners_websocket() {
    let (mut session, hello) = greeted(Entry::Join(code()), None);
    hear(&mut session, ms(1), &welcome(hello.id));
    let join = sent(&mut session);
    let owner = "ws://relay-b.example:7880".to_string();
    let redirect = ServerMsg::Redirect {
        id: join.id,
        urls: vec!["udp://relay-b.example:7878".into(), owner.clone()],
    };
    hear(&mut session, ms(2), &redirect);
    assert!(session.take_connect(), "a new connection, for the owner");
    assert_eq!(session.take_redirect(), Some(owner));
    assert_eq!(session.take_redirect(), None, "once");
    // There the join is asked again, under its own id, and answered by the owner.
    session.handle_connected(ms(3));
    let hello = sent(&mut session);
    hear(&mut session, ms(4), &welcome(hello.id));
    assert_eq!(sent(&mut session).id, join.id);
    hear(&mut session, ms(5), &joined(join.id, Some(Color::Black)));
    hear(&mut session, ms(5), &snapshot(true));
    assert!(matches!(session.poll_entered(), Some(Ok(_))));

    // A redirect to no WebSocket leaves the page at home.
    let (mut session, hello) = greeted(Entry::Watch(code()), None);
    hear(&mut session, ms(1), &welcome(hello.id));
    let watch = sent(&mut session);
    let redirect = ServerMsg::Redirect {
        id: watch.id,
        urls: vec!["quic://relay-b.example:7879".into()],
    };
    hear(&mut session, ms(2), &redirect);
    assert!(session.take_connect());
    assert_eq!(session.take_redirect(), None);
}
