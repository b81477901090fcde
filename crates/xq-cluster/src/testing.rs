//! Real `nats-server` processes for tests: one server, or a routed cluster of three, each
//! on loopback with free ports and a data directory of its own, killed when dropped. A lone
//! server can also require TLS with client certificates, or run in operator mode, where
//! clients log in with a credentials file: it then hands out what a client needs.
//!
//! The binary is `$XQ_NATS_SERVER` if set, else `nats-server` on the `PATH`. Without one,
//! [`NatsServer::start`] and [`NatsCluster::start`] print a note and return `None`, so a
//! test can skip; with `XQ_REQUIRE_NATS=1` they panic instead (CI, where the server must be
//! there).
//!
//! The harness panics on failures to start (it serves tests, where a panic is the report).
#![allow(clippy::missing_panics_doc)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::ClusterTls;

mod accounts;
mod tls;

/// How many times a server (or cluster) is started on fresh ports before the harness gives up.
const START_TRIES: usize = 3;

/// How long a server may take to answer its health check after it starts.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How a test server stores JetStream data and whom it lets in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerOptions {
    /// `sync_interval: always`: every write is synced to disk before it is acknowledged
    /// (the setting that makes a single-replica store survive a machine crash).
    pub sync_always: bool,
    /// Clients must come over TLS (`tls://`) and show a certificate from the server's own
    /// CA: [`NatsServer::client_tls`] has the CA and a client certificate.
    pub tls: bool,
    /// Operator mode: clients must log in as a user of the server's account with
    /// JetStream, whose credentials file is [`NatsServer::credentials`].
    pub credentials: bool,
}

/// One `nats-server` with JetStream, on `127.0.0.1`.
#[derive(Debug)]
pub struct NatsServer {
    binary: PathBuf,
    config: PathBuf,
    port: u16,
    monitor: u16,
    client_tls: Option<ClusterTls>,
    credentials: Option<PathBuf>,
    child: Option<Child>,
    /// The data directory (and the config file); removed on drop, after the process.
    _dir: TempDir,
}

/// Three `nats-server`s routed into one NATS cluster with JetStream.
#[derive(Debug)]
pub struct NatsCluster {
    servers: Vec<NatsServer>,
}

impl NatsServer {
    /// Starts a server and waits until its JetStream answers; `None` (with a note) if there
    /// is no `nats-server` binary and `XQ_REQUIRE_NATS` is not `1`.
    #[must_use]
    pub fn start() -> Option<Self> {
        Self::start_with(ServerOptions::default())
    }

    /// [`start`](Self::start) with `options`.
    #[must_use]
    pub fn start_with(options: ServerOptions) -> Option<Self> {
        let binary = binary()?;
        Some(with_retries(|| Self::try_start(&binary, options)))
    }

    fn try_start(binary: &Path, options: ServerOptions) -> Result<Self, String> {
        let [port, monitor] = free_ports();
        let mut server = Self::configured(binary, "xq-test", port, monitor, options, None);
        server.spawn();
        server.healthy_in_time()?;
        Ok(server)
    }

    /// A server named `name`, not started yet, with its config written into a fresh data
    /// directory.
    fn configured(
        binary: &Path,
        name: &str,
        port: u16,
        monitor: u16,
        options: ServerOptions,
        cluster: Option<ClusterConfig<'_>>,
    ) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory for nats-server");
        let mut text = config_text(dir.path(), name, port, monitor, options, cluster);
        let client_tls = options.tls.then(|| {
            let (block, client) = tls::write(dir.path());
            text.push_str(&block);
            client
        });
        let credentials = options.credentials.then(|| {
            let (block, creds) = accounts::write(dir.path());
            text.push_str(&block);
            creds
        });
        let config = dir.path().join("nats-server.conf");
        std::fs::write(&config, text).expect("write the nats-server config");
        Self {
            binary: binary.to_path_buf(),
            config,
            port,
            monitor,
            client_tls,
            credentials,
            child: None,
            _dir: dir,
        }
    }

    /// The server's client URL, `nats://127.0.0.1:<port>` (`tls://` if it requires TLS).
    #[must_use]
    pub fn url(&self) -> String {
        let scheme = if self.client_tls.is_some() {
            "tls"
        } else {
            "nats"
        };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// What a client needs to pass the server's TLS (started with
    /// [`ServerOptions::tls`]): its CA, and a client certificate it signed.
    #[must_use]
    pub fn client_tls(&self) -> Option<ClusterTls> {
        self.client_tls.clone()
    }

    /// The credentials file of a user that the server lets in (started with
    /// [`ServerOptions::credentials`]).
    #[must_use]
    pub fn credentials(&self) -> Option<&Path> {
        self.credentials.as_deref()
    }

    /// Kills the server with SIGKILL (no clean shutdown), and waits for it to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again (after [`kill`](Self::kill)) on the same port and data
    /// directory, and waits until it answers.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
        self.wait_healthy();
    }

    /// Stops the process with SIGSTOP: it holds its connections but answers nothing.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused process go on (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        if let Some(child) = &self.child {
            let status = Command::new("kill")
                .arg(signal)
                .arg(child.id().to_string())
                .status()
                .expect("kill(1)");
            assert!(status.success(), "kill {signal} failed");
        }
    }

    fn spawn(&mut self) {
        let child = Command::new(&self.binary)
            .arg("-c")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nats-server");
        self.child = Some(child);
    }

    /// Waits until the monitoring endpoint reports JetStream healthy (in a cluster: with a
    /// meta leader).
    fn wait_healthy(&mut self) {
        if let Err(err) = self.healthy_in_time() {
            panic!("{err}");
        }
    }

    /// [`wait_healthy`](Self::wait_healthy), with the failure as an error.
    fn healthy_in_time(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        while Instant::now() < deadline {
            if let Some(child) = &mut self.child
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(format!("nats-server exited at start: {status}"));
            }
            if healthy(self.monitor) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "nats-server on port {} not healthy in time",
            self.port
        ))
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            // A test that paused the server and failed before resuming it: let it go first,
            // so that nothing stopped is left behind whatever the kernel does with SIGKILL.
            let _ = Command::new("kill")
                .arg("-CONT")
                .arg(child.id().to_string())
                .status();
        }
        self.kill();
    }
}

