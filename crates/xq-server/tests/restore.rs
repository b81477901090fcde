//! The core restored from its storage, on a virtual clock: matches come back from their
//! journals, tokens work again, the time the relay was down is charged to nobody, and a seat
//! nobody resumes is lost after the grace period, its game archived.

use std::collections::HashMap;
use std::time::Duration;

use xq_protocol::{
    ClientMsg, ErrorCode, PROTOCOL_VERSION, Request, RequestId, ResumeToken, RoomCode, RoomOptions,
    SeatChoice, ServerMsg, Snapshot, codec,
};
use xq_rules::{Move, Square};
use xq_server::{Config, ConnId, Output, Relay};
use xq_session::{Action, Event, RepetitionRule, Seat, TimeControl, Timestamp};
use xq_store::{OpenRoom, Persist, SqliteStore, Storage};
use xq_transport::Peer;

/// Shorter than the clocks, so a seat nobody resumes is lost before its flag falls.
const GRACE: Duration = Duration::from_secs(5);

/// One relay process: the core, its clock (from its own origin) and what it sent.
struct Life {
    relay: Relay,
    now: u64,
    /// The id of the next request sent.
    next_id: u32,
    inbox: HashMap<ConnId, Vec<ServerMsg>>,
}

impl Life {
    /// A relay starting on `store`, restoring every open room at time 0.
    fn start(store: &mut SqliteStore, seed: u8) -> Self {
        let rooms = store.open_rooms().expect("reads");
        Self::start_from(store, seed, rooms)
    }

    /// A relay starting on `store` with `rooms` as it read them.
    fn start_from(store: &mut SqliteStore, seed: u8, rooms: Vec<OpenRoom>) -> Self {
        let config = Config {
            grace: GRACE,
            ..Config::default()
        };
        let mut life = Self {
            relay: Relay::new(config, [seed; 32]),
            now: 0,
            next_id: 1,
            inbox: HashMap::new(),
        };
        for room in rooms {
            life.relay
                .restore(Timestamp::from_millis(0), room)
                .expect("restores");
        }
        life.drain(store);
        life
    }

    /// Carries out the outputs as a driver with storage would: the changes committed first.
    fn drain(&mut self, store: &mut SqliteStore) {
        let mut changes = Vec::new();
        let mut sends = Vec::new();
        while let Some(output) = self.relay.poll_output() {
            match output {
                Output::Persist(change) => changes.push(change),
                Output::Send { to, frame } => sends.push((to, frame)),
                Output::Close { .. } | Output::Claim(_) | Output::Locate { .. } => {}
            }
        }
        store.commit(&changes).expect("commits");
        for (to, frame) in sends {
            let msg = codec::decode(&frame).expect("valid frame");
            self.inbox.entry(to).or_default().push(msg);
        }
    }

    fn at(&mut self, millis: u64) -> Timestamp {
        self.now = millis;
        Timestamp::from_millis(millis)
    }

    /// Sends `msg` from `conn` in a request with the next id, which it returns.
    fn send(&mut self, store: &mut SqliteStore, conn: ConnId, msg: &ClientMsg) -> RequestId {
        let now = Timestamp::from_millis(self.now);
        let id = RequestId(self.next_id);
        self.next_id += 1;
        let request = Request {
            id,
            msg: msg.clone(),
        };
        self.relay
            .handle_frame(now, conn, &codec::to_frame(&request).expect("encodes"));
        self.drain(store);
        id
    }

    fn hello(
        &mut self,
        store: &mut SqliteStore,
        conn: ConnId,
        resume: Option<ResumeToken>,
    ) -> RequestId {
        let now = Timestamp::from_millis(self.now);
        let peer = Peer::Memory("mem-client".into());
        self.relay.handle_connect(now, conn, "mem", &peer);
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "restore-test".into(),
            resume,
        };
        self.send(store, conn, &hello)
    }

    fn take(&mut self, conn: ConnId) -> Vec<ServerMsg> {
        self.inbox.remove(&conn).unwrap_or_default()
    }

    fn advance(&mut self, store: &mut SqliteStore, to: u64) {
        while let Some(at) = self.relay.poll_timeout() {
            if at.as_millis() > to {
                break;
            }
            self.relay.handle_timeout(at);
            self.drain(store);
        }
        self.now = to;
    }
}

fn token(msgs: &[ServerMsg]) -> (RoomCode, ResumeToken) {
    msgs.iter()
        .find_map(|msg| match msg {
            ServerMsg::Joined {
                code,
                resume: Some(token),
                ..
            } => Some((*code, *token)),
            _ => None,
        })
        .expect("joined with a token")
}

