//! `xq load`: a load generator that plays many matches against a relay at once and measures
//! throughput, latency and the relay's CPU and memory.
//!
//! Each match is one task holding both of its clients, so a move's latency is measured on one
//! clock, from the mover's send to the opponent receiving the event, and the task knows at
//! once whose turn it is. The clients speak the protocol directly over `xq-transport` (no
//! `xq-client`: its mirror, reconnection and event channel would cost the load generator more
//! CPU than the relay it measures). The tables replay [`Scripts`]: random legal games played
//! to their end before the clock starts, so the tool spends no time choosing moves and knows,
//! as the relay does, when a game is over and a rematch is due.

use std::future::Future;
use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr, UdpSocket as StdUdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;
use tokio::sync::{Semaphore, mpsc, watch};
use xq_protocol::{ClientMsg, PROTOCOL_VERSION, RoomOptions, SeatChoice, ServerMsg, codec};
use xq_rules::{Color, Move};
use xq_session::{Command, Event, Match, MatchConfig, Timestamp};
use xq_transport::{Address, Options};
use xq_transport_quic::{ClientConfig, ClientEndpoint};
use xq_transport_udp::{Config as UdpConfig, Endpoint};

/// How long one move (with the rematch it may start) may take before the match counts as
/// failed: far above any latency the tool reports, so only a lost or stuck connection reaches
/// it.
const STALL: Duration = Duration::from_secs(5);
/// How long the matches get to finish their last move and close, once the time is up.
const WIND_DOWN: Duration = Duration::from_secs(5);
/// Error messages printed to standard error; the rest are only counted.
const ERRORS_SHOWN: usize = 5;
/// `/proc/<pid>/stat` counts CPU time in USER_HZ ticks, which Linux fixes at 100 per second
/// for user space on every architecture it supports.
const TICKS_PER_SECOND: f64 = 100.0;
/// A large send and receive buffer for the baseline forwarder's socket, so that a burst from
/// every match at once is queued rather than dropped (the kernel caps it at `rmem_max`).
const FORWARDER_BUFFER: usize = 4 * 1024 * 1024;

/// The arguments of `xq load`.
#[derive(Args)]
pub(crate) struct LoadArgs {
    /// The relay: `udp://HOST:PORT` or `quic://HOST:PORT?fp=HEX` (as `xq-relay` prints it).
    /// `mem://` names a listener inside one process, so it cannot reach a relay from here.
    #[arg(required_unless_present = "baseline")]
    url: Option<String>,
    /// Concurrent matches (two clients each), up to a million.
    #[arg(long, default_value_t = 100, value_parser = counts(1_000_000))]
    matches: usize,
    /// How long to measure, in seconds (with `--idle`: how long the idle matches settle
    /// before the relay's memory is read).
    #[arg(long, default_value = "10", value_parser = positive_seconds)]
    seconds: Duration,
    /// Seconds of play before measuring starts, so that caches, buffers and allocators have
    /// settled.
    #[arg(long, default_value = "1", value_parser = seconds)]
    warmup: Duration,
    /// Seeds the scripted games: script `i` is a random legal game drawn with seed `SEED + i`,
    /// and match `m` plays script `m` modulo their number, game after game.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Moves per second to offer in total, spread evenly over the matches (default: every
    /// match moves as soon as its turn passes, which saturates the machine).
    #[arg(long, value_name = "MOVES_PER_SECOND", value_parser = per_second)]
    rate: Option<f64>,
    /// The relay's process id: its CPU use and memory are read from `/proc/PID/stat` and
    /// `/proc/PID/status` (Linux) and reported per match.
    #[arg(long, value_name = "PID", conflicts_with = "baseline")]
    relay_pid: Option<u32>,
    /// Seats the matches and plays no move: measures the relay's memory per idle match
    /// (start the relay afresh for this, since freed memory is not given back).
    #[arg(long, requires = "relay_pid", conflicts_with_all = ["rate", "baseline"])]
    idle: bool,
    /// Measures the machine instead of the relay: a trivial forwarder on its own thread relays
    /// raw UDP datagrams of the same sizes as the protocol's move and event frames, with the
    /// same pattern (one move in, the event out to both players). Figures of a relay are best
    /// read as ratios to this one.
    #[arg(long, conflicts_with = "url")]
    baseline: bool,
    /// Matches being set up at once (each makes two handshakes).
    #[arg(long, default_value_t = 32, value_parser = counts(100_000))]
    connect_concurrency: usize,
    /// Clients that share one socket and its driver. A real client has a socket of its own
    /// (1); sharing batches the load generator's datagrams, so that it takes less of the CPU
    /// it shares with the relay.
    #[arg(long, default_value_t = 64, value_parser = counts(100_000))]
    clients_per_socket: usize,
    /// Worker threads of the load generator (default: one per core).
    #[arg(long, value_parser = counts(1_024))]
    threads: Option<usize>,
}

/// A count from 1 to `most`: zero does nothing, and a count beyond what the machine can hold
/// would only fail later, less clearly.
fn counts(most: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=most)
}