impl NatsCluster {
    /// Starts `size` servers routed together (NATS cluster `xq-test`), and waits until
    /// every one reports JetStream healthy; `None` as [`NatsServer::start`].
    #[must_use]
    pub fn start(size: usize) -> Option<Self> {
        let binary = binary()?;
        Some(with_retries(|| Self::try_start(&binary, size)))
    }

    fn try_start(binary: &Path, size: usize) -> Result<Self, String> {
        let ports: Vec<[u16; 3]> = (0..size).map(|_| free_ports()).collect();
        let routes: Vec<String> = ports
            .iter()
            .map(|[_, _, route]| format!("nats-route://127.0.0.1:{route}"))
            .collect();
        let mut servers: Vec<NatsServer> = ports
            .iter()
            .enumerate()
            .map(|(index, &[port, monitor, route])| {
                let cluster = ClusterConfig {
                    port: route,
                    routes: &routes,
                };
                NatsServer::configured(
                    binary,
                    &format!("xq-test-{index}"),
                    port,
                    monitor,
                    ServerOptions::default(),
                    Some(cluster),
                )
            })
            .collect();
        for server in &mut servers {
            server.spawn();
        }
        for server in &mut servers {
            server.healthy_in_time()?;
        }
        Ok(Self { servers })
    }

    /// The client URLs of the servers.
    #[must_use]
    pub fn urls(&self) -> Vec<String> {
        self.servers.iter().map(NatsServer::url).collect()
    }

    /// The client URLs, comma-separated (as `xq-relay --cluster` takes them).
    #[must_use]
    pub fn url_list(&self) -> String {
        self.urls().join(",")
    }

    /// Server `index`.
    #[must_use]
    pub fn server(&self, index: usize) -> &NatsServer {
        &self.servers[index]
    }

    /// Kills server `index` (SIGKILL).
    pub fn kill(&mut self, index: usize) {
        self.servers[index].kill();
    }

    /// Starts server `index` again, on its ports and data.
    pub fn restart(&mut self, index: usize) {
        self.servers[index].restart();
    }
}

/// The routes of a clustered server.
struct ClusterConfig<'a> {
    port: u16,
    routes: &'a [String],
}

/// Runs `try_start` until it succeeds, [`START_TRIES`] times at the most, and panics with
/// the last failure. A port found free may be taken by another process before the server
/// binds it: then the server exits, and it starts again on other ports.
fn with_retries<T>(mut try_start: impl FnMut() -> Result<T, String>) -> T {
    let mut tries = 1;
    loop {
        match try_start() {
            Ok(started) => return started,
            Err(err) if tries >= START_TRIES => panic!("{err}"),
            Err(_) => tries += 1,
        }
    }
}

/// The server's config file, for a data directory in `dir`, but for its TLS and accounts.
fn config_text(
    dir: &Path,
    name: &str,
    port: u16,
    monitor: u16,
    options: ServerOptions,
    cluster: Option<ClusterConfig<'_>>,
) -> String {
    let store = dir.join("jetstream");
    let sync = if options.sync_always {
        "\n  sync_interval: always"
    } else {
        ""
    };
    let mut text = format!(
        "server_name: {name}\nlisten: 127.0.0.1:{port}\nhttp: 127.0.0.1:{monitor}\n\
         jetstream {{\n  store_dir: {store:?}{sync}\n}}\n"
    );
    if let Some(cluster) = cluster {
        let routes = cluster.routes.join(", ");
        // The servers gossip no client URLs (clients are given every one), so a cluster
        // looks the same to a client whether or not its routes have all formed yet.
        text.push_str(&format!(
            "cluster {{\n  name: xq-test\n  listen: 127.0.0.1:{}\n  routes: [{routes}]\n  \
             no_advertise: true\n}}\n",
            cluster.port
        ));
    }
    text
}

/// The `nats-server` binary to run, or `None` (after a note) to skip.
fn binary() -> Option<PathBuf> {
    let required = std::env::var("XQ_REQUIRE_NATS").is_ok_and(|value| value == "1");
    let candidate = std::env::var_os("XQ_NATS_SERVER")
        .map_or_else(|| PathBuf::from("nats-server"), PathBuf::from);
    let works = Command::new(&candidate)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if works {
        return Some(candidate);
    }
    assert!(
        !required,
        "XQ_REQUIRE_NATS=1 but {} does not run",
        candidate.display()
    );
    eprintln!(
        "note: no nats-server ({}): skipping a test that needs one (set XQ_NATS_SERVER)",
        candidate.display()
    );
    None
}

/// `N` distinct free TCP ports on loopback (free when asked; the server binds them next).
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind a free port"))
        .collect();
    std::array::from_fn(|index| listeners[index].local_addr().expect("a bound port").port())
}

/// Whether the server's `/healthz` answers 200.
fn healthy(monitor: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", monitor)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
    let request = "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200")
}
