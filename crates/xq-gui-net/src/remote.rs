//! A game on a relay: the [`GameBackend`] over `xq_client`.

mod worker;

use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use tokio::sync::mpsc;
use xq_client::{Client, ClientEvent, Mirror, Room};
use xq_protocol::RoomCode;
use xq_rules::{ByColor, Color, Position};
use xq_session::{Command, CommandError, Record, RematchError, Status, Timestamp, UndoRequest};

use self::worker::{Report, Request};
use xq_gui_model::{BackendError, GameBackend, Presence, Update};

pub use self::worker::Wake;

/// A game in a room on a relay, played (or watched) from this screen.
///
/// The relay decides everything: the game shown is the client's [`Mirror`], commands go to
/// the relay as they are, and what the buttons may do (the Rematch button too) is read off the
/// mirror's state (seat, connection, status, turn and legal moves, pending requests), never
/// worked out by rules of its own; a command or rematch that the mirror shows would be refused
/// is refused at once, unsent. The relay's other refusals come back as [`Update::Refused`].
///
/// The [`Client`] lives in a task on the [`crate::Network`]'s runtime; this side only sends on
/// a channel and polls one, so the GUI's frame never waits for the network. Each report from
/// the task also calls the [`Wake`] given at connection, so an idle window redraws when the
/// opponent moves. Dropping the game leaves the room and closes the connection.
pub struct RemoteGame {
    mirror: Mirror,
    /// The mirror's record, taken again each time its moves or status change: it is rebuilt
    /// by replaying the game, so not on every frame.
    record: Record,
    seat: Option<Color>,
    link: Link,
    /// When the mirror's clocks were last reported, for counting down from them. The mirror
    /// the room was entered with arrived before the first poll, which is as soon as this
    /// screen can tell the time; `None` until then.
    clocks_since: Option<Timestamp>,
    requests: mpsc::UnboundedSender<Request>,
    reports: std_mpsc::Receiver<Report>,
}

/// The state of this screen's connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Up,
    Reconnecting,
    Closed,
}

impl RemoteGame {
    /// Takes over a client that has entered `room`: spawns its task on the current tokio
    /// runtime. `None` if the client has no mirror, i.e. is in no room.
    pub(crate) fn start(client: Client, room: Room, wake: Wake) -> Option<Self> {
        let mirror = client.mirror()?;
        let (requests, requests_out) = mpsc::unbounded_channel();
        let (reports_in, reports) = std_mpsc::channel();
        tokio::spawn(worker::run(client, requests_out, reports_in, wake));
        Some(Self {
            record: mirror.record(),
            mirror,
            seat: room.seat,
            link: Link::Up,
            clocks_since: None,
            requests,
            reports,
        })
    }

    /// The room's join code, to give to the opponent or to spectators.
    #[must_use]
    pub fn code(&self) -> RoomCode {
        self.mirror.code()
    }

    /// The colour played from this screen; `None` when watching.
    #[must_use]
    pub const fn seat(&self) -> Option<Color> {
        self.seat
    }

    /// Takes in one report from the client's task: the new mirror, and what to tell the view.
    fn take_in(&mut self, now: Timestamp, report: Report) -> Option<Update> {
        let event = match report {
            Report::Failed(error) => return Some(Update::Refused(error.to_string())),
            Report::Event(event, mirror) => {
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
                self.link = Link::Reconnecting;
                Update::Reconnecting(cause.to_string())
            }
            ClientEvent::Reconnected => {
                self.link = Link::Up;
                Update::Reconnected
            }
            ClientEvent::Disconnected { cause } => {
                self.link = Link::Closed;
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
        match self.link {
            Link::Reconnecting => Presence::Reconnecting,
            Link::Closed => Presence::Offline,
            Link::Up if !self.mirror.is_full() => Presence::Waiting,
            // A player watches its opponent's connection, a spectator both players'.
            Link::Up => [Color::Red, Color::Black]
                .into_iter()
                .filter(|&color| Some(color) != self.seat)
                .find(|&color| !seats[color].connected)
                .map_or(Presence::Connected, Presence::Away),
        }
    }

    /// Hands a request to the client's task; fails once the task has ended.
    fn request(&self, request: Request) -> Result<(), BackendError> {
        self.requests
            .send(request)
            .map_err(|_| BackendError::Offline)
    }
}

impl GameBackend for RemoteGame {
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
        self.request(Request::Act(action))
    }

    fn poll_event(&mut self, now: Timestamp) -> Option<Update> {
        self.clocks_since.get_or_insert(now);
        while let Ok(report) = self.reports.try_recv() {
            if let Some(update) = self.take_in(now, report) {
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
        self.request(Request::Rematch)
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