/// A number of seconds as a duration, if it is one (finite, not negative, not beyond what a
/// duration holds).
fn seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|err| format!("{err}"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| "not a number of seconds".to_string())
}

/// As [`seconds`], and more than none.
fn positive_seconds(text: &str) -> Result<Duration, String> {
    seconds(text).and_then(|duration| {
        (!duration.is_zero())
            .then_some(duration)
            .ok_or_else(|| "must be more than zero".to_string())
    })
}

/// A finite, positive rate.
fn per_second(text: &str) -> Result<f64, String> {
    let rate: f64 = text.parse().map_err(|err| format!("{err}"))?;
    (rate.is_finite() && rate > 0.0)
        .then_some(rate)
        .ok_or_else(|| "must be a positive number".to_string())
}

/// Runs the benchmark and prints its `key: value` lines.
pub(crate) fn load(args: LoadArgs) -> Result<()> {
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads);
    }
    runtime
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(run(args))
}

async fn run(args: LoadArgs) -> Result<()> {
    let relay = args
        .relay_pid
        .map(|pid| PathBuf::from(format!("/proc/{pid}")));
    if args.baseline {
        let sizes = FrameSizes::measure()?;
        let forwarder = Forwarder::start(args.matches, sizes.event)?;
        let addr = forwarder.addr;
        let setup = move |index| RawTable::seat(addr, index, sizes.command);
        let report = drive(&args, Some(forwarder.thread.clone()), setup).await?;
        forwarder.stop();
        return report.print("baseline", "raw-udp", &args);
    }
    let url = args.url.clone().unwrap_or_default();
    let (transport, dialers) = match url.parse::<Address>()? {
        Address::Udp { host, port } => ("udp", Dialer::udp(&host, port, &args).await?),
        Address::Quic { .. } => ("quic", Dialer::quic(&url, &args).await?),
        Address::Mem { .. } => bail!(
            "mem:// reaches only listeners inside the same process: give the relay's udp:// or \
             quic:// URL"
        ),
        _ => bail!("unsupported transport in {url}"),
    };
    let scripts = Arc::new(Scripts::new(args.seed)?);
    let setup = move |index: usize| {
        // Clients 2i and 2i + 1 play match i; neighbours share a socket.
        let dialer = |client: usize| dialers[client * dialers.len() / (2 * args.matches)].clone();
        RelayTable::seat(
            [dialer(2 * index), dialer(2 * index + 1)],
            Arc::clone(&scripts),
            index,
        )
    };
    let report = drive(&args, relay, setup).await?;
    let mode = if args.idle { "idle" } else { "play" };
    report.print(mode, transport, &args)
}

/// The two clients of one match, ready to play.
trait Table: Send + 'static {
    /// Plays the next move and waits until both clients have its event; if that ended the
    /// game, starts the next one.
    fn step(&mut self) -> impl Future<Output = Result<Ply>> + Send;

    /// Closes both clients.
    fn close(self) -> impl Future<Output = ()> + Send;
}

/// What one [`Table::step`] measured.
struct Ply {
    /// From sending the move to the opponent receiving its event.
    latency: Duration,
    /// Whether the move ended a game (and a new one has begun).
    game_over: bool,
}

/// Where the benchmark stands; every match task reads it after each move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The matches are being set up.
    Setup,
    /// Playing, not measured yet.
    Warmup,
    /// Playing and measured.
    Measure,
    /// Time is up: finish the move in progress and close.
    Stop,
}

/// What a match task hands back.
#[derive(Default)]
struct Tally {
    /// Latencies of the measured moves, in microseconds.
    latencies: Vec<u32>,
    games: u64,
    failed: bool,
}

/// What the whole run measured.
struct Report {
    matches: usize,
    seated: usize,
    elapsed: Duration,
    tallies: Vec<Tally>,
    errors: usize,
    load_cpu: Option<f64>,
    relay_cpu: Option<f64>,
    relay_rss_before: Option<u64>,
    relay_rss: Option<u64>,
}

