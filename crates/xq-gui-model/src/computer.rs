//! A game against the computer, in this process.

use std::collections::VecDeque;
use std::time::Duration;

use xq_engine::{Level, Score};
use xq_rules::{ByColor, Color, Position};
use xq_session::{
    Action as SessionAction, Command, CommandError, Match, MatchConfig, Record, Status, Timestamp,
    UndoRequest,
};

use crate::{
    BackendError, Evaluation, GameBackend, Goal, Presence, RequestId, ThinkRequest, Thinker, Update,
};

/// Who plays the computer, and how well: the person's colour and the computer's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ComputerSetup {
    /// The colour the person at this screen plays; the computer plays the other.
    pub person: Color,
    /// The computer's strength.
    pub level: Level,
}

impl Default for ComputerSetup {
    /// The person plays Red (and moves first) against level 3.
    fn default() -> Self {
        Self {
            person: Color::Red,
            // A level in range: this cannot fall back.
            level: Level::new(3).unwrap_or(Level::MIN),
        }
    }
}

/// A game against the computer: a [`Match`] in this process, the person at this screen
/// playing one colour and the computer the other, at a [`Level`]. The computer's moves come
/// from a [`Thinker`] the app provides, and go through the match like the person's.
///
/// When it is the computer's turn the game asks its thinker for a move, and
/// [`poll_event`](GameBackend::poll_event) (every frame) plays the answer once it comes, then
/// reports the search's [`Evaluation`] as [`Update::Evaluated`]. The person's requests are
/// answered at once, as the match's rules allow:
///
/// - **Undo** is always granted: it takes back the person's last move and the computer's
///   reply, so the person is on move again (only the person's move, while the computer is
///   still thinking about it, whose search is then dropped).
/// - **A draw offer** is accepted when the computer's last search scored the game at zero or
///   below for itself (before its first search, the static evaluation of the position), and
///   declined otherwise.
/// - **A rematch** swaps colours, as every rematch does.
pub struct ComputerGame {
    game: Match,
    setup: ComputerSetup,
    seed: u64,
    thinker: Box<dyn Thinker>,
    /// The request the computer's move will answer, while it thinks.
    thinking: Option<RequestId>,
    next_id: u64,
    /// The computer's last search's verdict.
    evaluation: Option<Evaluation>,
    updates: VecDeque<Update>,
}

impl ComputerGame {
    /// A new game under `config` starting at `now`, set up as `setup` says, the computer's
    /// random choices drawn from `seed` and its moves found by `thinker`. If the computer
    /// plays Red, it starts thinking at once.
    #[must_use]
    pub fn new(
        config: MatchConfig,
        setup: ComputerSetup,
        seed: u64,
        thinker: Box<dyn Thinker>,
        now: Timestamp,
    ) -> Self {
        let mut game = Self {
            game: Match::new(config, now),
            setup,
            seed,
            thinker,
            thinking: None,
            next_id: 0,
            evaluation: None,
            updates: VecDeque::new(),
        };
        game.after_input();
        game
    }

    /// Who plays which side, and the computer's level.
    #[must_use]
    pub const fn setup(&self) -> ComputerSetup {
        self.setup
    }

    /// The colour the computer plays.
    #[must_use]
    pub fn computer(&self) -> Color {
        !self.setup.person
    }

    /// Drains the match's events into the queue, and asks for the computer's move if it is
    /// due and not yet asked for.
    fn after_input(&mut self) {
        while let Some(event) = self.game.poll_event() {
            self.updates.push_back(Update::Game(event));
        }
        let due = self.game.status().is_ongoing() && self.game.turn() == self.computer();
        if due && self.thinking.is_none() {
            let record = self.game.record();
            let id = RequestId(self.next_id);
            self.next_id += 1;
            self.thinker.start(ThinkRequest {
                id,
                start: record.start().clone(),
                moves: record.moves().to_vec(),
                goal: Goal::Play {
                    level: self.setup.level,
                    seed: self.seed,
                },
            });
            self.thinking = Some(id);
        } else if !due && self.thinking.is_some() {
            self.stop_thinking();
        }
    }

    fn stop_thinking(&mut self) {
        if self.thinking.take().is_some() {
            self.thinker.cancel();
        }
    }

