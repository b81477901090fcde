//! The async client: the sans-IO core driven over one transport connection on tokio.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout};
use xq_protocol::{RequestId, ResumeToken, RoomCode, RoomOptions};
use xq_rules::Move;
use xq_session::Action;

use crate::driver::{self, Driver, Shared};
use crate::relays::Rotation;
use crate::{Answer, ClientCore, ClientError, ClientEvent, ClientOptions, Mirror, Relays, Room};

/// A connection to a relay, over any transport, with a mirror of the room's match that stays
/// in step and a connection that restores itself: a [`ClientCore`] that a background task
/// drives over the transport.
///
/// The task (spawned on the current tokio runtime) feeds the core the relay's frames and the
/// time, sends what the core says, and reports the core's events as [`ClientEvent`]s, in
/// order, through [`next_event`](Self::next_event). When the connection fails the core
/// reconnects, with pauses that grow, for [`crate::ReconnectPolicy::period`]; a player resumes
/// its seat with the relay's resume token and a spectator watches again, and the mirror is
/// rebuilt from the relay's snapshot, so nothing is missed and nothing is applied twice.
///
/// **Relay clusters.** A client may be given several relays ([`Relays`], a comma-separated
/// list of URLs): the nodes of one cluster, which share their rooms. It connects to the first
/// that answers, and each reconnection goes to the next one, round the list, so a player
/// whose relay has gone away resumes its seat through another node. A node that does not own
/// the room a request names redirects the client to the one that does
/// ([`xq_protocol::ServerMsg::Redirect`]); the client follows by itself and asks again there,
/// so [`join`](Self::join) (or a resume) answers with the room from its owner.
///
/// Actions are sent as they are asked for and are not queued: while the connection is down
/// they fail at once with [`ClientError::NotConnected`]. The relay refuses an action with a
/// [`ClientEvent::Rejected`]; an accepted one comes back as a [`ClientEvent::Match`] event.
/// Room requests and leaving wait for the relay's answer to their own request id.
///
/// Dropping the client stops its task and closes the connection; [`close`](Self::close) also
/// tells the relay that it leaves.
pub struct Client {
    shared: Arc<Shared>,
    events: mpsc::UnboundedReceiver<ClientEvent>,
    /// Stops the driver when set or dropped.
    shutdown: watch::Sender<bool>,
    driver: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Client {
    /// Connects to the relay at `url` (`mem://`, `udp://` or `quic://…?fp=<hex>`) and says
    /// hello. `url` may also be a comma-separated list of a cluster's nodes
    /// (`udp://relay-a.example:7878,udp://relay-b.example:7878`), as
    /// [`connect_relays`](Self::connect_relays) takes them.
    ///
    /// # Errors
    ///
    /// [`ClientError::Relays`] for an empty list or an empty item in it;
    /// [`ClientError::VersionMismatch`] if the relay speaks another protocol version,
    /// [`ClientError::Timeout`] if it does not answer within
    /// [`ClientOptions::handshake_timeout`], otherwise the transport's error. The first
    /// connection is not retried.
    pub async fn connect(url: &str, options: ClientOptions) -> Result<Self, ClientError> {
        Self::connect_relays(&url.parse()?, options).await
    }

    /// Connects to the first of `relays` that accepts a connection, trying them in order,
    /// and says hello; later connections go round the list (see [`Client`]).
    ///
    /// # Errors
    ///
    /// The last relay's transport error if none accepts a connection; otherwise as
    /// [`connect`](Self::connect).
    pub async fn connect_relays(
        relays: &Relays,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        Self::open(relays, ClientCore::new(options))
            .await
            .map(|(client, _)| client)
    }

    /// Connects to the relay at `url` (or the first that accepts of a comma-separated list,
    /// as [`connect`](Self::connect) does) and takes back the seat that `token` holds: the
    /// way back into a game for a program that was restarted, or crashed, while seated, with
    /// the token it saved from [`resume_token`](Self::resume_token).
    ///
    /// The relay holds a seat for its grace period (60 s by default) after its player's
    /// connection ends; a player who stays away longer loses the game by abandonment. A room
    /// nobody has joined yet is not held: it closes when its creator's connection ends. Once
    /// this returns, the client is back in the room at the same colour, with
    /// [`room`](Self::room) and [`mirror`](Self::mirror) set as after a [`join`](Self::join),
    /// and the opponent is told that the seat is connected again. A connection still in the
    /// seat (the earlier process, if it runs on) is closed by the relay. From then on the
    /// client reconnects by itself like any other.
    ///
    /// # Examples
    ///
    /// Against a relay (`xq-server`) on `mem://`; this crate does not depend on the relay, so
    /// the workspace's `tests/` crate runs the example (`tests/client/docs.rs`).
    ///
    /// ```ignore
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use xq_client::{Client, ClientOptions};
    /// use xq_protocol::{RoomOptions, SeatChoice};
    /// use xq_rules::Color;
    /// use xq_server::Server;
    ///
    /// let server = Server::builder().listen("mem://resume-docs").start().await?;
    /// let url = &server.local_urls()[0];
    /// let client = Client::connect(url, ClientOptions::default()).await?;
    /// let options = RoomOptions { seat: SeatChoice::Red, ..RoomOptions::default() };
    /// let room = client.create(options).await?;
    /// let opponent = Client::connect(url, ClientOptions::default()).await?;
    /// opponent.join(room.code).await?;
    /// let token = client.resume_token().ok_or("a player has a token")?;
    /// drop(client); // the program stops; the relay holds the seat of the running match
    ///
    /// let client = Client::resume(url, token, ClientOptions::default()).await?;
    /// assert_eq!(client.room(), Some(room));
    /// assert_eq!(room.seat, Some(Color::Red));
    /// server.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::Refused`] with [`xq_protocol::ErrorCode::ResumeRefused`] if the relay
    /// does not know the token or no longer holds its seat (the grace period ran out, the
    /// room closed, or a relay without storage restarted); [`ClientError::Timeout`] if the
    /// relay has not given the seat back within [`ClientOptions::handshake_timeout`];
    /// [`ClientError::ConnectionLost`] if the connection fails before it answers;
    /// [`ClientError::Refused`] with [`xq_protocol::ErrorCode::Unavailable`] if the relay's
    /// cluster is out of its reach (try again later); [`ClientError::TooManyRedirects`] if
    /// the cluster's nodes keep sending the client on; otherwise as
    /// [`connect`](Self::connect). The first connection is not retried (a redirect is
    /// followed: it is no failure).
    pub async fn resume(
        url: &str,
        token: ResumeToken,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        Self::resume_relays(&url.parse()?, token, options).await
    }

    /// Connects to the first of `relays` that accepts a connection, as
    /// [`connect_relays`](Self::connect_relays) does, and takes back the seat that `token`
    /// holds, as [`resume`](Self::resume) does: through any node of a cluster, which
    /// redirects the client to the node that holds the seat.
    ///
    /// # Errors
    ///
    /// As [`resume`](Self::resume) and [`connect_relays`](Self::connect_relays).
    pub async fn resume_relays(
        relays: &Relays,
        token: ResumeToken,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        Self::open(relays, ClientCore::resuming(options, token))
            .await
            .map(|(client, _)| client)
    }

    /// Creates a room and takes a seat in it. The match begins when someone joins
    /// ([`ClientEvent::MatchStarted`]).
    ///
    /// # Errors
    ///
    /// [`ClientError::Refused`] with the relay's reason, or why the request could not be sent
    /// or answered.
    pub async fn create(&self, options: RoomOptions) -> Result<Room, ClientError> {
        self.enter(|core| core.create(options)).await
    }

    /// Takes the free seat of the room with this code; the match begins at once
    /// ([`ClientEvent::MatchStarted`], as for the creator).
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create) (an unknown code is refused with `RoomNotFound`).
    pub async fn join(&self, code: RoomCode) -> Result<Room, ClientError> {
        self.enter(|core| core.join(code)).await
    }

