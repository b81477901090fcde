//! A room as its client sees it: the match followed through the relay's numbered events, and
//! who sits where.

use std::time::Duration;

use xq_protocol::{RoomCode, SeatInfo, Snapshot};
use xq_rules::{ByColor, Color, Move, MoveList, Position};
use xq_session::{
    Event, FollowError, MatchConfig, MatchState, Played, Record, Status, Timestamp, UndoRequest,
};

/// A read-only copy of a room, for drawing a board and deciding what to do next: the match
/// as a [`MatchState`], the session's own follower, and the room's seats.
///
/// The relay is the only authority; the mirror never decides anything. It is built from a
/// [`Snapshot`] and advanced by the relay's numbered events, following the protocol's
/// numbering rule: it applies exactly the events numbered from [`next_seq`](Self::next_seq)
/// on, in order, ignores the ones it has already seen (a resume may send them again) and
/// refuses to skip one. The match's state changes by the session's own code
/// ([`MatchState::apply`]), and [`state`](Self::state)`.check(..)` refuses an action as the
/// relay's match will, so no rule is written twice.
///
/// It does no IO and reads no clock: the caller says when each event arrived, counted from
/// the snapshot, and the side to move's clock counts down from its last report
/// ([`clocks`](Self::clocks), [`clocks_after`](Self::clocks_after)).
///
/// # Inputs
///
/// - [`Mirror::from_snapshot`] on join, resume and (re)start of a match;
/// - [`apply`](Self::apply) for every `ServerMsg::Event`, with the time since the snapshot;
/// - [`set_presence`](Self::set_presence) for `ServerMsg::Presence`;
/// - [`note_rematch_request`](Self::note_rematch_request) for `ServerMsg::RematchRequested`.
///
/// A refused input leaves the mirror unchanged.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// use xq_client::{Applied, Mirror};
/// use xq_protocol::{RoomCode, SeatInfo, Snapshot};
/// use xq_rules::{ByColor, Color, Move, Position, Square};
/// use xq_session::{Action, CommandError, Event, Match, MatchConfig, MoveText, Timestamp};
///
/// let taken = SeatInfo { taken: true, connected: true };
/// let game = Match::new(MatchConfig::default(), Timestamp::from_millis(0));
/// let seats = ByColor { red: taken, black: taken };
/// let snapshot = Snapshot::new("K7QX3M".parse()?, game.standing(Timestamp::from_millis(0)), seats, None, 0);
/// let mut mirror = Mirror::from_snapshot(&snapshot)?;
///
/// let mv = Move::new(Square::H2, Square::E2);
/// // Black may not play it: the mirror says so before anything is sent.
/// assert_eq!(mirror.state().check(Color::Black, Action::Play(mv)), Err(CommandError::NotYourTurn));
/// let event = Event::MovePlayed {
///     by: Color::Red,
///     mv,
///     text: MoveText::new(mirror.position(), mv),
///     captured: None,
///     gives_check: false,
///     ply: 1,
///     clocks: None,
/// };
/// let after = Duration::from_millis(1_500); // since the snapshot arrived
/// assert_eq!(mirror.apply(after, 0, &event)?, Applied::New);
/// assert_eq!(mirror.apply(after, 0, &event)?, Applied::AlreadySeen);
/// assert_eq!(mirror.turn(), Color::Black);
/// assert_eq!(mirror.position(), &Position::startpos().play(mv)?);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirror {
    code: RoomCode,
    state: MatchState,
    /// The legal moves of the current position, empty once the game is over.
    legal: MoveList,
    seats: ByColor<SeatInfo>,
    rematch_requested: Option<Color>,
    next_seq: u64,
}

/// What [`Mirror::apply`] did with an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The event was new and the mirror has applied it: pass it on.
    New,
    /// The mirror had already seen this event (it was sent again after a resume): drop it.
    AlreadySeen,
}

