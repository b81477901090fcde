//! `xq replay`: one line per ply, then the result; bad records fail naming line and move.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

/// A PGN file in the temporary directory, removed when dropped.
struct TempPgn(PathBuf);

impl TempPgn {
    fn new(name: &str, text: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("xq-replay-{}-{name}.pgn", std::process::id()));
        fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        Self(path)
    }
}

impl Drop for TempPgn {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

fn replay(name: &str, text: &str) -> Output {
    let file = TempPgn::new(name, text);
    Command::new(env!("CARGO_BIN_EXE_xq"))
        .arg("replay")
        .arg(&file.0)
        .output()
        .unwrap_or_else(|e| panic!("spawn xq: {e}"))
}

#[test]
fn prints_every_ply_and_the_result() {
    let out = replay(
        "game",
        "[Game \"Chinese Chess\"]\n[Result \"0-1\"]\n[Termination \"resignation\"]\n\n\
         1. h2e2 {central cannon} h9g7\n2. H0-G2 0-1\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\
1 h2e2 C2=5 rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1
2 h9g7 H8+7 rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2
3 h0g2 H2+3 rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2
result 0-1 resignation
"
    );
}

#[test]
fn an_unfinished_game_without_moves_prints_the_result_only() {
    let out = replay("empty", "*\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "result *\n");
}

#[test]
fn a_bad_record_fails_naming_the_line_and_the_move() {
    let out = replay("illegal", "1. h2e2 h9g7\n2. h2e2 *\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: move 2. 'h2e2' is illegal"), "{err}");
    assert!(out.stdout.is_empty());

    let out = replay("unreadable", "1. h2e2 h9g7 2. Q1+1 1-0\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1: move 2. 'Q1+1' is not a move"),
        "{err}"
    );

    let missing = std::env::temp_dir().join("xq-replay-no-such-file.pgn");
    let out = Command::new(env!("CARGO_BIN_EXE_xq"))
        .arg("replay")
        .arg(&missing)
        .output()
        .unwrap_or_else(|e| panic!("spawn xq: {e}"));
    assert!(!out.status.success());
}

#[test]
fn a_perpetual_chase_is_named_and_checked_against_the_board() {
    let chase = "[FEN \"4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1\"]\n[Result \"0-1\"]\n\
                 [Termination \"perpetual chase\"]\n\n\
                 1. a3b3 b7c7 2. b3c3 c7b7 3. c3b3 b7c7 4. b3c3 c7b7 5. c3b3 0-1\n";
    let out = replay("chase", chase);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.ends_with("result 0-1 perpetual chase\n"), "{stdout}");
    // Under the rule that judges checks only, the same cycle is a draw, not a chase.
    let checks_only = chase.replace("[Result", "[Repetition \"checks-only\"]\n[Result");
    let out = replay("checks-only", &checks_only);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("perpetual chase\" does not hold"), "{err}");
}