    /// Waits to be paired with the next player who asks the same, then plays the colour the
    /// relay draws. [`ClientEvent::Queued`] reports the wait, and
    /// [`ClientEvent::MatchStarted`] the match that begins with the pairing.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub async fn quick_match(&self, options: RoomOptions) -> Result<Room, ClientError> {
        self.enter(|core| core.quick_match(options)).await
    }

    /// Watches the room with this code: its mirror and every event, no commands.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub async fn spectate(&self, code: RoomCode) -> Result<Room, ClientError> {
        self.enter(|core| core.spectate(code)).await
    }

    /// Plays a move.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotSeated`] without a seat, or why the command could not be sent.
    pub async fn play(&self, mv: Move) -> Result<(), ClientError> {
        self.act_seated(Action::Play(mv))
    }

    /// Asks the opponent to take back this player's last move (and the reply, if any).
    ///
    /// # Errors
    ///
    /// As [`play`](Self::play).
    pub async fn request_undo(&self) -> Result<(), ClientError> {
        self.act_seated(Action::RequestUndo)
    }

    /// Accepts or declines the opponent's undo request.
    ///
    /// # Errors
    ///
    /// As [`play`](Self::play).
    pub async fn answer_undo(&self, accept: bool) -> Result<(), ClientError> {
        self.act_seated(Action::AnswerUndo { accept })
    }

    /// Offers a draw.
    ///
    /// # Errors
    ///
    /// As [`play`](Self::play).
    pub async fn offer_draw(&self) -> Result<(), ClientError> {
        self.act_seated(Action::OfferDraw)
    }

    /// Accepts or declines the opponent's draw offer.
    ///
    /// # Errors
    ///
    /// As [`play`](Self::play).
    pub async fn answer_draw(&self, accept: bool) -> Result<(), ClientError> {
        self.act_seated(Action::AnswerDraw { accept })
    }

    /// Resigns the game.
    ///
    /// # Errors
    ///
    /// As [`play`](Self::play).
    pub async fn resign(&self) -> Result<(), ClientError> {
        self.act_seated(Action::Resign)
    }

    /// Leaves the room and stays connected, free to create, join, quick match or spectate
    /// again: the relay refuses those ([`xq_protocol::ErrorCode::AlreadyInRoom`]) while the
    /// client is in a room, even once its game is over. When this returns, none of the room's
    /// messages arrive any more, and [`room`](Self::room), [`mirror`](Self::mirror) and
    /// [`resume_token`](Self::resume_token) are `None`.
    ///
    /// A spectator simply stops watching. A player leaves its seat as if its connection had
    /// failed: the others are told that it is away ([`ClientEvent::Presence`]), and the relay
    /// holds the seat for its grace period (60 s by default), in which a resume token saved
    /// before leaving takes it back ([`Client::resume`]). So leaving a game that is over gives
    /// up the seat, and any rematch, once the grace period ends. Leaving a game still on does
    /// not end it: the clocks run on, and a player who is not back when the grace period ends
    /// loses by abandonment. [`resign`](Self::resign) first to end it at once. A room nobody
    /// has joined yet is not held: it closes.
    ///
    /// The relay disconnects a connection that stays in no room for its lobby timeout (60 s
    /// by default) with [`xq_protocol::DisconnectReason::Idle`]; the client then ends with
    /// [`ClientEvent::Disconnected`] rather than reconnect, which would only wait again.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInRoom`] outside a room; [`ClientError::RequestPending`] while a room
    /// request waits for its answer (a quick match looking for an opponent too);
    /// [`ClientError::Refused`] if the relay refuses; [`ClientError::ConnectionLost`] if the
    /// connection fails before the relay answers, after which the client is back in the room
    /// as after any failure (leave again after [`ClientEvent::Reconnected`]); otherwise why
    /// the request could not be sent. A refused or failed leave changes nothing.
    pub async fn leave(&self) -> Result<(), ClientError> {
        self.ask(ClientCore::leave).await.map(drop)
    }

    /// Asks for a rematch once the game is over (or agrees to the opponent's request).
    ///
    /// # Errors
    ///
    /// Why the request could not be sent.
    pub async fn rematch(&self) -> Result<(), ClientError> {
        self.shared.request(ClientCore::rematch).map(drop)
    }

    /// Sends any action exactly as given, for actions without a helper (withdrawing a
    /// request) and for tests of what the relay refuses (a spectator's action). The relay
    /// hands it to the match as the action of this client's seat; a check beforehand with
    /// [`Mirror::state`]`.check(..)` says whether the match will take it.
    ///
    /// # Errors
    ///
    /// Why the action could not be sent.
    pub async fn act(&self, action: Action) -> Result<(), ClientError> {
        self.shared.request(|core| core.act(action)).map(drop)
    }

    /// The next event, waiting for one; `None` once the client is closed and every event has
    /// been read.
    pub async fn next_event(&mut self) -> Option<ClientEvent> {
        self.events.recv().await
    }

    /// The next event if one is waiting, for loops that must not block (a GUI frame).
    pub fn try_next_event(&mut self) -> Option<ClientEvent> {
        self.events.try_recv().ok()
    }

    /// A copy of the mirror of the room's match, once the client is in a room.
    #[must_use]
    pub fn mirror(&self) -> Option<Mirror> {
        self.shared.lock().core.mirror().cloned()
    }

    /// The room this client is in, and its colour there.
    #[must_use]
    pub fn room(&self) -> Option<Room> {
        self.shared.lock().core.room()
    }

    /// The secret that takes this client's seat back with [`Client::resume`]; `None` outside
    /// a room and for a spectator.
    ///
    /// A program that must survive its own restart saves it, with the relay's URL, once
    /// seated: the relay sends it on every entry into a room and at every rematch, so save it
    /// again then. Whoever presents it plays the seat, so keep it private; its bytes are
    /// [`ResumeToken`]'s public field, and its `Debug` output hides them.
    #[must_use]
    pub fn resume_token(&self) -> Option<ResumeToken> {
        self.shared.lock().core.resume_token()
    }

    /// Whether commands can be sent now (connected and in step with the relay).
    #[must_use]
    pub fn is_connected(&self) -> bool {
        self.shared.lock().core.is_connected()
    }

    /// Leaves the room (the relay holds the seat for its grace period) and closes the
    /// connection. The event stream ends after the events already received.
    pub async fn close(&self) {
        self.shared.lock().core.close();
        self.shutdown.send_replace(true);
        let driver = self
            .driver
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(driver) = driver {
            // The driver sends the leave and closes the connection before it ends.
            let _ = driver.await;
        }
    }

    /// Connects the transport to the first of `relays` that accepts, starts the driver over
    /// it, and waits for the answer to the core's first hello.
    async fn open(relays: &Relays, mut core: ClientCore) -> Result<(Self, Answer), ClientError> {
        let handshake = core.options().handshake_timeout;
        let mut failure = ClientError::Timeout;
        let mut opened = None;
        for (index, url) in relays.iter().enumerate() {
            let attempt = xq_transport::connect(url, &core.options().transport);
            match timeout(handshake, attempt).await {
                Ok(Ok(conn)) => {
                    opened = Some((index, conn));
                    break;
                }
                Ok(Err(error)) => failure = error.into(),
                Err(_) => failure = ClientError::Timeout,
            }
            tracing::debug!(%url, %failure, "relay unreachable");
        }
        let Some((current, conn)) = opened else {
            return Err(failure);
        };
        let origin = Instant::now();
        let hello = core
            .handle_connected(driver::stamp(origin, origin))
            .ok_or(ClientError::Closed)?;
        let (shared, answer) = Shared::new(core, origin, hello);
        let (sender, events) = mpsc::unbounded_channel();
        let (shutdown, stopped) = watch::channel(false);
        let rotation = Rotation::new(relays.clone(), current);
        let driver = Driver::new(Arc::clone(&shared), sender, rotation, conn);
        let client = Self {
            shared,
            events,
            shutdown,
            driver: std::sync::Mutex::new(Some(tokio::spawn(driver.run(stopped)))),
        };
        // The core times the handshake out itself; the answer always comes.
        let answer = answer.await.unwrap_or(Err(ClientError::Closed))?;
        Ok((client, answer))
    }

    /// Sends an action of this client's seat.
    fn act_seated(&self, action: Action) -> Result<(), ClientError> {
        self.room()
            .and_then(|room| room.seat)
            .ok_or(ClientError::NotSeated)?;
        self.shared.request(|core| core.act(action)).map(drop)
    }

    /// Sends a room request and waits for the room it enters.
    async fn enter(
        &self,
        request: impl FnOnce(&mut ClientCore) -> Result<RequestId, ClientError>,
    ) -> Result<Room, ClientError> {
        match self.ask(request).await? {
            Answer::Entered(room) => Ok(room),
            _ => Err(ClientError::Unexpected { expected: "joined" }),
        }
    }

    /// Makes a request of the core and waits for the relay's answer to it.
    async fn ask(
        &self,
        request: impl FnOnce(&mut ClientCore) -> Result<RequestId, ClientError>,
    ) -> Result<Answer, ClientError> {
        let answer = self.shared.request_answered(request)?;
        answer.await.unwrap_or(Err(ClientError::Closed))
    }
}

/// The answer to one request, when it comes.
pub(crate) type Waiter = oneshot::Sender<Result<Answer, ClientError>>;
