//! A local copy of a room's match, kept in step with the relay's numbered events.

use std::time::Duration;

use xq_protocol::{RoomCode, SeatInfo, Snapshot};
use xq_rules::{ByColor, Color, IllegalMove, Move, MoveList, Position};
use xq_session::{Event, GameResult, MatchConfig, Played, Record, Status, UndoRequest, WinReason};

use crate::record;

/// A read-only copy of the match in a room, for drawing a board and deciding what to do next.
///
/// The relay is the only authority; the mirror never decides anything. It is built from a
/// [`Snapshot`] (the moves replayed from the start position) and advanced by the relay's
/// numbered events, following the protocol's numbering rule: it applies exactly the events
/// numbered from [`next_seq`](Self::next_seq) on, in order, ignores the ones it has already
/// seen (a resume may send them again) and refuses to skip one. Legal moves come from
/// `xq-rules`, so no rule is written twice.
///
/// It does no IO and reads no clock: clocks are kept as last reported, with whether the side
/// to move's clock runs, so a UI counts down from the moment it received them
/// ([`clocks_after`](Self::clocks_after)). The end of a game reports no clocks, yet the
/// relay's stop where the game ended; so the caller says when each event arrived, counted from
/// the snapshot, and the end stops the side to move's running clock where it stands on the
/// end's arrival, or at zero if its flag fell, as a snapshot taken after the end shows them.
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
/// use xq_session::{Event, MatchConfig, MoveText, Status};
///
/// let taken = SeatInfo { taken: true, connected: true };
/// let snapshot = Snapshot {
///     code: "K7QX3M".parse()?,
///     config: MatchConfig::default(),
///     moves: vec![],
///     clocks: None,
///     clocks_running: false,
///     pending_undo: None,
///     pending_draw: None,
///     status: Status::Ongoing,
///     seats: ByColor { red: taken, black: taken },
///     rematch_requested: None,
///     next_seq: 0,
/// };
/// let mut mirror = Mirror::from_snapshot(&snapshot)?;
/// let mv = Move::new(Square::H2, Square::E2);
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
    config: MatchConfig,
    /// `positions[n]` is the position after `n` plies; never empty.
    positions: Vec<Position>,
    moves: Vec<Played>,
    /// The legal moves of the current position, empty once the game is over.
    legal: MoveList,
    clocks: Option<ByColor<Duration>>,
    clocks_running: bool,
    /// When `clocks` were reported, counted from the snapshot.
    clocks_reported: Duration,
    pending_undo: Option<UndoRequest>,
    pending_draw: Option<Color>,
    status: Status,
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
    /// A move does not apply to the mirrored position.
    #[error("move {mv} at ply {ply} does not apply: {reason}")]
    IllegalMove {
        /// The ply the move would be (1 for the first move).
        ply: usize,
        /// The move.
        mv: Move,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
    /// A move event names a side that is not to move.
    #[error("{by} moved at ply {ply} out of turn")]
    OutOfTurn {
        /// The side the event names.
        by: Color,
        /// The ply the move would be.
        ply: usize,
    },
    /// A move event counts its plies differently from the mirror.
    #[error("move event says ply {reported}, the mirror is at ply {expected}")]
    PlyMismatch {
        /// The ply the mirror would reach.
        expected: usize,
        /// The ply the event reports.
        reported: usize,
    },
    /// An undo takes back more plies than were played.
    #[error("undo of {plies} plies after only {played}")]
    UndoTooFar {
        /// Plies to take back.
        plies: usize,
        /// Plies played.
        played: usize,
    },
    /// An event arrived after the game was over (game over is always a match's last event).
    #[error("event after the end of the game")]
    AfterGameOver,
}

impl Mirror {
    /// Mirrors a snapshot: replays its moves from its start position and takes the rest as
    /// given.
    ///
    /// # Errors
    ///
    /// [`MirrorError::IllegalMove`] if the snapshot's moves do not replay.
    pub fn from_snapshot(snapshot: &Snapshot) -> Result<Self, MirrorError> {
        let mut mirror = Self {
            code: snapshot.code,
            config: snapshot.config.clone(),
            positions: vec![Position::clone(&snapshot.config.start)],
            moves: Vec::with_capacity(snapshot.moves.len()),
            legal: MoveList::new(),
            clocks: snapshot.clocks,
            clocks_running: snapshot.clocks_running,
            clocks_reported: Duration::ZERO,
            pending_undo: snapshot.pending_undo,
            pending_draw: snapshot.pending_draw,
            status: snapshot.status,
            seats: snapshot.seats,
            rematch_requested: snapshot.rematch_requested,
            next_seq: snapshot.next_seq,
        };
        for &mv in &snapshot.moves {
            mirror.check_move(mirror.turn(), mv)?;
            mirror.push(mv);
        }
        mirror.refresh_legal();
        Ok(mirror)
    }

