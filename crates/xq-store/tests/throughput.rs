//! The write path's speed on a real file: commits per second and moves per second for
//! batches of growing size, as the relay's group commit forms them under load.
//!
//! `cargo test --release -p xq-store --test throughput -- --ignored --nocapture`

use std::time::{Duration, Instant};

use xq_protocol::{ResumeToken, RoomCode, RoomOptions};
use xq_rules::{Color, Move, Square};
use xq_session::{Action, Entry, Input, Seat, Timestamp};
use xq_store::{Persist, SqliteStore, Storage};

/// Rooms the moves are spread over, as a busy relay's are.
const ROOMS: u64 = 1_000;
/// How long each batch size is measured.
const RUN: Duration = Duration::from_secs(2);

#[test]
#[ignore = "measurement: prints figures"]
fn group_commit_throughput() {
    for batch in [1, 8, 64, 512, 4_096] {
        // Each room's journal numbers its entries from 0.
        let mut next_seq = vec![0_u64; ROOMS as usize];
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = SqliteStore::open(dir.path().join("bench.sqlite3")).expect("opens");
        let codes: Vec<RoomCode> = (0..ROOMS).map(RoomCode::from_u64).collect();
        let started: Vec<Persist> = codes
            .iter()
            .map(|&code| Persist::MatchStarted {
                code,
                options: RoomOptions::default(),
                red: Seat::First,
                started: Timestamp::from_millis(0),
                first_token: ResumeToken([1; 16]),
                second_token: ResumeToken([2; 16]),
            })
            .collect();
        store.commit(&started).expect("commit");

        let play = Action::Play(Move::new(Square::H2, Square::E2)).by(Color::Red);
        let (mut commits, mut moves) = (0_u64, 0_u64);
        let start = Instant::now();
        while start.elapsed() < RUN {
            let changes: Vec<Persist> = (0..batch)
                .map(|i| {
                    let room = ((moves + i) % ROOMS) as usize;
                    next_seq[room] += 1;
                    (room, next_seq[room] - 1)
                })
                .collect::<Vec<_>>()
                .into_iter()
                .map(|(room, seq)| Persist::Entry {
                    code: codes[room],
                    seq,
                    entry: Entry {
                        at: Timestamp::from_millis(moves + seq),
                        input: Input::Command(play),
                    },
                })
                .collect();
            store.commit(&changes).expect("commit");
            commits += 1;
            moves += batch;
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "batch: {batch:>5}  commits/s: {:>8.0}  moves/s: {:>9.0}  commit_latency_us: {:>7.0}",
            commits as f64 / secs,
            moves as f64 / secs,
            secs * 1e6 / commits as f64,
        );
    }
}
