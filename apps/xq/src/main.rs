//! `xq`: the developer's command-line tool. Its output formats are an interface that scripts rely
//! on; each subcommand's help says what it prints.

mod arena;
mod bot;
mod diagram;
mod elo;
mod engine;
mod judge;
mod replay;
mod rules;
mod uci;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xq_rules::chinese::Chinese;
use xq_rules::wxf::Wxf;
use xq_session::RepetitionRule;

/// Xiangqi tools: move generation, notations, positions.
#[derive(Parser)]
#[command(name = "xq", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Counts the leaves of the legal-move tree; the total is alone on the last line.
    Perft {
        /// A FEN, or `startpos`.
        position: String,
        /// Plies to search, up to 16 (each ply multiplies the time by some 40: depth 8 from
        /// the start already takes an hour).
        #[arg(value_parser = clap::value_parser!(u32).range(0..=16))]
        depth: u32,
        /// Also print each first move (ICCS) with its count, one per line, before the total.
        #[arg(long)]
        divide: bool,
    },
    /// Prints all legal moves in ICCS, sorted, space-separated on one line.
    Moves {
        /// A FEN, `startpos`, or `-` to read one FEN per line from standard input (one output line
        /// each, empty when there is no legal move).
        position: String,
    },
    /// Prints `ongoing`, `check`, `checkmate` or `stalemate`.
    Status {
        /// A FEN, `startpos`, or `-` to read one FEN per line from standard input.
        position: String,
    },
    /// Plays moves given in ICCS and prints the resulting FEN.
    Play {
        /// A FEN, or `startpos`.
        position: String,
        /// Moves in ICCS (`h2e2`).
        moves: Vec<String>,
    },
    /// Prints the WXF notation (`C2=5`) of each move in turn, space-separated.
    Wxf {
        /// A FEN, or `startpos`.
        position: String,
        /// Moves in ICCS (`h2e2`).
        moves: Vec<String>,
    },
    /// Prints the Chinese notation (`炮二平五`) of each move in turn, space-separated.
    Chinese {
        /// A FEN, or `startpos`.
        position: String,
        /// Moves in ICCS (`h2e2`).
        moves: Vec<String>,
    },
    /// Plays moves through the referee the relay uses (default rules, no clocks) and prints
    /// `ongoing`, or the result and its reason: `<1-0|0-1|1/2-1/2> <reason>`, the reason one of
    /// `checkmate`, `stalemate`, `perpetual-check`, `perpetual-chase`, `repetition`,
    /// `move-limit`. A move after the end of the game, or an illegal one, is an error.
    Judge {
        /// A FEN, or `startpos`.
        position: String,
        /// Moves in ICCS (`h2e2`).
        moves: Vec<String>,
        /// How repetitions are judged: `asian` (perpetual check and perpetual chase lose) or
        /// `checks-only` (only perpetual check loses).
        #[arg(long, default_value_t = RepetitionRule::Asian)]
        rule: RepetitionRule,
    },
    /// Prints a text diagram of the board (Chinese glyphs, Red at the bottom) and the status.
    Show {
        /// A FEN, or `startpos`.
        position: String,
    },
    /// Steps through a PGN record: one line per ply, `<ply> <iccs> <wxf> <fen after the move>`, then
    /// `result <1-0|0-1|1/2-1/2|*>` followed by the termination, if the record gives one.
    Replay {
        /// The PGN file.
        file: std::path::PathBuf,
    },
    /// Plays one game on a relay with random legal moves or an engine's, declining undo and
    /// draw requests: prints `room: <CODE>` once seated, then
    /// `result: <1-0|0-1|1/2-1/2> (<reason>)`.
    Bot(bot::BotArgs),
    /// Speaks UCI on standard input and output, as the built-in engine, for any Xiangqi GUI
    /// (ICCS moves, ranks 0 to 9, as Pikafish writes them).
    Uci,
    /// Plays engines against each other through the relay's referee: a line per game, then
    /// `<A> vs <B>: N games, W/D/L w/d/l, score S%, elo E (95%: LOW to HIGH)` from A's side.
    Match(arena::MatchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft {
            position,
            depth,
            divide,
        } => rules::perft(&position, depth, divide),
        Command::Moves { position } => rules::for_each_input(&position, rules::moves),
        Command::Status { position } => rules::for_each_input(&position, rules::status),
        Command::Play { position, moves } => rules::play(&position, &moves),
        Command::Wxf { position, moves } => rules::notate(&position, &moves, |pos, mv| {
            Wxf::from_move(pos, mv).to_string()
        }),
        Command::Chinese { position, moves } => rules::notate(&position, &moves, |pos, mv| {
            Chinese::from_move(pos, mv).to_string()
        }),
        Command::Judge {
            position,
            moves,
            rule,
        } => judge::judge(&position, &moves, rule),
        Command::Show { position } => rules::show(&position),
        Command::Replay { file } => replay::replay(&file),
        Command::Bot(args) => bot::bot(args),
        Command::Uci => uci::uci(),
        Command::Match(args) => arena::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xq: {err:#}");
            ExitCode::FAILURE
        }
    }
}