/// Sets up every match, lets them play through the warm-up and the measured time (or sit
/// idle), and collects what they measured. `relay` is the `/proc` directory of the process
/// (or thread) whose CPU and memory are reported.
async fn drive<T, F, Fut>(args: &LoadArgs, relay: Option<PathBuf>, setup: F) -> Result<Report>
where
    T: Table,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Result<T>> + Send + 'static,
{
    let relay_before = relay.as_deref().and_then(|dir| Usage::read(dir).ok());
    let (phase_tx, phase) = watch::channel(Phase::Setup);
    let (ready_tx, mut ready) = mpsc::channel(args.matches);
    let permits = Arc::new(Semaphore::new(args.connect_concurrency.max(1)));
    let errors = Arc::new(AtomicUsize::new(0));
    let interval = args
        .rate
        .map(|rate| Duration::try_from_secs_f64(args.matches as f64 / rate))
        .transpose()
        .map_err(|_| {
            anyhow::anyhow!(
                "--rate is too small: each match would wait longer than a duration holds"
            )
        })?;
    let idle = args.idle;
    let tasks: Vec<_> = (0..args.matches)
        .map(|index| {
            let setup = setup(index);
            let permits = Arc::clone(&permits);
            let ready = ready_tx.clone();
            let phase = phase.clone();
            let errors = Arc::clone(&errors);
            // Matches start their schedules spread over one interval, not all at once.
            let offset = interval.map(|i| i.mul_f64(index as f64 / args.matches as f64));
            tokio::spawn(async move {
                let seated = async {
                    let _permit = permits.acquire().await?;
                    tokio::time::timeout(STALL * 4, setup)
                        .await
                        .context("setting up the match timed out")?
                };
                let table = match seated.await {
                    Ok(table) => table,
                    Err(err) => {
                        report_error(&errors, index, &err);
                        let _ = ready.send(false).await;
                        return Tally {
                            failed: true,
                            ..Tally::default()
                        };
                    }
                };
                let _ = ready.send(true).await;
                drop(ready);
                let schedule = interval.zip(offset);
                play(table, phase, schedule, idle, index, &errors).await
            })
        })
        .collect();
    drop(ready_tx);
    let mut seated = 0;
    // Each task reports once and then lets go of its sender, so this ends when all have.
    while let Some(ok) = ready.recv().await {
        seated += usize::from(ok);
    }
    let _ = phase_tx.send(Phase::Warmup);
    tokio::time::sleep(args.warmup).await;
    let started = Instant::now();
    let load_start = Usage::read(&PathBuf::from("/proc/self")).ok();
    let relay_start = relay.as_deref().and_then(|dir| Usage::read(dir).ok());
    let _ = phase_tx.send(Phase::Measure);
    tokio::time::sleep(args.seconds).await;
    let _ = phase_tx.send(Phase::Stop);
    let elapsed = started.elapsed();
    let load_end = Usage::read(&PathBuf::from("/proc/self")).ok();
    let relay_end = relay.as_deref().and_then(|dir| Usage::read(dir).ok());
    let mut tallies = Vec::with_capacity(tasks.len());
    let deadline = tokio::time::Instant::now() + WIND_DOWN;
    for (index, task) in tasks.into_iter().enumerate() {
        let abort = task.abort_handle();
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(tally)) => tallies.push(tally),
            Ok(Err(err)) => report_error(&errors, index, &anyhow::Error::new(err)),
            Err(_) => {
                abort.abort();
                report_error(&errors, index, &anyhow::anyhow!("did not stop in time"));
            }
        }
    }
    let cpu = |start: Option<Usage>, end: Option<Usage>| {
        let ticks = end?.cpu_ticks.checked_sub(start?.cpu_ticks)?;
        Some(ticks as f64 / TICKS_PER_SECOND / elapsed.as_secs_f64() * 100.0)
    };
    Ok(Report {
        matches: args.matches,
        seated,
        elapsed,
        tallies,
        errors: errors.load(Ordering::Relaxed),
        load_cpu: cpu(load_start, load_end),
        relay_cpu: cpu(relay_start, relay_end),
        relay_rss_before: relay_before.map(|usage| usage.rss_bytes),
        relay_rss: relay_end.map(|usage| usage.rss_bytes),
    })
}

/// One match's life after setup: moves until the time is up (on a schedule if `schedule`
/// gives its interval and first offset), or idles, then closes.
async fn play<T: Table>(
    mut table: T,
    mut phase: watch::Receiver<Phase>,
    schedule: Option<(Duration, Duration)>,
    idle: bool,
    index: usize,
    errors: &AtomicUsize,
) -> Tally {
    let mut tally = Tally::default();
    if phase.wait_for(|&p| p != Phase::Setup).await.is_err() {
        return tally;
    }
    if idle {
        let _ = phase.wait_for(|&p| p == Phase::Stop).await;
        table.close().await;
        return tally;
    }
    let mut next = schedule.map(|(_, offset)| tokio::time::Instant::now() + offset);
    loop {
        if let (Some(at), Some((interval, _))) = (next.as_mut(), schedule) {
            tokio::time::sleep_until(*at).await;
            // A match that fell behind its schedule starts afresh rather than bursting.
            *at = (*at + interval).max(tokio::time::Instant::now());
        }
        let current = *phase.borrow();
        if current == Phase::Stop {
            break;
        }
        let step = tokio::time::timeout(STALL, table.step()).await;
        match step.context("the relay went silent").and_then(|step| step) {
            Ok(ply) if current == Phase::Measure && *phase.borrow() == Phase::Measure => {
                let micros = ply.latency.as_micros();
                tally
                    .latencies
                    .push(u32::try_from(micros).unwrap_or(u32::MAX));
                tally.games += u64::from(ply.game_over);
            }
            Ok(_) => {}
            Err(err) => {
                report_error(errors, index, &err);
                tally.failed = true;
                break;
            }
        }
    }
    table.close().await;
    tally
}

fn report_error(errors: &AtomicUsize, index: usize, err: &anyhow::Error) {
    if errors.fetch_add(1, Ordering::Relaxed) < ERRORS_SHOWN {
        eprintln!("match {index}: {err:#}");
    }
}

