//! The driver's conversation with one engine as a state machine, with no IO and no clock.

use std::collections::VecDeque;
use std::time::Duration;

use xq_rules::{Move, Position};

use crate::{
    Command, Dialect, DriverError, DriverOptions, EngineMessage, Go, IdField, Info, MoveRefusal,
    OptionDecl, OptionKind, Start, replay,
};

/// An engine's side of the UCI conversation, in [quinn-proto]'s shape: lines in, lines out,
/// deadlines as values. [`crate::Engine`] drives it over a child process; a test (or another
/// transport) can drive it by hand.
///
/// - **Inputs**: [`handle_line`](Self::handle_line) for each line the engine prints,
///   [`handle_timeout`](Self::handle_timeout) when [`poll_timeout`](Self::poll_timeout)'s time
///   comes, [`handle_exit`](Self::handle_exit) when the engine's output closes, and the
///   requests [`new_game`](Self::new_game), [`go`](Self::go) and [`quit`](Self::quit). Time
///   is a [`Duration`] since an origin of the driver's choosing.
/// - **Outputs**: [`poll_transmit`](Self::poll_transmit) gives lines to write to the engine,
///   in order and without line endings; [`poll_event`](Self::poll_event) gives the answers
///   ([`CoreEvent`]).
///
/// **Calling order**: after every input, write every transmit, handle every event, then
/// re-arm the timer from `poll_timeout`. After [`CoreEvent::Failed`] with
/// [`DriverError::Hung`], kill the process: the core has given up on it.
///
/// [`new`](Self::new) starts the handshake (`uci`); the first [`CoreEvent::Ready`] ends it,
/// and requests are taken one at a time from then on, each ending in one event.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use xq_rules::Position;
/// use xq_uci::{CoreEvent, Dialect, DriverOptions, EngineCore, Go};
///
/// let t0 = Duration::ZERO;
/// let mut core = EngineCore::new(t0, DriverOptions::default());
/// assert_eq!(core.poll_transmit().as_deref(), Some("uci"));
/// for line in ["id name Toy", "uciok"] {
///     core.handle_line(t0, line);
/// }
/// assert_eq!(core.poll_transmit().as_deref(), Some("isready"));
/// core.handle_line(t0, "readyok");
/// assert!(matches!(core.poll_event(), Some(CoreEvent::Ready)));
/// assert_eq!((core.name(), core.dialect()), (Some("Toy"), Dialect::Iccs));
///
/// let go = Go { depth: Some(1), ..Go::default() };
/// core.go(t0, &Position::startpos(), &[], &go, Duration::from_secs(1))?;
/// assert_eq!(core.poll_transmit().as_deref(), Some("position startpos"));
/// assert_eq!(core.poll_transmit().as_deref(), Some("go depth 1"));
/// core.handle_line(t0, "bestmove h2e2");
/// let Some(CoreEvent::BestMove(reply)) = core.poll_event() else { unreachable!() };
/// assert_eq!(reply.best.to_string(), "h2e2");
/// # Ok::<_, xq_uci::DriverError>(())
/// ```
///
/// [quinn-proto]: https://docs.rs/quinn-proto
#[derive(Debug)]
pub struct EngineCore {
    options: DriverOptions,
    phase: Phase,
    dialect: Dialect,
    name: Option<String>,
    author: Option<String>,
    declared: Vec<OptionDecl>,
    transmits: VecDeque<String>,
    events: VecDeque<CoreEvent>,
    deadline: Option<Duration>,
}

/// What the core reports.
#[derive(Debug)]
pub enum CoreEvent {
    /// The handshake, or a [`EngineCore::new_game`], is done: the engine answered `readyok`.
    Ready,
    /// A search ended with a legal move.
    BestMove(Reply),
    /// A request failed; see [`DriverError`] for what state that leaves the engine in.
    Failed(DriverError),
}

/// An engine's answer to a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The move it plays, legal in the position.
    pub best: Move,
    /// The reply it expects, if it named one that is legal after `best`.
    pub ponder: Option<Move>,
    /// The last `info` with a score (of the first line, in a multi-PV search).
    pub info: Option<Info>,
}

