//! The client across the nodes of a relay cluster, each a scripted relay on `mem://`: a list
//! of relays whose first is dead, a redirect to the room's owner, the relay it is on going
//! away mid-game, and the next one asking for time.

use xq_client::{Client, ClientError, ClientEvent, Relays};
use xq_protocol::{ClientMsg, ErrorCode, ServerMsg};
use xq_rules::{Color, Move, Square};
use xq_session::{Action, Event, MatchConfig};

use crate::support::{
    Peer, Referee, Relay, TOKEN, code, create_at_red, h2e2, h9g7, ms, next, numbered, options,
};

/// Plays `mv` for the client at `seat` on `peer`'s connection, and checks that it comes back.
async fn play_through(client: &mut Client, peer: &Peer, referee: &mut Referee, mv: Move) {
    let seat = client
        .room()
        .and_then(|room| room.seat)
        .unwrap_or_else(|| panic!("not seated"));
    client.play(mv).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(peer.recv().await, ClientMsg::Act(Action::Play(mv)));
    for event in referee.play(ms(1), seat, mv) {
        peer.send(numbered(event)).await;
    }
    assert!(matches!(
        next(client).await,
        ClientEvent::Match {
            event: Event::MovePlayed { by, .. },
            ..
        } if by == seat
    ));
}

#[tokio::test]
async fn the_first_relay_that_answers_is_used() {
    let relay = Relay::listen("failover-second").await;
    let list = format!("mem://failover-dead,{}", relay.url());
    let (client, (_peer, resume)) =
        tokio::join!(Client::connect(&list, options()), relay.welcome());
    assert_eq!(resume, None);
    assert!(client.unwrap_or_else(|e| panic!("{e}")).is_connected());

    // None answering: the last one's error.
    let dead = "mem://failover-dead-a, mem://failover-dead-b";
    assert!(matches!(
        Client::connect(dead, options()).await,
        Err(ClientError::Transport(_))
    ));
    // A list with a hole is refused before anything is tried.
    assert!(matches!(
        Client::connect("mem://failover-dead-a,,mem://x", options()).await,
        Err(ClientError::Relays(_))
    ));
}

#[tokio::test]
async fn a_redirect_is_followed_and_the_game_goes_on_at_the_owner() {
    let a = Relay::listen("failover-redirect-a").await;
    let b = Relay::listen("failover-redirect-b").await;
    let mut referee = Referee::new(MatchConfig::default());
    // The client knows node A only.
    let url = a.url();
    let (client, (peer_a, _)) = tokio::join!(Client::connect(&url, options()), a.welcome());
    let mut client = client.unwrap_or_else(|e| panic!("{e}"));

    let (joined, peer_b) = tokio::join!(client.join(code()), async {
        assert_eq!(peer_a.recv().await, ClientMsg::JoinRoom { code: code() });
        let join = peer_a.id();
        // A does not own the room: it names B, and closes.
        peer_a
            .send(ServerMsg::Redirect {
                id: join,
                urls: vec![b.url()],
            })
            .await;
        drop(peer_a);
        // B gets a hello, then the same join under the same id.
        let (peer_b, resume) = b.welcome().await;
        assert_eq!(resume, None);
        assert_eq!(peer_b.recv().await, ClientMsg::JoinRoom { code: code() });
        assert_eq!(peer_b.id(), join);
        peer_b
            .seat(Some(Color::Black), referee.snapshot(ms(0)))
            .await;
        peer_b
    });
    let room = joined.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(room.seat, Some(Color::Black));
    assert!(matches!(next(&mut client).await, ClientEvent::MatchStarted));
    assert_eq!(client.resume_token(), Some(TOKEN));

    // The game is played on B: Red's move arrives there, and the client's reply goes there.
    for event in referee.play(ms(1), Color::Red, h2e2()) {
        peer_b.send(numbered(event)).await;
    }
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Match { seq: 0, .. }
    ));
    play_through(&mut client, &peer_b, &mut referee, h9g7()).await;
    assert_eq!(
        client.mirror().map(|mirror| mirror.position().clone()),
        Some(referee.game.position().clone())
    );
    // Following the redirect was no outage.
    assert!(client.try_next_event().is_none());
}