impl Report {
    fn print(&self, mode: &str, transport: &str, args: &LoadArgs) -> Result<()> {
        let mut latencies: Vec<u32> = self
            .tallies
            .iter()
            .flat_map(|tally| tally.latencies.iter().copied())
            .collect();
        latencies.sort_unstable();
        let moves = latencies.len();
        let games: u64 = self.tallies.iter().map(|tally| tally.games).sum();
        let seconds = self.elapsed.as_secs_f64();
        let percentile = |p: f64| {
            let rank = (p * moves as f64).ceil() as usize;
            latencies
                .get(rank.clamp(1, moves.max(1)) - 1)
                .copied()
                .unwrap_or(0)
        };
        let mut out = io::stdout().lock();
        writeln!(out, "mode: {mode}")?;
        writeln!(out, "transport: {transport}")?;
        writeln!(out, "matches: {}", self.matches)?;
        writeln!(out, "seated: {}", self.seated)?;
        if !args.idle {
            if let Some(rate) = args.rate {
                writeln!(out, "offered_moves/s: {rate:.0}")?;
            }
            writeln!(out, "seconds: {seconds:.2}")?;
            writeln!(out, "moves: {moves}")?;
            writeln!(out, "games: {games}")?;
            writeln!(out, "moves/s: {:.0}", moves as f64 / seconds)?;
            writeln!(out, "latency_p50_us: {}", percentile(0.50))?;
            writeln!(out, "latency_p99_us: {}", percentile(0.99))?;
            writeln!(
                out,
                "latency_max_us: {}",
                latencies.last().copied().unwrap_or(0)
            )?;
        }
        writeln!(out, "errors: {}", self.errors)?;
        // CPU time per move holds still when other work on the machine takes cores away,
        // where moves per second do not.
        let per_move = |percent: f64| percent / 100.0 * seconds * 1e6 / moves.max(1) as f64;
        if let Some(cpu) = self.load_cpu {
            writeln!(out, "load_cpu_percent: {cpu:.0}")?;
            if !args.idle {
                writeln!(out, "load_cpu_us_per_move: {:.1}", per_move(cpu))?;
            }
        }
        if let Some(cpu) = self.relay_cpu.filter(|_| !args.idle) {
            writeln!(out, "relay_cpu_percent: {cpu:.0}")?;
            writeln!(out, "relay_cpu_us_per_move: {:.1}", per_move(cpu))?;
        }
        // In the baseline the forwarder is a thread of this process: its memory is not its own.
        let rss = |value: Option<u64>| value.filter(|_| !args.baseline);
        if let Some(before) = rss(self.relay_rss_before) {
            writeln!(out, "relay_rss_before_bytes: {before}")?;
        }
        if let Some(after) = rss(self.relay_rss) {
            writeln!(out, "relay_rss_bytes: {after}")?;
        }
        if let (Some(before), Some(after)) = (rss(self.relay_rss_before), rss(self.relay_rss)) {
            let per_match = after.saturating_sub(before) / self.matches as u64;
            writeln!(out, "relay_rss_per_match_bytes: {per_match}")?;
        }
        ensure!(self.seated > 0, "no match could be set up");
        Ok(())
    }
}

/// CPU time and memory of a process or thread, from its `/proc` directory.
#[derive(Clone, Copy)]
struct Usage {
    /// User and system time, in USER_HZ ticks.
    cpu_ticks: u64,
    /// Resident memory (the process's, also when read for one of its threads).
    rss_bytes: u64,
}

impl Usage {
    fn read(dir: &std::path::Path) -> Result<Self> {
        let stat = std::fs::read_to_string(dir.join("stat"))?;
        // The command name (field 2) is in parentheses and may contain spaces: count fields
        // after its closing parenthesis, where field 3 (the state) comes first.
        let (_, fields) = stat
            .rsplit_once(')')
            .context("unexpected /proc stat format")?;
        let mut fields = fields.split_whitespace().skip(11);
        let mut tick =
            || -> Result<u64> { Ok(fields.next().context("short /proc stat")?.parse()?) };
        let cpu_ticks = tick()? + tick()?;
        let status = std::fs::read_to_string(dir.join("status"))?;
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .context("no VmRSS in /proc status")?
            .parse()?;
        Ok(Self {
            cpu_ticks,
            rss_bytes: kib * 1024,
        })
    }
}

/// A match on the relay: two protocol clients replaying a scripted game.
struct RelayTable {
    /// The client that created the room, then the one that joined it.
    clients: [Client; 2],
    /// The moves of the game being played, as the relay will play them.
    script: Arc<[Move]>,
    /// Moves of `script` played so far.
    ply: usize,
}

impl RelayTable {
    /// Connects two clients, has the first create a room and the second join it.
    async fn seat(dialers: [Dialer; 2], scripts: Arc<Scripts>, index: usize) -> Result<Self> {
        let [first, second] = dialers;
        let mut first = Client::connect(first).await?;
        let create = ClientMsg::CreateRoom(RoomOptions {
            seat: SeatChoice::Red,
            ..RoomOptions::default()
        });
        let (code, _) = first.enter(&create).await?;
        let mut second = Client::connect(second).await?;
        let (_, snapshot) = second.enter(&ClientMsg::JoinRoom { code }).await?;
        ensure!(
            snapshot.config == scripts.config,
            "the relay plays under other rules than the scripted games"
        );
        // The creator is sent the room again once the match begins.
        first.until_snapshot().await?;
        Ok(Self {
            clients: [first, second],
            script: scripts.pick(index),
            ply: 0,
        })
    }

