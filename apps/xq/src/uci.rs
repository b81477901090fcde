//! `xq uci`: the built-in engine behind the Universal Chess Interface, as Xiangqi GUIs speak it
//! to Pikafish (ICCS moves, ranks 0 to 9).
//!
//! Standard input is read on the main thread; the search runs on a thread of its own, so that
//! `stop`, `isready` and `quit` are answered while it thinks. Every line out is written whole
//! under the output's lock. A command that cannot be carried out (unknown, malformed, an illegal
//! move in `position`, `go` while searching) is answered with `info string` and changes nothing.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use xq_engine::{Engine, Game, Level, Limits, Options, Thought};
use xq_rules::Position;
use xq_uci::{
    Command, Dialect, EngineMessage, Go, IdField, Info, InfoScore, OptionDecl, OptionKind, Start,
};

use crate::engine::{Request, Since};

/// The dialect GUIs speak to Pikafish, and so to us.
const DIALECT: Dialect = Dialect::Iccs;

/// The transposition table's size bounds, in MiB.
const HASH_MIB: (usize, usize, usize) = (16, 1, 4096);

/// Runs the UCI loop until `quit` or the end of standard input.
pub(crate) fn uci() -> Result<()> {
    let out = Output(Arc::new(Mutex::new(io::stdout())));
    let mut front = Front::new(out.clone());
    for line in io::stdin().lock().lines() {
        let line = line.context("reading standard input")?;
        if !front.handle(&line)? {
            break;
        }
    }
    front.shut_down();
    Ok(())
}

/// Standard output, shared by the front and the search thread, a line at a time.
#[derive(Clone)]
struct Output(Arc<Mutex<io::Stdout>>);

impl Output {
    fn send(&self, message: &EngineMessage) -> Result<()> {
        let mut out = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        writeln!(out, "{}", message.to_line(DIALECT))
            .and_then(|()| out.flush())
            .context("writing standard output")
    }

    fn say(&self, text: impl Into<String>) -> Result<()> {
        self.send(&EngineMessage::Info(Box::new(Info {
            string: Some(text.into()),
            ..Info::default()
        })))
    }
}

/// What the search thread is asked to do.
enum Job {
    Search {
        request: Request,
        /// Keep the answer back until `stop`, as `go infinite` asks.
        hold: bool,
    },
    NewGame,
    Resize(usize),
}

/// The command side: the position, the options, and the search thread's handle.
struct Front {
    out: Output,
    game: Game,
    level: Level,
    seed: u64,
    hash_mib: usize,
    jobs: Sender<Job>,
    worker: Option<JoinHandle<()>>,
    /// Raised to end the current search.
    stop: Arc<AtomicBool>,
    /// Set while a search runs, until its `bestmove` is out.
    busy: Arc<AtomicBool>,
}

impl Front {
    fn new(out: Output) -> Self {
        let (jobs, inbox) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(AtomicBool::new(false));
        let worker = {
            let (out, stop, busy) = (out.clone(), stop.clone(), busy.clone());
            thread::spawn(move || work(&inbox, &out, &stop, &busy))
        };
        Self {
            out,
            game: Game::new(Position::startpos()),
            level: Level::MAX,
            seed: 0,
            hash_mib: HASH_MIB.0,
            jobs,
            worker: Some(worker),
            stop,
            busy,
        }
    }

