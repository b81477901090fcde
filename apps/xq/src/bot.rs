//! `xq bot`: a client that enters a room and plays until the game ends, with random legal moves
//! or an engine's.

use std::io::{self, Write};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use rand::TryRng;
use rand::rngs::SysRng;
use xq_client::{Client, ClientError, ClientEvent, ClientOptions, Mirror, Relays};
use xq_protocol::{RoomCode, RoomOptions, SeatChoice};
use xq_rules::{Color, Move};
use xq_session::{TimeControl, pgn};

use crate::engine::{Brain, Budget, EngineSpec, Settings};

/// The arguments of `xq bot`.
#[derive(Args)]
pub(crate) struct BotArgs {
    /// The relay: `udp://host:port` or `quic://host:port?fp=<hex>`; or a relay cluster's
    /// nodes as a comma-separated list (`udp://relay-a:7878,udp://relay-b:7878`), of which the
    /// bot uses the first that answers and, when its relay goes away, resumes its seat through
    /// the next one.
    #[arg(value_name = "URL[,URL...]")]
    relays: Relays,
    #[command(flatten)]
    entry: Entry,
    /// How to choose moves without an engine.
    #[arg(long, value_enum, default_value_t = Strategy::Random, conflicts_with = "engine")]
    moves: Strategy,
    /// Plays an engine's moves: `builtin`, `builtin:LEVEL` (1 to 10), or the command line of a
    /// UCI engine (`'fairy-stockfish'`).
    #[arg(long, value_name = "SPEC")]
    engine: Option<EngineSpec>,
    /// The engine's time for each move, in milliseconds. Without it, the engine follows the
    /// match's clocks, or takes a second a move in an untimed match.
    #[arg(long, value_name = "MS", requires = "engine")]
    movetime: Option<u64>,
    /// A UCI option for an external engine, `NAME=VALUE`, sent after the handshake; may be
    /// repeated.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = crate::arena::name_value, requires = "engine")]
    uci_options: Vec<(String, String)>,
    /// Seeds the move choice, so a game can be played again (drawn and printed to standard
    /// error when absent).
    #[arg(long)]
    seed: Option<u64>,
    /// The colour to ask for with `--create` (default: drawn by the relay).
    #[arg(long, value_enum, conflicts_with_all = ["join", "quick"])]
    seat: Option<Seat>,
    /// Milliseconds to wait before each move, so that a bot stays well inside the relay's
    /// per-connection rate limit (100 frames/s by default) and a person can follow the game.
    #[arg(long, value_name = "MS", default_value_t = 20)]
    move_delay: u64,
}

/// How the bot gets into a room: exactly one of the three.
#[derive(Args)]
#[group(required = true, multiple = false)]
struct Entry {
    /// Create a room and print its code.
    #[arg(long)]
    create: bool,
    /// Join the room with this code.
    #[arg(long, value_name = "CODE")]
    join: Option<RoomCode>,
    /// Be paired with the next player who asks for a quick match.
    #[arg(long)]
    quick: bool,
}

/// How the bot chooses among the legal moves.
#[derive(Clone, Copy, ValueEnum)]
enum Strategy {
    /// Uniformly at random.
    Random,
}

/// The colour asked for when creating a room.
#[derive(Clone, Copy, ValueEnum)]
enum Seat {
    /// Red, who moves first.
    Red,
    /// Black.
    Black,
    /// Drawn by the relay.
    Random,
}

/// Plays one game: prints `room: CODE` once seated and `result: <1-0|0-1|1/2-1/2> (<reason>)`
/// at the end.
pub(crate) fn bot(args: BotArgs) -> Result<()> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(play(args))
}