    /// The client playing `color`, and the other one.
    fn seats(&mut self, color: Color) -> (&mut Client, &mut Client) {
        let [first, second] = &mut self.clients;
        if first.color == color {
            (first, second)
        } else {
            (second, first)
        }
    }

    /// Ends a finished game on both clients and starts a rematch, which replays the script.
    async fn rematch(&mut self) -> Result<()> {
        for client in &mut self.clients {
            client.until_game_over().await?;
        }
        for client in &mut self.clients {
            client.send(&ClientMsg::Rematch).await?;
        }
        for client in &mut self.clients {
            client.until_snapshot().await?;
        }
        self.ply = 0;
        Ok(())
    }
}

impl Table for RelayTable {
    async fn step(&mut self) -> Result<Ply> {
        let mv = *self
            .script
            .get(self.ply)
            .context("a scripted game has no moves")?;
        // Every game starts from the standard position, where Red moves first.
        let color = if self.ply.is_multiple_of(2) {
            Color::Red
        } else {
            Color::Black
        };
        let (mover, opponent) = self.seats(color);
        let play = Command::Play { by: color, mv };
        let sent = Instant::now();
        mover.send(&ClientMsg::Command(play)).await?;
        opponent.until_move(mv).await?;
        let latency = sent.elapsed();
        mover.until_move(mv).await?;
        self.ply += 1;
        let game_over = self.ply == self.script.len();
        if game_over {
            self.rematch().await?;
        }
        Ok(Ply { latency, game_over })
    }

    async fn close(self) {
        let [first, second] = self.clients;
        let both = async { tokio::join!(first.conn.close(), second.conn.close()) };
        let _ = tokio::time::timeout(WIND_DOWN, both).await;
    }
}

/// The games the tables replay, drawn before the clock starts.
struct Scripts {
    /// The rules the games were played under: those of a room made with the default options.
    config: MatchConfig,
    games: Vec<Arc<[Move]>>,
}

impl Scripts {
    /// How many games are drawn: enough that neighbouring tables play different games.
    const COUNT: u64 = 64;

    /// Draws the games, game `i` with seed `seed + i`.
    fn new(seed: u64) -> Result<Self> {
        let config = RoomOptions::default().match_config();
        let games = (0..Self::COUNT)
            .map(|i| random_game(&config, seed.wrapping_add(i)))
            .collect::<Result<_>>()?;
        Ok(Self { config, games })
    }

    /// The game table `index` plays.
    fn pick(&self, index: usize) -> Arc<[Move]> {
        Arc::clone(&self.games[index % self.games.len()])
    }
}

/// A game of random legal moves under `config`, to its end (mate, stalemate, repetition or
/// the move limit).
fn random_game(config: &MatchConfig, seed: u64) -> Result<Arc<[Move]>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let moves = start(config.clone()).play_out(Timestamp::from_millis(0), |moves| {
        moves.choose(&mut rng).copied()
    })?;
    Ok(moves.into())
}

/// A new game under `config`; the clock is irrelevant to untimed rooms.
fn start(config: MatchConfig) -> Match {
    Match::new(config, Timestamp::from_millis(0))
}

/// How a client reaches the relay: on a socket that other clients share.
#[derive(Clone)]
enum Dialer {
    /// Over xq's UDP.
    Udp {
        endpoint: Arc<Endpoint>,
        relay: SocketAddr,
    },
    /// Over QUIC.
    Quic {
        endpoint: Arc<ClientEndpoint>,
        relay: SocketAddr,
        config: Arc<ClientConfig>,
    },
}

impl Dialer {
    /// The sockets for the UDP clients, `--clients-per-socket` to each.
    async fn udp(host: &str, port: u16, args: &LoadArgs) -> Result<Vec<Self>> {
        let relay = tokio::net::lookup_host((host, port))
            .await?
            .next()
            .with_context(|| format!("{host} has no address"))?;
        let mut dialers = Vec::new();
        for _ in 0..sockets(args) {
            let endpoint = Endpoint::bind(unspecified(relay), UdpConfig::default()).await?;
            dialers.push(Self::Udp {
                endpoint: Arc::new(endpoint),
                relay,
            });
        }
        Ok(dialers)
    }

    /// The sockets for the QUIC clients, `--clients-per-socket` to each.
    async fn quic(url: &str, args: &LoadArgs) -> Result<Vec<Self>> {
        let (relay, config) = xq_transport::quic_client(url, &Options::default()).await?;
        let config = Arc::new(config);
        let mut dialers = Vec::new();
        for _ in 0..sockets(args) {
            dialers.push(Self::Quic {
                endpoint: Arc::new(ClientEndpoint::bind(unspecified(relay))?),
                relay,
                config: Arc::clone(&config),
            });
        }
        Ok(dialers)
    }
}

