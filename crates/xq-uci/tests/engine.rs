//! The driver against real processes: small `/bin/sh` engines that misbehave on purpose, and
//! the Debian `fairy-stockfish` (skipped when it is absent, unless `XQ_REQUIRE_ENGINES=1`).

use std::path::Path;
use std::time::{Duration, Instant};

use xq_rules::fen::Fen;
use xq_rules::{Move, Position, Square};
use xq_uci::{Dialect, DriverError, DriverOptions, Engine, EngineCommand, Go, MoveRefusal};

/// A shell engine whose answer to `go` is `on_go` (shell commands); it answers the handshake
/// and `isready` properly and says `bestmove` on `stop` unless `on_go` made it deaf.
fn script(dir: &Path, name: &str, on_go: &str) -> EngineCommand {
    let body = format!(
        r#"echo "a banner line"
echo "engine chatter on stderr" >&2
while read -r line; do
  case "$line" in
    uci) echo "id name {name}"; echo "id author Test"; echo "option name Level type spin default 5 min 0 max 9"; echo uciok ;;
    isready) echo readyok ;;
    go*) {on_go} ;;
    stop) echo "bestmove h2e2" ;;
    quit) exit 0 ;;
  esac
done
"#
    );
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, body).unwrap_or_else(|e| panic!("{e}"));
    // Run by /bin/sh, so the file needs no exec bit (and no exec of a just-written file).
    EngineCommand::new("/bin/sh").arg(path.display().to_string())
}

fn quick() -> DriverOptions {
    DriverOptions {
        handshake_timeout: Duration::from_secs(5),
        grace: Duration::from_millis(300),
        ..DriverOptions::default()
    }
}

fn depth(d: u32) -> Go {
    Go {
        depth: Some(d),
        ..Go::default()
    }
}

async fn spawn(command: &EngineCommand, options: DriverOptions) -> Engine {
    Engine::spawn(command, options)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn a_well_behaved_script_plays_and_honours_stop() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let command = script(
        dir.path(),
        "polite",
        "echo 'info depth 1 score cp 7 pv h2e2'; echo 'bestmove b0c2 ponder h9g7'",
    );
    let mut engine = spawn(&command, quick()).await;
    assert_eq!((engine.name(), engine.author()), ("polite", Some("Test")));
    assert_eq!(engine.dialect(), Dialect::Iccs);
    assert_eq!(engine.declared().len(), 1);
    engine.new_game().await.unwrap_or_else(|e| panic!("{e}"));
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.best, Move::new(Square::B0, Square::C2));
    assert_eq!(reply.ponder, Some(Move::new(Square::H9, Square::G7)));
    assert_eq!(reply.info.and_then(|i| i.depth), Some(1));

    // An infinite search ends at the deadline with `stop`, and its answer counts.
    let thinker = script(dir.path(), "thinker", ":");
    let mut engine = spawn(&thinker, quick()).await;
    let infinite = Go {
        infinite: true,
        ..Go::default()
    };
    let started = Instant::now();
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &infinite,
            Duration::from_millis(100),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.best, Move::new(Square::H2, Square::E2));
    assert!(started.elapsed() >= Duration::from_millis(100));
    engine.quit().await.unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn junk_and_a_flood_on_stderr_do_not_stop_the_driver() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // More than a pipe holds on stderr, invalid UTF-8 and nonsense on stdout, then the move.
    let command = script(
        dir.path(),
        "noisy",
        r"yes 'warning: noise' | head -n 20000 >&2; printf '\377\376 junk\n'; echo 'info depth x'; echo 'option name'; echo 'bestmove h2e2'",
    );
    let mut engine = spawn(&command, quick()).await;
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.best, Move::new(Square::H2, Square::E2));
    assert_eq!(reply.info, None);
}

