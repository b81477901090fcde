//! Helpers for clients of a real relay (`xq-server`) on `mem://`.

use std::time::Duration;

use xq_client::{Client, ClientEvent, ClientOptions, Room};
use xq_protocol::{RoomOptions, SeatChoice};
use xq_rules::{Move, Square};
use xq_server::Server;
use xq_session::{Event, TimeControl};

/// The options of a client of a real relay.
pub(crate) fn options() -> ClientOptions {
    ClientOptions {
        name: "test".into(),
        ..ClientOptions::default()
    }
}

/// Starts a real relay on `mem://{name}` that holds a seat for `grace`; returns it and its URL.
pub(crate) async fn start(name: &str, grace: Duration) -> (Server, String) {
    let server = Server::builder()
        .listen(format!("mem://{name}"))
        .grace(grace)
        .start()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = server.local_urls()[0].clone();
    (server, url)
}

pub(crate) async fn connect(url: &str) -> Client {
    within(Client::connect(url, options()))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Waits for the first event that `wanted` accepts, skipping the others.
pub(crate) async fn wait_for(
    client: &mut Client,
    wanted: impl Fn(&ClientEvent) -> bool,
) -> ClientEvent {
    loop {
        let event = within(client.next_event())
            .await
            .unwrap_or_else(|| panic!("the event stream ended"));
        if wanted(&event) {
            return event;
        }
    }
}

/// Waits until `client` has seen the match event numbered `seq`.
pub(crate) async fn wait_for_seq(client: &mut Client, seq: u64) {
    wait_for(
        client,
        |event| matches!(event, ClientEvent::Match { seq: s, .. } if *s == seq),
    )
    .await;
}

/// Waits until `client` has seen the end of its game.
pub(crate) async fn wait_for_game_over(client: &mut Client) {
    wait_for(client, |event| {
        matches!(
            event,
            ClientEvent::Match {
                event: Event::GameOver(_),
                ..
            }
        )
    })
    .await;
}

/// Red and Black in a started untimed match of a room created by Red.
pub(crate) async fn started(url: &str) -> (Client, Client, Room) {
    started_with(url, TimeControl::Untimed).await
}

/// Red and Black in a started match under `time_control`, in a room created by Red, each told
/// that the match started.
pub(crate) async fn started_with(url: &str, time_control: TimeControl) -> (Client, Client, Room) {
    let (mut red, mut black, room) = seated_with(url, time_control).await;
    for player in [&mut red, &mut black] {
        wait_for(player, |event| matches!(event, ClientEvent::MatchStarted)).await;
    }
    (red, black, room)
}

/// Red and Black in a started match under `time_control`, in a room created by Red, their
/// events not read yet.
pub(crate) async fn seated_with(url: &str, time_control: TimeControl) -> (Client, Client, Room) {
    let red = connect(url).await;
    let black = connect(url).await;
    let options = RoomOptions {
        seat: SeatChoice::Red,
        time_control,
        ..RoomOptions::default()
    };
    let room = within(red.create(options))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    within(black.join(room.code))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (red, black, room)
}

pub(crate) async fn play(client: &Client, from: Square, to: Square) {
    within(client.play(Move::new(from, to)))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Fails the test instead of hanging when `future` takes more than ten seconds.
pub(crate) async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out"))
}