#[derive(Debug)]
enum Phase {
    /// `uci` sent, waiting for `uciok`.
    Handshake,
    /// `isready` sent, waiting for `readyok`.
    Syncing,
    Idle,
    Searching(Box<Search>),
    /// Failed or told to quit.
    Closed,
}

#[derive(Debug)]
struct Search {
    position: Position,
    info: Option<Info>,
    /// `stop` sent: the deadline is the grace period's end.
    stopping: bool,
}

impl EngineCore {
    /// A core that starts the handshake: its first transmit is `uci`.
    #[must_use]
    pub fn new(now: Duration, options: DriverOptions) -> Self {
        let deadline = Some(now + options.handshake_timeout);
        Self {
            options,
            phase: Phase::Handshake,
            dialect: Dialect::Iccs,
            name: None,
            author: None,
            declared: Vec::new(),
            transmits: VecDeque::from(["uci".to_owned()]),
            events: VecDeque::new(),
            deadline,
        }
    }

    /// The engine's `id name`, once the handshake has it.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The engine's `id author`.
    #[must_use]
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }

    /// The dialect the engine speaks: configured, or detected at `uciok`.
    #[must_use]
    pub const fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The options the engine declared in its handshake (lines that did not parse are left
    /// out).
    #[must_use]
    pub fn declared(&self) -> &[OptionDecl] {
        &self.declared
    }

    /// Whether the core takes a request now: the handshake is done and nothing is under way.
    #[must_use]
    pub const fn is_idle(&self) -> bool {
        matches!(self.phase, Phase::Idle)
    }

    /// Whether the engine failed or was told to quit.
    #[must_use]
    pub const fn is_closed(&self) -> bool {
        matches!(self.phase, Phase::Closed)
    }

    /// Starts a new game: `ucinewgame`, then `isready`; ends in [`CoreEvent::Ready`].
    ///
    /// # Errors
    ///
    /// [`DriverError::Busy`] or [`DriverError::Closed`] if the core is not idle.
    pub fn new_game(&mut self, now: Duration) -> Result<(), DriverError> {
        self.check_idle()?;
        self.send(&Command::UciNewGame);
        self.sync(now);
        Ok(())
    }

    /// Searches the position reached from `start` by `moves`, ending in
    /// [`CoreEvent::BestMove`] or [`CoreEvent::Failed`]. At `now + deadline` the core sends
    /// `stop` (so a `go infinite` is a search of `deadline`); an engine that has not answered
    /// `grace` later is hung.
    ///
    /// # Errors
    ///
    /// Nothing is sent on an error: [`DriverError::BadHistory`] if a move is illegal,
    /// [`DriverError::NoLegalMoves`] if the game is over, [`DriverError::Busy`] or
    /// [`DriverError::Closed`] if the core is not idle.
    pub fn go(
        &mut self,
        now: Duration,
        start: &Position,
        moves: &[Move],
        go: &Go,
        deadline: Duration,
    ) -> Result<(), DriverError> {
        self.check_idle()?;
        let position = replay(start, moves)?;
        if !position.has_legal_move() {
            return Err(DriverError::NoLegalMoves);
        }
        self.send(&Command::Position {
            start: Start::from_position(start),
            moves: moves.to_vec(),
        });
        self.send(&Command::Go(go.clone()));
        self.phase = Phase::Searching(Box::new(Search {
            position,
            info: None,
            stopping: false,
        }));
        self.deadline = Some(now + deadline);
        Ok(())
    }

    /// Tells the engine to quit (`quit`). The core is closed from then on; the driver waits
    /// for the process to exit, and kills it if it does not.
    pub fn quit(&mut self) {
        if !self.is_closed() {
            self.send(&Command::Quit);
            self.close();
        }
    }

    /// Takes one line the engine printed (without its line ending). Lines that do not parse
    /// are logged and ignored, except a malformed `bestmove` in a search, which is an
    /// illegal move.
    pub fn handle_line(&mut self, now: Duration, line: &str) {
        tracing::trace!(engine = self.label(), "<- {line}");
        match EngineMessage::parse(line, self.dialect) {
            Ok(msg) => self.handle_message(now, msg),
            Err(err) => {
                if matches!(self.phase, Phase::Searching(_)) {
                    let mut tokens = line.split_ascii_whitespace();
                    if tokens.any(|t| t == "bestmove") {
                        let text = tokens.next().unwrap_or_default().to_owned();
                        self.refuse(text, MoveRefusal::Unreadable(self.dialect));
                        return;
                    }
                }
                tracing::debug!(
                    engine = self.label(),
                    "ignoring engine line {line:?}: {err}"
                );
            }
        }
    }

    /// Tells the core that [`poll_timeout`](Self::poll_timeout)'s time may have come.
    pub fn handle_timeout(&mut self, now: Duration) {
        if self.deadline.is_none_or(|deadline| now < deadline) {
            return;
        }
        let waiting_for = match &mut self.phase {
            Phase::Handshake => "uciok",
            Phase::Syncing => "readyok",
            Phase::Searching(search) if !search.stopping => {
                search.stopping = true;
                self.deadline = Some(now + self.options.grace);
                self.send(&Command::Stop);
                return;
            }
            Phase::Searching(_) => "bestmove",
            Phase::Idle | Phase::Closed => {
                self.deadline = None;
                return;
            }
        };
        tracing::warn!(
            engine = self.label(),
            "the engine sent no {waiting_for} in time"
        );
        self.fail(DriverError::Hung { waiting_for });
    }

    /// Tells the core the engine's output closed (it exited), with its exit code if it had
    /// one.
    pub fn handle_exit(&mut self, status: Option<i32>) {
        let during = match self.phase {
            Phase::Handshake => "the handshake",
            Phase::Syncing => "isready",
            Phase::Searching(_) => "a search",
            Phase::Idle => "idle",
            Phase::Closed => return,
        };
        tracing::warn!(
            engine = self.label(),
            ?status,
            "the engine exited during {during}"
        );
        self.fail(DriverError::Exited { status, during });
    }

    /// The next line to write to the engine.
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<CoreEvent> {
        self.events.pop_front()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout), if the core is waiting for the
    /// engine.
    #[must_use]
    pub const fn poll_timeout(&self) -> Option<Duration> {
        self.deadline
    }

    fn handle_message(&mut self, now: Duration, msg: EngineMessage) {
        match (&mut self.phase, msg) {
            (Phase::Handshake, EngineMessage::Id { field, value }) => match field {
                IdField::Name => self.name = Some(value),
                IdField::Author => self.author = Some(value),
            },
            (Phase::Handshake, EngineMessage::Option(decl)) => self.declared.push(decl),
            (Phase::Handshake, EngineMessage::UciOk) => self.configure(now),
            (Phase::Syncing, EngineMessage::ReadyOk) => {
                self.phase = Phase::Idle;
                self.deadline = None;
                self.events.push_back(CoreEvent::Ready);
            }
            (Phase::Searching(search), EngineMessage::Info(info)) => {
                if info.score.is_some() && info.multipv.is_none_or(|n| n == 1) {
                    search.info = Some(*info);
                }
            }
            (Phase::Searching(_), EngineMessage::BestMove { best, ponder }) => {
                self.answer(best, ponder);
            }
            (_, msg) => {
                tracing::trace!(engine = self.label(), "ignoring {msg:?}");
            }
        }
    }

    /// After `uciok`: the dialect, the variant, the caller's options, then `isready`.
    fn configure(&mut self, now: Duration) {
        let variant = self.declared.iter().find(|d| d.name == "UCI_Variant");
        let offers_xiangqi = variant.is_some_and(|v| v.offers("xiangqi"));
        self.dialect = self.options.dialect.unwrap_or(if offers_xiangqi {
            Dialect::OneBased
        } else {
            Dialect::Iccs
        });
        if self.dialect == Dialect::OneBased
            && let Some(variant) = variant
        {
            if matches!(variant.kind, OptionKind::Combo { .. }) && !offers_xiangqi {
                self.fail(DriverError::NoXiangqi);
                return;
            }
            self.send(&Command::SetOption {
                name: "UCI_Variant".into(),
                value: Some("xiangqi".into()),
            });
        }
        for (name, value) in self.options.options.clone() {
            let value = (!value.is_empty()).then_some(value);
            self.send(&Command::SetOption { name, value });
        }
        self.sync(now);
    }

    /// The end of a search: the engine's `bestmove`, checked against the position.
    fn answer(&mut self, best: Option<Move>, ponder: Option<Move>) {
        let Phase::Searching(search) = std::mem::replace(&mut self.phase, Phase::Idle) else {
            return;
        };
        self.deadline = None;
        let Some(best) = best else {
            self.refuse(Dialect::NO_MOVE.into(), MoveRefusal::NoMove);
            return;
        };
        let position = match search.position.play(best) {
            Ok(position) => position,
            Err(err) => {
                self.refuse(
                    self.dialect.format_move(best),
                    MoveRefusal::Illegal(err.reason),
                );
                return;
            }
        };
        let ponder = ponder.filter(|&mv| {
            let legal = position.is_legal(mv);
            if !legal {
                tracing::debug!(engine = self.label(), "dropping illegal ponder move {mv}");
            }
            legal
        });
        self.events.push_back(CoreEvent::BestMove(Reply {
            best,
            ponder,
            info: search.info,
        }));
    }

    /// The engine's move is refused: it forfeits, and the search is over.
    fn refuse(&mut self, text: String, reason: MoveRefusal) {
        tracing::warn!(
            engine = self.label(),
            "refusing the engine's move {text:?}: {reason}"
        );
        self.phase = Phase::Idle;
        self.deadline = None;
        self.events
            .push_back(CoreEvent::Failed(DriverError::IllegalMove { text, reason }));
    }

    fn sync(&mut self, now: Duration) {
        self.send(&Command::IsReady);
        self.phase = Phase::Syncing;
        self.deadline = Some(now + self.options.handshake_timeout);
    }

    fn fail(&mut self, err: DriverError) {
        self.close();
        self.events.push_back(CoreEvent::Failed(err));
    }

    fn close(&mut self) {
        self.phase = Phase::Closed;
        self.deadline = None;
    }

    fn check_idle(&self) -> Result<(), DriverError> {
        match self.phase {
            Phase::Idle => Ok(()),
            Phase::Closed => Err(DriverError::Closed),
            _ => Err(DriverError::Busy),
        }
    }

    fn send(&mut self, command: &Command) {
        let line = command.to_line(self.dialect);
        tracing::trace!(engine = self.label(), "-> {line}");
        self.transmits.push_back(line);
    }

    fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("?")
    }
}

