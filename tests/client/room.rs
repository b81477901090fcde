//! Clients in the rooms of a real relay (`xq-server`) on `mem://`: how a match starts, the
//! clocks once it is over, and leaving a room.

use std::time::Duration;

use xq_client::{Client, ClientError, ClientEvent};
use xq_protocol::{DisconnectReason, ErrorCode, RoomCode, RoomOptions, SeatChoice};
use xq_rules::{ByColor, Color, Square};
use xq_server::{Config, Server};
use xq_session::{GameResult, Status, TimeControl, WinReason};

use crate::support::{
    connect, options, play, seated_with, start, started, started_with, wait_for,
    wait_for_game_over, wait_for_seq, within,
};

async fn next(client: &mut Client) -> ClientEvent {
    within(client.next_event())
        .await
        .unwrap_or_else(|| panic!("the event stream ended"))
}

/// Checks that both players of a match are told once that it started, with the mirror full
/// by then (a quick-matched player may have been told first that it waits): the next event
/// after the start is Red's first move.
async fn assert_started_once(mut players: [&mut Client; 2]) {
    for player in &mut players {
        let mut event = next(player).await;
        if matches!(event, ClientEvent::Queued) {
            event = next(player).await;
        }
        assert!(matches!(event, ClientEvent::MatchStarted), "{event:?}");
        assert!(player.mirror().is_some_and(|m| m.is_full()));
    }
    let red = players
        .iter()
        .map(|player| &**player)
        .find(|player| player.room().and_then(|room| room.seat) == Some(Color::Red))
        .unwrap_or_else(|| panic!("nobody plays Red"));
    play(red, Square::H2, Square::E2).await;
    for player in players {
        let event = next(player).await;
        assert!(
            matches!(event, ClientEvent::Match { seq: 0, .. }),
            "{event:?}"
        );
    }
}

#[tokio::test]
async fn the_creator_and_the_joiner_are_told_that_the_match_started() {
    let (server, url) = start("room-join-starts", Duration::from_secs(60)).await;
    let (mut red, mut black, _) = seated_with(&url, TimeControl::Untimed).await;
    assert_started_once([&mut red, &mut black]).await;
    server.shutdown().await;
}

#[tokio::test]
async fn both_quick_matched_players_are_told_that_the_match_started() {
    let (server, url) = start("room-quick-starts", Duration::from_secs(60)).await;
    let mut first = connect(&url).await;
    let mut second = connect(&url).await;
    let options = RoomOptions::default();
    let (first_room, second_room) =
        within(async { tokio::join!(first.quick_match(options), second.quick_match(options)) })
            .await;
    let first_room = first_room.unwrap_or_else(|e| panic!("{e}"));
    let second_room = second_room.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first_room.code, second_room.code);
    assert_started_once([&mut first, &mut second]).await;
    server.shutdown().await;
}

/// Sudden death with `base` on each clock.
fn sudden_death(base: Duration) -> TimeControl {
    TimeControl::Increment {
        base,
        increment: Duration::ZERO,
    }
}

/// The clocks in the mirror of `client`.
fn clocks(client: &Client) -> Option<ByColor<Duration>> {
    client
        .mirror()
        .and_then(|mirror| mirror.clocks_after(Duration::ZERO))
}

/// The clocks that a spectator who comes into room `code` now finds in the relay's snapshot.
async fn clocks_of_a_late_spectator(url: &str, code: RoomCode) -> Option<ByColor<Duration>> {
    let spectator = connect(url).await;
    within(spectator.spectate(code))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    clocks(&spectator)
}

