//! The computer's thinking, as the view-model asks for it: requests that carry ids, answers
//! that name them, and the one way a request is answered with the engine.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use xq_engine::{Clock, Engine, Game, Level, Limits, SearchError, Thought};
use xq_rules::{Move, Position};

/// Searches for the view-model, somewhere it does not wait for: a worker thread on the
/// desktop, a Web Worker in the browser, or at once in a test.
///
/// The calling order: [`start`](Self::start) a request, then [`poll`](Self::poll) every
/// frame until its [`Answer`] comes. A new `start` replaces the request being worked on;
/// [`cancel`](Self::cancel) drops it. An answer names its request, so one that comes late,
/// for a request since replaced or cancelled, is known and dropped by the caller.
pub trait Thinker {
    /// Begins working on `request`, giving up the one before, if any. It must not block.
    fn start(&mut self, request: ThinkRequest);

    /// The answer to a request, once there is one. It must not block.
    fn poll(&mut self) -> Option<Answer>;

    /// Stops working on the current request, if any: its answer may still come, or not.
    fn cancel(&mut self);
}

/// Which request an [`Answer`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// A position to think about: a game from its start through its moves, so that the search
/// sees the history its repetition rules look back through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThinkRequest {
    /// Names the request; its answer carries it back.
    pub id: RequestId,
    /// The game's start position.
    pub start: Position,
    /// The moves played since, in order.
    pub moves: Vec<Move>,
    /// What to look for.
    pub goal: Goal,
}

/// What a request looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A move to play against a person at `level`, its random choices drawn from `seed`
    /// ([`Engine::think`]).
    Play {
        /// The strength.
        level: Level,
        /// The seed of the level's random preferences.
        seed: u64,
    },
    /// The best move and its score within `limits` ([`Engine::search`]): a hint.
    Analyse(Limits),
}

/// The answer to the request [`id`](Self::id) names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The request answered.
    pub id: RequestId,
    /// The move found, or why there is none.
    pub thought: Result<Thought, ThinkError>,
}

/// Why a request has no move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThinkError {
    /// The side to move has no legal move: the game is over.
    #[error("no legal move: the game is over")]
    GameOver,
    /// A move of the request is illegal where it stands.
    #[error("the game does not replay: {0}")]
    Illegal(String),
    /// The thinker itself failed (its worker could not start, say); the text says why.
    #[error("the computer cannot think: {0}")]
    Failed(String),
}

impl Goal {
    /// What a hint searches: about half a second, or fewer nodes on a slow machine.
    pub const HINT: Self = Self::Analyse(Limits {
        depth: None,
        nodes: Some(150_000),
        deadline: Some(Duration::from_millis(500)),
        soft_deadline: None,
    });
}

impl ThinkRequest {
    /// Answers the request with `engine`, on the caller's thread: what every [`Thinker`]
    /// runs wherever it runs. `clock` measures the time since the search began, and `stop`
    /// ends it early.
    pub fn answer(&self, engine: &mut Engine, clock: &dyn Clock, stop: &AtomicBool) -> Answer {
        let thought = Game::from_moves(self.start.clone(), self.moves.iter().copied())
            .map_err(|error| ThinkError::Illegal(error.to_string()))
            .and_then(|game| {
                match self.goal {
                    Goal::Play { level, seed } => {
                        engine.think(&game, level, &Limits::default(), seed, clock, stop)
                    }
                    Goal::Analyse(limits) => {
                        engine.search(&game, &limits, clock, stop, &mut |_| {})
                    }
                }
                .map_err(ThinkError::from)
            });
        Answer {
            id: self.id,
            thought,
        }
    }
}

impl From<SearchError> for ThinkError {
    fn from(error: SearchError) -> Self {
        match error {
            SearchError::GameOver => Self::GameOver,
            // The engine's error may grow; whatever it says, the computer has no move.
            other => Self::Failed(other.to_string()),
        }
    }
}

/// A thinker for the crate's tests: it answers on the caller's thread, with the real engine
/// and no clock, when polled, unless told to hold its answer back.
#[cfg(test)]
pub(crate) mod testing {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::atomic::AtomicBool;

    use xq_engine::{Engine, Frozen, Options};

    use super::{Answer, ThinkRequest, Thinker};

    /// What the test sees of its thinker.
    #[derive(Default)]
    pub(crate) struct Desk {
        /// The request being worked on.
        pub(crate) current: Option<ThinkRequest>,
        /// Every request started, in order.
        pub(crate) started: Vec<ThinkRequest>,
        /// How many times it was cancelled.
        pub(crate) cancelled: usize,
        /// While set, polls answer nothing.
        pub(crate) hold: bool,
    }

    /// The thinker; its [`Desk`] is shared with the test.
    pub(crate) struct EngineThinker {
        engine: Engine,
        pub(crate) desk: Rc<RefCell<Desk>>,
    }

    impl EngineThinker {
        pub(crate) fn new() -> (Box<Self>, Rc<RefCell<Desk>>) {
            let desk = Rc::new(RefCell::new(Desk::default()));
            let thinker = Self {
                engine: Engine::new(Options {
                    hash_mib: 1,
                    ..Options::default()
                }),
                desk: Rc::clone(&desk),
            };
            (Box::new(thinker), desk)
        }
    }

    impl Thinker for EngineThinker {
        fn start(&mut self, request: ThinkRequest) {
            let mut desk = self.desk.borrow_mut();
            desk.started.push(request.clone());
            desk.current = Some(request);
        }

        fn poll(&mut self) -> Option<Answer> {
            let request = {
                let mut desk = self.desk.borrow_mut();
                if desk.hold {
                    return None;
                }
                desk.current.take()?
            };
            Some(request.answer(&mut self.engine, &Frozen, &AtomicBool::new(false)))
        }

        fn cancel(&mut self) {
            let mut desk = self.desk.borrow_mut();
            desk.current = None;
            desk.cancelled += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use xq_engine::{Frozen, Options};
    use xq_rules::Square;

    use super::*;

    #[test]
    fn a_request_is_answered_with_a_legal_move_under_its_own_id() {
        let mut engine = Engine::new(Options::default());
        let opening = Move::new(Square::H2, Square::E2);
        let request = ThinkRequest {
            id: RequestId(7),
            start: Position::startpos(),
            moves: vec![opening],
            goal: Goal::Play {
                level: Level::MIN,
                seed: 1,
            },
        };
        let answer = request.answer(&mut engine, &Frozen, &AtomicBool::new(false));
        assert_eq!(answer.id, RequestId(7));
        let after = Position::startpos()
            .play(opening)
            .unwrap_or_else(|e| panic!("{}", e.reason));
        let thought = answer.thought.unwrap_or_else(|e| panic!("{e}"));
        assert!(after.is_legal(thought.best));
    }

    #[test]
    fn a_game_that_does_not_replay_is_an_error_not_a_panic() {
        let mut engine = Engine::new(Options::default());
        let twice = Move::new(Square::H2, Square::E2);
        let request = ThinkRequest {
            id: RequestId(1),
            start: Position::startpos(),
            moves: vec![twice, twice],
            goal: Goal::HINT,
        };
        let answer = request.answer(&mut engine, &Frozen, &AtomicBool::new(false));
        assert!(matches!(answer.thought, Err(ThinkError::Illegal(_))));
    }
}
