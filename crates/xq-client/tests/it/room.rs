//! Clients in the rooms of a real relay (`xq-server`) on `mem://`: how a match starts.

use std::time::Duration;

use xq_client::{Client, ClientEvent};
use xq_protocol::{RoomOptions, SeatChoice};
use xq_rules::{Color, Square};

use crate::support::{connect, play, start, within};

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
    let mut red = connect(&url).await;
    let mut black = connect(&url).await;
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let room = within(red.create(options))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    within(black.join(room.code))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
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