/// How many sockets the clients share: `--clients-per-socket` clients to each.
fn sockets(args: &LoadArgs) -> usize {
    (2 * args.matches).div_ceil(args.clients_per_socket.max(1))
}

/// The unspecified address of `relay`'s family, any port.
fn unspecified(relay: SocketAddr) -> SocketAddr {
    if relay.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    }
}

/// A client's connection, by either dialer.
enum Link {
    Udp(xq_transport_udp::Connection),
    Quic(xq_transport_quic::Connection),
}

impl Link {
    async fn send(&self, frame: Vec<u8>) -> Result<()> {
        match self {
            Self::Udp(conn) => conn.send(frame).await?,
            Self::Quic(conn) => conn.send(frame).await?,
        }
        Ok(())
    }

    async fn recv(&self) -> Result<Vec<u8>> {
        Ok(match self {
            Self::Udp(conn) => conn.recv().await?,
            Self::Quic(conn) => conn.recv().await?,
        })
    }

    async fn close(&self) {
        match self {
            Self::Udp(conn) => conn.close().await,
            Self::Quic(conn) => conn.close().await,
        }
    }
}

/// One protocol client: a connection and the colour the relay seated it with.
struct Client {
    conn: Link,
    color: Color,
}

impl Client {
    /// Connects and says hello.
    async fn connect(dialer: Dialer) -> Result<Self> {
        let conn = match dialer {
            Dialer::Udp { endpoint, relay } => {
                let conn = endpoint
                    .connect(relay)
                    .await
                    .with_context(|| format!("connecting to udp://{relay}"))?;
                Link::Udp(conn)
            }
            Dialer::Quic {
                endpoint,
                relay,
                config,
            } => {
                let conn = endpoint
                    .connect(relay, &config)
                    .await
                    .with_context(|| format!("connecting to quic://{relay}"))?;
                Link::Quic(conn)
            }
        };
        let client = Self {
            conn,
            color: Color::Red,
        };
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: concat!("xq-load/", env!("CARGO_PKG_VERSION")).to_string(),
            resume: None,
        };
        client.send(&hello).await?;
        match client.recv().await? {
            ServerMsg::Welcome { .. } => Ok(client),
            other => bail!("expected a welcome, got {other:?}"),
        }
    }

    /// Sends a request that seats the client, and returns the room's code and snapshot.
    async fn enter(
        &mut self,
        request: &ClientMsg,
    ) -> Result<(xq_protocol::RoomCode, xq_protocol::Snapshot)> {
        self.send(request).await?;
        let code = match self.recv().await? {
            ServerMsg::Joined {
                code,
                seat: Some(color),
                ..
            } => {
                self.color = color;
                code
            }
            other => bail!("expected a seat, got {other:?}"),
        };
        Ok((code, self.until_snapshot().await?))
    }

    /// Reads until the room's snapshot, taking the seat's colour from a `Joined` on the way
    /// (a rematch swaps the colours).
    async fn until_snapshot(&mut self) -> Result<xq_protocol::Snapshot> {
        loop {
            match self.recv().await? {
                ServerMsg::Snapshot(snapshot) => return Ok(*snapshot),
                ServerMsg::Joined {
                    seat: Some(color), ..
                } => self.color = color,
                ServerMsg::RematchRequested { .. } => {}
                other => bail!("expected the room's snapshot, got {other:?}"),
            }
        }
    }

    /// Reads the event of the move just sent.
    async fn until_move(&mut self, expected: Move) -> Result<()> {
        match self.recv().await? {
            ServerMsg::Event {
                event: Event::MovePlayed { mv, .. },
                ..
            } if mv == expected => Ok(()),
            other => bail!("expected the event of {expected}, got {other:?}"),
        }
    }

    /// Reads events until the game-over one.
    async fn until_game_over(&mut self) -> Result<()> {
        loop {
            match self.recv().await? {
                ServerMsg::Event {
                    event: Event::GameOver(_),
                    ..
                } => return Ok(()),
                ServerMsg::Event { .. } => {}
                other => bail!("expected the end of the game, got {other:?}"),
            }
        }
    }

    async fn send(&self, msg: &ClientMsg) -> Result<()> {
        let frame = codec::to_frame(msg)?;
        self.conn.send(frame).await.context("sending")
    }

    /// The next message; a refusal or a disconnect is an error. The callers bound the wait.
    async fn recv(&self) -> Result<ServerMsg> {
        let frame = self.conn.recv().await.context("receiving")?;
        match codec::decode(&frame)? {
            ServerMsg::Error { code, message } => bail!("refused ({code:?}): {message}"),
            ServerMsg::Disconnect { reason, message } => {
                bail!("disconnected ({reason:?}): {message}")
            }
            msg => Ok(msg),
        }
    }
}

/// The sizes of the frames a move costs: the mover's command and the event the relay sends
/// each player.
#[derive(Clone, Copy)]
struct FrameSizes {
    command: usize,
    event: usize,
}