#[cfg(test)]
mod tests {
    use xq_rules::fen::Fen;
    use xq_rules::{IllegalMove, Square};

    use super::*;
    use crate::HistoryError;

    const T0: Duration = Duration::ZERO;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    fn drain(core: &mut EngineCore) -> Vec<String> {
        std::iter::from_fn(|| core.poll_transmit()).collect()
    }

    /// A core past a handshake with these lines before `uciok`.
    fn ready(options: DriverOptions, declarations: &[&str]) -> (EngineCore, Vec<String>) {
        let mut core = EngineCore::new(T0, options);
        for line in declarations.iter().copied().chain(["uciok"]) {
            core.handle_line(T0, line);
        }
        let sent = drain(&mut core);
        core.handle_line(T0, "readyok");
        assert!(matches!(core.poll_event(), Some(CoreEvent::Ready)));
        (core, sent)
    }

    fn go_depth(core: &mut EngineCore, moves: &[Move]) -> Vec<String> {
        let go = Go {
            depth: Some(3),
            ..Go::default()
        };
        core.go(ms(0), &Position::startpos(), moves, &go, ms(100))
            .unwrap_or_else(|e| panic!("{e}"));
        drain(core)
    }

    const FAIRY: &[&str] = &[
        "Fairy-Stockfish 11.1 LB 64 by Fabian Fichter",
        "id name Fairy-Stockfish 11.1 LB 64",
        "option name Hash type spin default 16 min 1 max 131072",
        "option name UCI_Variant type combo default chess var chess var janggi var xiangqi",
    ];

