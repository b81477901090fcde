//! Two players on one screen, with no network.

use std::time::Duration;

use xq_rules::{ByColor, Color, Position};
use xq_session::{Command, Match, MatchConfig, Record, Status, Timestamp, UndoRequest};

use crate::{BackendError, GameBackend, Presence, Update};

/// A game between two players sharing the screen: a [`Match`] in this process, both colours
/// played from here. The caller supplies the time (the app its real clock, tests a virtual
/// one).
#[derive(Clone, Debug)]
pub struct LocalGame {
    game: Match,
}

impl LocalGame {
    /// A new game under `config`, starting at `now`.
    #[must_use]
    pub fn new(config: MatchConfig, now: Timestamp) -> Self {
        Self {
            game: Match::new(config, now),
        }
    }
}

impl GameBackend for LocalGame {
    fn seats(&self) -> ByColor<bool> {
        ByColor {
            red: true,
            black: true,
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
        // A trial run on a copy: the match's own rules decide, and the real one is untouched.
        let mut trial = self.game.clone();
        trial.handle(now, command)?;
        Ok(())
    }

    fn send(&mut self, now: Timestamp, command: Command) -> Result<(), BackendError> {
        self.game.handle(now, command)?;
        Ok(())
    }

    fn poll_event(&mut self, now: Timestamp) -> Option<Update> {
        self.game.handle_timeout(now);
        self.game.poll_event().map(Update::Game)
    }

    fn presence(&self) -> Option<Presence> {
        None
    }

    fn check_rematch(&self) -> Result<(), BackendError> {
        Ok(self.game.check_rematch()?)
    }

    fn rematch(&mut self, now: Timestamp) -> Result<(), BackendError> {
        self.game = self.game.rematch(now)?;
        Ok(())
    }
}
