//! Frozen encodings: if one of these changes, the wire format changed, and old peers break.
//! Change them only together with `PROTOCOL_VERSION`.

use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, Request, RequestId, RoomOptions, SeatChoice, ServerMsg,
    codec,
};
use xq_rules::{Color, Move, Square};
use xq_session::{
    Action, CommandError, DrawReason, Event, GameResult, RepetitionRule, TimeControl, UndoPolicy,
    WinReason,
};

fn hex(msg: &impl serde::Serialize) -> String {
    let frame = codec::to_frame(msg).unwrap_or_else(|e| panic!("{e}"));
    frame.iter().map(|b| format!("{b:02x}")).collect()
}

fn request(id: u32, msg: ClientMsg) -> Request {
    Request {
        id: RequestId(id),
        msg,
    }
}

#[test]
fn client_messages_keep_their_bytes() {
    // Version, the request's id, then the message's tag and fields.
    let hello = ClientMsg::Hello {
        version: 6,
        client: "xq".into(),
        resume: None,
    };
    assert_eq!(hex(&request(1, hello)), "0601000602787100");
    let play = ClientMsg::Act(Action::Play(Move::new(Square::H2, Square::E2)));
    assert_eq!(hex(&request(2, play)), "060205001916");
    let create = ClientMsg::CreateRoom(RoomOptions {
        time_control: TimeControl::Untimed,
        undo: UndoPolicy::PerSeat(3),
        seat: SeatChoice::Black,
        repetition: RepetitionRule::Asian,
    });
    assert_eq!(hex(&request(3, create)), "0603010002030100");
    let checks_only = ClientMsg::CreateRoom(RoomOptions {
        repetition: RepetitionRule::ChecksOnly,
        ..RoomOptions::default()
    });
    assert_eq!(hex(&request(4, checks_only)), "06040100010201");
    let join = ClientMsg::JoinRoom {
        code: "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}")),
    };
    assert_eq!(hex(&request(5, join)), "060502064b375158334d");
    let answer = ClientMsg::Act(Action::AnswerDraw { accept: true });
    assert_eq!(hex(&request(6, answer)), "0606050601");
}

#[test]
fn request_ids_are_variable_length() {
    // An id of 251 or more takes a marker byte and its little-endian bytes.
    assert_eq!(hex(&request(250, ClientMsg::Ping)), "06fa07");
    assert_eq!(hex(&request(300, ClientMsg::Ping)), "06fb2c0107");
    assert_eq!(hex(&request(u32::MAX, ClientMsg::Leave)), "06fcffffffff08");
}

#[test]
fn server_messages_keep_their_bytes() {
    let refused = ServerMsg::Error {
        id: None,
        code: ErrorCode::Rejected(CommandError::NotYourTurn),
        message: "not your turn".into(),
    };
    assert_eq!(hex(&refused), "06090006010d6e6f7420796f7572207475726e");
    let bye = ServerMsg::Disconnect {
        reason: DisconnectReason::ShuttingDown,
        message: String::new(),
    };
    assert_eq!(hex(&bye), "060a0500");
    // The last reason added: the earlier ones keep their codes.
    let full = ServerMsg::Disconnect {
        reason: DisconnectReason::RelayFull,
        message: String::new(),
    };
    assert_eq!(hex(&full), "060a0800");
    // A cluster's redirect: the request, then the list of URLs.
    let moved = ServerMsg::Redirect {
        id: RequestId(3),
        urls: vec!["udp://b:1".into()],
    };
    assert_eq!(hex(&moved), "060b0301097564703a2f2f623a31");
    let drawn = ServerMsg::Event {
        seq: 7,
        event: Event::GameOver(GameResult::Draw {
            reason: DrawReason::Abandonment,
        }),
        answers: None,
    };
    assert_eq!(hex(&drawn), "0604070c010300");
    let asked = ServerMsg::Error {
        id: None,
        code: ErrorCode::AlreadyAsked,
        message: String::new(),
    };
    assert_eq!(hex(&asked), "0609000c00");
    let invalid = ServerMsg::Error {
        id: None,
        code: ErrorCode::InvalidOptions,
        message: String::new(),
    };
    assert_eq!(hex(&invalid), "0609000d00");
    let chased = ServerMsg::Event {
        seq: 9,
        event: Event::GameOver(GameResult::Win {
            winner: Color::Black,
            reason: WinReason::PerpetualChase,
        }),
        answers: None,
    };
    assert_eq!(hex(&chased), "0604090c00010300");
}

#[test]
fn answers_keep_their_bytes() {
    let welcome = ServerMsg::Welcome {
        id: RequestId(1),
        version: 6,
        server: "xq".into(),
    };
    assert_eq!(hex(&welcome), "06000106027871");
    let joined = ServerMsg::Joined {
        id: Some(RequestId(2)),
        code: "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}")),
        seat: Some(Color::Red),
        resume: None,
    };
    assert_eq!(hex(&joined), "06010102064b375158334d010000");
    assert_eq!(hex(&ServerMsg::Queued { id: RequestId(3) }), "060203");
    assert_eq!(hex(&ServerMsg::Pong { id: RequestId(4) }), "060704");
    assert_eq!(hex(&ServerMsg::Done { id: RequestId(7) }), "060807");
    let refused = ServerMsg::Error {
        id: Some(RequestId(9)),
        code: ErrorCode::Rejected(CommandError::NotYourTurn),
        message: "not your turn".into(),
    };
    assert_eq!(hex(&refused), "0609010906010d6e6f7420796f7572207475726e");
    let answered = ServerMsg::Event {
        seq: 7,
        event: Event::GameOver(GameResult::Draw {
            reason: DrawReason::Abandonment,
        }),
        answers: Some(RequestId(12)),
    };
    assert_eq!(hex(&answered), "0604070c0103010c");
}
