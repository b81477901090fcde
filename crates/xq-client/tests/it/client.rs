//! The client against a scripted relay on `mem://`: hello, rooms, commands and reconnects.

use std::time::Duration;

use xq_client::{Client, ClientError, ClientEvent, ClientOptions, ReconnectPolicy, Room};
use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, PROTOCOL_VERSION, RequestId, RoomOptions, SeatInfo,
    ServerMsg,
};
use xq_rules::{Color, Move, Square};
use xq_session::{Action, CommandError, Event, MatchConfig, Status};

use crate::support::{
    Peer, Referee, Relay, TOKEN, code, create_at_red, h2e2, h9g7, ms, next, numbered, options,
    within,
};

async fn connect(relay: &Relay) -> (Client, Peer) {
    let url = relay.url();
    let (client, (peer, resume)) = tokio::join!(Client::connect(&url, options()), relay.welcome());
    assert_eq!(resume, None);
    (client.unwrap_or_else(|e| panic!("{e}")), peer)
}

/// A client seated at Red in a started match, and the relay's side of it.
async fn seated_at_red(relay: &Relay, referee: &Referee) -> (Client, Peer) {
    let (client, peer) = connect(relay).await;
    create_at_red(&client, &peer, referee).await;
    assert_eq!(client.resume_token(), Some(TOKEN));
    (client, peer)
}

#[tokio::test]
async fn connects_with_a_hello_and_a_welcome() {
    let relay = Relay::listen("client-connects").await;
    let (client, _peer) = connect(&relay).await;
    assert!(client.is_connected());
    assert_eq!(client.room(), None);
    assert_eq!(client.mirror(), None);
    assert_eq!(client.resume_token(), None);
}

#[tokio::test]
async fn another_protocol_version_is_a_typed_error() {
    let relay = Relay::listen("client-version").await;
    let url = relay.url();
    let answers = [
        ServerMsg::Disconnect {
            reason: DisconnectReason::VersionMismatch,
            message: "speak version 2".into(),
        },
        ServerMsg::Welcome {
            id: RequestId(1),
            version: PROTOCOL_VERSION + 1,
            server: "future".into(),
        },
    ];
    for answer in answers {
        let (client, ()) = tokio::join!(Client::connect(&url, options()), async {
            let peer = relay.accept().await;
            peer.recv().await;
            peer.send(answer).await;
        });
        assert!(
            matches!(client, Err(ClientError::VersionMismatch { .. })),
            "{:?}",
            client.err()
        );
    }
    // A frame written by another version does not even decode.
    let (client, ()) = tokio::join!(Client::connect(&url, options()), async {
        let peer = relay.accept().await;
        peer.recv().await;
        let mut frame = xq_protocol::codec::to_frame(&ServerMsg::Queued { id: RequestId(1) })
            .unwrap_or_else(|e| panic!("{e}"));
        frame[0] = PROTOCOL_VERSION + 1;
        peer.conn
            .send(frame)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    });
    assert!(matches!(
        client,
        Err(ClientError::VersionMismatch { relay: Some(v) }) if v == PROTOCOL_VERSION + 1
    ));
}

#[tokio::test]
async fn nobody_listening_is_a_transport_error() {
    let result = Client::connect("mem://client-nobody", options()).await;
    assert!(matches!(result, Err(ClientError::Transport(_))));
}

#[tokio::test]
async fn a_created_room_starts_when_the_opponent_joins() {
    let relay = Relay::listen("client-create").await;
    let mut referee = Referee::new(MatchConfig::default());
    referee.seats.black = SeatInfo::default();
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert!(!mirror.is_full());
    assert_eq!(mirror.code(), code());

    referee.seats.black = SeatInfo {
        taken: true,
        connected: true,
    };
    peer.send(ServerMsg::Snapshot(Box::new(referee.snapshot(ms(0)))))
        .await;
    assert!(matches!(next(&mut client).await, ClientEvent::MatchStarted));
    assert!(client.mirror().is_some_and(|m| m.is_full()));
}

