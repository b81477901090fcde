//! One scripted player: the client's sans-IO core, driven frame by frame.
//!
//! A [`Player`] is an [`xq_client::ClientCore`] that creates or joins a room, plays its
//! colour's moves of a [`Script`] when asked, checks that every event the relay sends is the
//! one the script's match made, and asks for a rematch at each game's end (the relay swaps
//! the colours). Its driver moves the frames and decides when to [`play`](Player::play).
//! Calling order: after every [`handle_frame`](Player::handle_frame) (and after
//! [`new`](Player::new) and [`handle_connected`](Player::handle_connected)) drain
//! [`poll_transmit`](Player::poll_transmit).
//!
//! The core's clock stands still at zero: the load has no clocks to show, keeps no connection
//! alive by pings (its transports do) and never reconnects after a failure (it is an error of
//! the run). A relay cluster's redirect is no failure: the player tells its driver where to
//! connect ([`Heard::Redirected`]), and the core asks again there what was redirected.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use xq_client::{Answer, ClientCore, ClientEvent, ClientOptions, CoreEvent, ReconnectPolicy};
use xq_protocol::{RoomCode, RoomOptions, SeatChoice};
use xq_rules::Color;
use xq_session::{Action, Event, Timestamp};

use crate::script::Script;

/// The core's time, which stands still: see the [module docs](self).
const NOW: Timestamp = Timestamp::from_millis(0);

/// How a player enters its room.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Entry {
    /// Creates a room with the default options, seated as Red.
    Create,
    /// Joins the room with this code.
    Join(RoomCode),
}

/// What a frame told the player's driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Heard {
    /// Nothing the driver waits for.
    Nothing,
    /// Seated in the room; the opponent's seat is still free.
    Seated,
    /// Both seats are taken and a game from the script's start is on.
    Ready,
    /// The next scripted move was played; `last` if it ends the game.
    Moved {
        /// Whether the game-over event follows.
        last: bool,
    },
    /// The game is over and a rematch is asked for.
    GameOver,
    /// A node of a relay cluster sent the player to the room's owner and closed the
    /// connection: connect to one of these URLs (in the owner's order of preference), then
    /// call [`Player::handle_connected`].
    Redirected {
        /// The owner's URLs.
        urls: Vec<String>,
    },
}

/// Where the player stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Hello sent, or the entry request: waiting to be seated.
    Entering,
    /// In the room, waiting for the opponent.
    Waiting,
    /// A game is on.
    Playing,
    /// The game is over, waiting for the rematch.
    Rematching,
}

/// A scripted client: see the [module docs](self).
pub(crate) struct Player {
    core: ClientCore,
    entry: Entry,
    script: Arc<Script>,
    stage: Stage,
    color: Color,
    /// The script's events the relay has sent in the current game.
    heard: usize,
    /// Whether the move the script has next was sent.
    sent: bool,
    /// Where the relay redirected the player, until the core asks for the connection.
    redirect: Option<Vec<String>>,
}

impl Player {
    /// A player that will enter by `entry` and play `script` game after game; its hello is
    /// queued.
    pub(crate) fn new(entry: Entry, script: Arc<Script>) -> Self {
        let mut core = ClientCore::new(ClientOptions {
            name: concat!("xq-load/", env!("CARGO_PKG_VERSION")).to_string(),
            reconnect: ReconnectPolicy {
                period: Duration::ZERO,
                ..ReconnectPolicy::default()
            },
            keepalive: None,
            ..ClientOptions::default()
        });
        core.handle_connected(NOW);
        Self {
            core,
            entry,
            script,
            stage: Stage::Entering,
            color: Color::Red,
            heard: 0,
            sent: false,
            redirect: None,
        }
    }

    /// The driver connected where [`Heard::Redirected`] said: the core says hello again.
    pub(crate) fn handle_connected(&mut self) {
        self.core.handle_connected(NOW);
    }

    /// The room's code, once seated.
    pub(crate) fn room(&self) -> Option<RoomCode> {
        self.core.room().map(|room| room.code)
    }

