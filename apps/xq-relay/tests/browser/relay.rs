//! The relay under test: the real binary, on loopback, with its database in a temporary
//! directory, serving the web client's page and its WebSocket.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;
use xq_rules::iccs::Iccs;
use xq_session::pgn;

use super::process::Guarded;

/// How long the relay may take to start or to stop.
const START_STOP: Duration = Duration::from_secs(20);

/// A running `xq-relay`.
pub(crate) struct Relay {
    process: Guarded,
    db: PathBuf,
    /// The page's address, as the relay printed it: `http://127.0.0.1:PORT/`.
    pub(crate) web: String,
}

impl Relay {
    /// Starts the relay with a WebSocket listener on a free loopback port, its database and
    /// identity in `dir` and its log in `log`, and waits for its `web:` line.
    pub(crate) async fn start(dir: &Path, log: &Path) -> Self {
        let db = dir.join("relay.sqlite3");
        let log = std::fs::File::create(log)
            .unwrap_or_else(|err| panic!("cannot create {}: {err}", log.display()));
        let mut command = Command::new(env!("CARGO_BIN_EXE_xq-relay"));
        command
            .args(["--listen", "ws://127.0.0.1:0", "--log-level", "info"])
            .arg("--db")
            .arg(&db)
            .arg("--identity-dir")
            .arg(dir.join("identity"))
            .stderr(Stdio::from(log));
        let mut process = Guarded::spawn("xq-relay", command, "it is built with the tests");
        let web = process
            .read_until("its web: line", START_STOP, |line| {
                line.strip_prefix("web: ").map(str::to_string)
            })
            .await;
        assert!(
            web.starts_with("http://127.0.0.1:") && web.ends_with('/'),
            "unexpected web address {web:?}"
        );
        Self { process, db, web }
    }

    /// The page's address with `fragment` (`create`, `join/CODE`) after the `#`.
    pub(crate) fn link(&self, fragment: &str) -> String {
        format!("{}#{fragment}", self.web)
    }

    /// Stops the relay as an operator does, with SIGTERM, and checks that it exits cleanly.
    pub(crate) async fn stop(&mut self) {
        assert!(
            self.process.terminate(START_STOP).await,
            "the relay exited with a failure after SIGTERM"
        );
    }

    /// The one archived game's moves in ICCS, read back with `games list` and `games export`
    /// (the relay stopped first) and parsed by the session's PGN reader.
    pub(crate) async fn archived_moves(&self) -> Vec<String> {
        let list = self.games(&["list"]).await;
        let lines: Vec<&str> = list.lines().collect();
        let [game] = lines[..] else {
            panic!("expected one archived game, the archive lists {list:?}");
        };
        let id = game
            .split('\t')
            .next()
            .unwrap_or_else(|| panic!("no id in {game:?}"));
        let text = self.games(&["export", id]).await;
        let record = pgn::parse(&text)
            .unwrap_or_else(|err| panic!("the exported PGN does not parse ({err}):\n{text}"));
        record
            .moves()
            .iter()
            .map(|mv| Iccs::from(*mv).to_string())
            .collect()
    }

    /// What `xq-relay games ARGS --db DB` prints, which must succeed.
    async fn games(&self, args: &[&str]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_xq-relay"))
            .arg("games")
            .args(args)
            .arg("--db")
            .arg(&self.db)
            .output()
            .await
            .unwrap_or_else(|err| panic!("cannot run xq-relay games: {err}"));
        assert!(
            output.status.success(),
            "xq-relay games {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .unwrap_or_else(|err| panic!("xq-relay games {args:?} printed no UTF-8: {err}"))
    }
}