    /// Applies the relay's event number `seq`, if it is the next one, on its arrival
    /// `since_snapshot` after the snapshot the mirror was built from (on the caller's clock).
    ///
    /// The time matters only to the end of a game, which reports no clocks: the side to
    /// move's running clock stops where it stands at the end's arrival, and the loser's clock
    /// shows zero after a loss on time. (The relay stopped its clock a network delay before
    /// the end arrives, and sent the last report a delay before it arrived: the two cancel.)
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
        if !self.status.is_ongoing() {
            return Err(MirrorError::AfterGameOver);
        }
        self.apply_next(since_snapshot, event)?;
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

    /// The rules the match is played under, its start position included.
    #[must_use]
    pub const fn config(&self) -> &MatchConfig {
        &self.config
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        let last = self.positions.len() - 1;
        // `positions` starts with the start position and undo keeps at least that one.
        &self.positions[last]
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.position().turn()
    }

    /// The moves the side to move may play now: none once the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> &[Move] {
        &self.legal
    }

    /// The moves played so far, in order (taken-back moves are gone).
    #[must_use]
    pub fn moves(&self) -> &[Played] {
        &self.moves
    }

    /// Each side's time as last reported (`None` in an untimed match), or where the clocks
    /// stopped once the game is over.
    #[must_use]
    pub const fn clocks(&self) -> Option<ByColor<Duration>> {
        self.clocks
    }

    /// Whether the side to move's clock is running, i.e. counting down from
    /// [`clocks`](Self::clocks).
    #[must_use]
    pub const fn clocks_running(&self) -> bool {
        self.clocks_running
    }

    /// The clocks `elapsed` after they were last reported: the side to move's running clock
    /// counted down (not below zero), the other as reported.
    #[must_use]
    pub fn clocks_after(&self, elapsed: Duration) -> Option<ByColor<Duration>> {
        let mut clocks = self.clocks?;
        if self.clocks_running {
            let turn = self.turn();
            clocks[turn] = clocks[turn].saturating_sub(elapsed);
        }
        Some(clocks)
    }

    /// The undo request waiting for an answer, if any.
    #[must_use]
    pub const fn pending_undo(&self) -> Option<UndoRequest> {
        self.pending_undo
    }

    /// The side whose draw offer waits for an answer, if any.
    #[must_use]
    pub const fn pending_draw(&self) -> Option<Color> {
        self.pending_draw
    }

    /// Whether the game goes on, and its result if not.
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
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
    /// or a [`xq_session::Replay`]: the start position, the moves played (taken-back moves
    /// are gone) and, once the game is over, its result with the reason, whatever ended it
    /// (the relay's verdicts too: a fallen flag, abandonment by one seat or by both). It is the
    /// record the relay's own match gives. The tags are left empty for the caller to fill in.
    ///
    /// # Examples
    ///
    /// ```
    /// use xq_client::Mirror;
    /// use xq_protocol::{RoomCode, SeatInfo, Snapshot};
    /// use xq_rules::{ByColor, Color, Move, Square};
    /// use xq_session::pgn::{self, MoveFormat};
    /// use xq_session::{GameResult, MatchConfig, Status, WinReason};
    ///
    /// let gone = SeatInfo { taken: true, connected: false };
    /// let result = GameResult::Win { winner: Color::Black, reason: WinReason::Abandonment };
    /// let snapshot = Snapshot {
    ///     code: "K7QX3M".parse()?,
    ///     config: MatchConfig::default(),
    ///     moves: vec![Move::new(Square::H2, Square::E2)],
    ///     clocks: None,
    ///     clocks_running: false,
    ///     pending_undo: None,
    ///     pending_draw: None,
    ///     status: Status::Finished(result),
    ///     seats: ByColor { red: gone, black: gone },
    ///     rematch_requested: None,
    ///     next_seq: 2,
    /// };
    /// let mut record = Mirror::from_snapshot(&snapshot)?.record();
    /// assert_eq!(record.result(), Some(result));
    /// record.tags.site = Some("relay.example".into());
    /// let pgn = pgn::write(&record, MoveFormat::Iccs);
    /// assert!(pgn.contains("[Termination \"abandonment\"]"));
    /// assert!(pgn.contains("1. h2e2 0-1"));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn record(&self) -> Record {
        record::replay(&self.config, &self.moves, self.status.result())
    }

    /// Applies the event that is next in line: checks first, then changes, so a refused event
    /// changes nothing.
    fn apply_next(&mut self, since_snapshot: Duration, event: &Event) -> Result<(), MirrorError> {
        match *event {
            Event::MovePlayed {
                by,
                mv,
                ply,
                clocks,
                ..
            } => {
                self.check_move(by, mv)?;
                let expected = self.moves.len() + 1;
                if ply != expected {
                    return Err(MirrorError::PlyMismatch {
                        expected,
                        reported: ply,
                    });
                }
                self.push(mv);
                self.refresh_legal();
                self.report_clocks(since_snapshot, clocks);
            }
            Event::UndoApplied { plies, clocks, .. } => {
                let played = self.moves.len();
                if plies > played {
                    return Err(MirrorError::UndoTooFar { plies, played });
                }
                self.moves.truncate(played - plies);
                self.positions.truncate(played - plies + 1);
                self.refresh_legal();
                self.report_clocks(since_snapshot, clocks);
                // Granting the request consumes it without a separate event.
                self.pending_undo = None;
            }
            Event::UndoRequested(request) => self.pending_undo = Some(request),
            Event::UndoWithdrawn { .. } | Event::UndoDeclined { .. } | Event::UndoLapsed => {
                self.pending_undo = None;
            }
            Event::DrawOffered { by } => self.pending_draw = Some(by),
            Event::DrawWithdrawn { .. } | Event::DrawDeclined { .. } | Event::DrawLapsed => {
                self.pending_draw = None;
            }
            Event::ClocksPaused { clocks } => {
                self.report_clocks(since_snapshot, Some(clocks));
                self.clocks_running = false;
            }
            Event::ClocksResumed { clocks } => {
                self.report_clocks(since_snapshot, Some(clocks));
                self.clocks_running = true;
            }
            Event::GameOver(result) => {
                self.stop_clocks(since_snapshot, result);
                self.status = Status::Finished(result);
                // An accepted draw ends the game without lapsing the offer first.
                self.pending_draw = None;
                self.pending_undo = None;
                self.legal.clear();
            }
        }
        Ok(())
    }

    /// Checks that `by` may play `mv` in the current position.
    fn check_move(&self, by: Color, mv: Move) -> Result<(), MirrorError> {
        let pos = self.position();
        let ply = self.moves.len() + 1;
        if by != pos.turn() {
            return Err(MirrorError::OutOfTurn { by, ply });
        }
        pos.check_move(mv)
            .map_err(|reason| MirrorError::IllegalMove { ply, mv, reason })
    }

    /// Plays `mv`, which [`check_move`](Self::check_move) accepted.
    fn push(&mut self, mv: Move) {
        let mut pos = self.position().clone();
        let by = pos.turn();
        let captured = pos.play_unchecked(mv);
        self.moves.push(Played {
            by,
            mv,
            captured,
            gives_check: pos.is_check(),
        });
        self.positions.push(pos);
    }

    fn refresh_legal(&mut self) {
        self.legal = if self.status.is_ongoing() {
            self.position().legal_moves()
        } else {
            MoveList::new()
        };
    }

    /// Takes the clocks an event reported `since_snapshot` (none in an untimed match).
    fn report_clocks(&mut self, since_snapshot: Duration, clocks: Option<ByColor<Duration>>) {
        if clocks.is_some() {
            self.clocks = clocks;
            self.clocks_reported = since_snapshot;
        }
    }

    /// Stops the clocks for the end of the game, which arrived `since_snapshot` with this
    /// `result`: the side to move's running clock where it stands then, and at zero if its
    /// flag fell.
    fn stop_clocks(&mut self, since_snapshot: Duration, result: GameResult) {
        self.clocks = self.clocks_after(since_snapshot.saturating_sub(self.clocks_reported));
        if let (
            Some(clocks),
            GameResult::Win {
                winner,
                reason: WinReason::TimeForfeit,
            },
        ) = (&mut self.clocks, result)
        {
            clocks[!winner] = Duration::ZERO;
        }
        self.clocks_running = false;
    }
}