// Paused time: the relay and the clients share tokio's clock, so the clocks are exact.
#[tokio::test(start_paused = true)]
async fn after_a_fallen_flag_the_players_see_the_clocks_a_late_spectator_sees() {
    let (server, url) = start("room-flag-clocks", Duration::from_secs(60)).await;
    let base = Duration::from_millis(1_500);
    let (mut red, mut black, room) = started_with(&url, sudden_death(base)).await;
    play(&red, Square::H2, Square::E2).await;
    // Black never moves: the relay flags it.
    for player in [&mut red, &mut black] {
        wait_for_game_over(player).await;
        let status = player.mirror().map(|mirror| mirror.status());
        assert_eq!(
            status,
            Some(Status::Finished(GameResult::Win {
                winner: Color::Red,
                reason: WinReason::TimeForfeit
            }))
        );
    }
    let expected = Some(ByColor {
        red: base,
        black: Duration::ZERO,
    });
    assert_eq!(clocks_of_a_late_spectator(&url, room.code).await, expected);
    assert_eq!(clocks(&red), expected);
    assert_eq!(clocks(&black), expected);
    server.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_resignation_stops_the_running_clock_when_the_game_ends() {
    let (server, url) = start("room-resign-clocks", Duration::from_secs(60)).await;
    let minute = Duration::from_secs(60);
    let (mut red, mut black, room) = started_with(&url, sudden_death(minute)).await;
    play(&red, Square::H2, Square::E2).await;
    wait_for_seq(&mut black, 0).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    play(&black, Square::H9, Square::G7).await;
    wait_for_seq(&mut red, 1).await;
    // Red thinks for 7 s after Black's move, then resigns: its clock stops there, not where
    // Black's move left it.
    tokio::time::sleep(Duration::from_secs(7)).await;
    within(red.resign()).await.unwrap_or_else(|e| panic!("{e}"));
    for player in [&mut red, &mut black] {
        wait_for_game_over(player).await;
    }
    let expected = Some(ByColor {
        red: minute - Duration::from_secs(7),
        black: minute - Duration::from_secs(2),
    });
    assert_eq!(clocks_of_a_late_spectator(&url, room.code).await, expected);
    assert_eq!(clocks(&red), expected);
    assert_eq!(clocks(&black), expected);
    server.shutdown().await;
}

/// Waits until `client` is told that the player at `seat` left or came back.
async fn wait_for_presence(client: &mut Client, seat: Color, connected: bool) {
    wait_for(client, |event| {
        matches!(
            event,
            ClientEvent::Presence { seat: s, connected: c } if *s == seat && *c == connected
        )
    })
    .await;
}

#[tokio::test]
async fn after_a_game_the_players_leave_and_play_again_on_the_same_connections() {
    let (server, url) = start("room-leave-again", Duration::from_secs(60)).await;
    let (mut red, mut black, room) = started(&url).await;
    let elsewhere = within(red.create(RoomOptions::default())).await;
    assert!(
        matches!(
            elsewhere,
            Err(ClientError::Refused {
                code: ErrorCode::AlreadyInRoom,
                ..
            })
        ),
        "{elsewhere:?}"
    );
    within(red.resign()).await.unwrap_or_else(|e| panic!("{e}"));
    for player in [&mut red, &mut black] {
        wait_for_game_over(player).await;
    }

    within(red.leave()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(red.room(), None);
    assert_eq!(red.mirror(), None);
    assert_eq!(red.resume_token(), None);
    wait_for_presence(&mut black, Color::Red, false).await;
    within(black.leave())
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    // Black creates the next room, at Red this time, and Red joins it.
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let again = within(black.create(options))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(again.code, room.code);
    let joined = within(red.join(again.code))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(joined.seat, Some(Color::Black));
    play(&black, Square::H2, Square::E2).await;
    wait_for_seq(&mut red, 0).await;
    let mirror = red.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert_eq!(mirror.code(), again.code);
    assert_eq!(mirror.moves().len(), 1);
    assert!(red.is_connected() && black.is_connected());
    server.shutdown().await;
}

// Paused time: the grace period passes at once.
#[tokio::test(start_paused = true)]
async fn a_seat_left_in_a_game_still_on_is_held_for_the_grace_period_then_lost() {
    let grace = Duration::from_secs(5);
    let (server, url) = start("room-leave-running", grace).await;
    let (mut red, black, _) = started(&url).await;
    play(&red, Square::H2, Square::E2).await;
    let token = black
        .resume_token()
        .unwrap_or_else(|| panic!("a seated player has a token"));
    within(black.leave())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for_presence(&mut red, Color::Black, false).await;

    // Within the grace period, the saved token takes the seat back.
    let black = within(Client::resume(&url, token, options()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(black.room().and_then(|room| room.seat), Some(Color::Black));
    wait_for_presence(&mut red, Color::Black, true).await;
    assert!(red.mirror().is_some_and(|m| m.status().is_ongoing()));

    // Left again and not taken back, it is lost with the game when the grace period ends.
    within(black.leave())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let left = tokio::time::Instant::now();
    wait_for_game_over(&mut red).await;
    assert!(left.elapsed() >= grace, "{:?}", left.elapsed());
    assert_eq!(
        red.mirror().map(|m| m.status()),
        Some(Status::Finished(GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Abandonment
        }))
    );
    server.shutdown().await;
}

/// The relay disconnects a client that stays in no room for its lobby timeout: the client
/// reports it and does not reconnect, which would only start the wait again.
#[tokio::test]
async fn a_client_idle_in_no_room_is_disconnected_for_good() {
    let server = Server::builder()
        .listen("mem://room-idle")
        .config(Config {
            lobby_timeout: Duration::from_millis(200),
            ..Config::default()
        })
        .start()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = server.local_urls()[0].clone();
    let mut client = connect(&url).await;
    let event = next(&mut client).await;
    assert!(
        matches!(
            event,
            ClientEvent::Disconnected {
                cause: ClientError::ClosedByRelay {
                    reason: DisconnectReason::Idle,
                    ..
                }
            }
        ),
        "{event:?}"
    );
    assert!(within(client.next_event()).await.is_none());
    server.shutdown().await;
}
