//! The engines from the outside: `xq uci` as a GUI talks to it, `xq match` between engines of
//! both kinds, and engine bots through a relay over UDP and QUIC.
//!
//! Fairy-Stockfish (Debian's `fairy-stockfish`, on `PATH` or in `/usr/games`) is the external
//! engine. Where it is missing the tests that need it say so and pass, unless
//! `XQ_REQUIRE_ENGINES=1` asks for them (CI sets it), when they fail.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use xq_rules::iccs::Iccs;
use xq_rules::{Move, Position};
use xq_server::Server;
use xq_session::pgn;
use xq_store::{SqliteArchive, SqliteStore};
use xq_transport::Options;

const XQ: &str = env!("CARGO_BIN_EXE_xq");

/// Fairy-Stockfish's path, or `None` (after saying why) when it is missing and not required.
fn fairy_stockfish() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join("fairy-stockfish"))
        .find(|path| path.is_file());
    if found.is_none() {
        assert!(
            std::env::var("XQ_REQUIRE_ENGINES").as_deref() != Ok("1"),
            "XQ_REQUIRE_ENGINES=1 but fairy-stockfish is not installed"
        );
        eprintln!("fairy-stockfish is not installed: skipped (apt-get install fairy-stockfish)");
    }
    found
}

/// `xq uci`, driven line by line as a GUI drives it.
struct Uci {
    child: Child,
    input: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Uci {
    fn start() -> Self {
        let mut child = Command::new(XQ)
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn xq uci");
        let input = child.stdin.take().expect("stdin");
        let output: ChildStdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            input,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("write to xq uci");
        self.input.flush().expect("flush");
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no {prefix:?} line after {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The move of the next `bestmove` line (`None` for `(none)`).
    fn bestmove(&self) -> Option<Move> {
        let lines = self.until("bestmove");
        let last = lines.last().expect("a line");
        let text = last.split_whitespace().nth(1).expect("bestmove's move");
        (text != "(none)").then(|| {
            let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{last}: {e}"));
            Move::new(iccs.from, iccs.to)
        })
    }
}

#[test]
fn xq_uci_speaks_the_protocol_and_survives_bad_commands() {
    let mut uci = Uci::start();
    uci.send("uci");
    let hello = uci.until("uciok");
    assert!(
        hello.iter().any(|l| l.starts_with("id name xq")),
        "{hello:?}"
    );
    assert!(
        hello
            .iter()
            .any(|l| l.starts_with("option name Level type spin default 10 min 1 max 10")),
        "{hello:?}"
    );
    uci.send("isready");
    uci.until("readyok");

    // Nonsense is answered with an info string, and the engine carries on.
    for bad in [
        "frobnicate",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves h2e2 h2e2",
        "go depth banana",
        "setoption name Level value 99",
        "setoption name Nonesuch value 1",
    ] {
        uci.send(bad);
        let answer = uci.until("info string");
        assert_eq!(answer.len(), 1, "{bad}: {answer:?}");
    }
    uci.send("isready");
    uci.until("readyok");

    // The bad `position` left the start position in place: a legal move of Red's.
    uci.send("ucinewgame");
    uci.send("go depth 3");
    let mv = uci.bestmove().expect("a move");
    assert!(Position::startpos().legal_moves().contains(&mv), "{mv}");

    // A position with moves.
    uci.send("position startpos moves h2e2 h9g7");
    uci.send("go nodes 2000");
    let mut pos = Position::startpos();
    for text in ["h2e2", "h9g7"] {
        let iccs: Iccs = text.parse().expect("iccs");
        pos.play_unchecked(Move::new(iccs.from, iccs.to));
    }
    let mv = uci.bestmove().expect("a move");
    assert!(pos.legal_moves().contains(&mv), "{mv}");

    // A win in one: Black's general is boxed in, and any move that keeps the box mates or
    // stalemates it (a stalemated side loses).
    let fen = "3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1";
    uci.send(&format!("position fen {fen}"));
    uci.send("go depth 2");
    let mv = uci.bestmove().expect("a move");
    let pos: xq_rules::fen::Fen = fen.parse().expect("fen");
    let after = pos
        .into_position()
        .expect("legal")
        .play(mv)
        .expect("legal move");
    assert!(!after.has_legal_move(), "{mv} does not end the game");

    // No legal move: `bestmove (none)`.
    uci.send("position fen R2k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1");
    uci.send("go depth 3");
    assert_eq!(uci.bestmove(), None);

    // An infinite search answers only when stopped; isready is answered meanwhile.
    uci.send("position startpos");
    uci.send("go infinite");
    uci.send("isready");
    let meanwhile = uci.until("readyok");
    assert!(
        meanwhile.iter().all(|l| !l.starts_with("bestmove")),
        "{meanwhile:?}"
    );
    uci.send("go depth 1");
    uci.until("info string");
    uci.send("stop");
    assert!(uci.bestmove().is_some());

    uci.send("quit");
    let status = uci.child.wait().expect("xq uci exits");
    assert!(status.success());
}

fn xq(args: &[&str]) -> Output {
    Command::new(XQ)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("xq {args:?}: {e}"))
}

/// Runs `xq match`, checks every game finished with a result the rules give, and that the PGN
/// file holds them all; returns the summary line.
fn run_match(engines: [&str; 2], games: u32, tc: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let pgn_path = dir.path().join("games.pgn");
    let games_text = games.to_string();
    let mut args = vec![
        "match",
        "--engine",
        engines[0],
        "--engine",
        engines[1],
        "--games",
        &games_text,
        "--tc",
        tc,
        "--openings",
        "7",
        "--pgn",
        pgn_path.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    let out = xq(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game_lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(game_lines.len(), games as usize, "{stdout}");
    for line in &game_lines {
        assert!(
            [": 1-0 (", ": 0-1 (", ": 1/2-1/2 ("]
                .iter()
                .any(|token| line.contains(token)),
            "{line}"
        );
        assert!(!line.contains("forfeit"), "{line}");
    }
    let text = std::fs::read_to_string(&pgn_path).expect("the PGN file");
    let records = split_pgn(&text);
    assert_eq!(records.len(), games as usize, "{text}");
    for record in records {
        let record = pgn::parse(&record).unwrap_or_else(|e| panic!("{e}: {record}"));
        // The record replays through the referee to the result it claims.
        assert!(record.result().is_some(), "an unfinished game");
    }
    stdout.lines().last().expect("a summary line").to_owned()
}

/// The games of a PGN file, one text each.
fn split_pgn(text: &str) -> Vec<String> {
    let mut games = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Game ") {
            games.push(String::new());
        }
        if let Some(game) = games.last_mut() {
            game.push_str(line);
            game.push('\n');
        }
    }
    games
}

#[test]
fn xq_match_between_the_builtin_engine_and_xq_uci() {
    let uci = format!("{XQ} uci");
    let summary = run_match(["builtin:4", &uci], 2, "nodes=3000", &[]);
    assert!(summary.contains(": 2 games, W/D/L "), "{summary}");
    assert!(summary.contains("elo "), "{summary}");
}

#[test]
fn xq_match_against_fairy_stockfish() {
    let Some(fairy) = fairy_stockfish() else {
        return;
    };
    let fairy = fairy.to_str().expect("utf-8 path").to_owned();
    let summary = run_match(["builtin", &fairy], 2, "nodes=5000", &[]);
    assert!(summary.contains(": 2 games, W/D/L "), "{summary}");
}

#[test]
fn xq_match_refuses_bad_arguments() {
    for args in [
        &["match", "--engine", "builtin"][..],
        &["match", "--engine", "builtin", "--engine", "builtin:0"],
        &[
            "match", "--engine", "builtin", "--engine", "builtin", "--tc", "fast",
        ],
    ] {
        let out = xq(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

/// Starts an engine bot; returns it with its standard output.
fn engine_bot(url: &str, engine: &str, entry: &[&str]) -> Child {
    Command::new(XQ)
        .args([
            "bot",
            url,
            "--engine",
            engine,
            "--movetime",
            "40",
            "--move-delay",
            "0",
        ])
        .args(entry)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn xq bot")
}

fn first_line(child: &mut Child) -> (String, BufReader<ChildStdout>) {
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    lines.read_line(&mut first).expect("read");
    (first.trim().to_owned(), lines)
}

async fn builtin_against_fairy_stockfish(listen: &str, fairy: &Path) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("relay.db");
    let options = Options {
        quic_identity_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    };
    let server = Server::builder()
        .listen(listen)
        .transport(options)
        .storage(SqliteStore::open(&db).expect("the store"))
        .start()
        .await
        .expect("the relay starts");
    let url = server.local_urls()[0].clone();
    let fairy = fairy.to_str().expect("utf-8 path").to_owned();
    let played = tokio::task::spawn_blocking(move || {
        let mut creator = engine_bot(
            &url,
            "builtin",
            &["--create", "--seat", "red", "--seed", "3"],
        );
        let (first, lines) = first_line(&mut creator);
        let code = first.strip_prefix("room: ").expect("room: CODE").to_owned();
        let joiner = engine_bot(&url, &fairy, &["--join", &code]);
        let joined = joiner.wait_with_output().expect("the joiner ends");
        let created: String = lines.lines().map(|l| l.expect("read") + "\n").collect();
        assert!(creator.wait().expect("the creator ends").success());
        assert!(
            joined.status.success(),
            "{}",
            String::from_utf8_lossy(&joined.stderr)
        );
        let result = |out: &str| {
            out.lines()
                .find(|l| l.starts_with("result: "))
                .unwrap_or_else(|| panic!("no result in {out:?}"))
                .to_owned()
        };
        let line = result(&created);
        assert_eq!(line, result(&String::from_utf8_lossy(&joined.stdout)));
        line
    });
    let line = tokio::time::timeout(Duration::from_secs(240), played)
        .await
        .expect("the bots finish")
        .expect("the bots' thread");
    server.shutdown().await;
    // The relay archived the game, and its record replays to the result both bots saw.
    let archive = SqliteArchive::open(&db).expect("the archive");
    let games = archive.games().expect("the archived games");
    assert_eq!(games.len(), 1, "{games:?}");
    let text = archive.pgn(games[0].id).expect("reads").expect("archived");
    let record = pgn::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let token = pgn::result_token(record.result().map(|r| r.outcome()));
    assert!(
        line.starts_with(&format!("result: {token} (")),
        "{line} vs {text}"
    );
    std::fs::write(dir.path().join("game.pgn"), &text).expect("write the record");
    let replay = xq(&[
        "replay",
        dir.path().join("game.pgn").to_str().expect("utf-8 path"),
    ]);
    assert!(replay.status.success());
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replayed
            .lines()
            .last()
            .is_some_and(|l| l.starts_with(&format!("result {token}"))),
        "{replayed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_bots_through_the_relay_over_udp() {
    if let Some(fairy) = fairy_stockfish() {
        builtin_against_fairy_stockfish("udp://127.0.0.1:0", &fairy).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_bots_through_the_relay_over_quic() {
    if let Some(fairy) = fairy_stockfish() {
        builtin_against_fairy_stockfish("quic://127.0.0.1:0", &fairy).await;
    }
}

#[test]
fn an_engine_that_plays_an_illegal_move_loses_the_match_game() {
    // A real process that speaks UCI and then answers every search with a chariot jump.
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("cheat.sh");
    std::fs::write(
        &script,
        "while read -r line; do\n  case \"$line\" in\n    uci) echo 'id name Cheat'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) echo 'bestmove a0a5' ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    )
    .expect("write the script");
    let cheat = format!("sh {}", script.to_str().expect("utf-8 path"));
    let pgn_path = dir.path().join("games.pgn");
    let out = xq(&[
        "match",
        "--engine",
        "builtin:1",
        "--engine",
        &cheat,
        "--games",
        "2",
        "--tc",
        "nodes=500",
        "--opening-plies",
        "0",
        "--pgn",
        pgn_path.to_str().expect("utf-8 path"),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // Whatever its colour, the cheat loses at its first move, and the record says why.
    assert!(
        stdout.contains("W/D/L 2/0/0"),
        "the cheat must lose both games: {stdout}"
    );
    let abandoned = stdout
        .lines()
        .filter(|l| l.starts_with("game ") && l.contains("(abandonment: Cheat: "))
        .count();
    assert_eq!(abandoned, 2, "{stdout}");
    let text = std::fs::read_to_string(&pgn_path).expect("the PGN file");
    assert_eq!(text.matches("[Forfeit \"Cheat: ").count(), 2, "{text}");
}