    #[test]
    fn detects_fairy_stockfish_and_sets_its_variant_after_uciok() {
        let options = DriverOptions {
            options: vec![
                ("Hash".into(), "8".into()),
                ("Clear Hash".into(), String::new()),
            ],
            ..DriverOptions::default()
        };
        let (mut core, sent) = ready(options, FAIRY);
        assert_eq!(core.dialect(), Dialect::OneBased);
        assert_eq!(core.declared().len(), 2);
        assert_eq!(
            sent,
            [
                "uci",
                "setoption name UCI_Variant value xiangqi",
                "setoption name Hash value 8",
                "setoption name Clear Hash",
                "isready"
            ]
        );
        let h2e2 = Move::new(Square::H2, Square::E2);
        assert_eq!(
            go_depth(&mut core, &[h2e2]),
            ["position startpos moves h3e3", "go depth 3"]
        );
        core.handle_line(ms(5), "info depth 1 score cp 20 pv h10g8");
        core.handle_line(ms(5), "info depth 2 currmove h10g8");
        core.handle_line(ms(5), "bestmove h10g8 ponder h1g3");
        let Some(CoreEvent::BestMove(reply)) = core.poll_event() else {
            panic!("no reply")
        };
        assert_eq!(reply.best, Move::new(Square::H9, Square::G7));
        assert_eq!(reply.ponder, Some(Move::new(Square::H0, Square::G2)));
        assert_eq!(reply.info.and_then(|i| i.depth), Some(1));
        assert!(core.is_idle());
    }