impl FrameSizes {
    /// Encodes the first move of a game as the protocol does.
    fn measure() -> Result<Self> {
        let mut game = start(MatchConfig::default());
        let mv = *game
            .position()
            .legal_moves()
            .first()
            .context("the start position has moves")?;
        let play = Command::Play { by: Color::Red, mv };
        let command = codec::to_frame(&ClientMsg::Command(play))?.len();
        game.handle(Timestamp::from_millis(0), play)?;
        let event = game.poll_event().context("a move makes an event")?;
        let event = codec::to_frame(&ServerMsg::Event { seq: 0, event })?.len();
        Ok(Self {
            // The baseline's header (kind, match, seat) must fit.
            command: command.max(RAW_HEADER),
            event: event.max(RAW_HEADER),
        })
    }
}

/// The baseline datagram header: a kind byte, the match (u32, little-endian) and the seat.
const RAW_HEADER: usize = 6;
/// A client announcing its address; the forwarder echoes it.
const RAW_HELLO: u8 = 0;
/// A move: the forwarder sends an event-sized datagram to both players.
const RAW_MOVE: u8 = 1;
/// The forwarder's datagram to the players.
const RAW_EVENT: u8 = 2;

/// The baseline's "relay": one thread with one blocking UDP socket, forwarding each move to
/// both players of its match, as the relay does with the move's event, and nothing else.
struct Forwarder {
    addr: SocketAddr,
    /// The `/proc` directory of the forwarder's thread, to read its CPU time.
    thread: PathBuf,
    stop: Arc<AtomicBool>,
}

impl Forwarder {
    fn start(matches: usize, event_len: usize) -> Result<Self> {
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
        socket.set_recv_buffer_size(FORWARDER_BUFFER)?;
        socket.set_send_buffer_size(FORWARDER_BUFFER)?;
        socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
        let socket = StdUdpSocket::from(socket);
        // Wakes up now and then to notice the stop flag.
        socket.set_read_timeout(Some(Duration::from_millis(100)))?;
        let addr = socket.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = Arc::new(Mutex::new(None));
        let (flag, path) = (Arc::clone(&stop), Arc::clone(&thread));
        let (started_tx, started) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("xq-load-forwarder".into())
            .spawn(move || {
                let own = std::fs::read_link("/proc/thread-self")
                    .map(|link| PathBuf::from("/proc").join(link))
                    .ok();
                *path.lock().unwrap_or_else(PoisonError::into_inner) = own;
                let _ = started_tx.send(());
                forward(&socket, matches, event_len, &flag);
            })?;
        started
            .recv()
            .context("the forwarder thread did not start")?;
        let thread = thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_else(|| PathBuf::from("/proc/self"));
        Ok(Self { addr, thread, stop })
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The forwarder's loop: remembers each player's address from its hello, and sends every
/// move on to both players of the match as a datagram of `event_len` bytes.
fn forward(socket: &StdUdpSocket, matches: usize, event_len: usize, stop: &AtomicBool) {
    let mut players: Vec<[Option<SocketAddr>; 2]> = vec![[None; 2]; matches];
    let mut buf = vec![0; event_len.max(2048)];
    while !stop.load(Ordering::Relaxed) {
        let Ok((len, from)) = socket.recv_from(&mut buf) else {
            continue;
        };
        let Some((kind, table, seat)) = parse_raw(&buf[..len]) else {
            continue;
        };
        let Some(seats) = players.get_mut(table) else {
            continue;
        };
        match kind {
            RAW_HELLO => {
                if let Some(slot) = seats.get_mut(seat) {
                    *slot = Some(from);
                    let _ = socket.send_to(&buf[..len], from);
                }
            }
            RAW_MOVE => {
                buf[0] = RAW_EVENT;
                for to in seats.iter().flatten() {
                    let _ = socket.send_to(&buf[..event_len], to);
                }
            }
            _ => {}
        }
    }
}

/// Reads a baseline datagram's header.
fn parse_raw(datagram: &[u8]) -> Option<(u8, usize, usize)> {
    let header = datagram.get(..RAW_HEADER)?;
    let table = u32::from_le_bytes([header[1], header[2], header[3], header[4]]);
    Some((
        header[0],
        usize::try_from(table).ok()?,
        usize::from(header[5]),
    ))
}

/// A baseline match: two raw UDP sockets taking turns through the forwarder.
struct RawTable {
    players: [UdpSocket; 2],
    table: u32,
    /// The size of a move datagram.
    move_len: usize,
    /// The seat on move.
    turn: usize,
    buf: Vec<u8>,
}

impl RawTable {
    /// Binds both players' sockets and announces them to the forwarder.
    async fn seat(forwarder: SocketAddr, index: usize, move_len: usize) -> Result<Self> {
        let table = u32::try_from(index)?;
        let mut players = Vec::with_capacity(2);
        for seat in 0..2u8 {
            let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).await?;
            socket.connect(forwarder).await?;
            let hello = raw_header(RAW_HELLO, table, seat);
            let mut buf = [0; 64];
            let mut answered = false;
            for _ in 0..3 {
                socket.send(&hello).await?;
                let wait = Duration::from_secs(1);
                if tokio::time::timeout(wait, socket.recv(&mut buf))
                    .await
                    .is_ok()
                {
                    answered = true;
                    break;
                }
            }
            ensure!(answered, "the forwarder did not answer");
            players.push(socket);
        }
        let players: [UdpSocket; 2] = players
            .try_into()
            .map_err(|_| anyhow::anyhow!("two sockets were bound"))?;
        Ok(Self {
            players,
            table,
            move_len,
            turn: 0,
            buf: vec![0; 2048],
        })
    }

    async fn recv_event(socket: &UdpSocket, buf: &mut [u8]) -> Result<()> {
        let len = socket.recv(buf).await?;
        ensure!(
            buf.first() == Some(&RAW_EVENT) && len >= RAW_HEADER,
            "unexpected datagram"
        );
        Ok(())
    }
}

impl Table for RawTable {
    async fn step(&mut self) -> Result<Ply> {
        let mut datagram = vec![0; self.move_len];
        let seat = u8::try_from(self.turn)?;
        datagram[..RAW_HEADER].copy_from_slice(&raw_header(RAW_MOVE, self.table, seat));
        let (mover, opponent) = (self.turn, 1 - self.turn);
        let sent = Instant::now();
        self.players[mover].send(&datagram).await?;
        Self::recv_event(&self.players[opponent], &mut self.buf).await?;
        let latency = sent.elapsed();
        Self::recv_event(&self.players[mover], &mut self.buf).await?;
        self.turn = opponent;
        Ok(Ply {
            latency,
            game_over: false,
        })
    }

