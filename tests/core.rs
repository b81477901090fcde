//! Client cores against the relay's core, both sans-IO, the frames carried between them by
//! hand: whatever the players do, every follower holds the relay's match after every event,
//! and the mirror's own check refuses exactly what the relay refuses.

use proptest::prelude::*;
use xq_client::{Answer, ClientCore, ClientError, ClientEvent, ClientOptions, CoreEvent};
use xq_protocol::{ErrorCode, RoomCode, RoomOptions, SeatChoice};
use xq_rules::{Color, Move, Square};
use xq_server::{Config, ConnId, Output, RateLimit, Relay};
use xq_session::{Action, Timestamp, UndoPolicy};
use xq_transport::Peer;

/// The relay, two players and a spectator, and the time.
struct Table {
    relay: Relay,
    /// Red's creator, Black's joiner, a spectator.
    cores: [(ConnId, ClientCore); 3],
    code: RoomCode,
    now: Timestamp,
}

/// What became of the last request each core made, as its answer said.
type Outcome = Option<Result<Answer, ClientError>>;

impl Table {
    fn new() -> Self {
        let config = Config {
            // The players act faster than any rate limit allows.
            rate_limit: RateLimit::UNLIMITED,
            ..Config::default()
        };
        let options = ClientOptions {
            keepalive: None,
            ..ClientOptions::default()
        };
        let now = Timestamp::from_millis(0);
        let mut table = Self {
            relay: Relay::new(config, [9; 32]),
            cores: [1, 2, 3].map(|n| (ConnId(n), ClientCore::new(options.clone()))),
            code: RoomCode::from_u64(0),
            now,
        };
        for (conn, core) in &mut table.cores {
            let peer = Peer::Memory(format!("core-{}", conn.0).into());
            table.relay.handle_connect(now, *conn, "mem", &peer);
            core.handle_connected(now);
        }
        table.pump();
        let options = RoomOptions {
            seat: SeatChoice::Red,
            undo: UndoPolicy::PerSeat(2),
            ..RoomOptions::default()
        };
        table.request(0, |core| core.create(options));
        table.code = table.cores[0].1.room().expect("created").code;
        let code = table.code;
        table.request(1, |core| core.join(code));
        table.request(2, |core| core.spectate(code));
        table
    }

    /// Makes a request of core `index`, carries every frame, and returns its answer.
    fn request(
        &mut self,
        index: usize,
        request: impl FnOnce(&mut ClientCore) -> Result<xq_protocol::RequestId, ClientError>,
    ) -> Outcome {
        let id = request(&mut self.cores[index].1).expect("the core can send");
        let mut answers = self.pump();
        let answers = &mut answers[index];
        let found = answers.iter().position(|(answered, _)| *answered == id)?;
        Some(answers.swap_remove(found).1)
    }

    /// Carries frames both ways until none is left; returns each core's answers.
    fn pump(&mut self) -> [Vec<(xq_protocol::RequestId, Result<Answer, ClientError>)>; 3] {
        let mut answers: [Vec<_>; 3] = Default::default();
        loop {
            let mut idle = true;
            for (conn, core) in &mut self.cores {
                while let Some(frame) = core.poll_transmit() {
                    idle = false;
                    self.relay.handle_frame(self.now, *conn, &frame);
                }
            }
            while let Some(output) = self.relay.poll_output() {
                if let Output::Send { to, frame } = output {
                    idle = false;
                    let (_, core) = self
                        .cores
                        .iter_mut()
                        .find(|(conn, _)| *conn == to)
                        .expect("a frame to a core");
                    core.handle_frame(self.now, &frame);
                }
            }
            for (index, (_, core)) in self.cores.iter_mut().enumerate() {
                while let Some(event) = core.poll_event() {
                    match event {
                        CoreEvent::Answered { id, outcome } => answers[index].push((id, outcome)),
                        CoreEvent::Client(ClientEvent::Disconnected { cause }) => {
                            panic!("core {index} disconnected: {cause}")
                        }
                        CoreEvent::Connect => panic!("core {index} lost its connection"),
                        _ => {}
                    }
                }
            }
            if idle {
                return answers;
            }
        }
    }
}