#[tokio::test]
async fn joining_an_unknown_room_is_refused() {
    let relay = Relay::listen("client-join-unknown").await;
    let (client, peer) = connect(&relay).await;
    let (joined, ()) = tokio::join!(client.join(code()), async {
        assert_eq!(peer.recv().await, ClientMsg::JoinRoom { code: code() });
        peer.send(ServerMsg::Error {
            id: Some(peer.id()),
            code: ErrorCode::RoomNotFound,
            message: "no such room".into(),
        })
        .await;
    });
    assert!(matches!(
        joined,
        Err(ClientError::Refused {
            code: ErrorCode::RoomNotFound,
            ..
        })
    ));
    assert_eq!(client.room(), None);
}

/// A refusal names the request it refuses: the refusal of a request sent before a room request
/// is not taken for the room request's answer.
#[tokio::test]
async fn a_refusal_of_an_earlier_command_is_not_the_answer_to_a_room_request() {
    let relay = Relay::listen("client-stray-refusal").await;
    let (mut client, peer) = connect(&relay).await;
    client.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    let referee = Referee::new(MatchConfig::default());
    let (created, ()) = tokio::join!(client.create(RoomOptions::default()), async {
        assert_eq!(peer.recv().await, ClientMsg::Rematch);
        peer.send(ServerMsg::Error {
            id: Some(peer.id()),
            code: ErrorCode::NotInRoom,
            message: "you are in no room".into(),
        })
        .await;
        assert_eq!(
            peer.recv().await,
            ClientMsg::CreateRoom(RoomOptions::default())
        );
        peer.seat(Some(Color::Red), referee.snapshot(ms(0))).await;
    });
    assert_eq!(
        created.unwrap_or_else(|e| panic!("{e}")),
        Room {
            code: code(),
            seat: Some(Color::Red)
        }
    );
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Rejected {
            code: ErrorCode::NotInRoom,
            ..
        }
    ));
}

#[tokio::test]
async fn quick_match_reports_the_queue_then_seats() {
    let relay = Relay::listen("client-quick").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = connect(&relay).await;
    let (room, ()) = tokio::join!(client.quick_match(RoomOptions::default()), async {
        assert!(matches!(peer.recv().await, ClientMsg::QuickMatch(_)));
        peer.send(ServerMsg::Queued { id: peer.id() }).await;
        peer.seat(Some(Color::Black), referee.snapshot(ms(0))).await;
    });
    assert_eq!(room.ok().and_then(|room| room.seat), Some(Color::Black));
    assert!(matches!(next(&mut client).await, ClientEvent::Queued));
    assert!(matches!(next(&mut client).await, ClientEvent::MatchStarted));
}

#[tokio::test]
async fn commands_carry_the_seat_and_come_back_as_events() {
    let relay = Relay::listen("client-commands").await;
    let mut referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;

    client.play(h2e2()).await.unwrap_or_else(|e| panic!("{e}"));
    let ClientMsg::Act(action) = peer.recv().await else {
        panic!("expected an action");
    };
    assert_eq!(action, Action::Play(h2e2()));
    for event in referee
        .handle(ms(1), action.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"))
    {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Match {
            seq: 0,
            event: Event::MovePlayed { by: Color::Red, .. }
        }
    ));
    assert_eq!(
        client.mirror().map(|m| m.position().clone()),
        Some(referee.game.position().clone())
    );

    // A refusal goes to the event stream.
    client.play(h2e2()).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(peer.recv().await, ClientMsg::Act(_)));
    peer.send(ServerMsg::Error {
        id: Some(peer.id()),
        code: ErrorCode::Rejected(CommandError::NotYourTurn),
        message: "not your turn".into(),
    })
    .await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Rejected {
            code: ErrorCode::Rejected(CommandError::NotYourTurn),
            ..
        }
    ));

    // Every helper names the client's own seat.
    client
        .request_undo()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    client
        .answer_undo(false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    client.offer_draw().await.unwrap_or_else(|e| panic!("{e}"));
    client
        .answer_draw(true)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    client.resign().await.unwrap_or_else(|e| panic!("{e}"));
    client.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    for expected in [
        ClientMsg::Act(Action::RequestUndo),
        ClientMsg::Act(Action::AnswerUndo { accept: false }),
        ClientMsg::Act(Action::OfferDraw),
        ClientMsg::Act(Action::AnswerDraw { accept: true }),
        ClientMsg::Act(Action::Resign),
        ClientMsg::Rematch,
    ] {
        assert_eq!(peer.recv().await, expected);
    }

    // Presence and rematch requests reach the mirror and the stream.
    peer.send(ServerMsg::Presence {
        seat: Color::Black,
        connected: false,
    })
    .await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Presence {
            seat: Color::Black,
            connected: false
        }
    ));
    assert!(client.mirror().is_some_and(|m| !m.seats().black.connected));
}

