//! The scripted games: random legal games played to their end before the clock starts, so
//! that the load generator spends no time choosing moves and knows, as the relay does, when a
//! game is over and a rematch is due.

use std::sync::Arc;

use anyhow::Result;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use xq_protocol::RoomOptions;
use xq_session::{Event, Match, MatchConfig, Timestamp};

/// One game as the relay will announce it: the events a [`Match`] queued while it was played,
/// every move's then the game-over one.
pub(crate) struct Script {
    /// The rules the game was played under.
    config: MatchConfig,
    events: Vec<Event>,
}

impl Script {
    /// A game of random legal moves under `config`, drawn with `seed`, to its end (mate,
    /// stalemate, repetition or the move limit).
    pub(crate) fn random(config: MatchConfig, seed: u64) -> Result<Self> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = Match::new(config.clone(), Timestamp::from_millis(0));
        game.play_out(Timestamp::from_millis(0), |moves| {
            moves.choose(&mut rng).copied()
        })?;
        let events = std::iter::from_fn(|| game.poll_event()).collect();
        Ok(Self { config, events })
    }

    /// The rules the game is played under.
    pub(crate) const fn config(&self) -> &MatchConfig {
        &self.config
    }

    /// The events of the game, in order, the game-over one last.
    pub(crate) fn events(&self) -> &[Event] {
        &self.events
    }

    /// How many moves the game has.
    #[cfg(test)]
    pub(crate) fn plies(&self) -> usize {
        self.events
            .iter()
            .filter(|event| matches!(event, Event::MovePlayed { .. }))
            .count()
    }
}

/// The games the matches replay, drawn before the clock starts.
pub(crate) struct Scripts {
    games: Vec<Arc<Script>>,
}

impl Scripts {
    /// How many games are drawn: enough that neighbouring matches play different games.
    pub(crate) const COUNT: u64 = 64;

    /// Draws the games under the rules of a room made with the default options, game `i`
    /// with seed `seed + i`.
    pub(crate) fn new(seed: u64) -> Result<Self> {
        let config = RoomOptions::default().match_config();
        let games = (0..Self::COUNT)
            .map(|i| Script::random(config.clone(), seed.wrapping_add(i)).map(Arc::new))
            .collect::<Result<_>>()?;
        Ok(Self { games })
    }

    /// The game match `index` plays.
    pub(crate) fn pick(&self, index: usize) -> Arc<Script> {
        Arc::clone(&self.games[index % self.games.len()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xq_session::Action;

    /// Each script, replayed move by move on a new match, is accepted and makes the same
    /// events: the game ends with its last move, exactly as scripted.
    #[test]
    fn scripts_are_legal_games_that_end_as_scripted() -> Result<()> {
        let scripts = Scripts::new(7)?;
        for index in 0..8 {
            let script = scripts.pick(index);
            assert!(script.plies() > 0);
            assert!(matches!(script.events().last(), Some(Event::GameOver(_))));
            let mut game = Match::new(script.config().clone(), Timestamp::from_millis(0));
            let mut replayed = Vec::new();
            for event in script.events() {
                if let &Event::MovePlayed { by, mv, .. } = event {
                    assert!(game.status().result().is_none(), "a move after the end");
                    game.handle(Timestamp::from_millis(0), Action::Play(mv).by(by))?;
                    replayed.extend(std::iter::from_fn(|| game.poll_event()));
                }
            }
            assert!(
                game.status().result().is_some(),
                "script {index} did not end"
            );
            assert_eq!(replayed, script.events(), "script {index}");
        }
        Ok(())
    }

    #[test]
    fn matches_share_the_scripts_in_turn() -> Result<()> {
        let scripts = Scripts::new(0)?;
        assert!(!Arc::ptr_eq(&scripts.pick(0), &scripts.pick(1)));
        assert!(Arc::ptr_eq(&scripts.pick(0), &scripts.pick(64)));
        assert_eq!(
            scripts.pick(3).events(),
            Scripts::new(0)?.pick(3).events(),
            "the seed fixes the games"
        );
        Ok(())
    }
}
