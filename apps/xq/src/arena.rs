//! `xq match`: engine against engine through the referee the relay uses, and what the games
//! say about their strength.
//!
//! Every game is a [`Match`] under the relay's default rules, so mate, stalemate, perpetual
//! check and chase, the move limit and the flag end it exactly as they would online. Games come
//! in pairs: both start from the same few random plies, with colours swapped, so neither engine
//! gains from a lucky opening. An engine that dies, hangs or chooses an illegal move loses the
//! game by abandonment, and the record says why.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use rand::rngs::{StdRng, SysRng};
use rand::seq::IndexedRandom;
use rand::{SeedableRng, TryRng};
use tokio::sync::mpsc;
use xq_rules::{Color, Move, Position};
use xq_session::pgn::{self, MoveFormat};
use xq_session::{Action, Command, GameResult, Match, MatchConfig, Record, TimeControl, Timestamp};

use crate::elo::Tally;
use crate::engine::{Brain, Budget, EngineSpec, Settings};

/// The arguments of `xq match`.
#[derive(Args)]
pub(crate) struct MatchArgs {
    /// An engine: `random` (random legal moves), `builtin`, `builtin:LEVEL` (1 to 10) or a UCI
    /// engine's command line; give exactly two. Scores are the first one's.
    #[arg(long = "engine", value_name = "SPEC", required = true, num_args = 1)]
    engines: Vec<EngineSpec>,
    /// Games to play, in pairs of colours swapped from the same opening.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// The time control: a time per move (`1s`, `250ms`), clocks as `BASE+INC` in seconds
    /// (`60+1`), or a fixed budget, `nodes=N` or `depth=N`.
    #[arg(long, default_value = "1s")]
    tc: TimeBudget,
    /// Seeds the random plies each pair of games opens with (drawn and printed when absent).
    #[arg(long, value_name = "SEED")]
    openings: Option<u64>,
    /// How many random plies open each game.
    #[arg(long, default_value_t = 4, value_name = "PLIES")]
    opening_plies: u32,
    /// Games played at once, each with its own engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,
    /// Writes every game, in order, to this PGN file.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// A UCI option for the external engines, `NAME=VALUE`, sent after the handshake; may be
    /// repeated (for Fairy-Stockfish at a strength: `UCI_LimitStrength=true`, `UCI_Elo=2000`).
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = name_value)]
    uci_options: Vec<(String, String)>,
}

/// Reads a `NAME=VALUE` pair.
pub(crate) fn name_value(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not NAME=VALUE"))?;
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// A time control for a whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeBudget {
    /// The same time for every move; the game itself is untimed.
    PerMove(Duration),
    /// Fischer clocks, enforced by the referee: a flag ends the game.
    Clocks {
        /// Each side's time at the start.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A fixed node budget per move.
    Nodes(u64),
    /// A fixed depth per move.
    Depth(u32),
}

impl FromStr for TimeBudget {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad =
            || format!("{text:?} is no time control (`1s`, `250ms`, `60+1`, `nodes=N`, `depth=N`)");
        let number = |t: &str| t.parse::<u64>().map_err(|_| bad());
        let seconds = |t: &str| {
            t.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e7)
                .map(Duration::from_secs_f64)
                .ok_or_else(bad)
        };
        let budget = if let Some(nodes) = text.strip_prefix("nodes=") {
            Self::Nodes(number(nodes)?)
        } else if let Some(depth) = text.strip_prefix("depth=") {
            Self::Depth(u32::try_from(number(depth)?).map_err(|_| bad())?)
        } else if let Some((base, increment)) = text.split_once('+') {
            Self::Clocks {
                base: seconds(base)?,
                increment: seconds(increment)?,
            }
        } else if let Some(ms) = text.strip_suffix("ms") {
            Self::PerMove(Duration::from_millis(number(ms)?))
        } else if let Some(s) = text.strip_suffix('s') {
            Self::PerMove(seconds(s)?)
        } else {
            return Err(bad());
        };
        match budget {
            Self::Nodes(0) | Self::Depth(0) => Err(bad()),
            Self::PerMove(time) | Self::Clocks { base: time, .. } if time.is_zero() => Err(bad()),
            _ => Ok(budget),
        }
    }
}