async fn play(args: BotArgs) -> Result<()> {
    let seed = match args.seed {
        Some(seed) => seed,
        None => {
            let seed = SysRng
                .try_next_u64()
                .context("drawing a seed (pass --seed)")?;
            eprintln!("seed: {seed}");
            seed
        }
    };
    let options = ClientOptions {
        name: concat!("xq-bot/", env!("CARGO_PKG_VERSION")).to_string(),
        ..ClientOptions::default()
    };
    let settings = Settings {
        uci_options: args.uci_options.clone(),
        ..Settings::default()
    };
    let spec = args.engine.clone().unwrap_or(match args.moves {
        Strategy::Random => EngineSpec::Random,
    });
    let brain = Brain::open(&spec, seed, &settings).await?;
    if args.engine.is_some() {
        eprintln!("engine: {}", brain.name());
    }
    let mut client = Client::connect_relays(&args.relays, options)
        .await
        .with_context(|| format!("connecting to {}", args.relays))?;
    let room = enter(&client, &args).await.context("entering a room")?;
    writeln!(io::stdout(), "room: {}", room.code)?;
    let seat = room
        .seat
        .context("the relay seated the bot as a spectator")?;
    let mut player = Player {
        brain: Some(brain),
        movetime: args.movetime.map(Duration::from_millis),
        seat,
        acted_at: None,
        move_delay: Duration::from_millis(args.move_delay),
    };
    loop {
        if let Some(mirror) = client.mirror() {
            if let Some(result) = mirror.status().result() {
                let token = pgn::result_token(Some(result.outcome()));
                writeln!(io::stdout(), "result: {token} ({result})")?;
                client.close().await;
                if let Some(brain) = player.brain.take() {
                    brain.close().await;
                }
                return Ok(());
            }
            player.act(&client, &mirror).await?;
        }
        match client.next_event().await {
            Some(ClientEvent::Reconnecting { cause }) => eprintln!("reconnecting: {cause}"),
            Some(ClientEvent::Reconnected) => {
                eprintln!("reconnected");
                // Whatever was sent just before the failure may be lost: decide afresh.
                player.acted_at = None;
            }
            Some(ClientEvent::Rejected { message, .. }) => eprintln!("refused: {message}"),
            Some(ClientEvent::Disconnected { cause }) => {
                return Err(cause).context("disconnected");
            }
            Some(_) => {}
            None => bail!("the connection closed before the game ended"),
        }
    }
}

async fn enter(client: &Client, args: &BotArgs) -> Result<xq_client::Room, ClientError> {
    let entry = &args.entry;
    if let Some(code) = entry.join {
        client.join(code).await
    } else if entry.quick {
        client.quick_match(RoomOptions::default()).await
    } else {
        let seat = match args.seat {
            Some(Seat::Red) => SeatChoice::Red,
            Some(Seat::Black) => SeatChoice::Black,
            Some(Seat::Random) | None => SeatChoice::Random,
        };
        let options = RoomOptions {
            seat,
            ..RoomOptions::default()
        };
        client.create(options).await
    }
}

/// The bot's decisions: decline the opponent's requests, and move when it is its turn.
struct Player {
    /// Where its moves come from; `None` once the game is over and it is closed.
    brain: Option<Brain>,
    /// The engine's time a move; `None`: the match's clocks, or a second a move untimed.
    movetime: Option<Duration>,
    seat: Color,
    /// The mirror's event number when the bot last sent something: it acts once per state,
    /// then waits for the relay's answer.
    acted_at: Option<u64>,
    /// The pause before each move.
    move_delay: Duration,
}

impl Player {
    /// The move to play in the mirror's position; `None` when there is none.
    async fn choose(&mut self, mirror: &Mirror) -> Result<Option<Move>> {
        let Some(brain) = self.brain.as_mut() else {
            return Ok(None);
        };
        if mirror.legal_moves().is_empty() {
            return Ok(None);
        }
        let clocks = mirror.clocks_after(Duration::ZERO);
        let budget = match (self.movetime, clocks, mirror.config().time_control) {
            (Some(time), _, _) => Budget::MoveTime(time),
            (None, Some(remaining), TimeControl::Increment { increment, .. }) => Budget::Clocks {
                remaining,
                increment,
            },
            _ => Budget::MoveTime(Duration::from_secs(1)),
        };
        let record = mirror.record();
        let choice = brain.choose(record.start(), record.moves(), budget).await?;
        if let Some(score) = &choice.score {
            eprintln!("{}: {score}", choice.mv);
        }
        Ok(Some(choice.mv))
    }

    async fn act(&mut self, client: &Client, mirror: &Mirror) -> Result<()> {
        let state = mirror.next_seq();
        if self.acted_at == Some(state) || !mirror.is_full() {
            return Ok(());
        }
        let sent = if mirror.pending_undo().is_some_and(|req| req.by != self.seat) {
            client.answer_undo(false).await
        } else if mirror.pending_draw().is_some_and(|by| by != self.seat) {
            client.answer_draw(false).await
        } else if mirror.turn() == self.seat {
            // No move: the last one mated or stalemated, and the relay's game-over event
            // follows its move event.
            let Some(mv) = self.choose(mirror).await? else {
                return Ok(());
            };
            tokio::time::sleep(self.move_delay).await;
            client.play(mv).await
        } else {
            return Ok(());
        };
        match sent {
            Ok(()) => self.acted_at = Some(state),
            // The connection is being restored; act again once it is back.
            Err(ClientError::NotConnected) => {}
            Err(error) => return Err(error.into()),
        }
        Ok(())
    }
}
