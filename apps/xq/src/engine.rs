//! The engines `xq bot` and `xq match` play with: the built-in one at a level, or any UCI engine
//! run as a process. Both answer the same question, "your move in this game, within this
//! budget", so the bot and the match harness never ask which kind they hold.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use xq_engine::{Engine as Builtin, Game, Level, Limits, Options as BuiltinOptions};
use xq_rules::{ByColor, Color, Move, Position};
use xq_uci::{DriverOptions, Engine as External, EngineCommand, Go};

/// Which engine to run: `random`, `builtin`, `builtin:LEVEL` (1 to 10), or a command line that
/// starts a UCI engine.
#[derive(Clone, Debug)]
pub(crate) enum EngineSpec {
    /// Uniformly random legal moves: the floor of any strength ladder.
    Random,
    /// The built-in engine at a level.
    Builtin(Level),
    /// A UCI engine, started as a process, with the command line as it was given.
    External(EngineCommand, String),
}

impl FromStr for EngineSpec {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        let text = text.trim();
        if text == "random" {
            return Ok(Self::Random);
        }
        if text == "builtin" {
            return Ok(Self::Builtin(Level::MAX));
        }
        if let Some(level) = text.strip_prefix("builtin:") {
            let level = level
                .parse::<Level>()
                .with_context(|| format!("the built-in engine's level {level:?}"))?;
            return Ok(Self::Builtin(level));
        }
        if text.is_empty() {
            bail!("an empty engine: give `random`, `builtin`, `builtin:LEVEL` or a command");
        }
        let command = text
            .parse::<EngineCommand>()
            .with_context(|| format!("the engine command {text:?}"))?;
        Ok(Self::External(command, text.to_owned()))
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Random => f.write_str("random"),
            Self::Builtin(level) => write!(f, "builtin:{level}"),
            Self::External(_, text) => f.write_str(text),
        }
    }
}

/// How long an engine may think over one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// A fixed time per move.
    MoveTime(Duration),
    /// The clocks of a timed game: each side's time left, and the increment per move.
    Clocks {
        /// Each side's time left.
        remaining: ByColor<Duration>,
        /// Added after each move.
        increment: Duration,
    },
    /// A node count: the same moves every time, whatever the machine's speed.
    Nodes(u64),
    /// A search depth in plies.
    Depth(u32),
}

impl Budget {
    /// The longest the side to move may take before it is taken as hung, `grace` past its
    /// budget; a node or depth budget has no time of its own and gets `slack`.
    fn deadline(self, turn: Color, grace: Duration, slack: Duration) -> Duration {
        match self {
            Self::MoveTime(time) => time + grace,
            Self::Clocks { remaining, .. } => remaining[turn] + grace,
            Self::Nodes(_) | Self::Depth(_) => slack,
        }
    }

    /// The built-in engine's limits.
    fn limits(self, turn: Color) -> Limits {
        match self {
            Self::MoveTime(time) => Limits::movetime(time),
            Self::Clocks {
                remaining,
                increment,
            } => Limits::from_clock(remaining[turn], increment, None),
            Self::Nodes(nodes) => Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
            Self::Depth(depth) => Limits {
                depth: Some(depth),
                ..Limits::default()
            },
        }
    }

    /// The `go` command for a UCI engine.
    fn go(self) -> Go {
        let mut go = Go::default();
        match self {
            Self::MoveTime(time) => go.movetime = Some(time),
            Self::Clocks {
                remaining,
                increment,
            } => {
                go.wtime = Some(remaining.red);
                go.btime = Some(remaining.black);
                go.winc = Some(increment);
                go.binc = Some(increment);
            }
            Self::Nodes(nodes) => go.nodes = Some(nodes),
            Self::Depth(depth) => go.depth = Some(depth),
        }
        go
    }
}

/// What an engine chose: the move, and its evaluation when it gave one (`cp 35`, `mate -3`).
#[derive(Clone, Debug)]
pub(crate) struct Choice {
    /// The move, legal in the position asked about.
    pub(crate) mv: Move,
    /// The engine's score, in UCI's words.
    pub(crate) score: Option<String>,
}