    #[test]
    fn an_engine_without_variants_speaks_iccs() {
        let (core, sent) = ready(DriverOptions::default(), &["id name Pikafish", "junk"]);
        assert_eq!(core.dialect(), Dialect::Iccs);
        assert_eq!(sent, ["uci", "isready"]);
        let configured = DriverOptions {
            dialect: Some(Dialect::Iccs),
            ..DriverOptions::default()
        };
        let (core, sent) = ready(configured, FAIRY);
        assert_eq!(core.dialect(), Dialect::Iccs);
        assert_eq!(sent, ["uci", "isready"]);
    }

    #[test]
    fn a_variant_engine_without_xiangqi_is_refused() {
        let options = DriverOptions {
            dialect: Some(Dialect::OneBased),
            ..DriverOptions::default()
        };
        let mut core = EngineCore::new(T0, options);
        core.handle_line(
            T0,
            "option name UCI_Variant type combo default chess var chess",
        );
        core.handle_line(T0, "uciok");
        assert!(matches!(
            core.poll_event(),
            Some(CoreEvent::Failed(DriverError::NoXiangqi))
        ));
        assert!(core.is_closed());
    }

    #[test]
    fn illegal_and_unreadable_moves_forfeit_but_keep_the_engine() {
        let (mut core, _) = ready(DriverOptions::default(), &[]);
        for (line, refusal) in [
            (
                "bestmove a0a5",
                MoveRefusal::Illegal(IllegalMove::CannotMoveThere(xq_rules::Role::Chariot)),
            ),
            (
                "bestmove a9a8",
                MoveRefusal::Illegal(IllegalMove::NotYourPiece(Square::A9)),
            ),
            ("bestmove (none)", MoveRefusal::NoMove),
            ("bestmove zz", MoveRefusal::Unreadable(Dialect::Iccs)),
        ] {
            go_depth(&mut core, &[]);
            core.handle_line(ms(1), line);
            let event = core.poll_event();
            assert!(
                matches!(&event, Some(CoreEvent::Failed(DriverError::IllegalMove { reason, .. })) if *reason == refusal),
                "{line}: {event:?}"
            );
            assert!(core.is_idle());
        }
    }