    /// Whether the script's next move is this player's to send.
    pub(crate) fn is_to_move(&self) -> bool {
        self.stage == Stage::Playing
            && !self.sent
            && matches!(
                self.script.events().get(self.heard),
                Some(&Event::MovePlayed { by, .. }) if by == self.color
            )
    }

    /// The frame of the script's next move, if it is this player's to send.
    ///
    /// # Errors
    ///
    /// Why the core could not send it (it is not connected).
    pub(crate) fn play(&mut self) -> Result<Option<Vec<u8>>> {
        if !self.is_to_move() {
            return Ok(None);
        }
        let Some(&Event::MovePlayed { mv, .. }) = self.script.events().get(self.heard) else {
            return Ok(None);
        };
        self.core.act(Action::Play(mv))?;
        self.sent = true;
        Ok(self.core.poll_transmit())
    }

    /// Takes in a frame from the relay; returns the last thing of note it told.
    ///
    /// # Errors
    ///
    /// A frame that does not decode, a refusal or a disconnect, a room that does not fit the
    /// script, and an event other than the one the script has next.
    pub(crate) fn handle_frame(&mut self, frame: &[u8]) -> Result<Heard> {
        self.core.handle_frame(NOW, frame);
        let mut heard = Heard::Nothing;
        while let Some(event) = self.core.poll_event() {
            match self.take(event)? {
                Heard::Nothing => {}
                news => heard = news,
            }
        }
        Ok(heard)
    }

