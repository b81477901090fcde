//! The relay game over a scripted link: mirrors built from snapshots, news handed in by the
//! test, requests written down instead of sent.

use std::collections::VecDeque;

use xq_protocol::{SeatInfo, Snapshot};
use xq_rules::{Move, Square};
use xq_session::{Event, Match, MatchConfig, TimeControl};

use super::*;

const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

/// What the game asked the link to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    Act(Action),
    Rematch,
}

/// A link that writes down what it is asked to send and hands out scripted news.
#[derive(Default)]
struct Script {
    sent: Vec<Sent>,
    news: VecDeque<RelayNews>,
}

impl RelayLink for Script {
    fn act(&mut self, action: Action) -> Result<(), BackendError> {
        self.sent.push(Sent::Act(action));
        Ok(())
    }

    fn rematch(&mut self) -> Result<(), BackendError> {
        self.sent.push(Sent::Rematch);
        Ok(())
    }

    fn poll(&mut self) -> Option<RelayNews> {
        self.news.pop_front()
    }
}

fn code() -> RoomCode {
    "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"))
}

/// Both seats taken; `away` has lost its connection.
fn seats(away: Option<Color>) -> ByColor<SeatInfo> {
    let seat = |color| SeatInfo {
        taken: true,
        connected: Some(color) != away,
    };
    ByColor {
        red: seat(Color::Red),
        black: seat(Color::Black),
    }
}

/// The mirror of `game` at `now`, in a room whose seats are `seats`.
fn mirror_of(game: &Match, now: Timestamp, seats: ByColor<SeatInfo>) -> Mirror {
    let snapshot = Snapshot::new(code(), game.standing(now), seats, None, 0);
    Mirror::from_snapshot(&snapshot).unwrap_or_else(|e| panic!("{e}"))
}

fn timed() -> MatchConfig {
    let mut config = MatchConfig::default();
    config.time_control = TimeControl::Increment {
        base: Duration::from_secs(60),
        increment: Duration::ZERO,
    };
    config
}

/// A game at Red's seat in a full room, from the start position.
fn red_game(config: MatchConfig) -> (RelayGame<Script>, Match) {
    let game = Match::new(config, ms(0));
    let relay = RelayGame::new(
        mirror_of(&game, ms(0), seats(None)),
        Some(Color::Red),
        Script::default(),
    );
    (relay, game)
}

fn cannon() -> Move {
    Move::new(Square::H2, Square::E2)
}

fn play(by: Color, mv: Move) -> Command {
    Action::Play(mv).by(by)
}

fn updates(game: &mut RelayGame<Script>, now: Timestamp) -> Vec<Update> {
    std::iter::from_fn(|| game.poll_event(now)).collect()
}

#[test]
fn a_seated_player_sends_what_the_mirror_allows_and_nothing_else() {
    let (mut game, _) = red_game(MatchConfig::default());
    assert_eq!(game.code(), code());
    assert_eq!(game.seat(), Some(Color::Red));
    assert_eq!(
        game.seats(),
        ByColor {
            red: true,
            black: false
        }
    );
    assert_eq!(game.presence(), Some(Presence::Connected));
    assert_eq!(
        game.send(ms(0), play(Color::Black, cannon())),
        Err(BackendError::NotYourSeat)
    );
    let illegal = Move::new(Square::H2, Square::G3);
    assert!(matches!(
        game.send(ms(0), play(Color::Red, illegal)),
        Err(BackendError::Command(_))
    ));
    assert_eq!(
        game.check_rematch(),
        Err(BackendError::Rematch(RematchError::Ongoing))
    );
    assert_eq!(game.send(ms(0), play(Color::Red, cannon())), Ok(()));
    assert_eq!(game.link.sent, [Sent::Act(Action::Play(cannon()))]);
}

#[test]
fn a_spectator_sends_nothing() {
    let game = Match::new(MatchConfig::default(), ms(0));
    let mut watching = RelayGame::new(
        mirror_of(&game, ms(0), seats(None)),
        None,
        Script::default(),
    );
    assert_eq!(
        watching.send(ms(0), play(Color::Red, cannon())),
        Err(BackendError::NotYourSeat)
    );
    assert_eq!(watching.check_rematch(), Err(BackendError::NotYourSeat));
    assert!(watching.link.sent.is_empty());
}

#[test]
fn an_empty_seat_means_waiting_and_no_moves() {
    let game = Match::new(MatchConfig::default(), ms(0));
    let free = ByColor {
        red: SeatInfo {
            taken: true,
            connected: true,
        },
        black: SeatInfo {
            taken: false,
            connected: false,
        },
    };
    let mut waiting = RelayGame::new(
        mirror_of(&game, ms(0), free),
        Some(Color::Red),
        Script::default(),
    );
    assert_eq!(waiting.presence(), Some(Presence::Waiting));
    assert_eq!(
        waiting.send(ms(0), play(Color::Red, cannon())),
        Err(BackendError::NoOpponentYet)
    );
}