#[tokio::test]
async fn a_resume_through_any_node_reaches_the_seat() {
    let a = Relay::listen("failover-resume-a").await;
    let b = Relay::listen("failover-resume-b").await;
    let referee = Referee::new(MatchConfig::default());
    let relays: Relays = format!("{},{}", a.url(), b.url())
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let (client, ()) = tokio::join!(Client::resume_relays(&relays, TOKEN, options()), async {
        let peer_a = a.accept().await;
        let ClientMsg::Hello { resume, .. } = peer_a.recv().await else {
            panic!("no hello");
        };
        assert_eq!(resume, Some(TOKEN));
        peer_a
            .send(ServerMsg::Redirect {
                id: peer_a.id(),
                urls: vec![b.url()],
            })
            .await;
        let (peer_b, resume) = b.welcome().await;
        assert_eq!(resume, Some(TOKEN));
        peer_b.seat(Some(Color::Red), referee.snapshot(ms(0))).await;
    });
    let client = client.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(client.room().and_then(|room| room.seat), Some(Color::Red));
}

#[tokio::test]
async fn a_relay_gone_mid_game_is_replaced_by_the_next_of_the_list() {
    let a = Relay::listen("failover-gone-a").await;
    let b = Relay::listen("failover-gone-b").await;
    let mut referee = Referee::new(MatchConfig::default());
    let list = format!("{},{}", a.url(), b.url());
    let (client, (peer_a, _)) = tokio::join!(Client::connect(&list, options()), a.welcome());
    let mut client = client.unwrap_or_else(|e| panic!("{e}"));
    create_at_red(&client, &peer_a, &referee).await;
    play_through(&mut client, &peer_a, &mut referee, h2e2()).await;

    // Node A dies: it takes no connection any more. Black replies on the node that took the
    // room over.
    a.close();
    drop(peer_a);
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting { .. }
    ));
    referee.play(ms(2), Color::Black, h9g7());
    let (peer_b, resume) = b.welcome().await;
    assert_eq!(resume, Some(TOKEN));
    peer_b.seat(Some(Color::Red), referee.snapshot(ms(2))).await;
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
    let mirror = client.mirror().unwrap_or_else(|| panic!("no mirror"));
    assert_eq!(mirror.moves(), referee.game.moves());

    // The game goes on through B.
    play_through(
        &mut client,
        &peer_b,
        &mut referee,
        Move::new(Square::H0, Square::G2),
    )
    .await;
}

#[tokio::test]
async fn a_relay_that_asks_for_time_is_asked_again_before_the_next_of_the_list() {
    let a = Relay::listen("failover-again-a").await;
    let b = Relay::listen("failover-again-b").await;
    let c = Relay::listen("failover-again-c").await;
    let referee = Referee::new(MatchConfig::default());
    let list = format!("{},{},{}", a.url(), b.url(), c.url());
    let (client, (peer_a, _)) = tokio::join!(Client::connect(&list, options()), a.welcome());
    let mut client = client.unwrap_or_else(|e| panic!("{e}"));
    create_at_red(&client, &peer_a, &referee).await;

    // A dies. B is taking the room over at that moment, and asks for time.
    a.close();
    drop(peer_a);
    assert!(matches!(
        next(&mut client).await,
        ClientEvent::Reconnecting { .. }
    ));
    let peer_b = b.accept().await;
    let hello = peer_b.recv().await;
    assert!(
        matches!(
            hello,
            ClientMsg::Hello {
                resume: Some(TOKEN),
                ..
            }
        ),
        "{hello:?}"
    );
    peer_b
        .send(ServerMsg::Error {
            id: Some(peer_b.id()),
            code: ErrorCode::Unavailable,
            message: "the room is moving to this node: try again".into(),
        })
        .await;
    // After a pause the client asks B again, not C, and takes its seat back there.
    let (peer_b, resume) = b.welcome().await;
    assert_eq!(resume, Some(TOKEN));
    peer_b.seat(Some(Color::Red), referee.snapshot(ms(1))).await;
    assert!(matches!(next(&mut client).await, ClientEvent::Reconnected));
    drop(c);
}