    /// Handles one line; `false` once the GUI said `quit`.
    fn handle(&mut self, line: &str) -> Result<bool> {
        if line.trim().is_empty() {
            return Ok(true);
        }
        let command = match Command::parse(line, DIALECT) {
            Ok(command) => command,
            Err(error) => {
                self.out.say(format!("{error}"))?;
                return Ok(true);
            }
        };
        match command {
            Command::Uci => self.identify()?,
            Command::Debug(_) | Command::PonderHit => {}
            Command::IsReady => self.out.send(&EngineMessage::ReadyOk)?,
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref())?,
            Command::UciNewGame => {
                if self.idle()? {
                    self.submit(Job::NewGame);
                }
            }
            Command::Position { start, moves } => self.set_position(start, moves)?,
            Command::Go(go) => self.go(&go)?,
            Command::Stop => self.stop.store(true, Ordering::Relaxed),
            Command::Quit => return Ok(false),
        }
        Ok(true)
    }

    fn identify(&self) -> Result<()> {
        let id = |field, value: &str| EngineMessage::Id {
            field,
            value: value.to_owned(),
        };
        self.out.send(&id(
            IdField::Name,
            concat!("xq ", env!("CARGO_PKG_VERSION")),
        ))?;
        self.out.send(&id(IdField::Author, "the xq developers"))?;
        let spin = |name: &str, default: i64, min: i64, max: i64| {
            EngineMessage::Option(OptionDecl {
                name: name.to_owned(),
                kind: OptionKind::Spin { default, min, max },
            })
        };
        let (min, max) = (Level::MIN.get(), Level::MAX.get());
        self.out.send(&spin(
            "Level",
            i64::from(max),
            i64::from(min),
            i64::from(max),
        ))?;
        let (default, min, max) = HASH_MIB;
        self.out
            .send(&spin("Hash", default as i64, min as i64, max as i64))?;
        self.out.send(&spin("Seed", 0, 0, i64::from(u32::MAX)))?;
        self.out.send(&EngineMessage::UciOk)
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        let value = value.unwrap_or_default();
        if name.eq_ignore_ascii_case("level") {
            match value.parse::<Level>() {
                Ok(level) => self.level = level,
                Err(error) => self.out.say(format!("Level {value:?}: {error}"))?,
            }
        } else if name.eq_ignore_ascii_case("hash") {
            let (_, min, max) = HASH_MIB;
            match value.parse::<usize>() {
                Ok(mib) if (min..=max).contains(&mib) => {
                    if mib != self.hash_mib && self.idle()? {
                        self.hash_mib = mib;
                        self.submit(Job::Resize(mib));
                    }
                }
                _ => self
                    .out
                    .say(format!("Hash {value:?}: from {min} to {max} MiB"))?,
            }
        } else if name.eq_ignore_ascii_case("seed") {
            match value.parse::<u32>() {
                Ok(seed) => self.seed = u64::from(seed),
                Err(_) => self
                    .out
                    .say(format!("Seed {value:?}: from 0 to {}", u32::MAX))?,
            }
        } else {
            self.out.say(format!("no option {name:?}"))?;
        }
        Ok(())
    }

    fn set_position(&mut self, start: Start, moves: Vec<xq_rules::Move>) -> Result<()> {
        let position = match start {
            Start::Startpos => Position::startpos(),
            Start::Fen(fen) => match fen.into_position() {
                Ok(position) => position,
                Err(error) => return self.out.say(format!("position: {error}")),
            },
        };
        match Game::from_moves(position, moves) {
            Ok(game) => self.game = game,
            Err(error) => self.out.say(format!("position: {error}"))?,
        }
        Ok(())
    }

    fn go(&mut self, go: &Go) -> Result<()> {
        if !self.idle()? {
            return Ok(());
        }
        let turn = self.game.position().turn();
        let (time, increment) = match turn {
            xq_rules::Color::Red => (go.wtime, go.winc),
            xq_rules::Color::Black => (go.btime, go.binc),
        };
        let mut limits = match (go.movetime, time) {
            (Some(movetime), _) => Limits::movetime(movetime),
            (None, Some(time)) => {
                Limits::from_clock(time, increment.unwrap_or_default(), go.movestogo)
            }
            (None, None) => Limits::default(),
        };
        limits.depth = go.depth.or(limits.depth);
        limits.nodes = go.nodes.or(limits.nodes);
        if go.ponder {
            self.out.say("pondering is not supported: searching now")?;
        }
        self.stop.store(false, Ordering::Relaxed);
        self.busy.store(true, Ordering::Relaxed);
        let request = Request {
            game: self.game.clone(),
            level: self.level,
            limits,
            seed: self.seed,
        };
        self.submit(Job::Search {
            request,
            hold: go.infinite,
        });
        Ok(())
    }

    /// Whether no search runs; says so to the GUI if one does.
    fn idle(&self) -> Result<bool> {
        let idle = !self.busy.load(Ordering::Relaxed);
        if !idle {
            self.out.say("searching: send stop first")?;
        }
        Ok(idle)
    }

    fn submit(&self, job: Job) {
        // The worker only ends when the channel closes, which is after this.
        let _ = self.jobs.send(job);
    }

    /// Stops any search and waits for the thread.
    fn shut_down(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let (jobs, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.jobs, jobs));
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The search thread: runs jobs until the channel closes.
fn work(inbox: &Receiver<Job>, out: &Output, stop: &AtomicBool, busy: &AtomicBool) {
    let mut engine = Engine::new(Options::default());
    while let Ok(job) = inbox.recv() {
        match job {
            Job::NewGame => engine.clear(),
            Job::Resize(hash_mib) => {
                engine = Engine::new(Options {
                    hash_mib,
                    ..Options::default()
                });
            }
            Job::Search { request, hold } => {
                let answer = search(&mut engine, &request, stop, out);
                while hold && !stop.load(Ordering::Relaxed) {
                    thread::sleep(Duration::from_millis(2));
                }
                // Idle before the answer is out: a GUI may send its next `go` the moment it
                // reads `bestmove`, and this thread sends nothing of that search before this.
                busy.store(false, Ordering::Relaxed);
                if out.send(&answer).is_err() {
                    return;
                }
            }
        }
    }
}

/// Searches and returns the `bestmove` line: `(none)` when the game is over at the root.
fn search(
    engine: &mut Engine,
    request: &Request,
    stop: &AtomicBool,
    out: &Output,
) -> EngineMessage {
    let clock = Since(Instant::now());
    let report = |info: &xq_engine::Info| {
        let millis = u64::try_from(info.elapsed.as_millis()).unwrap_or(u64::MAX);
        let _ = out.send(&EngineMessage::Info(Box::new(Info {
            depth: Some(info.depth),
            seldepth: Some(info.seldepth),
            score: Some(uci_score(info.score)),
            nodes: Some(info.nodes),
            nps: Some(info.nodes * 1000 / millis.max(1)),
            time: Some(info.elapsed),
            pv: info.pv.clone(),
            ..Info::default()
        })));
    };
    let mut report = report;
    match request.think(engine, &clock, stop, &mut report) {
        Ok(Thought { best, ponder, .. }) => EngineMessage::BestMove {
            best: Some(best),
            ponder,
        },
        Err(_) => EngineMessage::BestMove {
            best: None,
            ponder: None,
        },
    }
}

/// The built-in engine's score in UCI's terms.
fn uci_score(score: xq_engine::Score) -> InfoScore {
    let value = match score {
        xq_engine::Score::Centipawns(cp) => xq_uci::Score::Cp(cp),
        xq_engine::Score::Mate(moves) => xq_uci::Score::Mate(moves),
    };
    InfoScore { value, bound: None }
}
