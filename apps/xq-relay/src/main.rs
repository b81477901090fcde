//! `xq-relay`: hosts xq rooms and matches for clients over UDP, QUIC and WebSocket, and serves
//! the web client.
//!
//! A thin shell around [`xq_server::Server`]: it parses the flags, sets up logging, opens the
//! database ([`xq_store::SqliteStore`]), starts the listeners, prints where clients can reach
//! it (with the QUIC certificate's fingerprint to pin, and the web client's page), and serves
//! until SIGINT or SIGTERM,
//! then shuts down gracefully. `xq-relay games list` and `xq-relay games export ID` read the
//! archive of finished games from the same database.

mod site;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;
use xq_cluster::{ClientCert, Cluster, ClusterArchive, ClusterOptions, ClusterTls};
use xq_server::{Config, MetricsEndpoint, RateLimit, Server};
use xq_store::{GameId, GameSummary, SqliteArchive, SqliteStore};
use xq_transport::{Address, Options, Verify, WsOptions, WsTls};

use crate::site::Site;

/// Hosts xq rooms and matches for clients over UDP, QUIC and WebSocket, and serves the web
/// client.
///
/// Prints one `listening: URL` line per listener (with the real port when 0 was asked for);
/// for QUIC, a `fingerprint: HEX` line that clients pin as `quic://HOST:PORT?fp=HEX`; for
/// WebSocket, a `web: URL` line: the page to open in a browser to play.
/// A listener on every interface (the default) is printed with the loopback address, which
/// clients on this machine can use as it is; clients elsewhere use this machine's address.
/// With --metrics, a `metrics: URL` line follows: the counters in the Prometheus text format.
/// Logs go to standard error.
///
/// Open rooms and finished games are kept in a SQLite database (--db): every accepted move
/// is committed before anyone is told of it, and a relay restarted on the same file brings
/// its rooms back, the players resuming their seats.
///
/// With --cluster, the relay is one node of a cluster that keeps its state in NATS JetStream
/// instead: rooms live on any node, a client reaching another node is redirected to the
/// room's owner, and when a node dies another takes its rooms over.
#[derive(Debug, Parser)]
#[command(name = "xq-relay", version)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// The database of open rooms and finished games. The relay creates it if missing; `games`
    /// reads an existing one only.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "./xq-relay.sqlite3",
        global = true
    )]
    db: PathBuf,
    /// Runs without a database: nothing survives the process (for tests and trials).
    #[arg(long, conflicts_with_all = ["db", "cluster"])]
    no_db: bool,
    /// Makes the relay a node of a cluster whose state lives in NATS JetStream: the NATS
    /// servers' URLs, comma-separated (nats://HOST:PORT, tls://HOST:PORT). Without it the
    /// relay keeps its state in --db alone. With `games`, reads the cluster's archive.
    #[arg(
        long,
        value_name = "URLS",
        value_delimiter = ',',
        conflicts_with = "db",
        global = true
    )]
    cluster: Vec<String>,
    /// This node's name, unique in the cluster (with --cluster).
    #[arg(long, value_name = "NAME", requires = "cluster")]
    node_name: Option<String>,
    /// A URL clients reach this node at, sent to the clients redirected to it (repeatable).
    /// Defaults to the URLs it listens on, as printed.
    #[arg(long = "advertise", value_name = "URL", requires = "cluster")]
    advertise: Vec<String>,
    /// How many copies of the cluster's streams and buckets JetStream keeps: by default 3
    /// when the NATS server is part of a cluster, else 1 (a cluster of two needs 2 or 1).
    #[arg(long, value_name = "N", requires = "cluster", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=5))]
    replicas: Option<usize>,
    /// How long a node's ownership of a room lasts unrenewed: after a node dies, its rooms
    /// wait this long for another node to take them over.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, requires = "cluster", value_parser = clap::value_parser!(u64).range(1..=300))]
    lease: u64,
    /// The NATS credentials file (JWT and nkey seed) the node authenticates with.
    #[arg(long, value_name = "PATH", requires = "cluster", global = true)]
    nats_creds: Option<PathBuf>,
    /// The CA certificate (PEM) that NATS servers' TLS certificates are checked against.
    #[arg(long, value_name = "PEM", requires = "cluster", global = true)]
    nats_ca: Option<PathBuf>,
    /// The client certificate (PEM) for NATS servers that require one.
    #[arg(long, value_name = "PEM", requires_all = ["cluster", "nats_key"], global = true)]
    nats_cert: Option<PathBuf>,
    /// The private key (PEM) of --nats-cert.
    #[arg(long, value_name = "PEM", requires_all = ["cluster", "nats_cert"], global = true)]
    nats_key: Option<PathBuf>,
    /// A transport URL to listen on (repeatable): udp://HOST:PORT, quic://HOST:PORT,
    /// ws://HOST:PORT, wss://HOST:PORT or mem://NAME. Port 0 picks a free port. A ws or wss
    /// listener also serves the web client's page.
    #[arg(
        long = "listen",
        value_name = "URL",
        default_values = ["udp://0.0.0.0:7878", "quic://0.0.0.0:7879", "ws://0.0.0.0:7880"]
    )]
    listen: Vec<String>,
    /// The certificate chain (PEM, leaf first) of the wss:// listeners. Behind a reverse proxy
    /// that terminates TLS, listen on ws:// instead.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// A web origin whose pages may connect over WebSocket, as scheme://host or
    /// scheme://host:port (repeatable). Without any, only pages the relay served itself may.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Where the QUIC certificate and key are kept; they are created on first start and
    /// reused after, so the fingerprint stays the same.
    #[arg(long, value_name = "DIR", default_value = "xq-relay-identity")]
    identity_dir: PathBuf,
    /// How long a disconnected player's seat is held before the game is lost by abandonment.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    grace: u64,
    /// How many connections the relay holds at once; more are turned away at accept.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_connections: usize,
    /// How many connections one source address (IP) may hold at once; more are turned away
    /// at accept.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_connections_per_address: usize,
    /// How many rooms the relay holds open at once; asking for more is refused
    /// (`TooManyRooms`) until one closes.
    #[arg(long, value_name = "N", default_value_t = Config::default().max_rooms, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_rooms: usize,
    /// How many open rooms the connections from one source address (IP) may have made open,
    /// counting rooms still held for connections gone since. Raise it for load tests, whose
    /// clients all come from one address.
    #[arg(long, value_name = "N", default_value_t = Config::default().max_rooms_per_address, value_parser = clap::value_parser!(u32).range(1..))]
    max_rooms_per_address: u32,
    /// How many frames a second one connection may keep sending; a client over it is
    /// disconnected (`RateLimited`). Raise it for load tests.
    #[arg(
        long,
        value_name = "FRAMES",
        default_value_t = RateLimit::default().per_second,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    rate_limit: u32,
    /// How many frames one connection may send in a burst before the rate applies.
    #[arg(
        long,
        value_name = "FRAMES",
        default_value_t = RateLimit::default().burst,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    rate_burst: u32,
    /// Serves the relay's counters in the Prometheus text format at http://ADDR/metrics
    /// (port 0 picks a free port). Off by default; keep it on a private address.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
    /// The log level (error, warn, info, debug, trace) or a tracing filter; RUST_LOG, when
    /// set, takes precedence.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    log_level: String,
    /// Threads that run the relay. The core is one task whatever this says, so one thread
    /// (the default) serves best on a small machine; more let the transports' tasks (QUIC's
    /// encryption above all) spread over more cores.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
}