/// Settings shared by every engine of a run.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// `setoption` pairs for external engines, sent after the handshake.
    pub(crate) uci_options: Vec<(String, String)>,
    /// How long past its budget an external engine may take before it is told to stop, and
    /// again before it is taken as hung and killed.
    pub(crate) grace: Duration,
    /// The deadline of a node or depth budget, which has none of its own.
    pub(crate) slack: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            uci_options: Vec::new(),
            grace: Duration::from_secs(1),
            slack: Duration::from_secs(60),
        }
    }
}

/// A running engine of either kind.
pub(crate) struct Brain {
    name: String,
    kind: Kind,
    settings: Settings,
}

enum Kind {
    Random(Box<StdRng>),
    Builtin {
        /// `None` only while a search holds it on a blocking thread.
        engine: Option<Box<Builtin>>,
        level: Level,
        seed: u64,
    },
    External(Box<External>),
}

/// A question for the built-in engine: the game, and how hard to think.
pub(crate) struct Request {
    /// The game so far; the engine moves in its current position.
    pub(crate) game: Game,
    /// The strength: at the top level a search within `limits`; below it the level's own
    /// budget and seeded randomness, as people meet it in the GUI, within `limits` too.
    pub(crate) level: Level,
    /// The search's limits: the time control's, or a fixed budget.
    pub(crate) limits: Limits,
    /// Draws the randomness of the levels below the top.
    pub(crate) seed: u64,
}

impl Request {
    /// Asks `engine`; `report` hears of each iteration of a top-level search.
    pub(crate) fn think(
        &self,
        engine: &mut Builtin,
        clock: &dyn xq_engine::Clock,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&xq_engine::Info),
    ) -> Result<xq_engine::Thought, xq_engine::SearchError> {
        if self.level == Level::MAX {
            engine.search(&self.game, &self.limits, clock, stop, report)
        } else {
            engine.think(&self.game, self.level, &self.limits, self.seed, clock, stop)
        }
    }
}

/// The built-in engine's clock: real time since the search began.
pub(crate) struct Since(pub(crate) Instant);

impl xq_engine::Clock for Since {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}

impl Brain {
    /// Starts the engine `spec` names; `seed` draws the built-in engine's randomness.
    pub(crate) async fn open(spec: &EngineSpec, seed: u64, settings: &Settings) -> Result<Self> {
        let (name, kind) = match spec {
            EngineSpec::Random => (
                "random".to_owned(),
                Kind::Random(Box::new(StdRng::seed_from_u64(seed))),
            ),
            EngineSpec::Builtin(level) => (
                format!("xq {} (level {level})", env!("CARGO_PKG_VERSION")),
                Kind::Builtin {
                    engine: Some(Box::new(Builtin::new(BuiltinOptions::default()))),
                    level: *level,
                    seed,
                },
            ),
            EngineSpec::External(command, text) => {
                let options = DriverOptions {
                    options: settings.uci_options.clone(),
                    grace: settings.grace,
                    ..DriverOptions::default()
                };
                let engine = External::spawn(command, options)
                    .await
                    .with_context(|| format!("starting {text}"))?;
                (engine.name().to_owned(), Kind::External(Box::new(engine)))
            }
        };
        Ok(Self {
            name,
            kind,
            settings: settings.clone(),
        })
    }

    /// The engine's name, as it gives it.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Tells the engine a new game begins: it forgets what it learnt in the last.
    pub(crate) async fn new_game(&mut self) -> Result<()> {
        match &mut self.kind {
            Kind::Random(_) => Ok(()),
            Kind::Builtin { engine, .. } => {
                engine.as_mut().context("the engine was lost")?.clear();
                Ok(())
            }
            Kind::External(engine) => Ok(engine.new_game().await?),
        }
    }