fn snapshot(msgs: &[ServerMsg]) -> Snapshot {
    msgs.iter()
        .find_map(|msg| match msg {
            ServerMsg::Snapshot(snapshot) => Some((**snapshot).clone()),
            _ => None,
        })
        .expect("a snapshot")
}

const RED: ConnId = ConnId(1);
const BLACK: ConnId = ConnId(2);

/// Red and Black in a 10 s blitz room from time 1000, judging repetitions by checks only;
/// Red plays at 3000; Black's clock runs.
fn opening(store: &mut SqliteStore) -> (Life, RoomCode, ResumeToken, ResumeToken) {
    let mut life = Life::start(store, 1);
    life.at(1_000);
    life.hello(store, RED, None);
    let options = RoomOptions {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(10),
            increment: Duration::ZERO,
        },
        seat: SeatChoice::Red,
        repetition: RepetitionRule::ChecksOnly,
        ..RoomOptions::default()
    };
    life.send(store, RED, &ClientMsg::CreateRoom(options));
    let (code, red_token) = token(&life.take(RED));
    life.hello(store, BLACK, None);
    life.send(store, BLACK, &ClientMsg::JoinRoom { code });
    let (_, black_token) = token(&life.take(BLACK));
    life.at(3_000);
    let mv = Move::new(Square::H2, Square::E2);
    let play = ClientMsg::Act(Action::Play(mv));
    life.send(store, RED, &play);
    (life, code, red_token, black_token)
}

fn clocks(snapshot: &Snapshot) -> (Duration, Duration) {
    let clocks = snapshot.clocks.expect("timed");
    (clocks.red, clocks.black)
}

#[test]
fn after_a_crash_the_time_down_is_charged_to_nobody() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (mut life, code, _, black_token) = opening(&mut store);
    // The relay dies at 8000 without a word: Black's 5 s since Red's move were never
    // journaled, and a restarted relay cannot know when it died.
    life.at(8_000);
    drop(life);

    let mut life = Life::start(&mut store, 2);
    assert_eq!(life.relay.room_count(), 1);
    life.at(700);
    life.hello(&mut store, BLACK, Some(black_token));
    let msgs = life.take(BLACK);
    let snap = snapshot(&msgs);
    assert_eq!(snap.code, code);
    assert_eq!(snap.moves, [Move::new(Square::H2, Square::E2)]);
    assert!(snap.clocks_running);
    // The restored room keeps the rule it was created with.
    assert_eq!(snap.config.repetition, RepetitionRule::ChecksOnly);
    // Red spent 2 s; Black's clock restarted at the restart (time 0), 700 ms ago.
    assert_eq!(
        clocks(&snap),
        (Duration::from_secs(8), Duration::from_millis(9_300))
    );

    // Black plays on, on the new relay's clock, and the clocks go on from there.
    life.at(1_500);
    let mv = Move::new(Square::H9, Square::G7);
    let play = ClientMsg::Act(Action::Play(mv));
    life.send(&mut store, BLACK, &play);
    let played = life.take(BLACK).into_iter().find_map(|msg| match msg {
        ServerMsg::Event {
            event: Event::MovePlayed { clocks, .. },
            ..
        } => clocks,
        _ => None,
    });
    assert_eq!(played.map(|c| c.black), Some(Duration::from_millis(8_500)));

    // A second crash: the journal now mixes two clocks' times and still replays.
    drop(life);
    let life = Life::start(&mut store, 3);
    let game = life.relay.game(code).expect("restored again");
    assert_eq!(game.moves().len(), 2);
    assert_eq!(
        game.clocks(Timestamp::from_millis(0)).map(|c| c.red),
        Some(Duration::from_secs(8))
    );
}

#[test]
fn after_a_graceful_shutdown_the_paused_clocks_resume() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (mut life, _, red_token, _) = opening(&mut store);
    // A shutdown at 8000 charges Black its 5 s and pauses the clocks, journaled.
    let now = life.at(8_000);
    life.relay.shutdown(now);
    life.drain(&mut store);
    drop(life);

    let mut life = Life::start(&mut store, 2);
    life.at(250);
    life.hello(&mut store, RED, Some(red_token));
    let snap = snapshot(&life.take(RED));
    assert!(snap.clocks_running);
    assert_eq!(
        clocks(&snap),
        (Duration::from_secs(8), Duration::from_millis(4_750))
    );
}