impl fmt::Display for TimeBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PerMove(time) => write!(f, "{} ms a move", time.as_millis()),
            Self::Clocks { base, increment } => {
                write!(f, "{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
            Self::Nodes(nodes) => write!(f, "{nodes} nodes a move"),
            Self::Depth(depth) => write!(f, "depth {depth}"),
        }
    }
}

impl TimeBudget {
    fn time_control(self) -> TimeControl {
        match self {
            Self::Clocks { base, increment } => TimeControl::Increment { base, increment },
            _ => TimeControl::Untimed,
        }
    }
}

/// One game's assignment: its number, and who plays Red.
#[derive(Clone, Copy)]
struct Pairing {
    /// Counted from 0; games `2k` and `2k + 1` share an opening.
    index: u32,
    /// Whether the first engine plays Red.
    first_is_red: bool,
}

impl Pairing {
    fn new(index: u32) -> Self {
        Self {
            index,
            first_is_red: index.is_multiple_of(2),
        }
    }
}

/// A finished game.
struct Played {
    pairing: Pairing,
    record: Record,
    /// The engine fault that ended the game, if one did.
    fault: Option<String>,
}

/// Plays the games and prints a line for each, then the totals.
pub(crate) fn run(args: MatchArgs) -> Result<()> {
    let [first, second] = <[EngineSpec; 2]>::try_from(args.engines.clone())
        .map_err(|specs| anyhow::anyhow!("give exactly two engines, not {}", specs.len()))?;
    if args.opening_plies > 40 {
        bail!("--opening-plies: at most 40");
    }
    let seed = match args.openings {
        Some(seed) => seed,
        None => {
            let seed = SysRng
                .try_next_u64()
                .context("drawing a seed (pass --openings)")?;
            eprintln!("openings: {seed}");
            seed
        }
    };
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(play_all(args, [first, second], seed))
}

async fn play_all(args: MatchArgs, specs: [EngineSpec; 2], seed: u64) -> Result<()> {
    let settings = Settings {
        uci_options: args.uci_options.clone(),
        ..Settings::default()
    };
    let mut out = io::stdout();
    writeln!(
        out,
        "engines: {} vs {}; {} games at {}; openings {seed}",
        specs[0], specs[1], args.games, args.tc
    )?;
    let next = Arc::new(AtomicU32::new(0));
    let (done, mut results) = mpsc::unbounded_channel();
    let mut workers = Vec::new();
    for worker in 0..args.concurrency.min(args.games) {
        let (specs, settings, next, done) =
            (specs.clone(), settings.clone(), next.clone(), done.clone());
        let (games, tc, plies) = (args.games, args.tc, args.opening_plies);
        workers.push(tokio::spawn(async move {
            let brain_seed = seed ^ u64::from(worker).wrapping_mul(0xA24B_AED4_963E_E407);
            let mut brains = [
                Brain::open(&specs[0], brain_seed, &settings).await?,
                Brain::open(&specs[1], brain_seed.rotate_left(17), &settings).await?,
            ];
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= games {
                    break;
                }
                let pairing = Pairing::new(index);
                let opening = opening(seed, index / 2, plies);
                let played = play_game(&mut brains, pairing, &opening, tc).await?;
                if done.send(played).is_err() {
                    break;
                }
            }
            for brain in brains {
                brain.close().await;
            }
            anyhow::Ok(())
        }));
    }
    drop(done);
    let mut tally = Tally::default();
    let mut records = BTreeMap::new();
    let names: [String; 2] = [specs[0].to_string(), specs[1].to_string()];
    while let Some(played) = results.recv().await {
        let (red, black) = if played.pairing.first_is_red {
            (&names[0], &names[1])
        } else {
            (&names[1], &names[0])
        };
        let result = played.record.result();
        count(&mut tally, result, played.pairing.first_is_red);
        let token = pgn::result_token(result.map(|r| r.outcome()));
        let why = result.map_or_else(|| "unfinished".to_owned(), |r| r.to_string());
        let fault = played
            .fault
            .as_deref()
            .map_or_else(String::new, |f| format!(": {f}"));
        writeln!(
            out,
            "game {}/{}: {red} (red) vs {black} (black): {token} ({why}{fault}), {} plies",
            played.pairing.index + 1,
            args.games,
            played.record.moves().len()
        )?;
        records.insert(played.pairing.index, played);
    }
    for worker in workers {
        worker.await.context("a game worker failed")??;
    }
    if let Some(path) = &args.pgn {
        let text: String = records
            .values()
            .map(|played| pgn::write(&tagged(played, &names, args.tc), MoveFormat::Iccs) + "\n")
            .collect();
        fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let score = tally.score().unwrap_or(0.0) * 100.0;
    writeln!(
        out,
        "{} vs {}: {} games, W/D/L {}/{}/{}, score {score:.1}%, elo {}",
        names[0],
        names[1],
        tally.games(),
        tally.wins,
        tally.draws,
        tally.losses,
        tally
            .elo()
            .map_or_else(|| "-".to_owned(), |estimate| estimate.to_string()),
    )?;
    Ok(())
}

