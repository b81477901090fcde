//! Test helpers: a referee that numbers a real match's events and writes snapshots as the
//! relay does, and a scripted relay on `mem://` that speaks the protocol one message at a time.

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use xq_client::{Client, ClientEvent, ClientOptions, ReconnectPolicy, Room};
use xq_protocol::{
    ClientMsg, PROTOCOL_VERSION, Request, RequestId, ResumeToken, RoomCode, RoomOptions,
    SeatChoice, SeatInfo, ServerMsg, Snapshot, codec,
};
use xq_rules::{ByColor, Color, Move, Square};
use xq_session::{Action, Command, CommandError, Event, Match, MatchConfig, Timestamp};
use xq_transport::{Connection, Listener, Options};

pub(crate) const CODE: &str = "K7QX3M";
pub(crate) const TOKEN: ResumeToken = ResumeToken([7; 16]);

pub(crate) fn code() -> RoomCode {
    CODE.parse().unwrap_or_else(|e| panic!("{e}"))
}

pub(crate) const fn ms(millis: u64) -> Timestamp {
    Timestamp::from_millis(millis)
}

/// Client options for a scripted relay: quick reconnects, and no keep-alive.
pub(crate) fn options() -> ClientOptions {
    ClientOptions {
        name: "test".into(),
        reconnect: ReconnectPolicy {
            period: Duration::from_secs(5),
            first_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(100),
        },
        // The scripted relay answers pings only when the test reads.
        keepalive: None,
        ..ClientOptions::default()
    }
}

/// Red's cannon to the centre, the usual first move.
pub(crate) fn h2e2() -> Move {
    Move::new(Square::H2, Square::E2)
}

/// Black's horse out, an answer to [`h2e2`].
pub(crate) fn h9g7() -> Move {
    Move::new(Square::H9, Square::G7)
}

/// Has `client` create a room and sit at Red, `peer` seating it in `referee`'s match.
pub(crate) async fn create_at_red(client: &Client, peer: &Peer, referee: &Referee) {
    let options = RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    };
    let (room, ()) = tokio::join!(client.create(options), async {
        assert_eq!(peer.recv().await, ClientMsg::CreateRoom(options));
        peer.seat(Some(Color::Red), referee.snapshot(ms(0))).await;
    });
    assert_eq!(
        room.unwrap_or_else(|e| panic!("{e}")),
        Room {
            code: code(),
            seat: Some(Color::Red)
        }
    );
}

/// The client's next event, within the test's patience.
pub(crate) async fn next(client: &mut Client) -> ClientEvent {
    within(client.next_event())
        .await
        .unwrap_or_else(|| panic!("the event stream ended"))
}

/// A real match whose events are numbered as the relay numbers them.
pub(crate) struct Referee {
    pub(crate) game: Match,
    /// Every event so far, with its number.
    pub(crate) log: Vec<(u64, Event)>,
    pub(crate) seats: ByColor<SeatInfo>,
}

impl Referee {
    pub(crate) fn new(config: MatchConfig) -> Self {
        let taken = SeatInfo {
            taken: true,
            connected: true,
        };
        Self {
            game: Match::new(config, ms(0)),
            log: Vec::new(),
            seats: ByColor {
                red: taken,
                black: taken,
            },
        }
    }

    /// Handles `command` at `now` and returns the new numbered events.
    pub(crate) fn handle(
        &mut self,
        now: Timestamp,
        command: Command,
    ) -> Result<Vec<(u64, Event)>, CommandError> {
        self.game.handle(now, command)?;
        Ok(self.drain())
    }