#[tokio::test]
async fn a_spectator_cannot_command() {
    let relay = Relay::listen("client-spectator").await;
    let referee = Referee::new(MatchConfig::default());
    let (client, peer) = connect(&relay).await;
    let (room, ()) = tokio::join!(client.spectate(code()), async {
        assert_eq!(peer.recv().await, ClientMsg::Spectate { code: code() });
        peer.seat(None, referee.snapshot(ms(0))).await;
    });
    assert_eq!(room.ok().and_then(|room| room.seat), None);
    assert_eq!(client.resume_token(), None);
    assert!(matches!(
        client.play(h2e2()).await,
        Err(ClientError::NotSeated)
    ));
}

#[tokio::test]
async fn a_rematch_swaps_the_seat() {
    let relay = Relay::listen("client-rematch").await;
    let mut referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    for event in referee
        .handle(ms(1), Action::Resign.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"))
    {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Match {
            event: Event::GameOver(_),
            ..
        }
    ));
    peer.send(ServerMsg::RematchRequested { by: Color::Black })
        .await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::RematchRequested { by: Color::Black }
    ));
    let fresh = Referee::new(MatchConfig::default());
    peer.seat(Some(Color::Black), fresh.snapshot(ms(0))).await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::RematchStarted {
            seat: Some(Color::Black)
        }
    ));
    assert_eq!(client.room().and_then(|room| room.seat), Some(Color::Black));
    assert!(
        client
            .mirror()
            .is_some_and(|m| m.status().is_ongoing() && m.next_seq() == 0)
    );
}

#[tokio::test]
async fn a_dropped_connection_resumes_with_the_token() {
    let relay = Relay::listen("client-resume").await;
    let mut referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;

    let red = referee.play(ms(1), Color::Red, h2e2());
    for event in red.clone() {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Match { seq: 0, .. }
    ));
    // The snapshot the relay will resume from is taken now, before Black's reply.
    let snapshot = referee.snapshot(ms(1));

    // The relay loses the connection; Black replies meanwhile.
    drop(peer);
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting { .. }
    ));
    assert!(matches!(
        client.play(h2e2()).await,
        Err(ClientError::NotConnected)
    ));
    let black = referee.play(ms(2), Color::Black, h9g7());

    let (peer, resume) = relay.welcome().await;
    assert_eq!(resume, Some(TOKEN));
    // Joined and the snapshot, then events from before it again (already seen) and after it.
    peer.seat(Some(Color::Red), snapshot).await;
    for event in red.into_iter().chain(black) {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Match {
            seq: 1,
            event: Event::MovePlayed {
                by: Color::Black,
                ..
            }
        }
    ));
    let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert_eq!(mirror.position(), referee.game.position());
    assert_eq!(mirror.moves(), referee.game.moves());
    assert!(client.is_connected());
    assert!(client.try_next_event().is_none());

    // Commands go out on the new connection.
    client
        .play(Move::new(Square::H0, Square::G2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(peer.recv().await, ClientMsg::Act(Action::Play(_))));
}

#[tokio::test]
async fn a_relay_shutting_down_is_reconnected_to() {
    let relay = Relay::listen("client-shutdown").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    peer.send(ServerMsg::Disconnect {
        reason: DisconnectReason::ShuttingDown,
        message: "restarting".into(),
    })
    .await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting {
            cause: ClientError::ClosedByRelay {
                reason: DisconnectReason::ShuttingDown,
                ..
            }
        }
    ));
    let (peer, resume) = relay.welcome().await;
    assert_eq!(resume, Some(TOKEN));
    peer.seat(Some(Color::Red), referee.snapshot(ms(0))).await;
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
}