/// The opening, a crash at 4000, and a restart to which only Red comes back: Black's grace
/// period runs out, before its flag would fall, and Black loses by abandonment.
fn only_red_returns(store: &mut SqliteStore) -> (Life, RoomCode, ResumeToken, ResumeToken) {
    let (mut life, code, red_token, black_token) = opening(store);
    life.at(4_000);
    drop(life);
    let mut life = Life::start(store, 2);
    life.at(10);
    life.hello(store, RED, Some(red_token));
    life.take(RED);
    life.advance(store, GRACE.as_millis() as u64 + 1);
    (life, code, red_token, black_token)
}

/// Black comes back with `token` and is refused the seat.
fn assert_refused(life: &mut Life, store: &mut SqliteStore, token: ResumeToken) {
    let id = life.hello(store, BLACK, Some(token));
    assert!(matches!(
        life.take(BLACK)[..],
        [ServerMsg::Error {
            id: Some(answered),
            code: ErrorCode::ResumeRefused,
            ..
        }] if answered == id
    ));
}

#[test]
fn a_seat_nobody_resumes_is_lost_and_the_game_archived() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (life, code, red_token, black_token) = only_red_returns(&mut store);
    let game = life.relay.game(code).expect("the room stays for a rematch");
    assert!(!game.status().is_ongoing());
    let games = store.games().expect("lists");
    let [archived] = &games[..] else {
        panic!("expected one archived game, got {games:?}")
    };
    assert_eq!(archived.result, "1-0");
    assert_eq!(archived.termination, "abandonment");
    assert_eq!(archived.moves, 1);

    // Another restart brings back the room with its finished game, not a second archive.
    drop(life);
    let mut life = Life::start(&mut store, 3);
    let game = life.relay.game(code).expect("still open: Red holds a seat");
    assert!(!game.status().is_ongoing());
    assert_eq!(store.games().expect("lists").len(), 1, "archived once");
    life.hello(&mut store, RED, Some(red_token));
    assert!(matches!(
        life.take(RED)[..],
        [
            ServerMsg::Welcome { .. },
            ServerMsg::Joined { .. },
            ServerMsg::Snapshot(_)
        ]
    ));
    // Black's seat stays lost: its token is refused after the restart as before it.
    assert_refused(&mut life, &mut store, black_token);
}

/// After a restart that neither player comes back to, both seats' grace periods end at the
/// same moment: neither lost alone, so the game is archived as a draw.
#[test]
fn a_game_nobody_resumes_is_archived_as_a_draw() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (life, _, red_token, black_token) = opening(&mut store);
    drop(life);
    let mut life = Life::start(&mut store, 2);
    life.advance(&mut store, GRACE.as_millis() as u64);
    assert_eq!(
        life.relay.room_count(),
        0,
        "both seats lost: the room closes"
    );
    let games = store.games().expect("lists");
    let [archived] = &games[..] else {
        panic!("expected one archived game, got {games:?}")
    };
    assert_eq!(archived.result, "1/2-1/2");
    assert_eq!(archived.termination, "abandonment");
    assert!(store.open_rooms().expect("reads").is_empty());
    for (conn, token) in [(RED, red_token), (BLACK, black_token)] {
        life.hello(&mut store, conn, Some(token));
        assert!(matches!(life.take(conn)[..], [ServerMsg::Error { .. }]));
    }
}

/// A store written before seat losses were kept (version 1) holds the abandonment alone: the
/// seat that abandoned is lost after the restart all the same.
#[test]
fn a_seat_that_abandoned_stays_lost_without_a_record_of_the_loss() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (life, code, _, black_token) = only_red_returns(&mut store);
    assert!(!life.relay.game(code).expect("open").status().is_ongoing());
    drop(life);

    let mut rooms = store.open_rooms().expect("reads");
    for room in &mut rooms {
        assert_eq!(room.lost, [Seat::Second], "Black's seat was lost");
        room.lost.clear();
    }
    let mut life = Life::start_from(&mut store, 3, rooms);
    assert_refused(&mut life, &mut store, black_token);
}

/// A room whose seats were both lost is deserted: should a store hold one, it closes when
/// restored instead of lingering with nobody able to come back.
#[test]
fn a_room_restored_with_both_seats_lost_closes() {
    let mut store = SqliteStore::open(":memory:").expect("opens");
    let (life, code, _, _) = opening(&mut store);
    drop(life);
    let lost = [Seat::First, Seat::Second].map(|seat| Persist::SeatLost { code, seat });
    store.commit(&lost).expect("commits");
    let life = Life::start(&mut store, 2);
    assert_eq!(life.relay.room_count(), 0);
    assert!(store.open_rooms().expect("reads").is_empty());
}
