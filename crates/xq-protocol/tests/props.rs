//! Codec properties: every message survives a round trip, and no byte string makes decoding
//! panic or accept garbage.

use std::time::Duration;

use proptest::prelude::*;
use xq_protocol::codec::{self, DecodeError, MAX_FRAME_SIZE};
use xq_protocol::{
    ClientMsg, DisconnectReason, ErrorCode, PROTOCOL_VERSION, Request, RequestId, ResumeToken,
    RoomCode, RoomOptions, SeatChoice, SeatInfo, ServerMsg, Snapshot,
};
use xq_rules::{ByColor, Color};
use xq_session::{
    Action, CommandError, Match, MatchConfig, RepetitionRule, TimeControl, Timestamp, UndoPolicy,
};

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::Red), Just(Color::Black)]
}

fn options() -> impl Strategy<Value = RoomOptions> {
    let time = prop_oneof![
        Just(TimeControl::Untimed),
        (0u64..10_000, 0u64..60).prop_map(|(base, inc)| TimeControl::Increment {
            base: Duration::from_secs(base),
            increment: Duration::from_secs(inc),
        }),
    ];
    let undo = prop_oneof![
        Just(UndoPolicy::Forbidden),
        Just(UndoPolicy::Unlimited),
        any::<u32>().prop_map(UndoPolicy::PerSeat),
    ];
    let seat = prop_oneof![
        Just(SeatChoice::Red),
        Just(SeatChoice::Black),
        Just(SeatChoice::Random)
    ];
    let repetition = prop::sample::select(RepetitionRule::ALL.to_vec());
    (time, undo, seat, repetition).prop_map(|(time_control, undo, seat, repetition)| RoomOptions {
        time_control,
        undo,
        seat,
        repetition,
    })
}

/// A match after `plies` random legal moves, with the events it produced.
fn played(seed: u64, plies: usize) -> (Match, Vec<xq_session::Event>) {
    let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    let mut events = Vec::new();
    let mut state = seed | 1;
    for ply in 0..plies {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mv = moves[(state % moves.len() as u64) as usize];
        let by = game.turn();
        if game
            .handle(Timestamp::from_millis(ply as u64), Action::Play(mv).by(by))
            .is_err()
        {
            break;
        }
        while let Some(event) = game.poll_event() {
            events.push(event);
        }
    }
    (game, events)
}

fn client_msg() -> impl Strategy<Value = ClientMsg> {
    prop_oneof![
        (
            any::<u8>(),
            ".{0,40}",
            proptest::option::of(any::<[u8; 16]>())
        )
            .prop_map(|(version, client, resume)| ClientMsg::Hello {
                version,
                client,
                resume: resume.map(ResumeToken),
            }),
        options().prop_map(ClientMsg::CreateRoom),
        options().prop_map(ClientMsg::QuickMatch),
        any::<u64>().prop_map(|n| ClientMsg::JoinRoom {
            code: RoomCode::from_u64(n)
        }),
        any::<u64>().prop_map(|n| ClientMsg::Spectate {
            code: RoomCode::from_u64(n)
        }),
        any::<bool>().prop_map(|accept| ClientMsg::Act(Action::AnswerUndo { accept })),
        Just(ClientMsg::Act(Action::Resign)),
        (any::<u64>(), 1usize..40).prop_map(|(seed, plies)| {
            let (game, _) = played(seed, plies);
            let mv = game
                .moves()
                .last()
                .map_or_else(|| game.position().legal_moves()[0], |played| played.mv);
            ClientMsg::Act(Action::Play(mv))
        }),
        Just(ClientMsg::Rematch),
        Just(ClientMsg::Leave),
        Just(ClientMsg::Ping),
    ]
}

fn request_id() -> impl Strategy<Value = RequestId> {
    any::<u32>().prop_map(RequestId)
}

/// A request with any id, so ids of every encoded length.
fn request() -> impl Strategy<Value = Request> {
    (request_id(), client_msg()).prop_map(|(id, msg)| Request { id, msg })
}