#[tokio::test]
async fn a_gap_in_the_events_is_repaired_by_resuming() {
    let relay = Relay::listen("client-gap").await;
    let mut referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    referee.play(ms(1), Color::Red, h2e2());
    let black = referee.play(ms(2), Color::Black, h9g7());
    // Event 0 never arrives.
    for event in black {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting {
            cause: ClientError::Mirror(_)
        }
    ));
    let (peer, resume) = relay.welcome().await;
    assert_eq!(resume, Some(TOKEN));
    peer.seat(Some(Color::Red), referee.snapshot(ms(2))).await;
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
    assert_eq!(
        client.mirror().map(|m| m.position().clone()),
        Some(referee.game.position().clone())
    );
}

#[tokio::test]
async fn a_spectator_watches_again_after_a_drop() {
    let relay = Relay::listen("client-spectator-resume").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = connect(&relay).await;
    let (room, ()) = tokio::join!(client.spectate(code()), async {
        peer.recv().await;
        peer.seat(None, referee.snapshot(ms(0))).await;
    });
    assert!(room.is_ok());
    drop(peer);
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting { .. }
    ));
    let (peer, resume) = relay.welcome().await;
    assert_eq!(resume, None);
    assert_eq!(peer.recv().await, ClientMsg::Spectate { code: code() });
    peer.seat(None, referee.snapshot(ms(0))).await;
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
}

#[tokio::test]
async fn a_refused_resume_ends_the_client() {
    let relay = Relay::listen("client-resume-refused").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    drop(peer);
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting { .. }
    ));
    let (peer, _) = relay.welcome().await;
    peer.send(ServerMsg::Error {
        id: Some(peer.id()),
        code: ErrorCode::ResumeRefused,
        message: "grace period over".into(),
    })
    .await;
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Disconnected {
            cause: ClientError::Refused {
                code: ErrorCode::ResumeRefused,
                ..
            }
        }
    ));
    assert!(within(client.next_event()).await.is_none());
    assert!(matches!(client.resign().await, Err(ClientError::Closed)));
}

#[tokio::test(start_paused = true)]
async fn reconnecting_gives_up_after_the_period() {
    let relay = Relay::listen("client-give-up").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    let started = tokio::time::Instant::now();
    relay.close();
    drop(peer);
    assert!(matches!(
        client.next_event().await,
        Some(ClientEvent::Reconnecting { .. })
    ));
    assert!(matches!(
        client.next_event().await,
        Some(ClientEvent::Disconnected {
            cause: ClientError::Transport(_)
        })
    ));
    let waited = started.elapsed();
    assert!(waited <= Duration::from_secs(5), "{waited:?}");
    assert!(waited >= Duration::from_secs(4), "{waited:?}");
    assert!(client.next_event().await.is_none());
    // The mirror stays readable after the end.
    assert!(
        client
            .mirror()
            .is_some_and(|m| m.status() == Status::Ongoing)
    );
}

#[tokio::test]
async fn close_leaves_the_room_and_ends_the_stream() {
    let relay = Relay::listen("client-close").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    client.close().await;
    assert_eq!(peer.recv().await, ClientMsg::Leave);
    assert!(within(client.next_event()).await.is_none());
    assert!(matches!(
        client.offer_draw().await,
        Err(ClientError::Closed)
    ));
}