/// What to do instead of serving.
#[derive(Debug, Subcommand)]
enum Command {
    /// Reads the archive of finished games.
    Games {
        #[command(subcommand)]
        action: Games,
    },
}

#[derive(Debug, Subcommand)]
enum Games {
    /// Prints one tab-separated line per archived game: id, start (UTC), red, black, result,
    /// termination, number of moves.
    List,
    /// Prints an archived game's PGN record.
    Export {
        /// The game's id, as `games list` shows it.
        id: GameId,
    },
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut runtime = if args.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut runtime = tokio::runtime::Builder::new_multi_thread();
        runtime.worker_threads(args.threads.into());
        runtime
    };
    runtime
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(run(args))
}

async fn run(args: Args) -> Result<()> {
    let filter = match EnvFilter::try_from_default_env() {
        Ok(filter) => filter,
        Err(_) => EnvFilter::try_new(&args.log_level).context("invalid --log-level")?,
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();

    match &args.command {
        Some(Command::Games { action }) if !args.cluster.is_empty() => {
            // Read-only: it binds the archive and nothing else, and holds no lease.
            let options = cluster_options(&args, String::new());
            let archive = ClusterArchive::connect(&options).await.with_context(|| {
                format!("cannot reach the cluster at {}", args.cluster.join(","))
            })?;
            games(Archive::Cluster(Box::new(archive)), action).await
        }
        Some(Command::Games { action }) => {
            if !args.db.exists() {
                bail!("no database at {}", args.db.display());
            }
            // Read-only: listing neither migrates nor otherwise writes the file, which a
            // running relay may be using, or an older relay may still need to open.
            let archive = SqliteArchive::open(&args.db)
                .with_context(|| format!("cannot open the database {}", args.db.display()))?;
            games(Archive::Sqlite(archive), action).await
        }
        None => serve(args).await,
    }
}

/// Serves until SIGINT or SIGTERM.
async fn serve(args: Args) -> Result<()> {
    let stop = shutdown_signal()?;
    let site = Site::embedded();
    if !site.has_client() {
        tracing::warn!(
            "this relay was built without the web client: `cargo xtask relay` builds both"
        );
    }
    let options = Options {
        quic_identity_dir: Some(args.identity_dir.clone()),
        ws: WsOptions {
            tls: args
                .tls_cert
                .clone()
                .zip(args.tls_key.clone())
                .map(|(cert, key)| WsTls { cert, key }),
            allowed_origins: args.allow_origins.clone(),
            site: Some(Arc::new(site)),
        },
        ..Options::default()
    };
    let config = Config {
        grace: Duration::from_secs(args.grace),
        rate_limit: RateLimit {
            burst: args.rate_burst,
            per_second: args.rate_limit,
        },
        max_rooms: args.max_rooms,
        max_rooms_per_address: args.max_rooms_per_address,
        ..Config::default()
    };
    let mut builder = Server::builder()
        .config(config)
        .transport(options)
        .max_connections(args.max_connections)
        .max_connections_per_address(args.max_connections_per_address);
    if !args.cluster.is_empty() {
        let Some(node) = args.node_name.clone() else {
            bail!("--cluster needs --node-name: each node of a cluster has a name of its own");
        };
        let cluster = Cluster::connect(cluster_options(&args, node))
            .await
            .with_context(|| format!("cannot join the cluster at {}", args.cluster.join(",")))?;
        tracing::info!(node = cluster.node(), "joined the cluster");
        builder = builder
            .storage(cluster.storage())
            .cluster(Arc::new(cluster));
    } else if !args.no_db {
        let store = SqliteStore::open(&args.db)
            .with_context(|| format!("cannot open the database {}", args.db.display()))?;
        tracing::info!(db = %args.db.display(), "database open");
        builder = builder.storage(store);
    }
    let server = args
        .listen
        .iter()
        .fold(builder, |builder, url| builder.listen(url))
        .start()
        .await
        .context("cannot start the relay")?;
    for url in server.local_urls() {
        println!("listening: {url}");
        match url.parse() {
            Ok(Address::Quic {
                verify: Verify::Fingerprint(hex),
                ..
            }) => println!("fingerprint: {hex}"),
            Ok(Address::Ws { host, port }) => println!("web: http://{}/", authority(&host, port)),
            Ok(Address::Wss { host, port, .. }) => {
                println!("web: https://{}/", authority(&host, port));
            }
            _ => {}
        }
    }
    if let Some(addr) = args.metrics {
        // Bound after the relay starts, as it serves the running relay's counters; a failure
        // stops the relay gracefully rather than leave it serving unobserved.
        let endpoint = match MetricsEndpoint::bind(addr, server.metrics()).await {
            Ok(endpoint) => endpoint,
            Err(err) => {
                server.shutdown().await;
                return Err(err).with_context(|| format!("cannot serve metrics on {addr}"));
            }
        };
        println!("metrics: {}", endpoint.url());
        // The endpoint stops by itself once the relay has stopped.
        tokio::spawn(endpoint.serve());
    }
    server
        .run_until(stop)
        .await
        .context("the relay stopped: its storage failed")
}

/// How to reach the cluster, from the flags, as node `node`.
fn cluster_options(args: &Args, node: String) -> ClusterOptions {
    let client = args
        .nats_cert
        .clone()
        .zip(args.nats_key.clone())
        .map(|(cert, key)| ClientCert { cert, key });
    let tls = (args.nats_ca.is_some() || client.is_some()).then(|| ClusterTls {
        ca: args.nats_ca.clone(),
        client,
    });
    ClusterOptions {
        advertise: args.advertise.clone(),
        replicas: args.replicas,
        lease_ttl: Duration::from_secs(args.lease),
        credentials: args.nats_creds.clone(),
        tls,
        ..ClusterOptions::new(args.cluster.clone(), node)
    }
}

/// `host:port` as a URL writes it: an IPv6 address in brackets.
fn authority(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Where `games` reads finished games.
enum Archive {
    /// A relay's database.
    Sqlite(SqliteArchive),
    /// A cluster's archive stream.
    Cluster(Box<ClusterArchive>),
}

impl Archive {
    async fn games(&self) -> Result<Vec<GameSummary>> {
        Ok(match self {
            Self::Sqlite(archive) => archive.games()?,
            Self::Cluster(archive) => archive.games().await?,
        })
    }

    async fn pgn(&self, id: GameId) -> Result<Option<String>> {
        Ok(match self {
            Self::Sqlite(archive) => archive.pgn(id)?,
            Self::Cluster(archive) => archive.pgn(id).await?,
        })
    }
}

/// Lists or exports the archived games of `archive`.
async fn games(archive: Archive, action: &Games) -> Result<()> {
    match action {
        Games::List => {
            for game in archive.games().await.context("cannot read the archive")? {
                print_game(&game);
            }
        }
        Games::Export { id } => {
            let pgn = archive.pgn(*id).await.context("cannot read the archive")?;
            let Some(pgn) = pgn else {
                bail!("no archived game has id {id}");
            };
            print!("{pgn}");
        }
    }
    Ok(())
}

/// One line of `games list`.
fn print_game(game: &GameSummary) {
    println!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        game.id, game.started, game.red, game.black, game.result, game.termination, game.moves
    );
}

/// Completes at the first SIGINT or SIGTERM. The handlers are installed at once, so a signal
/// that comes during start-up is not missed.
#[cfg(unix)]
fn shutdown_signal() -> Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("signal received");
    })
}

/// Completes at the first Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> Result<impl Future<Output = ()>> {
    Ok(async {
        // Without a handler there is no way to stop gracefully; run until killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
}