    #[test]
    fn a_search_past_its_deadline_is_stopped_then_declared_hung() {
        let options = DriverOptions {
            grace: ms(50),
            ..DriverOptions::default()
        };
        let (mut core, _) = ready(options.clone(), &[]);
        go_depth(&mut core, &[]);
        core.handle_timeout(ms(99));
        assert_eq!(core.poll_transmit(), None);
        core.handle_timeout(ms(100));
        assert_eq!(core.poll_transmit().as_deref(), Some("stop"));
        assert_eq!(core.poll_timeout(), Some(ms(150)));
        // An answer within the grace period counts.
        core.handle_line(ms(120), "bestmove h2e2");
        assert!(matches!(core.poll_event(), Some(CoreEvent::BestMove(_))));

        go_depth(&mut core, &[]);
        core.handle_timeout(ms(100));
        core.handle_timeout(ms(150));
        assert!(matches!(
            core.poll_event(),
            Some(CoreEvent::Failed(DriverError::Hung {
                waiting_for: "bestmove"
            }))
        ));
        assert!(matches!(core.new_game(ms(200)), Err(DriverError::Closed)));
    }

    #[test]
    fn a_silent_handshake_is_hung_and_an_exit_is_reported() {
        let mut core = EngineCore::new(T0, DriverOptions::default());
        core.handle_timeout(Duration::from_secs(10));
        assert!(matches!(
            core.poll_event(),
            Some(CoreEvent::Failed(DriverError::Hung {
                waiting_for: "uciok"
            }))
        ));

        let (mut core, _) = ready(DriverOptions::default(), &[]);
        go_depth(&mut core, &[]);
        core.handle_exit(Some(3));
        assert!(matches!(
            core.poll_event(),
            Some(CoreEvent::Failed(DriverError::Exited {
                status: Some(3),
                during: "a search"
            }))
        ));
        core.handle_exit(None);
        assert!(core.poll_event().is_none());
    }

    #[test]
    fn requests_are_checked_before_anything_is_sent() {
        let (mut core, _) = ready(DriverOptions::default(), &[]);
        let go = Go::default();
        let bad = Move::new(Square::A0, Square::A5);
        assert!(matches!(
            core.go(T0, &Position::startpos(), &[bad], &go, ms(1)),
            Err(DriverError::BadHistory(HistoryError { ply: 0, .. }))
        ));
        let mated: Fen = "3k5/9/9/9/9/9/9/9/3R5/3RK4 b"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        let mated = mated.into_position().unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            core.go(T0, &mated, &[], &go, ms(1)),
            Err(DriverError::NoLegalMoves)
        ));
        assert_eq!(core.poll_transmit(), None);
        go_depth(&mut core, &[]);
        assert!(matches!(core.new_game(T0), Err(DriverError::Busy)));
    }

    #[test]
    fn a_position_from_a_fen_is_sent_as_one() {
        let (mut core, _) = ready(DriverOptions::default(), &[]);
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        let pos = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position().ok())
            .unwrap_or_else(|| panic!("bad fen"));
        core.go(T0, &pos, &[], &Go::default(), ms(1))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(core.poll_transmit(), Some(format!("position fen {fen}")));
        assert_eq!(core.poll_transmit().as_deref(), Some("go"));
    }

    #[test]
    fn new_game_and_quit() {
        let (mut core, _) = ready(DriverOptions::default(), &[]);
        core.new_game(T0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(drain(&mut core), ["ucinewgame", "isready"]);
        core.handle_timeout(Duration::from_secs(10));
        assert!(matches!(
            core.poll_event(),
            Some(CoreEvent::Failed(DriverError::Hung {
                waiting_for: "readyok"
            }))
        ));
        let (mut core, _) = ready(DriverOptions::default(), &[]);
        core.quit();
        assert_eq!(drain(&mut core), ["quit"]);
        assert!(core.is_closed());
    }
}