/// Why the mirror refused an input: the relay and the mirror disagree, so the mirror needs a
/// fresh snapshot. The mirror is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MirrorError {
    /// An event is missing: the mirror expected `expected` and received a later number.
    #[error("event {received} arrived before event {expected}")]
    Gap {
        /// The number the mirror waits for.
        expected: u64,
        /// The number that arrived.
        received: u64,
    },
    /// The snapshot or the event does not fit the match as followed.
    #[error(transparent)]
    Follow(#[from] FollowError),
}

impl Mirror {
    /// Mirrors a snapshot: follows the match from its standing, and takes the room's seats as
    /// given.
    ///
    /// # Errors
    ///
    /// [`MirrorError::Follow`] if the snapshot does not describe a match (its moves do not
    /// replay, say).
    pub fn from_snapshot(snapshot: &Snapshot) -> Result<Self, MirrorError> {
        let state = MatchState::follow(&snapshot.standing(), Timestamp::from_millis(0))?;
        let mut mirror = Self {
            code: snapshot.code,
            state,
            legal: MoveList::new(),
            seats: snapshot.seats,
            rematch_requested: snapshot.rematch_requested,
            next_seq: snapshot.next_seq,
        };
        mirror.refresh_legal();
        Ok(mirror)
    }

    /// Applies the relay's event number `seq`, if it is the next one, on its arrival
    /// `since_snapshot` after the snapshot the mirror was built from (on the caller's clock).
    ///
    /// The time matters to the clocks: a report counts down from its arrival, and the end of
    /// a game stops the side to move's running clock where it stands then (at zero after a
    /// loss on time). (The relay stopped its clock a network delay before the end arrives,
    /// and sent the last report a delay before it arrived: the two cancel.)
    ///
    /// # Errors
    ///
    /// [`MirrorError::Gap`] if events before `seq` are missing; otherwise the error saying why
    /// the event does not fit the mirrored match. Either way the mirror is unchanged.
    pub fn apply(
        &mut self,
        since_snapshot: Duration,
        seq: u64,
        event: &Event,
    ) -> Result<Applied, MirrorError> {
        if seq < self.next_seq {
            return Ok(Applied::AlreadySeen);
        }
        if seq > self.next_seq {
            return Err(MirrorError::Gap {
                expected: self.next_seq,
                received: seq,
            });
        }
        self.state.apply(at(since_snapshot), event)?;
        if matches!(
            event,
            Event::MovePlayed { .. } | Event::UndoApplied { .. } | Event::GameOver(_)
        ) {
            self.refresh_legal();
        }
        self.next_seq += 1;
        Ok(Applied::New)
    }

    /// Records that `seat`'s player lost or regained its connection.
    pub fn set_presence(&mut self, seat: Color, connected: bool) {
        let info = &mut self.seats[seat];
        info.connected = connected;
        info.taken |= connected;
    }

    /// Records that `by` asked for a rematch.
    pub fn note_rematch_request(&mut self, by: Color) {
        self.rematch_requested = Some(by);
    }

    /// The room's join code.
    #[must_use]
    pub const fn code(&self) -> RoomCode {
        self.code
    }

    /// The match as the session's follower holds it, with the checks an action must pass
    /// ([`MatchState::check`]).
    #[must_use]
    pub const fn state(&self) -> &MatchState {
        &self.state
    }

    /// The rules the match is played under: [`MatchState::config`].
    #[must_use]
    pub const fn config(&self) -> &MatchConfig {
        self.state.config()
    }

    /// The current position: [`MatchState::position`].
    #[must_use]
    pub fn position(&self) -> &Position {
        self.state.position()
    }

    /// The side to move: [`MatchState::turn`].
    #[must_use]
    pub fn turn(&self) -> Color {
        self.state.turn()
    }