fn server_msg() -> impl Strategy<Value = ServerMsg> {
    prop_oneof![
        (any::<u64>(), 1usize..60, proptest::option::of(request_id())).prop_map(
            |(seed, plies, answers)| {
                let (_, events) = played(seed, plies);
                let event = events
                    .last()
                    .cloned()
                    .unwrap_or(xq_session::Event::UndoLapsed);
                ServerMsg::Event {
                    seq: seed,
                    event,
                    answers,
                }
            }
        ),
        (
            any::<u64>(),
            0usize..150,
            any::<bool>(),
            proptest::option::of(color())
        )
            .prop_map(|(seed, plies, running, draw)| {
                let (game, _) = played(seed, plies);
                ServerMsg::Snapshot(Box::new(Snapshot {
                    code: RoomCode::from_u64(seed),
                    config: game.config().clone(),
                    moves: game.moves().iter().map(|p| p.mv).collect(),
                    clocks: None,
                    clocks_running: running,
                    undos_granted: ByColor::default(),
                    pending_undo: None,
                    pending_draw: draw,
                    status: game.status(),
                    seats: ByColor {
                        red: SeatInfo {
                            taken: true,
                            connected: running,
                        },
                        black: SeatInfo::default(),
                    },
                    rematch_requested: draw,
                    next_seq: seed,
                }))
            }),
        (
            proptest::option::of(request_id()),
            any::<u64>(),
            proptest::option::of(color()),
            any::<[u8; 16]>()
        )
            .prop_map(|(id, n, seat, token)| {
                ServerMsg::Joined {
                    id,
                    code: RoomCode::from_u64(n),
                    seat,
                    resume: Some(ResumeToken(token)),
                }
            }),
        (proptest::option::of(request_id()), ".{0,60}").prop_map(|(id, message)| {
            ServerMsg::Error {
                id,
                code: ErrorCode::Rejected(CommandError::CannotAnswerOwnRequest),
                message,
            }
        }),
        Just(ServerMsg::Disconnect {
            reason: DisconnectReason::RateLimited,
            message: "slow down".into()
        }),
        (color(), any::<bool>())
            .prop_map(|(seat, connected)| ServerMsg::Presence { seat, connected }),
        request_id().prop_map(|id| ServerMsg::Pong { id }),
        (
            request_id(),
            proptest::collection::vec("[a-z:/.0-9]{0,30}", 0..4)
        )
            .prop_map(|(id, urls)| ServerMsg::Redirect { id, urls }),
        request_id().prop_map(|id| ServerMsg::Done { id }),
        request_id().prop_map(|id| ServerMsg::Queued { id }),
        (request_id(), any::<u8>(), ".{0,40}").prop_map(|(id, version, server)| {
            ServerMsg::Welcome {
                id,
                version,
                server,
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn requests_round_trip(msg in request()) {
        let frame = codec::to_frame(&msg)?;
        prop_assert_eq!(codec::decode::<Request>(&frame)?, msg);
    }

    #[test]
    fn server_messages_round_trip(msg in server_msg()) {
        let frame = codec::to_frame(&msg)?;
        prop_assert_eq!(codec::decode::<ServerMsg>(&frame)?, msg);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = codec::decode::<Request>(&bytes);
        let _ = codec::decode::<ServerMsg>(&bytes);
    }

    #[test]
    fn cut_or_padded_frames_are_refused(msg in server_msg(), cut in any::<prop::sample::Index>(), pad in 1usize..8) {
        let frame = codec::to_frame(&msg)?;
        let short = &frame[..cut.index(frame.len())];
        prop_assert!(codec::decode::<ServerMsg>(short).is_err());
        let mut long = frame.clone();
        long.extend(std::iter::repeat_n(0, pad));
        let trailing = matches!(codec::decode::<ServerMsg>(&long), Err(DecodeError::TrailingBytes { extra }) if extra == pad);
        prop_assert!(trailing);
    }

    #[test]
    fn integers_in_more_bytes_than_needed_are_refused(
        id in 0u32..251,
        client in client_msg(),
        server in server_msg(),
        marker in 251u8..=252,
    ) {
        // A request's second byte is its id and a server message's its variant's tag, each a
        // u32 below 251 and so one byte. Widened to the 2 or 4 bytes after `marker`, it still
        // reads as the same number.
        let widen = |frame: Vec<u8>| {
            let width = if marker == 251 { 2 } else { 4 };
            let mut widened = vec![frame[0], marker];
            widened.extend_from_slice(&u64::from(frame[1]).to_le_bytes()[..width]);
            widened.extend_from_slice(&frame[2..]);
            widened
        };
        let client = widen(codec::to_frame(&Request { id: RequestId(id), msg: client })?);
        prop_assert!(matches!(codec::decode::<Request>(&client), Err(DecodeError::NonCanonical)));
        let server = widen(codec::to_frame(&server)?);
        prop_assert!(matches!(codec::decode::<ServerMsg>(&server), Err(DecodeError::NonCanonical)));
    }
}

#[test]
fn hostile_lengths_and_versions_are_typed_errors() {
    assert!(matches!(
        codec::decode::<Request>(&[]),
        Err(DecodeError::Empty)
    ));
    let other = PROTOCOL_VERSION + 1;
    assert!(matches!(
        codec::decode::<Request>(&[other, 0]),
        Err(DecodeError::Version { found }) if found == other
    ));
    // A hello (request 0) whose name claims 2^32 bytes: refused by the limit, nothing that
    // size allocated.
    let huge = [PROTOCOL_VERSION, 0, 0, 1, 252, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(
        codec::decode::<Request>(&huge),
        Err(DecodeError::Malformed(_))
    ));
    let too_big = vec![1u8; MAX_FRAME_SIZE + 1];
    assert!(matches!(
        codec::decode::<Request>(&too_big),
        Err(DecodeError::TooLarge { .. })
    ));
    // An unknown variant tag.
    assert!(matches!(
        codec::decode::<Request>(&[PROTOCOL_VERSION, 0, 200]),
        Err(DecodeError::Malformed(_))
    ));
    // A move to square 90 does not exist.
    assert!(matches!(
        codec::decode::<Request>(&[PROTOCOL_VERSION, 0, 5, 0, 25, 90]),
        Err(DecodeError::Malformed(_))
    ));
    // A zero written as the three bytes `fb 00 00` (found by the codec fuzz target): as a
    // welcome's tag, and as a request's id.
    assert!(matches!(
        codec::decode::<ServerMsg>(&[PROTOCOL_VERSION, 251, 0, 0, 0, 0, 0]),
        Err(DecodeError::NonCanonical)
    ));
    assert!(matches!(
        codec::decode::<Request>(&[PROTOCOL_VERSION, 251, 0, 0, 7]),
        Err(DecodeError::NonCanonical)
    ));
    // A request cut off after its id.
    assert!(matches!(
        codec::decode::<Request>(&[PROTOCOL_VERSION, 9]),
        Err(DecodeError::Malformed(_))
    ));
    // A room code with a look-alike symbol.
    let mut join = vec![PROTOCOL_VERSION, 0, 2, 6];
    join.extend_from_slice(b"ABCDE0");
    assert!(matches!(
        codec::decode::<Request>(&join),
        Err(DecodeError::Malformed(_))
    ));
}

#[test]
fn oversized_messages_are_not_encoded() {
    let msg = ServerMsg::Error {
        id: None,
        code: ErrorCode::Malformed,
        message: "x".repeat(MAX_FRAME_SIZE),
    };
    let mut out = vec![9];
    assert!(matches!(
        codec::encode(&msg, &mut out),
        Err(codec::EncodeError::TooLarge { .. })
    ));
    assert_eq!(out, [9], "nothing is left behind");
}
