//! The examples of `xq-client`'s docs, which need a relay: the crate root's two clients in
//! one process, and `Client::resume`.

use xq_client::{Client, ClientEvent, ClientOptions};
use xq_protocol::{RoomOptions, SeatChoice};
use xq_rules::{Color, Move, Square};
use xq_server::Server;

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

#[tokio::test(flavor = "current_thread")]
async fn two_clients_in_one_process() -> Result {
    let server = Server::builder()
        .listen("mem://two-clients")
        .start()
        .await?;
    let url = &server.local_urls()[0];
    let mut red = Client::connect(url, ClientOptions::default()).await?;
    let mut black = Client::connect(url, ClientOptions::default()).await?;

    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let room = red.create(options).await?;
    black.join(room.code).await?;
    for player in [&mut red, &mut black] {
        assert!(matches!(
            player.next_event().await,
            Some(ClientEvent::MatchStarted)
        ));
    }

    red.play(Move::new(Square::H2, Square::E2)).await?;
    assert!(matches!(
        black.next_event().await,
        Some(ClientEvent::Match { seq: 0, .. })
    ));
    assert_eq!(black.mirror().map(|m| m.moves().len()), Some(1));
    server.shutdown().await;
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
async fn a_restarted_program_resumes_its_seat() -> Result {
    let server = Server::builder()
        .listen("mem://resume-docs")
        .start()
        .await?;
    let url = &server.local_urls()[0];
    let client = Client::connect(url, ClientOptions::default()).await?;
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let room = client.create(options).await?;
    let opponent = Client::connect(url, ClientOptions::default()).await?;
    opponent.join(room.code).await?;
    let token = client.resume_token().ok_or("a player has a token")?;
    drop(client); // the program stops; the relay holds the seat of the running match

    let client = Client::resume(url, token, ClientOptions::default()).await?;
    assert_eq!(client.room(), Some(room));
    assert_eq!(room.seat, Some(Color::Red));
    server.shutdown().await;
    Ok(())
}