/// The relay answers a leave with `Done`, or refuses it; the refusal of another request is not
/// the leave's answer.
#[tokio::test]
async fn a_leave_is_answered_by_the_relay_and_a_refusal_changes_nothing() {
    let relay = Relay::listen("client-leave").await;
    let referee = Referee::new(MatchConfig::default());
    let (mut client, peer) = seated_at_red(&relay, &referee).await;
    let room = client.room();

    let (left, ()) = tokio::join!(client.leave(), async {
        assert_eq!(peer.recv().await, ClientMsg::Leave);
        peer.send(ServerMsg::Error {
            id: Some(peer.id()),
            code: ErrorCode::NotInRoom,
            message: "you are in no room".into(),
        })
        .await;
    });
    assert!(
        matches!(
            left,
            Err(ClientError::Refused {
                code: ErrorCode::NotInRoom,
                ..
            })
        ),
        "{left:?}"
    );
    assert_eq!(client.room(), room);
    assert!(client.mirror().is_some());
    assert_eq!(client.resume_token(), Some(TOKEN));

    // The refusal of a command sent before is not the leave's answer.
    client.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    let (left, ()) = tokio::join!(client.leave(), async {
        assert_eq!(peer.recv().await, ClientMsg::Rematch);
        peer.send(ServerMsg::Error {
            id: Some(peer.id()),
            code: ErrorCode::GameNotOver,
            message: "the game is not over".into(),
        })
        .await;
        assert_eq!(peer.recv().await, ClientMsg::Leave);
        peer.done().await;
    });
    left.unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Rejected {
            code: ErrorCode::GameNotOver,
            ..
        }
    ));
    assert_eq!(client.room(), None);
    assert_eq!(client.mirror(), None);
    assert_eq!(client.resume_token(), None);

    // Outside a room there is nothing to leave: refused at once, and nothing is sent.
    assert!(matches!(client.leave().await, Err(ClientError::NotInRoom)));
    client.rematch().await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(peer.recv().await, ClientMsg::Rematch);
}

#[tokio::test]
async fn a_quick_match_looking_for_an_opponent_cannot_be_left() {
    let relay = Relay::listen("client-leave-queue").await;
    let (client, peer) = connect(&relay).await;
    let quick = client.quick_match(RoomOptions::default());
    tokio::pin!(quick);
    tokio::select! {
        room = &mut quick => panic!("no answer was sent, yet {room:?}"),
        msg = peer.recv() => assert!(matches!(msg, ClientMsg::QuickMatch(_))),
    }
    assert!(matches!(
        client.leave().await,
        Err(ClientError::RequestPending)
    ));
}

#[tokio::test]
async fn resuming_presents_the_token_in_the_hello() {
    let relay = Relay::listen("client-resume-hello").await;
    let mut referee = Referee::new(MatchConfig::default());
    referee.play(ms(1), Color::Red, h2e2());
    let url = relay.url();
    let (client, _peer) = tokio::join!(Client::resume(&url, TOKEN, options()), async {
        let (peer, resume) = relay.welcome().await;
        assert_eq!(resume, Some(TOKEN));
        peer.seat(Some(Color::Red), referee.snapshot(ms(1))).await;
        peer
    });
    let client = client.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        client.room(),
        Some(Room {
            code: code(),
            seat: Some(Color::Red)
        })
    );
    assert_eq!(client.resume_token(), Some(TOKEN));
    assert_eq!(
        client.mirror().map(|m| m.moves().to_vec()),
        Some(referee.game.moves().to_vec())
    );
}

#[tokio::test(start_paused = true)]
async fn a_resume_the_relay_does_not_answer_times_out() {
    let relay = Relay::listen("client-resume-silent").await;
    let url = relay.url();
    let options = ClientOptions {
        handshake_timeout: Duration::from_secs(2),
        ..options()
    };
    let (client, _peer) =
        within(async { tokio::join!(Client::resume(&url, TOKEN, options), relay.welcome()) }).await;
    assert!(
        matches!(client, Err(ClientError::Timeout)),
        "{:?}",
        client.err()
    );
}

/// A resume whose connection fails before the relay answers is `ConnectionLost`, as
/// documented, whether or not the client would reconnect afterwards.
#[tokio::test]
async fn a_resume_cut_off_before_the_answer_is_a_lost_connection() {
    let relay = Relay::listen("client-resume-cut-off").await;
    let url = relay.url();
    let options = ClientOptions {
        reconnect: ReconnectPolicy {
            period: Duration::ZERO,
            ..options().reconnect
        },
        ..options()
    };
    let (client, ()) = within(async {
        tokio::join!(Client::resume(&url, TOKEN, options), async {
            let (peer, _) = relay.welcome().await;
            drop(peer);
        })
    })
    .await;
    assert!(
        matches!(client, Err(ClientError::ConnectionLost)),
        "{:?}",
        client.err()
    );
}
