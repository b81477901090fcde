//! Frozen encodings: if one of these changes, the wire format changed, and old peers break.
//! Change them only together with `PROTOCOL_VERSION`.

use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, RoomOptions, SeatChoice, ServerMsg, codec,
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

#[test]
fn client_messages_keep_their_bytes() {
    let hello = ClientMsg::Hello {
        version: 5,
        client: "xq".into(),
        resume: None,
    };
    assert_eq!(hex(&hello), "05000502787100".replace(' ', ""));
    let play = ClientMsg::Act(Action::Play(Move::new(Square::H2, Square::E2)));
    assert_eq!(hex(&play), "0505001916");
    let create = ClientMsg::CreateRoom(RoomOptions {
        time_control: TimeControl::Untimed,
        undo: UndoPolicy::PerSeat(3),
        seat: SeatChoice::Black,
        repetition: RepetitionRule::Asian,
    });
    assert_eq!(hex(&create), "05010002030100");
    let checks_only = ClientMsg::CreateRoom(RoomOptions {
        repetition: RepetitionRule::ChecksOnly,
        ..RoomOptions::default()
    });
    assert_eq!(hex(&checks_only), "050100010201");
    assert_eq!(
        hex(&ClientMsg::JoinRoom {
            code: "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"))
        }),
        "0502064b375158334d"
    );
    assert_eq!(
        hex(&ClientMsg::Act(Action::AnswerDraw { accept: true })),
        "05050601"
    );
}

#[test]
fn server_messages_keep_their_bytes() {
    let refused = ServerMsg::Error {
        code: ErrorCode::Rejected(CommandError::NotYourTurn),
        message: "not your turn".into(),
    };
    assert_eq!(hex(&refused), "050806010d6e6f7420796f7572207475726e");
    let bye = ServerMsg::Disconnect {
        reason: DisconnectReason::ShuttingDown,
        message: String::new(),
    };
    assert_eq!(hex(&bye), "05090500");
    // The last reason added: the earlier ones keep their codes.
    let full = ServerMsg::Disconnect {
        reason: DisconnectReason::RelayFull,
        message: String::new(),
    };
    assert_eq!(hex(&full), "05090800");
    let drawn = ServerMsg::Event {
        seq: 7,
        event: Event::GameOver(GameResult::Draw {
            reason: DrawReason::Abandonment,
        }),
    };
    assert_eq!(hex(&drawn), "0504070c0103");
    let asked = ServerMsg::Error {
        code: ErrorCode::AlreadyAsked,
        message: String::new(),
    };
    assert_eq!(hex(&asked), "05080c00");
    let invalid = ServerMsg::Error {
        code: ErrorCode::InvalidOptions,
        message: String::new(),
    };
    assert_eq!(hex(&invalid), "05080d00");
    let chased = ServerMsg::Event {
        seq: 9,
        event: Event::GameOver(GameResult::Win {
            winner: Color::Black,
            reason: WinReason::PerpetualChase,
        }),
    };
    assert_eq!(hex(&chased), "0504090c000103");
}
