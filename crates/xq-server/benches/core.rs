//! The relay's core alone, without transports or storage: what one move costs it, from the
//! mover's frame to the encoded events for both players and the change to persist.
//!
//! Rooms replay random legal games and start a rematch at each game's end, as `xq load`'s
//! tables do, so the figure covers checks, mates, repetitions and rematches in their
//! natural proportions.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use xq_protocol::{
    ClientMsg, PROTOCOL_VERSION, Request, RequestId, RoomOptions, SeatChoice, ServerMsg, codec,
};
use xq_rules::Color;
use xq_server::{Config, ConnId, Output, RateLimit, Relay};
use xq_session::{Action, Event, Match, Timestamp};
use xq_transport::Peer;

/// Rooms played in turn, as many as a load run's matches: their state does not all fit in
/// the CPU's caches, as in a loaded relay.
const ROOMS: u64 = 1000;

/// A relay with seated rooms and, for each, the frames of a scripted game.
struct Bench {
    relay: Relay,
    rooms: Vec<Room>,
    next: usize,
    /// Whether outputs are decoded and checked (while setting up), or only drained.
    checking: bool,
}

struct Room {
    /// The players as seated for the current game: Red, then Black.
    seats: [ConnId; 2],
    /// Each move's frame, encoded once, with the colour that plays it.
    moves: Vec<(Color, Vec<u8>)>,
    ply: usize,
    /// Games finished.
    games: u64,
}

/// The frame of request `id` asking `msg`. A frame is encoded once and sent again in every
/// game, its id with it: the relay reads nothing into ids.
fn encode(id: u32, msg: ClientMsg) -> Vec<u8> {
    let request = Request {
        id: RequestId(id),
        msg,
    };
    codec::to_frame(&request).unwrap_or_else(|err| unreachable!("a request encodes: {err}"))
}

/// A random legal game to its end under the rules of a room made with the default options,
/// as encoded move commands.
fn script(seed: u64) -> Vec<(Color, Vec<u8>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let config = RoomOptions::default().match_config();
    let mut game = Match::new(config, Timestamp::from_millis(0));
    let moves = game
        .play_out(Timestamp::from_millis(0), |moves| {
            moves.choose(&mut rng).copied()
        })
        .unwrap_or_else(|err| unreachable!("the moves picked are legal: {err}"));
    // Red moves first from the standard start.
    let colors = [Color::Red, Color::Black].into_iter().cycle();
    colors
        .zip(moves)
        .zip(1..)
        .map(|((by, mv), id)| (by, encode(id, ClientMsg::Act(Action::Play(mv)))))
        .collect()
}

impl Bench {
    fn new() -> Self {
        // The clock stands still here, so the rate limit would soon cut every player off: it
        // is set as high as `xq load` runs have it.
        let config = Config {
            rate_limit: RateLimit::UNLIMITED,
            ..Config::default()
        };
        let mut bench = Self {
            relay: Relay::new(config, [1; 32]),
            rooms: Vec::new(),
            next: 0,
            checking: true,
        };
        for index in 0..ROOMS {
            let red = ConnId(2 * index);
            let black = ConnId(2 * index + 1);
            for conn in [red, black] {
                let peer = Peer::Memory("bench".into());
                bench
                    .relay
                    .handle_connect(bench.now(), conn, "bench", &peer);
                let hello = ClientMsg::Hello {
                    version: PROTOCOL_VERSION,
                    client: "bench".into(),
                    resume: None,
                };
                bench.input(conn, &encode(0, hello));
            }
            let create = ClientMsg::CreateRoom(RoomOptions {
                seat: SeatChoice::Red,
                ..RoomOptions::default()
            });
            let code = bench
                .input(red, &encode(0, create))
                .into_iter()
                .find_map(|(_, msg)| match msg {
                    ServerMsg::Joined { code, .. } => Some(code),
                    _ => None,
                })
                .unwrap_or_else(|| unreachable!("the creator is seated"));
            bench.input(black, &encode(0, ClientMsg::JoinRoom { code }));
            bench.rooms.push(Room {
                seats: [red, black],
                moves: script(index),
                ply: 0,
                games: 0,
            });
        }
        // Every room plays its whole game and the first move of the rematch, checked: the
        // relay accepts every move, ends each game where its script does, and swaps colours.
        while bench.rooms.iter().any(|room| room.games == 0) {
            bench.step();
        }
        for _ in 0..bench.rooms.len() {
            bench.step();
        }
        bench.checking = false;
        bench
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_millis(0)
    }

    /// Feeds a frame and drains the outputs, as a driver does. While checking, returns the
    /// messages sent and fails on a refusal.
    fn input(&mut self, conn: ConnId, frame: &[u8]) -> Vec<(ConnId, ServerMsg)> {
        self.relay.handle_frame(self.now(), conn, frame);
        let mut sent = Vec::new();
        while let Some(output) = self.relay.poll_output() {
            if let (true, Output::Send { to, frame }) = (self.checking, output) {
                let msg = codec::decode::<ServerMsg>(&frame)
                    .unwrap_or_else(|err| unreachable!("the relay's frames decode: {err}"));
                assert!(
                    !matches!(msg, ServerMsg::Error { .. } | ServerMsg::Disconnect { .. }),
                    "refused: {msg:?}"
                );
                sent.push((to, msg));
            }
        }
        sent
    }

    /// Plays the next move of the next room; at a game's end, both players ask for the
    /// rematch, which swaps their colours.
    fn step(&mut self) {
        let index = self.next;
        self.next = (self.next + 1) % self.rooms.len();
        let room = &mut self.rooms[index];
        // Taken out for the call, and put back: the frames are not copied.
        let moves = std::mem::take(&mut room.moves);
        let (color, frame) = &moves[room.ply];
        let mover = room.seats[usize::from(*color == Color::Black)];
        room.ply = (room.ply + 1) % moves.len();
        let over = room.ply == 0;
        if over {
            room.seats.reverse();
            room.games += 1;
        }
        let seats = room.seats;
        let sent = self.input(mover, frame);
        if self.checking {
            let game_over = sent.iter().any(|(_, msg)| {
                matches!(
                    msg,
                    ServerMsg::Event {
                        event: Event::GameOver(_),
                        ..
                    }
                )
            });
            assert_eq!(
                game_over, over,
                "the relay and the script disagree on the end"
            );
            let answered = sent.iter().any(|(to, msg)| {
                *to == mover
                    && matches!(
                        msg,
                        ServerMsg::Event {
                            answers: Some(_),
                            ..
                        }
                    )
            });
            assert!(answered, "the mover's first event answers its move");
        }
        self.rooms[index].moves = moves;
        if over {
            for conn in seats {
                self.input(conn, &encode(0, ClientMsg::Rematch));
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut bench = Bench::new();
    let mut group = c.benchmark_group("relay");
    group.throughput(Throughput::Elements(1));
    group.bench_function("move", |b| b.iter(|| bench.step()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