#[test]
fn news_moves_the_mirror_and_tells_the_view() {
    let (mut relay, mut game) = red_game(MatchConfig::default());
    game.handle(ms(10), play(Color::Red, cannon()))
        .unwrap_or_else(|e| panic!("{e}"));
    let event = game.poll_event().unwrap_or_else(|| panic!("a move event"));
    let mirror = mirror_of(&game, ms(10), seats(None));
    relay.link.news.push_back(RelayNews::Event(
        ClientEvent::Match {
            seq: 0,
            event: event.clone(),
        },
        Some(Box::new(mirror)),
    ));
    assert_eq!(updates(&mut relay, ms(10)), [Update::Game(event)]);
    assert_eq!(relay.record().moves(), [cannon()]);
    assert_eq!(relay.position().turn(), Color::Black);
    // Red has moved: Red may not move again.
    assert!(
        relay
            .check(ms(10), play(Color::Red, Move::new(Square::B0, Square::C2)))
            .is_err()
    );
}

#[test]
fn a_lost_connection_holds_every_request_until_it_is_back() {
    let (mut game, _) = red_game(MatchConfig::default());
    game.link.news.push_back(RelayNews::Event(
        ClientEvent::Reconnecting {
            cause: ClientError::ConnectionLost,
        },
        None,
    ));
    assert!(matches!(
        updates(&mut game, ms(5))[..],
        [Update::Reconnecting(_)]
    ));
    assert_eq!(game.presence(), Some(Presence::Reconnecting));
    assert_eq!(
        game.send(ms(5), play(Color::Red, cannon())),
        Err(BackendError::Offline)
    );
    game.link
        .news
        .push_back(RelayNews::Event(ClientEvent::Reconnected, None));
    assert_eq!(updates(&mut game, ms(6)), [Update::Reconnected]);
    assert_eq!(game.send(ms(6), play(Color::Red, cannon())), Ok(()));
    game.link.news.push_back(RelayNews::Event(
        ClientEvent::Disconnected {
            cause: ClientError::Closed,
        },
        None,
    ));
    assert!(matches!(
        updates(&mut game, ms(7))[..],
        [Update::Disconnected(_)]
    ));
    assert_eq!(game.presence(), Some(Presence::Offline));
}

#[test]
fn an_opponent_away_is_shown_and_may_still_be_played_against() {
    let (mut game, state) = red_game(MatchConfig::default());
    let away = mirror_of(&state, ms(0), seats(Some(Color::Black)));
    game.link.news.push_back(RelayNews::Event(
        ClientEvent::Presence {
            seat: Color::Black,
            connected: false,
        },
        Some(Box::new(away)),
    ));
    assert_eq!(
        updates(&mut game, ms(1)),
        [Update::Presence {
            seat: Color::Black,
            connected: false
        }]
    );
    assert_eq!(game.presence(), Some(Presence::Away(Color::Black)));
    assert_eq!(game.send(ms(1), play(Color::Red, cannon())), Ok(()));
}

#[test]
fn refusals_and_failures_reach_the_view_in_words() {
    let (mut game, _) = red_game(MatchConfig::default());
    game.link.news.push_back(RelayNews::Event(
        ClientEvent::Rejected {
            code: xq_protocol::ErrorCode::NotInRoom,
            message: "no".to_owned(),
        },
        None,
    ));
    game.link
        .news
        .push_back(RelayNews::Failed(ClientError::NotConnected));
    // Quick match's queueing is not shown once there is a game.
    game.link
        .news
        .push_back(RelayNews::Event(ClientEvent::Queued, None));
    assert_eq!(
        updates(&mut game, ms(1)),
        [
            Update::Refused("no".to_owned()),
            Update::Refused(ClientError::NotConnected.to_string())
        ]
    );
}

#[test]
fn the_clock_counts_down_from_the_first_poll_and_stops_with_the_game() {
    let (mut relay, mut game) = red_game(timed());
    assert!(updates(&mut relay, ms(1_000)).is_empty());
    let left = |relay: &RelayGame<Script>, now| {
        relay
            .clocks(now)
            .unwrap_or_else(|| panic!("a timed game"))
            .red
    };
    assert_eq!(left(&relay, ms(1_000)), Duration::from_secs(60));
    assert_eq!(left(&relay, ms(3_000)), Duration::from_secs(58));
    game.handle(ms(3_000), Action::Resign.by(Color::Red))
        .unwrap_or_else(|e| panic!("{e}"));
    let events: Vec<Event> = std::iter::from_fn(|| game.poll_event()).collect();
    let over = mirror_of(&game, ms(3_000), seats(None));
    let last = events
        .last()
        .cloned()
        .unwrap_or_else(|| panic!("game over"));
    relay.link.news.push_back(RelayNews::Event(
        ClientEvent::Match {
            seq: 0,
            event: last,
        },
        Some(Box::new(over)),
    ));
    assert_eq!(updates(&mut relay, ms(3_000)).len(), 1);
    assert!(!relay.status().is_ongoing());
    let stopped = left(&relay, ms(3_000));
    assert_eq!(left(&relay, ms(9_000)), stopped);
    assert_eq!(relay.check_rematch(), Ok(()));
    assert_eq!(relay.rematch(ms(9_000)), Ok(()));
    assert_eq!(relay.link.sent, [Sent::Rematch]);
}

#[test]
fn a_rematch_swaps_the_seat() {
    let (mut game, _) = red_game(MatchConfig::default());
    game.link.news.push_back(RelayNews::Event(
        ClientEvent::RematchStarted {
            seat: Some(Color::Black),
        },
        None,
    ));
    assert_eq!(updates(&mut game, ms(1)), [Update::Rematch]);
    assert_eq!(game.seat(), Some(Color::Black));
}
