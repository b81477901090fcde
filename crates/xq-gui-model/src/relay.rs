//! A game on a relay, whatever carries its messages: the pure half that the desktop's network
//! game (`xq-gui-net`, over tokio) and the browser's (`xq-gui-web`, over a WebSocket) share.

use std::time::Duration;

use xq_client::{ClientError, ClientEvent, Mirror};
use xq_protocol::RoomCode;
use xq_rules::{ByColor, Color, Position};
use xq_session::{
    Action, Command, CommandError, Record, RematchError, Status, Timestamp, UndoRequest,
};

use crate::{BackendError, GameBackend, Presence, Update};

/// The IO half of a [`RelayGame`]: carries this screen's requests to the game's client and
/// brings back the client's news. It decides nothing; the [`RelayGame`] has checked each
/// request against the mirror before it gets here.
pub trait RelayLink {
    /// Sends an action of this screen's seat.
    ///
    /// # Errors
    ///
    /// [`BackendError::Offline`] when nothing can carry it (the connection is down or closed).
    fn act(&mut self, action: Action) -> Result<(), BackendError>;

    /// Asks for a rematch (or agrees to the opponent's request).
    ///
    /// # Errors
    ///
    /// As [`act`](Self::act).
    fn rematch(&mut self) -> Result<(), BackendError>;

    /// The client's next news, oldest first; `None` when nothing new has arrived.
    fn poll(&mut self) -> Option<RelayNews>;
}

/// What a game's client reports to its [`RelayGame`].
#[derive(Debug)]
pub enum RelayNews {
    /// The client's next event, with the mirror as it stands once that event was applied
    /// (`None`: the client is in no room any more). Boxed: a mirror is large next to an error.
    Event(ClientEvent, Option<Box<Mirror>>),
    /// A request could not be sent or was not answered.
    Failed(ClientError),
}

/// A game in a room on a relay, played (or watched) from this screen, as a [`GameBackend`]
/// over any [`RelayLink`].
///
/// The relay decides everything: the game shown is the client's [`Mirror`], commands go to
/// the relay as they are, and what the buttons may do (the Rematch button too) is read off the
/// mirror's state (seat, connection, status, turn and legal moves, pending requests), never
/// worked out by rules of its own; a command or rematch that the mirror shows would be refused
/// is refused at once, unsent. The relay's other refusals come back as [`Update::Refused`].
pub struct RelayGame<L> {
    mirror: Mirror,
    /// The mirror's record, taken again each time its moves or status change: it is rebuilt
    /// by replaying the game, so not on every frame.
    record: Record,
    seat: Option<Color>,
    state: LinkState,
    /// When the mirror's clocks were last reported, for counting down from them. The mirror
    /// the room was entered with arrived before the first poll, which is as soon as this
    /// screen can tell the time; `None` until then.
    clocks_since: Option<Timestamp>,
    link: L,
}

/// The state of this screen's connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LinkState {
    Up,
    Reconnecting,
    Closed,
}

impl<L: RelayLink> RelayGame<L> {
    /// A game in the room `mirror` shows, played at `seat` (`None`: watched), whose client's
    /// requests and news go through `link`.
    #[must_use]
    pub fn new(mirror: Mirror, seat: Option<Color>, link: L) -> Self {
        Self {
            record: mirror.record(),
            mirror,
            seat,
            state: LinkState::Up,
            clocks_since: None,
            link,
        }
    }

    /// The room's join code, to give to the opponent or to spectators.
    #[must_use]
    pub const fn code(&self) -> RoomCode {
        self.mirror.code()
    }

    /// The colour played from this screen; `None` when watching.
    #[must_use]
    pub const fn seat(&self) -> Option<Color> {
        self.seat
    }

    /// Takes in one piece of news from the client: the new mirror, and what to tell the view.
    fn take_in(&mut self, now: Timestamp, news: RelayNews) -> Option<Update> {
        let event = match news {
            RelayNews::Failed(error) => return Some(Update::Refused(error.to_string())),
            RelayNews::Event(event, mirror) => {
                if let Some(mirror) = mirror {
                    self.set_mirror(now, *mirror);
                }
                event
            }
        };
        Some(match event {
            ClientEvent::Match { event, .. } => Update::Game(event),
            ClientEvent::MatchStarted => Update::Started,
            ClientEvent::RematchStarted { seat } => {
                self.seat = seat;
                Update::Rematch
            }
            ClientEvent::RematchRequested { by } => Update::RematchRequested { by },
            ClientEvent::Presence { seat, connected } => Update::Presence { seat, connected },
            ClientEvent::Rejected { message, .. } => Update::Refused(message),
            ClientEvent::Reconnecting { cause } => {
                self.state = LinkState::Reconnecting;
                Update::Reconnecting(cause.to_string())
            }
            ClientEvent::Reconnected => {
                self.state = LinkState::Up;
                Update::Reconnected
            }
            ClientEvent::Disconnected { cause } => {
                self.state = LinkState::Closed;
                Update::Disconnected(cause.to_string())
            }
            // Quick match's queueing is over once a game exists; later kinds are not shown.
            _ => return None,
        })
    }