/// Adds a game's result to the first engine's tally.
fn count(tally: &mut Tally, result: Option<GameResult>, first_is_red: bool) {
    match result {
        Some(GameResult::Win { winner, .. }) if (winner == Color::Red) == first_is_red => {
            tally.wins += 1;
        }
        Some(GameResult::Win { .. }) => tally.losses += 1,
        Some(GameResult::Draw { .. }) | None => tally.draws += 1,
    }
}

/// The record with the players' names, the time control and any fault among its tags.
fn tagged(played: &Played, names: &[String; 2], tc: TimeBudget) -> Record {
    let mut record = played.record.clone();
    let (red, black) = if played.pairing.first_is_red {
        (&names[0], &names[1])
    } else {
        (&names[1], &names[0])
    };
    record.tags.event = Some("xq match".to_owned());
    record.tags.red = Some(red.clone());
    record.tags.black = Some(black.clone());
    record
        .tags
        .other
        .push(("Round".to_owned(), (played.pairing.index + 1).to_string()));
    record
        .tags
        .other
        .push(("TimeControl".to_owned(), tc.to_string()));
    if let Some(fault) = &played.fault {
        record
            .tags
            .other
            .push(("Forfeit".to_owned(), fault.clone()));
    }
    record
}

/// The opening of the `pair`-th pair of games: `plies` random quiet legal moves from the start,
/// drawn from `seed`, stopping early if a ply would leave no quiet move.
fn opening(seed: u64, pair: u32, plies: u32) -> Vec<Move> {
    let mut rng = StdRng::seed_from_u64(seed ^ u64::from(pair).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let quiet: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|mv| pos.board().piece_at(mv.to).is_none())
            .collect();
        let Some(&mv) = quiet.choose(&mut rng) else {
            break;
        };
        pos.play_unchecked(mv);
        if !pos.has_legal_move() {
            break;
        }
        moves.push(mv);
    }
    moves
}