    /// The next frame to send.
    pub(crate) fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.core.poll_transmit()
    }

    /// Takes in one of the core's events.
    fn take(&mut self, event: CoreEvent) -> Result<Heard> {
        Ok(match event {
            CoreEvent::Answered {
                outcome: Ok(Answer::Welcome),
                ..
            } => {
                match self.entry {
                    Entry::Create => self.core.create(RoomOptions {
                        seat: SeatChoice::Red,
                        ..RoomOptions::default()
                    }),
                    Entry::Join(code) => self.core.join(code),
                }?;
                Heard::Nothing
            }
            CoreEvent::Answered {
                outcome: Ok(Answer::Entered(room)),
                ..
            } => {
                self.color = room.seat.context("seated as a player")?;
                self.begin()?
            }
            CoreEvent::Answered { outcome: Ok(_), .. } => Heard::Nothing,
            CoreEvent::Client(ClientEvent::RematchRequested { .. })
                if self.stage == Stage::Rematching =>
            {
                Heard::Nothing
            }
            CoreEvent::Client(ClientEvent::MatchStarted) if self.stage == Stage::Waiting => {
                self.begin()?
            }
            CoreEvent::Client(ClientEvent::MatchStarted) => Heard::Nothing,
            CoreEvent::Client(ClientEvent::RematchStarted { seat }) => {
                self.color = seat.context("still a player")?;
                self.begin()?
            }
            CoreEvent::Client(ClientEvent::Match { event, .. }) => self.follow(&event)?,
            CoreEvent::Redirected { urls } => {
                self.redirect = Some(urls);
                Heard::Nothing
            }
            // The core asks for a connection only after a redirect: it does not reconnect.
            CoreEvent::Connect => Heard::Redirected {
                urls: self
                    .redirect
                    .take()
                    .context("asked to reconnect with no redirect")?,
            },
            CoreEvent::Answered {
                outcome: Err(error),
                ..
            } => bail!("refused: {error}"),
            other => bail!("unexpected while {:?}: {other:?}", self.stage),
        })
    }

    /// Checks the room's match: a game begins once both seats are taken.
    fn begin(&mut self) -> Result<Heard> {
        let mirror = self.core.mirror().context("a room has a mirror")?;
        ensure!(
            mirror.config() == self.script.config(),
            "the relay plays under other rules than the scripted games"
        );
        ensure!(
            mirror.moves().is_empty() && mirror.status().is_ongoing(),
            "the room is not at the start of a game"
        );
        if !mirror.is_full() {
            self.stage = Stage::Waiting;
            return Ok(Heard::Seated);
        }
        self.stage = Stage::Playing;
        self.heard = 0;
        self.sent = false;
        Ok(Heard::Ready)
    }

    /// Takes in an event of the game, which must be the script's next.
    fn follow(&mut self, event: &Event) -> Result<Heard> {
        let events = self.script.events();
        let expected = events
            .get(self.heard)
            .context("an event after the game's end")?;
        ensure!(
            event == expected,
            "expected {expected:?}, the relay sent {event:?}"
        );
        self.heard += 1;
        self.sent = false;
        if let Event::GameOver(_) = event {
            self.core.rematch()?;
            self.stage = Stage::Rematching;
            return Ok(Heard::GameOver);
        }
        let last = matches!(events.get(self.heard), Some(Event::GameOver(_)));
        Ok(Heard::Moved { last })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use xq_protocol::{ServerMsg, codec};

    use xq_server::{Config, ConnId, Output, RateLimit, Relay};
    use xq_session::Timestamp;
    use xq_transport::Peer;

    use crate::script::Scripts;

    /// Two players and the relay's core, the frames carried between them as a driver would
    /// carry them (no sockets, the clock standing still).
    struct Table {
        relay: Relay,
        players: Vec<(ConnId, Player)>,
    }

    impl Table {
        fn new() -> Self {
            let config = Config {
                // The clock stands still here: no rate limit is reached.
                rate_limit: RateLimit::UNLIMITED,
                ..Config::default()
            };
            Self {
                relay: Relay::new(config, [3; 32]),
                players: Vec::new(),
            }
        }

        /// Connects a new player; it is `self.players[index]`.
        fn connect(&mut self, player: Player) -> usize {
            let conn = ConnId(self.players.len() as u64 + 1);
            let peer = Peer::Memory("mem-client".into());
            self.relay
                .handle_connect(Timestamp::from_millis(0), conn, "mem", &peer);
            self.players.push((conn, player));
            self.players.len() - 1
        }

        /// Sends `frame` from player `index`, then carries frames both ways until none is
        /// left; returns what each player heard, in order, leaving out `Heard::Nothing`.
        fn drive(&mut self, index: usize, frame: Option<Vec<u8>>) -> Result<Vec<Vec<Heard>>> {
            let mut heard = vec![Vec::new(); self.players.len()];
            let (conn, _) = self.players[index];
            if let Some(frame) = frame {
                self.relay
                    .handle_frame(Timestamp::from_millis(0), conn, &frame);
            }
            loop {
                let mut idle = true;
                for (conn, player) in &mut self.players {
                    while let Some(frame) = player.poll_transmit() {
                        idle = false;
                        self.relay
                            .handle_frame(Timestamp::from_millis(0), *conn, &frame);
                    }
                }
                while let Some(output) = self.relay.poll_output() {
                    if let Output::Send { to, frame } = output {
                        idle = false;
                        let index = self
                            .players
                            .iter()
                            .position(|(conn, _)| *conn == to)
                            .context("a frame to a connection nobody has")?;
                        match self.players[index].1.handle_frame(&frame)? {
                            Heard::Nothing => {}
                            other => heard[index].push(other),
                        }
                    }
                }
                if idle {
                    return Ok(heard);
                }
            }
        }
    }

    /// The players greet, seat themselves, replay two scripted games against the relay's
    /// core, each move sent by the side the script names, and rematch with the colours
    /// swapped; the relay ends each game exactly at the script's last move, with the same
    /// events.
    #[test]
    fn players_replay_their_script_against_the_relay() -> Result<()> {
        let scripts = Scripts::new(7)?;
        let script = scripts.pick(0);
        let mut table = Table::new();
        let creator = table.connect(Player::new(Entry::Create, Arc::clone(&script)));
        assert_eq!(table.drive(creator, None)?, [vec![Heard::Seated]]);
        let code = table.players[creator]
            .1
            .room()
            .context("the creator is seated")?;
        let joiner = table.connect(Player::new(Entry::Join(code), Arc::clone(&script)));
        assert_eq!(
            table.drive(joiner, None)?,
            [vec![Heard::Ready], vec![Heard::Ready]]
        );
        for game in 0..2 {
            let mut plies = 0;
            loop {
                let movers: Vec<usize> = (0..2)
                    .filter(|&i| table.players[i].1.is_to_move())
                    .collect();
                let [mover] = movers[..] else {
                    panic!("game {game}, ply {plies}: to move: {movers:?}");
                };
                // Red moves first, and the rematch swaps the colours.
                assert_eq!(mover, (plies + game) % 2);
                let red = plies % 2 == 0;
                assert_eq!(table.players[mover].1.color == Color::Red, red);
                let frame = table.players[mover].1.play()?;
                assert!(table.players[mover].1.play()?.is_none(), "one frame a move");
                let heard = table.drive(mover, frame)?;
                plies += 1;
                let last = plies == script.plies();
                let moved = Heard::Moved { last };
                if last {
                    let over = vec![moved, Heard::GameOver, Heard::Ready];
                    assert_eq!(heard, [over.clone(), over]);
                    break;
                }
                assert_eq!(
                    heard,
                    [vec![moved.clone()], vec![moved]],
                    "game {game}, ply {plies}"
                );
            }
        }
        Ok(())
    }

    /// A node that does not own the room redirects the join: the player hands its driver the
    /// owner's URLs, and once connected there says hello again and, welcomed, asks the same
    /// join under the same request id.
    #[test]
    fn follows_a_redirect_of_its_join() -> Result<()> {
        use xq_protocol::{ClientMsg, PROTOCOL_VERSION, Request};

        let scripts = Scripts::new(7)?;
        let code = RoomCode::from_u64(42);
        let mut player = Player::new(Entry::Join(code), scripts.pick(0));
        let welcome = |player: &mut Player| -> Result<Option<Request>> {
            let hello: Request = codec::decode(&player.poll_transmit().context("a hello")?)?;
            assert!(matches!(hello.msg, ClientMsg::Hello { .. }), "{hello:?}");
            let frame = codec::to_frame(&ServerMsg::Welcome {
                id: hello.id,
                version: PROTOCOL_VERSION,
                server: "node".into(),
            })?;
            assert_eq!(player.handle_frame(&frame)?, Heard::Nothing);
            player
                .poll_transmit()
                .map(|frame| codec::decode(&frame))
                .transpose()
                .map_err(Into::into)
        };
        let join = welcome(&mut player)?.context("the join")?;
        assert!(
            matches!(join.msg, ClientMsg::JoinRoom { code: asked, .. } if asked == code),
            "{join:?}"
        );
        let urls = vec!["udp://127.0.0.1:7002".to_string()];
        let redirect = codec::to_frame(&ServerMsg::Redirect {
            id: join.id,
            urls: urls.clone(),
        })?;
        assert_eq!(player.handle_frame(&redirect)?, Heard::Redirected { urls });
        assert!(
            player.poll_transmit().is_none(),
            "nothing for a closed link"
        );
        player.handle_connected();
        let again = welcome(&mut player)?.context("the join, asked again")?;
        assert_eq!((again.id, again.msg), (join.id, join.msg));
        Ok(())
    }

    /// A move the script does not have is an error, as is a message the conversation has no
    /// place for.
    #[test]
    fn refuses_events_off_the_script() -> Result<()> {
        let scripts = Scripts::new(7)?;
        let mut player = Player::new(Entry::Create, scripts.pick(0));
        player.stage = Stage::Playing;
        let other = scripts.pick(1);
        let event = other
            .events()
            .iter()
            .find(|&event| event != &player.script.events()[0]);
        let frame = codec::to_frame(&ServerMsg::Event {
            seq: 0,
            event: event.context("another first event")?.clone(),
            answers: None,
        })?;
        assert!(player.handle_frame(&frame).is_err());
        let mut fresh = Player::new(Entry::Create, scripts.pick(0));
        let frame = codec::to_frame(&ServerMsg::RematchRequested { by: Color::Red })?;
        assert!(fresh.handle_frame(&frame).is_err());
        assert!(fresh.handle_frame(b"not a frame").is_err());
        Ok(())
    }
}