    async fn close(self) {}
}

fn raw_header(kind: u8, table: u32, seat: u8) -> [u8; RAW_HEADER] {
    let [a, b, c, d] = table.to_le_bytes();
    [kind, a, b, c, d, seat]
}

#[cfg(test)]
mod tests {
    use super::*;

    use xq_server::{Config, ConnId, Output, RateLimit, Relay};

    /// The relay's core, fed frames as a driver would, with its replies decoded.
    struct Core(Relay);

    impl Core {
        fn send(&mut self, from: ConnId, msg: &ClientMsg) -> Result<Vec<(ConnId, ServerMsg)>> {
            self.0
                .handle_frame(Timestamp::from_millis(0), from, &codec::to_frame(msg)?);
            let mut sent = Vec::new();
            while let Some(output) = self.0.poll_output() {
                if let Output::Send { to, frame } = output {
                    let msg: ServerMsg = codec::decode(&frame)?;
                    ensure!(!matches!(msg, ServerMsg::Error { .. }), "refused: {msg:?}");
                    sent.push((to, msg));
                }
            }
            Ok(sent)
        }
    }

    /// A table replays a script move by move, then expects the relay's game-over and starts
    /// a rematch with the colours swapped. Played against the relay's core: the scripts must
    /// be drawn under the rules of a room made with the default options and end exactly
    /// where the relay ends their games.
    #[test]
    fn the_relay_ends_each_scripted_game_at_its_last_move() -> Result<()> {
        let scripts = Scripts::new(7)?;
        assert!(!Arc::ptr_eq(&scripts.pick(0), &scripts.pick(1)));
        assert!(Arc::ptr_eq(&scripts.pick(0), &scripts.pick(64)));
        let config = Config {
            // The clock stands still here: no rate limit is reached.
            rate_limit: RateLimit {
                burst: 1_000_000,
                per_second: 1_000_000,
            },
            ..Config::default()
        };
        let mut core = Core(Relay::new(config, [3; 32]));
        let (mut red, mut black) = (ConnId(1), ConnId(2));
        for conn in [red, black] {
            core.0
                .handle_connect(Timestamp::from_millis(0), conn, "mem", None);
            let hello = ClientMsg::Hello {
                version: PROTOCOL_VERSION,
                client: "test".into(),
                resume: None,
            };
            core.send(conn, &hello)?;
        }
        let create = ClientMsg::CreateRoom(RoomOptions {
            seat: SeatChoice::Red,
            ..RoomOptions::default()
        });
        let code = core
            .send(red, &create)?
            .into_iter()
            .find_map(|(_, msg)| match msg {
                ServerMsg::Joined { code, .. } => Some(code),
                _ => None,
            })
            .context("the creator is seated")?;
        let joined = core.send(black, &ClientMsg::JoinRoom { code })?;
        let rules = joined.iter().find_map(|(_, msg)| match msg {
            ServerMsg::Snapshot(snapshot) => Some(&snapshot.config),
            _ => None,
        });
        assert_eq!(rules, Some(&scripts.config));
        for script in scripts.games.iter().take(2) {
            for (ply, &mv) in script.iter().enumerate() {
                let (mover, by) = if ply % 2 == 0 {
                    (red, Color::Red)
                } else {
                    (black, Color::Black)
                };
                let sent = core.send(mover, &ClientMsg::Command(Command::Play { by, mv }))?;
                let over = sent.iter().any(|(_, msg)| {
                    matches!(
                        msg,
                        ServerMsg::Event {
                            event: Event::GameOver(_),
                            ..
                        }
                    )
                });
                assert_eq!(over, ply + 1 == script.len(), "ply {ply}");
            }
            for conn in [red, black] {
                core.send(conn, &ClientMsg::Rematch)?;
            }
            (red, black) = (black, red);
        }
        Ok(())
    }
}
