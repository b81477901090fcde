//! A restarted client takes its seat back from a relay on `mem://` with the token it saved.

use std::time::Duration;

use xq_client::{Client, ClientError, ClientEvent};
use xq_protocol::{ErrorCode, ResumeToken};
use xq_rules::{Color, Square};
use xq_session::{Event, GameResult, Status, WinReason};

use crate::support::{options, play, start, started, wait_for, wait_for_seq, within};

fn is_resume_refused(result: &Result<Client, ClientError>) -> bool {
    matches!(
        result,
        Err(ClientError::Refused {
            code: ErrorCode::ResumeRefused,
            ..
        })
    )
}

#[tokio::test]
async fn a_restarted_client_takes_its_seat_back_with_the_saved_token() {
    let (server, url) = start("resume-restart", Duration::from_secs(60)).await;
    let (mut red, mut black, room) = started(&url).await;
    play(&red, Square::H2, Square::E2).await;
    wait_for_seq(&mut black, 0).await;
    play(&black, Square::H9, Square::G7).await;
    wait_for_seq(&mut red, 1).await;

    let token = red
        .resume_token()
        .unwrap_or_else(|| panic!("a seated player has a token"));
    let before = red.mirror().unwrap_or_else(|| panic!("no mirror"));
    // The process ends: the client goes with everything it knew but the saved token.
    drop(red);
    wait_for(&mut black, |event| {
        matches!(
            event,
            ClientEvent::Presence {
                seat: Color::Red,
                connected: false
            }
        )
    })
    .await;

    let mut red = within(Client::resume(&url, token, options()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(red.room(), Some(room));
    assert_eq!(red.room().and_then(|room| room.seat), Some(Color::Red));
    assert_eq!(red.resume_token(), Some(token));
    assert!(red.is_connected());
    let after = red.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert_eq!(after.code(), before.code());
    assert_eq!(after.moves(), before.moves());
    assert_eq!(after.position(), before.position());
    assert_eq!(after.next_seq(), before.next_seq());
    assert_eq!(after.status(), Status::Ongoing);
    assert_eq!(after.legal_moves(), before.legal_moves());
    wait_for(&mut black, |event| {
        matches!(
            event,
            ClientEvent::Presence {
                seat: Color::Red,
                connected: true
            }
        )
    })
    .await;

    // The seat plays on.
    play(&red, Square::H0, Square::G2).await;
    for client in [&mut red, &mut black] {
        let event = wait_for(client, |event| matches!(event, ClientEvent::Match { .. })).await;
        assert!(
            matches!(
                event,
                ClientEvent::Match {
                    seq: 2,
                    event: Event::MovePlayed { by: Color::Red, .. }
                }
            ),
            "{event:?}"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_token_the_relay_does_not_know_is_refused() {
    let (server, url) = start("resume-unknown", Duration::from_secs(60)).await;
    let (_red, _black, _) = started(&url).await;
    let resumed = within(Client::resume(&url, ResumeToken([0; 16]), options())).await;
    assert!(is_resume_refused(&resumed), "{:?}", resumed.err());
    server.shutdown().await;
}

#[tokio::test]
async fn a_token_whose_grace_period_ran_out_is_refused() {
    let (server, url) = start("resume-void", Duration::from_millis(200)).await;
    let (red, mut black, _) = started(&url).await;
    let token = red
        .resume_token()
        .unwrap_or_else(|| panic!("a seated player has a token"));
    drop(red);
    // Red stays away past the grace period: the game is over and the seat given up.
    let over = wait_for(&mut black, |event| {
        matches!(
            event,
            ClientEvent::Match {
                event: Event::GameOver(_),
                ..
            }
        )
    })
    .await;
    assert!(matches!(
        over,
        ClientEvent::Match {
            event: Event::GameOver(GameResult::Win {
                winner: Color::Black,
                reason: WinReason::Abandonment
            }),
            ..
        }
    ));
    let resumed = within(Client::resume(&url, token, options())).await;
    assert!(is_resume_refused(&resumed), "{:?}", resumed.err());
    server.shutdown().await;
}

/// A token kept from before a relay without storage restarted is void: the room is gone.
#[tokio::test]
async fn a_token_from_before_a_relay_restart_without_storage_is_refused() {
    let (server, url) = start("resume-restarted-relay", Duration::from_secs(60)).await;
    let (red, black, _) = started(&url).await;
    let token = red
        .resume_token()
        .unwrap_or_else(|| panic!("a seated player has a token"));
    drop((red, black));
    server.shutdown().await;

    let (server, url) = start("resume-restarted-relay", Duration::from_secs(60)).await;
    let resumed = within(Client::resume(&url, token, options())).await;
    assert!(is_resume_refused(&resumed), "{:?}", resumed.err());
    server.shutdown().await;
}