    /// The moves the side to move may play now: none once the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal
    }

    /// The moves played so far: [`MatchState::moves`].
    #[must_use]
    pub fn moves(&self) -> &[Played] {
        self.state.moves()
    }

    /// Each side's time `since_snapshot` after the snapshot arrived, the side to move's
    /// counted down from its last report if its clock runs (`None` in an untimed match), or
    /// where the clocks stopped once the game is over.
    #[must_use]
    pub fn clocks(&self, since_snapshot: Duration) -> Option<ByColor<Duration>> {
        self.state.clocks(at(since_snapshot))
    }

    /// Each side's time `elapsed` after the clocks were last reported: the side to move's
    /// running clock counted down (not below zero), the other as reported. With no time
    /// elapsed, the clocks as last reported, or where they stopped.
    #[must_use]
    pub fn clocks_after(&self, elapsed: Duration) -> Option<ByColor<Duration>> {
        let report = self.state.clock_started().unwrap_or_default();
        self.state.clocks(report + elapsed)
    }

    /// Whether the side to move's clock is running: [`MatchState::clocks_running`].
    #[must_use]
    pub fn clocks_running(&self) -> bool {
        self.state.clocks_running()
    }

    /// The undo request waiting for an answer: [`MatchState::pending_undo`].
    #[must_use]
    pub const fn pending_undo(&self) -> Option<UndoRequest> {
        self.state.pending_undo()
    }

    /// The side whose draw offer waits for an answer: [`MatchState::pending_draw`].
    #[must_use]
    pub const fn pending_draw(&self) -> Option<Color> {
        self.state.pending_draw()
    }

    /// Whether the game goes on, and its result if not: [`MatchState::status`].
    #[must_use]
    pub const fn status(&self) -> Status {
        self.state.status()
    }

    /// Who sits where, and who is connected.
    #[must_use]
    pub const fn seats(&self) -> ByColor<SeatInfo> {
        self.seats
    }

    /// Whether both seats are taken, so moves can be played.
    #[must_use]
    pub const fn is_full(&self) -> bool {
        self.seats.red.taken && self.seats.black.taken
    }

    /// The side that has asked for a rematch, if one has.
    #[must_use]
    pub const fn rematch_requested(&self) -> Option<Color> {
        self.rematch_requested
    }

    /// The number of the next event the mirror will apply.
    #[must_use]
    pub const fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The game so far as a record, for a move list, a PGN file ([`xq_session::pgn::write`])
    /// or a [`xq_session::Replay`]: [`MatchState::record`], the record the relay's own match
    /// gives, whatever ended the game (the relay's verdicts too: a fallen flag, abandonment by
    /// one seat or by both). The tags are left empty for the caller to fill in.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_client::Mirror;
    /// use xq_protocol::{SeatInfo, Snapshot};
    /// use xq_rules::{ByColor, Color, Move, Square};
    /// use xq_session::pgn::{self, MoveFormat};
    /// use xq_session::{Action, Command, GameResult, Match, MatchConfig, Timestamp, WinReason};
    ///
    /// let now = Timestamp::from_millis(0);
    /// let mut game = Match::new(MatchConfig::default(), now);
    /// game.handle(now, Action::Play(Move::new(Square::H2, Square::E2)).by(Color::Red))?;
    /// game.handle(now, Command::Abandon { by: Color::Red })?;
    /// let gone = SeatInfo { taken: true, connected: false };
    /// let seats = ByColor { red: gone, black: gone };
    /// let snapshot = Snapshot::new("K7QX3M".parse()?, game.standing(now), seats, None, 2);
    /// let mut record = Mirror::from_snapshot(&snapshot)?.record();
    /// let result = GameResult::Win { winner: Color::Black, reason: WinReason::Abandonment };
    /// assert_eq!(record.result(), Some(result));
    /// record.tags.site = Some("relay.example".into());
    /// let pgn = pgn::write(&record, MoveFormat::Iccs);
    /// assert!(pgn.contains("[Termination \"abandonment\"]"));
    /// assert!(pgn.contains("1. h2e2 0-1"));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn record(&self) -> Record {
        self.state.record()
    }

    fn refresh_legal(&mut self) {
        self.legal = if self.status().is_ongoing() {
            self.position().legal_moves()
        } else {
            MoveList::new()
        };
    }
}

/// The follower's timestamp of a moment `since_snapshot` after the snapshot arrived.
fn at(since_snapshot: Duration) -> Timestamp {
    Timestamp::from_millis(u64::try_from(since_snapshot.as_millis()).unwrap_or(u64::MAX))
}