    /// Replaces the mirror, restarting the clocks' count-down when the relay reported them
    /// anew (or a new game began), and stopping them where they stand at `now` when it stopped
    /// them without new values.
    fn set_mirror(&mut self, now: Timestamp, mirror: Mirror) {
        let old = &self.mirror;
        // A mirror that stops its clocks (a pause, the end) stops them where they stood then,
        // so any change is a new report to count from.
        if mirror.clocks_after(Duration::ZERO) != old.clocks_after(Duration::ZERO)
            || mirror.moves().len() != old.moves().len()
            || mirror.clocks_running() != old.clocks_running()
            || mirror.status() != old.status()
        {
            self.clocks_since = Some(now);
        }
        if mirror.moves() != self.mirror.moves() || mirror.status() != self.mirror.status() {
            self.record = mirror.record();
        }
        self.mirror = mirror;
    }

    /// Who is connected: always known for a game on a relay.
    fn connection(&self) -> Presence {
        let seats = self.mirror.seats();
        match self.state {
            LinkState::Reconnecting => Presence::Reconnecting,
            LinkState::Closed => Presence::Offline,
            LinkState::Up if !self.mirror.is_full() => Presence::Waiting,
            // A player watches its opponent's connection, a spectator both players'.
            LinkState::Up => [Color::Red, Color::Black]
                .into_iter()
                .filter(|&color| Some(color) != self.seat)
                .find(|&color| !seats[color].connected)
                .map_or(Presence::Connected, Presence::Away),
        }
    }
}

impl<L: RelayLink> GameBackend for RelayGame<L> {
    fn seats(&self) -> ByColor<bool> {
        ByColor {
            red: self.seat == Some(Color::Red),
            black: self.seat == Some(Color::Black),
        }
    }

    fn position(&self) -> &Position {
        self.mirror.position()
    }

    fn status(&self) -> Status {
        self.mirror.status()
    }

    fn pending_undo(&self) -> Option<UndoRequest> {
        self.mirror.pending_undo()
    }

    fn pending_draw(&self) -> Option<Color> {
        self.mirror.pending_draw()
    }

    fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        let since = self.clocks_since.unwrap_or(now);
        self.mirror
            .clocks_after(now.saturating_duration_since(since))
    }

    fn record(&self) -> Record {
        self.record.clone()
    }

    /// The seat and the connection first, then the match's own check on the mirrored state
    /// ([`xq_session::MatchState::check`]), which refuses what the relay's match would.
    fn check(&self, _now: Timestamp, command: Command) -> Result<(), BackendError> {
        let Command::Act { by, action } = command else {
            return Err(BackendError::Reserved);
        };
        if self.seat != Some(by) {
            return Err(BackendError::NotYourSeat);
        }
        if !self.mirror.status().is_ongoing() {
            return Err(CommandError::GameFinished.into());
        }
        reachable(self.connection())?;
        Ok(self.mirror.state().check(by, action)?)
    }

    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        self.check(now, command)?;
        let Command::Act { action, .. } = command else {
            return Err(BackendError::Reserved);
        };
        self.link.act(action)
    }

    fn poll_event(&mut self, now: Timestamp) -> Option<Update> {
        self.clocks_since.get_or_insert(now);
        while let Some(news) = self.link.poll() {
            if let Some(update) = self.take_in(now, news) {
                return Some(update);
            }
        }
        None
    }

    fn presence(&self) -> Option<Presence> {
        Some(self.connection())
    }

    fn check_rematch(&self) -> Result<(), BackendError> {
        if self.seat.is_none() {
            return Err(BackendError::NotYourSeat);
        }
        if self.mirror.status().is_ongoing() {
            return Err(RematchError::Ongoing.into());
        }
        reachable(self.connection())
    }

    fn rematch(&mut self, _now: Timestamp) -> Result<(), BackendError> {
        self.check_rematch()?;
        self.link.rematch()
    }
}

/// Whether a connection in `presence` can carry a player's action now.
fn reachable(presence: Presence) -> Result<(), BackendError> {
    match presence {
        Presence::Waiting => Err(BackendError::NoOpponentYet),
        Presence::Reconnecting | Presence::Offline => Err(BackendError::Offline),
        Presence::Connected | Presence::Away(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests;