    /// Takes in the thinker's answer, if the one waited for has come: the computer plays it.
    fn take_answer(&mut self, now: Timestamp) {
        let Some(waited) = self.thinking else {
            // Nothing is asked for: a late answer to a dropped request is read and ignored.
            while self.thinker.poll().is_some() {}
            return;
        };
        let Some(answer) = std::iter::from_fn(|| self.thinker.poll()).find(|a| a.id == waited)
        else {
            return;
        };
        self.thinking = None;
        let turn = self.game.turn();
        match answer.thought {
            Ok(thought) => {
                let played = self
                    .game
                    .handle(now, SessionAction::Play(thought.best).by(self.computer()));
                match played {
                    Ok(()) => {
                        let evaluation = Evaluation::new(turn, thought.score);
                        self.evaluation = Some(evaluation);
                        self.after_input();
                        self.updates.push_back(Update::Evaluated(evaluation));
                    }
                    Err(error) => self.updates.push_back(Update::Refused(format!(
                        "the computer's move {} was refused: {error}",
                        thought.best
                    ))),
                }
            }
            Err(error) => self.updates.push_back(Update::Refused(error.to_string())),
        }
    }

    /// Whether the computer accepts a draw now: its last search, or before any the static
    /// evaluation, says it stands no better than even.
    fn accepts_draw(&self) -> bool {
        let computer = self.computer();
        let score = self.evaluation.map_or_else(
            || {
                let pos = self.game.position();
                let static_score = xq_engine::evaluate(pos);
                Evaluation::new(pos.turn(), Score::Centipawns(static_score)).for_side(computer)
            },
            |evaluation| evaluation.for_side(computer),
        );
        match score {
            Score::Centipawns(cp) => cp <= 0,
            Score::Mate(n) => n <= 0,
        }
    }

    /// The person's command, checked to be theirs.
    fn own(&self, command: Command) -> Result<SessionAction, BackendError> {
        match command {
            Command::Act { by, action } if by == self.setup.person => Ok(action),
            Command::Act { .. } => Err(BackendError::NotYourSeat),
            _ => Err(BackendError::Reserved),
        }
    }
}

impl GameBackend for ComputerGame {
    fn seats(&self) -> ByColor<bool> {
        ByColor {
            red: self.setup.person == Color::Red,
            black: self.setup.person == Color::Black,
        }
    }

    fn position(&self) -> &Position {
        self.game.position()
    }

    fn status(&self) -> Status {
        self.game.status()
    }

    fn pending_undo(&self) -> Option<UndoRequest> {
        self.game.pending_undo()
    }

    fn pending_draw(&self) -> Option<Color> {
        self.game.pending_draw()
    }

    fn clocks(&self, now: Timestamp) -> Option<ByColor<Duration>> {
        self.game.clocks(now)
    }

    fn record(&self) -> Record {
        self.game.record()
    }

    fn check(&self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        self.own(command)?;
        let mut trial = self.game.clone();
        trial.handle(now, command)?;
        Ok(())
    }

    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        let action = self.own(command)?;
        self.game.handle(now, command)?;
        let computer = self.computer();
        let answer = match action {
            SessionAction::RequestUndo => {
                // The search was for a position about to be taken back.
                self.stop_thinking();
                Some(SessionAction::AnswerUndo { accept: true })
            }
            SessionAction::OfferDraw => Some(SessionAction::AnswerDraw {
                accept: self.accepts_draw(),
            }),
            _ => None,
        };
        if let Some(answer) = answer {
            // The request just made is pending, so the match takes its answer.
            let answered: Result<(), CommandError> = self.game.handle(now, answer.by(computer));
            answered?;
        }
        self.after_input();
        Ok(())
    }

    fn poll_event(&mut self, now: Timestamp) -> Option<Update> {
        self.game.handle_timeout(now);
        self.take_answer(now);
        self.after_input();
        self.updates.pop_front()
    }

    fn presence(&self) -> Option<Presence> {
        None
    }

    fn check_rematch(&self) -> Result<(), BackendError> {
        Ok(self.game.check_rematch()?)
    }

    fn rematch(&mut self, now: Timestamp) -> Result<(), BackendError> {
        self.game = self.game.rematch(now)?;
        self.setup.person = !self.setup.person;
        self.stop_thinking();
        self.evaluation = None;
        self.updates.clear();
        self.after_input();
        Ok(())
    }

    fn thinking(&self) -> bool {
        self.thinking.is_some()
    }
}

#[cfg(test)]
mod tests;
