//! Encode and decode speed of typical frames: a move request and a move event.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use xq_protocol::{ClientMsg, Request, RequestId, ServerMsg, codec};
use xq_rules::{Color, Move, Square};
use xq_session::{Action, Match, MatchConfig, Timestamp};

fn move_event() -> ServerMsg {
    let mut game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
    let mv = Move::new(Square::H2, Square::E2);
    let played = game.handle(Timestamp::from_millis(0), Action::Play(mv).by(Color::Red));
    assert!(played.is_ok());
    let event = game
        .poll_event()
        .unwrap_or_else(|| unreachable!("a move makes an event"));
    ServerMsg::Event {
        seq: 1,
        event,
        answers: Some(RequestId(1)),
    }
}

fn bench(c: &mut Criterion) {
    let command = Request {
        id: RequestId(1),
        msg: ClientMsg::Act(Action::Play(Move::new(Square::H2, Square::E2))),
    };
    let event = move_event();
    let mut buf = Vec::with_capacity(256);
    c.bench_function("encode/command", |b| {
        b.iter(|| {
            buf.clear();
            codec::encode(black_box(&command), &mut buf).is_ok()
        });
    });
    c.bench_function("encode/event", |b| {
        b.iter(|| {
            buf.clear();
            codec::encode(black_box(&event), &mut buf).is_ok()
        });
    });
    let command_frame = codec::to_frame(&command).unwrap_or_default();
    let event_frame = codec::to_frame(&event).unwrap_or_default();
    c.bench_function("decode/command", |b| {
        b.iter(|| codec::decode::<Request>(black_box(&command_frame)).is_ok());
    });
    c.bench_function("decode/event", |b| {
        b.iter(|| codec::decode::<ServerMsg>(black_box(&event_frame)).is_ok());
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