/// Plays one game to its end.
async fn play_game(
    brains: &mut [Brain; 2],
    pairing: Pairing,
    opening: &[Move],
    tc: TimeBudget,
) -> Result<Played> {
    for brain in brains.iter_mut() {
        brain.new_game().await?;
    }
    let origin = Instant::now();
    let now =
        || Timestamp::from_millis(u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX));
    let mut config = MatchConfig::default();
    config.time_control = tc.time_control();
    let start = Position::clone(&config.start);
    let mut game = Match::new(config, now());
    for &mv in opening {
        let by = game.turn();
        game.handle(now(), Action::Play(mv).by(by))
            .context("playing the opening")?;
    }
    let mut moves = opening.to_vec();
    let mut fault = None;
    while game.status().is_ongoing() {
        let turn = game.turn();
        let mover = usize::from((turn == Color::Red) != pairing.first_is_red);
        let budget = match tc {
            TimeBudget::PerMove(time) => Budget::MoveTime(time),
            TimeBudget::Clocks { increment, .. } => Budget::Clocks {
                remaining: game.clocks(now()).context("the clocks of a timed game")?,
                increment,
            },
            TimeBudget::Nodes(nodes) => Budget::Nodes(nodes),
            TimeBudget::Depth(depth) => Budget::Depth(depth),
        };
        let brain = &mut brains[mover];
        match brain.choose(&start, &moves, budget).await {
            Ok(choice) => match game.handle(now(), Action::Play(choice.mv).by(turn)) {
                Ok(()) => moves.push(choice.mv),
                // The flag fell while it thought: the referee has ended the game.
                Err(_) if !game.status().is_ongoing() => {}
                Err(refused) => {
                    fault = Some(format!("{} played {}: {refused}", brain.name(), choice.mv));
                    game.handle(now(), Command::Abandon { by: turn })?;
                }
            },
            Err(error) => {
                game.handle_timeout(now());
                if game.status().is_ongoing() {
                    fault = Some(format!("{}: {error:#}", brain.name()));
                    game.handle(now(), Command::Abandon { by: turn })?;
                }
            }
        }
    }
    Ok(Played {
        pairing,
        record: game.record(),
        fault,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use xq_session::{DrawReason, WinReason};

    #[test]
    fn time_controls_parse_and_refuse_nonsense() {
        assert_eq!(
            "1s".parse(),
            Ok(TimeBudget::PerMove(Duration::from_secs(1)))
        );
        assert_eq!(
            "250ms".parse(),
            Ok(TimeBudget::PerMove(Duration::from_millis(250)))
        );
        assert_eq!(
            "60+0.5".parse(),
            Ok(TimeBudget::Clocks {
                base: Duration::from_secs(60),
                increment: Duration::from_millis(500),
            })
        );
        assert_eq!("nodes=5000".parse(), Ok(TimeBudget::Nodes(5000)));
        assert_eq!("depth=4".parse(), Ok(TimeBudget::Depth(4)));
        for bad in [
            "", "1", "0s", "nodes=0", "depth=-1", "x+1", "1e99+0", "nan+1", "0+1",
        ] {
            assert!(bad.parse::<TimeBudget>().is_err(), "{bad}");
        }
    }

    #[test]
    fn openings_are_fixed_by_the_seed_and_differ_between_pairs() {
        assert_eq!(opening(7, 0, 6), opening(7, 0, 6));
        assert_ne!(opening(7, 0, 6), opening(7, 1, 6));
        assert_eq!(opening(7, 3, 6).len(), 6);
        assert!(opening(7, 3, 0).is_empty());
        // Every ply is legal and quiet.
        let mut pos = Position::startpos();
        for mv in opening(11, 2, 8) {
            assert!(pos.board().piece_at(mv.to).is_none());
            pos = pos.play(mv).expect("test value");
        }
    }

    #[test]
    fn pairs_swap_colours() {
        assert!(Pairing::new(0).first_is_red);
        assert!(!Pairing::new(1).first_is_red);
        assert_eq!(Pairing::new(2).index / 2, 1);
    }

    #[test]
    fn results_count_for_the_first_engine_whatever_its_colour() {
        let mut tally = Tally::default();
        let red_wins = GameResult::Win {
            winner: Color::Red,
            reason: WinReason::Checkmate,
        };
        count(&mut tally, Some(red_wins), true);
        count(&mut tally, Some(red_wins), false);
        let draw = GameResult::Draw {
            reason: DrawReason::Repetition,
        };
        count(&mut tally, Some(draw), false);
        assert_eq!((tally.wins, tally.draws, tally.losses), (1, 1, 1));
    }
}