/// One thing a player does.
#[derive(Clone, Debug)]
enum Step {
    /// The seat (0: Red, 1: Black) plays the legal move of this index, if it has one.
    Play(usize, usize),
    /// The seat plays whatever these squares make, legal or not.
    Wild(usize, u8, u8),
    /// The seat takes this action.
    Act(usize, Action),
    /// Time passes, in milliseconds.
    Wait(u16),
}

fn step() -> impl Strategy<Value = Step> {
    let seat = 0..2usize;
    prop_oneof![
        30 => (seat.clone(), any::<usize>()).prop_map(|(s, n)| Step::Play(s, n)),
        3 => (seat.clone(), 0..90u8, 0..90u8).prop_map(|(s, a, b)| Step::Wild(s, a, b)),
        10 => (seat, prop_oneof![
            Just(Action::RequestUndo),
            Just(Action::WithdrawUndo),
            any::<bool>().prop_map(|accept| Action::AnswerUndo { accept }),
            Just(Action::OfferDraw),
            Just(Action::WithdrawDraw),
            any::<bool>().prop_map(|accept| Action::AnswerDraw { accept }),
            Just(Action::Resign).no_shrink(),
        ]).prop_map(|(s, action)| Step::Act(s, action)),
        2 => (0..5_000u16).prop_map(Step::Wait),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_follower_holds_the_relays_match(steps in prop::collection::vec(step(), 0..120)) {
        let mut table = Table::new();
        for step in steps {
            let (seat, action) = match step {
                Step::Wait(millis) => {
                    table.now = table.now + std::time::Duration::from_millis(millis.into());
                    table.relay.handle_timeout(table.now);
                    table.pump();
                    continue;
                }
                Step::Play(seat, n) => {
                    let mirror = table.cores[seat].1.mirror().expect("a mirror");
                    let legal = mirror.legal_moves();
                    let Some(&mv) = legal.get(n % legal.len().max(1)) else { continue };
                    (seat, Action::Play(mv))
                }
                Step::Wild(seat, from, to) => {
                    let (Some(from), Some(to)) = (Square::from_index(from), Square::from_index(to)) else {
                        continue;
                    };
                    (seat, Action::Play(Move::new(from, to)))
                }
                Step::Act(seat, action) => (seat, action),
            };
            let color = if seat == 0 { Color::Red } else { Color::Black };
            let core = &table.cores[seat].1;
            prop_assert_eq!(core.room().and_then(|room| room.seat), Some(color));
            let expected = core.mirror().expect("a mirror").state().check(color, action);
            let outcome = table.request(seat, |core| core.act(action));
            match (expected, outcome) {
                (Ok(()), Some(Ok(Answer::Accepted))) => {}
                // The relay's own limit on asking again at one point of the game, which it
                // checks before handing the request to the match.
                (_, Some(Err(ClientError::Refused { code: ErrorCode::AlreadyAsked, .. })))
                    if matches!(action, Action::OfferDraw | Action::RequestUndo) => {}
                (Err(error), Some(Err(ClientError::Refused { code: ErrorCode::Rejected(refused), .. }))) => {
                    prop_assert_eq!(error, refused, "{:?}", action);
                }
                (expected, outcome) => {
                    prop_assert!(false, "{:?}: the mirror said {:?}, the relay {:?}", action, expected, outcome);
                }
            }
            let game = table.relay.game(table.code).expect("the room's match");
            for (index, (_, core)) in table.cores.iter().enumerate() {
                let mirror = core.mirror().expect("a mirror");
                prop_assert_eq!(mirror.state(), game.state(), "core {}", index);
            }
        }
    }
}
