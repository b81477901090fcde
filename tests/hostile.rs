//! Hostile clients: every forbidden request gets its typed error, goes to the sender alone, and
//! changes nothing for anyone.

use xq_client::{ClientError, ClientEvent};
use xq_protocol::{
    ClientMsg, ErrorCode, PROTOCOL_VERSION, Request, RequestId, RoomCode, RoomOptions, ServerMsg,
    codec,
};
use xq_rules::{IllegalMove, Move, Role, Square};
use xq_session::{Action, CommandError, Event};
use xq_tests::{Relay, Scheme, connect, expect, match_event, moves, pair, play_line};

fn rejected(e: &ClientEvent) -> Option<ErrorCode> {
    match e {
        ClientEvent::Rejected { code, .. } => Some(*code),
        _ => None,
    }
}

async fn forbidden_commands_change_nothing(scheme: Scheme) {
    let relay = Relay::start(scheme, "hostile").await;
    let mut pair = pair(&relay, RoomOptions::default()).await;
    let mut watcher = connect(relay.url(), relay.options()).await;
    watcher
        .spectate(pair.code)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let before = pair.black.mirror().unwrap_or_else(|| panic!("no mirror"));

    // Black moves out of turn.
    let black_move = Action::Play(moves("h9g7")[0]);
    pair.black
        .act(black_move)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        expect(&mut pair.black, rejected).await,
        ErrorCode::Rejected(CommandError::NotYourTurn)
    );
    // Red's chariot cannot jump its soldier.
    let illegal = Action::Play(Move::new(Square::A0, Square::A5));
    pair.red
        .act(illegal)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        expect(&mut pair.red, rejected).await,
        ErrorCode::Rejected(CommandError::IllegalMove(IllegalMove::CannotMoveThere(
            Role::Chariot
        )))
    );
    // A spectator cannot play.
    watcher
        .act(Action::Resign)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expect(&mut watcher, rejected).await, ErrorCode::Spectator);
    let mirror = pair.black.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert_eq!(mirror.position(), before.position());
    assert_eq!(mirror.next_seq(), before.next_seq());

    // Accepting one's own undo request.
    play_line(&mut pair, &mut [&mut watcher], &moves("h2e2")).await;
    pair.red
        .request_undo()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        assert!(matches!(
            match_event(client).await.1,
            Event::UndoRequested(_)
        ));
    }
    pair.red
        .answer_undo(true)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        expect(&mut pair.red, rejected).await,
        ErrorCode::Rejected(CommandError::CannotAnswerOwnRequest)
    );

    // Nobody saw anything of all that: the next event anyone gets is Black's real answer.
    pair.black
        .answer_undo(false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for client in [&mut pair.red, &mut pair.black, &mut watcher] {
        let (seq, event) = match_event(client).await;
        assert_eq!(seq, 2, "move and request were 0 and 1");
        assert!(matches!(event, Event::UndoDeclined { .. }), "{event:?}");
    }
    assert_eq!(pair.red.mirror().map(|m| m.moves().len()), Some(1));
    relay.shutdown().await;
}

async fn unknown_rooms_and_malformed_bytes(scheme: Scheme) {
    let relay = Relay::start(scheme, "hostile-bytes").await;
    let client = connect(relay.url(), relay.options()).await;
    let code: RoomCode = "ZZZZZZ".parse().unwrap_or_else(|e| panic!("{e}"));
    match client.join(code).await {
        Err(ClientError::Refused {
            code: ErrorCode::RoomNotFound,
            ..
        }) => {}
        other => panic!("expected RoomNotFound, got {other:?}"),
    }
    match client.spectate(code).await {
        Err(ClientError::Refused {
            code: ErrorCode::RoomNotFound,
            ..
        }) => {}
        other => panic!("expected RoomNotFound, got {other:?}"),
    }

    // A raw connection that says hello, then sends garbage.
    let raw = xq_transport::connect(relay.url(), &relay.options())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let hello = Request {
        id: RequestId(1),
        msg: ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "hostile".into(),
            resume: None,
        },
    };
    raw.send(codec::to_frame(&hello).unwrap_or_else(|e| panic!("{e}")))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply =
        |frame: Vec<u8>| codec::decode::<ServerMsg>(&frame).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        reply(raw.recv().await.unwrap_or_else(|e| panic!("{e}"))),
        ServerMsg::Welcome { .. }
    ));
    for garbage in [
        vec![],
        vec![PROTOCOL_VERSION, 250, 1, 2],
        [vec![PROTOCOL_VERSION], vec![0xff; 40]].concat(),
    ] {
        raw.send(garbage).await.unwrap_or_else(|e| panic!("{e}"));
        match reply(raw.recv().await.unwrap_or_else(|e| panic!("{e}"))) {
            // A frame that does not decode has no id to answer.
            ServerMsg::Error {
                id: None,
                code: ErrorCode::Malformed,
                ..
            }
            | ServerMsg::Disconnect {
                reason: xq_protocol::DisconnectReason::Malformed,
                ..
            } => {}
            other => panic!("expected a malformed-frame error, got {other:?}"),
        }
    }
    // The relay is unharmed: a well-behaved client still plays.
    let mut pair = pair(&relay, RoomOptions::default()).await;
    play_line(&mut pair, &mut [], &moves("h2e2 h9g7")).await;
    relay.shutdown().await;
}

xq_tests::over_every_transport!(
    forbidden_commands_change_nothing,
    unknown_rooms_and_malformed_bytes
);