    /// The engine's move after `moves` from `start`, within `budget`. An error is the engine's
    /// fault (it died, hung, or chose an illegal move): the game is lost for it.
    pub(crate) async fn choose(
        &mut self,
        start: &Position,
        moves: &[Move],
        budget: Budget,
    ) -> Result<Choice> {
        let turn = moves.iter().fold(start.turn(), |turn, _| !turn);
        match &mut self.kind {
            Kind::Random(rng) => {
                let game = Game::from_moves(start.clone(), moves.iter().copied())
                    .map_err(|e| anyhow!("the game to think about: {e}"))?;
                let mv = *game
                    .position()
                    .legal_moves()
                    .choose(rng.as_mut())
                    .context("no legal move: the game is over")?;
                Ok(Choice { mv, score: None })
            }
            Kind::Builtin {
                engine: slot,
                level,
                seed,
            } => {
                let mut engine = slot.take().context("the engine was lost")?;
                let game = Game::from_moves(start.clone(), moves.iter().copied())
                    .map_err(|e| anyhow!("the game to think about: {e}"))?;
                let request = Request {
                    game,
                    level: *level,
                    limits: budget.limits(turn),
                    seed: *seed,
                };
                let (engine, thought) = tokio::task::spawn_blocking(move || {
                    let stop = AtomicBool::new(false);
                    let clock = Since(Instant::now());
                    let thought = request.think(&mut engine, &clock, &stop, &mut |_| {});
                    (engine, thought)
                })
                .await
                .context("the engine's thread failed")?;
                *slot = Some(engine);
                let thought = thought?;
                Ok(Choice {
                    mv: thought.best,
                    score: Some(thought.score.to_string()),
                })
            }
            Kind::External(engine) => {
                let deadline = budget.deadline(turn, self.settings.grace, self.settings.slack);
                let reply = engine.go(start, moves, &budget.go(), deadline).await?;
                let score = reply
                    .info
                    .and_then(|info| info.score)
                    .map(|score| match score.value {
                        xq_uci::Score::Cp(cp) => format!("cp {cp}"),
                        xq_uci::Score::Mate(moves) => format!("mate {moves}"),
                    });
                Ok(Choice {
                    mv: reply.best,
                    score,
                })
            }
        }
    }

    /// Stops the engine: an external one is asked to quit, then killed.
    pub(crate) async fn close(self) {
        if let Kind::External(engine) = self.kind
            && let Err(error) = (*engine).quit().await
        {
            eprintln!("{} did not quit cleanly: {error}", self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_the_builtin_engine_or_a_command() {
        assert!(matches!(
            "builtin".parse::<EngineSpec>().expect("test value"),
            EngineSpec::Builtin(level) if level == Level::MAX
        ));
        assert!(matches!(
            "builtin:3".parse::<EngineSpec>().expect("test value"),
            EngineSpec::Builtin(level) if level.to_string() == "3"
        ));
        assert!(matches!(
            "random".parse::<EngineSpec>().expect("test value"),
            EngineSpec::Random
        ));
        assert!("builtin:11".parse::<EngineSpec>().is_err());
        assert!("builtin:x".parse::<EngineSpec>().is_err());
        assert!(" ".parse::<EngineSpec>().is_err());
        let spec = "fairy-stockfish --flag"
            .parse::<EngineSpec>()
            .expect("test value");
        assert!(matches!(spec, EngineSpec::External(..)));
        assert_eq!(spec.to_string(), "fairy-stockfish --flag");
    }

    #[test]
    fn budgets_become_limits_and_go_commands() {
        let clocks = Budget::Clocks {
            remaining: ByColor {
                red: Duration::from_secs(30),
                black: Duration::from_secs(20),
            },
            increment: Duration::from_secs(1),
        };
        let go = clocks.go();
        assert_eq!(go.wtime, Some(Duration::from_secs(30)));
        assert_eq!(go.binc, Some(Duration::from_secs(1)));
        let grace = Duration::from_millis(500);
        assert_eq!(
            clocks.deadline(Color::Black, grace, Duration::ZERO),
            Duration::from_millis(20_500)
        );
        assert_eq!(Budget::Nodes(5).limits(Color::Red).nodes, Some(5));
        assert_eq!(Budget::Depth(3).go().depth, Some(3));
        let slack = Duration::from_secs(9);
        assert_eq!(Budget::Depth(3).deadline(Color::Red, grace, slack), slack);
    }
}