#[tokio::test]
async fn an_engine_that_exits_mid_search() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let command = script(dir.path(), "crasher", "exit 3");
    let mut engine = spawn(&command, quick()).await;
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        matches!(
            err,
            Err(DriverError::Exited {
                status: Some(3),
                during: "a search"
            })
        ),
        "{err:?}"
    );
    let again = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await;
    assert!(matches!(again, Err(DriverError::Closed)), "{again:?}");

    // One that is not there at all, and one that dies before its handshake.
    let missing = EngineCommand::new(dir.path().join("no-such-engine"));
    let err = Engine::spawn(&missing, quick()).await;
    assert!(matches!(err, Err(DriverError::Spawn { .. })), "{err:?}");
    let early = EngineCommand::new("/bin/sh").arg("-c").arg("exit 7");
    let err = Engine::spawn(&early, quick()).await;
    assert!(
        matches!(
            err,
            Err(DriverError::Exited {
                status: Some(7),
                during: "the handshake"
            })
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_engine_that_never_answers_is_stopped_then_killed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Deaf to everything once it searches: it reads no more input.
    let command = script(dir.path(), "sleeper", "exec sleep 600");
    let mut engine = spawn(&command, quick()).await;
    let started = Instant::now();
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_millis(200),
        )
        .await;
    let took = started.elapsed();
    assert!(
        matches!(
            err,
            Err(DriverError::Hung {
                waiting_for: "bestmove"
            })
        ),
        "{err:?}"
    );
    assert!(took >= Duration::from_millis(500), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");

    // And one that never finishes its handshake.
    let mute = EngineCommand::new("/bin/sh")
        .arg("-c")
        .arg("exec sleep 600");
    let options = DriverOptions {
        handshake_timeout: Duration::from_millis(200),
        ..quick()
    };
    let err = Engine::spawn(&mute, options).await;
    assert!(
        matches!(
            err,
            Err(DriverError::Hung {
                waiting_for: "uciok"
            })
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_engine_that_plays_an_illegal_move_forfeits() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // The chariot on a0 cannot jump its own soldier on a3.
    let command = script(dir.path(), "cheat", "echo 'bestmove a0a5'");
    let mut engine = spawn(&command, quick()).await;
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        matches!(
            &err,
            Err(DriverError::IllegalMove { text, reason: MoveRefusal::Illegal(_) }) if text == "a0a5"
        ),
        "{err:?}"
    );
    // The engine still runs; its next move is checked again, from another position.
    let h2e2 = Move::new(Square::H2, Square::E2);
    let err = engine
        .go(
            &Position::startpos(),
            &[h2e2],
            &depth(1),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        matches!(err, Err(DriverError::IllegalMove { .. })),
        "{err:?}"
    );

    let garbled = script(dir.path(), "garbled", "echo 'bestmove e4'");
    let mut engine = spawn(&garbled, quick()).await;
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &depth(1),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        matches!(
            &err,
            Err(DriverError::IllegalMove {
                reason: MoveRefusal::Unreadable(_),
                ..
            })
        ),
        "{err:?}"
    );
}

const FAIRY_STOCKFISH: &str = "/usr/games/fairy-stockfish";

/// The real engine, or `None` (with the reason printed) if it is absent and not required.
async fn fairy_stockfish() -> Option<Engine> {
    if !Path::new(FAIRY_STOCKFISH).exists() {
        assert!(
            std::env::var("XQ_REQUIRE_ENGINES").as_deref() != Ok("1"),
            "{FAIRY_STOCKFISH} is missing and XQ_REQUIRE_ENGINES=1"
        );
        eprintln!("skipped: {FAIRY_STOCKFISH} is not installed (apt-get install fairy-stockfish)");
        return None;
    }
    let options = DriverOptions {
        options: vec![("Threads".into(), "1".into()), ("Hash".into(), "8".into())],
        ..DriverOptions::default()
    };
    Some(spawn(&EngineCommand::new(FAIRY_STOCKFISH), options).await)
}

/// Plays `plies` moves, the engine on both sides, checking each against the rules.
async fn self_play(engine: &mut Engine, start: &Position, plies: usize, go: &Go) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut pos = start.clone();
    for _ in 0..plies {
        if !pos.has_legal_move() {
            break;
        }
        let reply = engine
            .go(start, &moves, go, Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("after {moves:?}: {e}"));
        assert!(
            pos.is_legal(reply.best),
            "{} in {}",
            reply.best,
            Fen::from_position(&pos)
        );
        pos.play_unchecked(reply.best);
        moves.push(reply.best);
    }
    moves
}

#[tokio::test]
async fn fairy_stockfish_plays_legal_moves_in_its_one_based_dialect() {
    let Some(mut engine) = fairy_stockfish().await else {
        return;
    };
    assert!(
        engine.name().starts_with("Fairy-Stockfish"),
        "{}",
        engine.name()
    );
    assert_eq!(engine.dialect(), Dialect::OneBased);
    assert!(engine.declared().iter().any(|d| d.offers("xiangqi")));

    engine.new_game().await.unwrap_or_else(|e| panic!("{e}"));
    let nodes = Go {
        nodes: Some(2_000),
        ..Go::default()
    };
    let moves = self_play(&mut engine, &Position::startpos(), 6, &nodes).await;
    assert_eq!(moves.len(), 6);

    // A middlegame from a FEN, Black to move: its back rank is rank 10 in this dialect.
    engine.new_game().await.unwrap_or_else(|e| panic!("{e}"));
    let fen: Fen = "r1bakab1r/9/1cn4cn/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R b - - 4 3"
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let start = fen.into_position().unwrap_or_else(|e| panic!("{e}"));
    let moves = self_play(&mut engine, &start, 4, &depth(4)).await;
    assert_eq!(moves.len(), 4);

    // A mate in one: the engine finds it and says so.
    let mate: Fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w"
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let mate = mate.into_position().unwrap_or_else(|e| panic!("{e}"));
    let reply = engine
        .go(&mate, &[], &depth(3), Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        mate.clone()
            .play(reply.best)
            .is_ok_and(|p| p.is_checkmate()),
        "{}",
        reply.best
    );
    engine.quit().await.unwrap_or_else(|e| panic!("{e}"));
}