    /// Plays `mv` for `by` at `now`, a move the test knows to be legal, and returns the new
    /// numbered events.
    pub(crate) fn play(&mut self, now: Timestamp, by: Color, mv: Move) -> Vec<(u64, Event)> {
        self.handle(now, Action::Play(mv).by(by))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Lets time pass to `now` (a flag may fall) and returns the new numbered events.
    pub(crate) fn timeout(&mut self, now: Timestamp) -> Vec<(u64, Event)> {
        self.game.handle_timeout(now);
        self.drain()
    }

    /// The next event's number.
    pub(crate) fn next_seq(&self) -> u64 {
        self.log.len() as u64
    }

    /// The snapshot the relay would send at `now`.
    pub(crate) fn snapshot(&self, now: Timestamp) -> Snapshot {
        Snapshot::new(
            code(),
            self.game.standing(now),
            self.seats,
            None,
            self.next_seq(),
        )
    }

    fn drain(&mut self) -> Vec<(u64, Event)> {
        let first = self.log.len();
        while let Some(event) = self.game.poll_event() {
            let seq = self.next_seq();
            self.log.push((seq, event));
        }
        self.log[first..].to_vec()
    }
}

/// The message that carries a numbered event.
pub(crate) fn numbered((seq, event): (u64, Event)) -> ServerMsg {
    ServerMsg::Event {
        seq,
        event,
        answers: None,
    }
}

/// A scripted relay: a mem listener whose connections the test drives message by message.
pub(crate) struct Relay {
    listener: Box<dyn Listener>,
}

impl Relay {
    pub(crate) async fn listen(name: &str) -> Self {
        let listener = xq_transport::listen(&format!("mem://{name}"), &Options::default())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        Self { listener }
    }

    pub(crate) fn url(&self) -> String {
        self.listener.local_url()
    }

    /// Accepts the next connection.
    pub(crate) async fn accept(&self) -> Peer {
        let conn = within(self.listener.accept())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        Peer {
            conn,
            last: Cell::new(RequestId::default()),
        }
    }

    /// Accepts the next connection, reads its hello and welcomes it; returns the hello's
    /// resume token.
    pub(crate) async fn welcome(&self) -> (Peer, Option<ResumeToken>) {
        let peer = self.accept().await;
        let resume = match peer.recv().await {
            ClientMsg::Hello {
                version, resume, ..
            } => {
                assert_eq!(version, PROTOCOL_VERSION);
                resume
            }
            other => panic!("expected hello, got {other:?}"),
        };
        peer.send(ServerMsg::Welcome {
            id: peer.id(),
            version: PROTOCOL_VERSION,
            server: "scripted".into(),
        })
        .await;
        (peer, resume)
    }

    /// Stops accepting, as a relay that has gone away.
    pub(crate) fn close(&self) {
        self.listener.close();
    }
}

/// One connection as the relay sees it.
pub(crate) struct Peer {
    pub(crate) conn: Arc<dyn Connection>,
    /// The id of the last request [`Peer::recv`] returned.
    last: Cell<RequestId>,
}

impl Peer {
    pub(crate) async fn send(&self, msg: ServerMsg) {
        let frame = codec::to_frame(&msg).unwrap_or_else(|e| panic!("{e}"));
        self.conn
            .send(frame)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// The next request's message, answering keep-alive pings on the way as a relay does;
    /// its id is [`Peer::id`] from then on.
    pub(crate) async fn recv(&self) -> ClientMsg {
        loop {
            let frame = within(self.conn.recv())
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            let request: Request = codec::decode(&frame).unwrap_or_else(|e| panic!("{e}"));
            match request.msg {
                ClientMsg::Ping => self.send(ServerMsg::Pong { id: request.id }).await,
                msg => {
                    self.last.set(request.id);
                    return msg;
                }
            }
        }
    }

    /// The id of the last request [`Peer::recv`] returned.
    pub(crate) fn id(&self) -> RequestId {
        self.last.get()
    }

    /// Answers the last request with [`ServerMsg::Done`].
    pub(crate) async fn done(&self) {
        self.send(ServerMsg::Done { id: self.id() }).await;
    }

    /// Answers a room request: `Joined` for `seat`, then the snapshot.
    pub(crate) async fn seat(&self, seat: Option<Color>, snapshot: Snapshot) {
        let resume = seat.map(|_| TOKEN);
        self.send(ServerMsg::Joined {
            id: Some(self.id()),
            code: code(),
            seat,
            resume,
        })
        .await;
        self.send(ServerMsg::Snapshot(Box::new(snapshot))).await;
    }
}

/// Fails the test instead of hanging when `future` takes more than ten seconds.
pub(crate) async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out"))
}
