//! The `xq` tool's output formats, which scripts rely on.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const STALEMATE: &str = "3k5/4P4/9/9/9/9/9/9/9/4K4 b - - 0 1";
const CHECKMATE: &str = "3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1";

fn xq(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xq"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn xq: {e}"));
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(stdin.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn ok(args: &[&str]) -> String {
    let out = xq(args, "");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{e}"))
}

fn fails(args: &[&str], stdin: &str) -> String {
    let out = xq(args, stdin);
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn perft_prints_the_total_on_the_last_line() {
    assert_eq!(ok(&["perft", "startpos", "3"]), "79666\n");
    let divide = ok(&["perft", START, "2", "--divide"]);
    let lines: Vec<&str> = divide.lines().collect();
    assert_eq!(lines.len(), 45);
    assert_eq!(lines[44], "1920");
    assert!(
        lines.contains(&"a0a1: 44") && lines.contains(&"h2e2: 45"),
        "{divide}"
    );
    let mut sorted = lines[..44].to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, lines[..44]);
}

#[test]
fn moves_are_sorted_iccs_on_one_line() {
    let out = ok(&["moves", "startpos"]);
    let moves: Vec<&str> = out.trim_end().split(' ').collect();
    assert_eq!(moves.len(), 44);
    assert!(moves.windows(2).all(|w| w[0] < w[1]));
    assert!(moves.contains(&"h2e2") && moves.contains(&"b0c2"));
}

#[test]
fn stdin_mode_answers_each_line() {
    let input = format!("{START}\n{STALEMATE}\n{CHECKMATE}\n");
    let out = xq(&["moves", "-"], &input);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0].split(' ').count(), 44);
    assert_eq!(lines[1], "", "no legal move: an empty line");
    let out = xq(&["status", "-"], &input);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ongoing\nstalemate\nongoing\n"
    );
    let err = fails(&["status", "-"], &format!("{START}\nnot a fen\n"));
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn status_words() {
    assert_eq!(ok(&["status", "startpos"]), "ongoing\n");
    assert_eq!(ok(&["status", STALEMATE]), "stalemate\n");
    let mated = ok(&["play", CHECKMATE, "b0b9"]);
    assert_eq!(ok(&["status", mated.trim()]), "checkmate\n");
    let check = ok(&["play", "4k4/9/9/9/9/9/9/9/9/3K1R3 w", "f0f9"]);
    assert_eq!(ok(&["status", check.trim()]), "check\n");
}

#[test]
fn play_prints_the_resulting_fen_or_names_the_illegal_move() {
    assert_eq!(
        ok(&["play", "startpos", "h2e2", "h9g7"]),
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2\n"
    );
    let err = fails(&["play", "startpos", "h2e2", "h9g7", "h0h9"], "");
    assert!(
        err.contains("move 3") && err.contains("h0h9") && err.contains("horse"),
        "{err}"
    );
    let err = fails(&["play", "startpos", "e3e4", "e3e5"], "");
    assert!(err.contains("move 2") && err.contains("e3e5"), "{err}");
    let err = fails(&["play", "startpos", "zz"], "");
    assert!(
        err.contains("move 1") && err.contains("invalid iccs"),
        "{err}"
    );
}

#[test]
fn show_draws_the_board_with_red_at_the_bottom() {
    let out = ok(&["show", "startpos"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("9 車馬象士將士象馬車"), "{out}");
    assert!(lines[10].starts_with("0 俥傌相仕帥仕相傌俥"), "{out}");
    assert!(out.contains("楚河") && out.contains("漢界"));
    assert_eq!(lines.last(), Some(&"red to move: ongoing"));
}

#[test]
fn bad_input_is_reported_not_panicked_on() {
    let err = fails(&["moves", "rnbakabnr/9"], "");
    assert!(err.contains("invalid board"), "{err}");
    let err = fails(&["moves", "4k4/9/9/9/9/9/9/9/9/4K4 w"], "");
    assert!(err.contains("generals face"), "{err}");
    fails(&["perft", "startpos", "-1"], "");
    // Deeper than any perft that ends (and than the stack holds): refused, not run.
    let err = fails(&["perft", "startpos", "100000"], "");
    assert!(err.contains("0..=16"), "{err}");
    fails(&["frobnicate"], "");
}

/// Output that cannot be written (a full disk, a closed pipe) is an error, not a panic.
#[test]
fn a_failing_standard_output_is_reported() {
    let commands: [&[&str]; 5] = [
        &["show", "startpos"],
        &["play", "startpos", "h2e2"],
        &["wxf", "startpos", "h2e2"],
        &["chinese", "startpos", "h2e2"],
        &["moves", "startpos"],
    ];
    for args in commands {
        let full = std::fs::File::create("/dev/full").unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new(env!("CARGO_BIN_EXE_xq"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap_or_else(|e| panic!("spawn xq: {e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("No space left"), "{args:?}: {err}");
    }
}

#[test]
fn notations_of_each_move_in_turn() {
    let moves = ["startpos", "h2e2", "h9g7", "h0g2", "i9h9", "b0c2"];
    assert_eq!(
        ok(&[&["wxf"][..], &moves].concat()),
        "C2=5 H8+7 H2+3 R9=8 H8+7\n"
    );
    assert_eq!(
        ok(&[&["chinese"][..], &moves].concat()),
        "炮二平五 马８进７ 马二进三 车９平８ 马八进七\n"
    );
    let err = fails(&["wxf", "startpos", "h2e2", "h2e2"], "");
    assert!(err.contains("move 2 'h2e2' is illegal"), "{err}");
}

/// Red's chariot chases Black's unprotected cannon with every move.
const CHASE: &str = "4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1";
const CHASE_MOVES: [&str; 9] = [
    "a3b3", "b7c7", "b3c3", "c7b7", "c3b3", "b7c7", "b3c3", "c7b7", "c3b3",
];

#[test]
fn judge_prints_the_referees_verdict() {
    assert_eq!(ok(&["judge", "startpos"]), "ongoing\n");
    assert_eq!(ok(&["judge", "startpos", "h2e2", "h9g7"]), "ongoing\n");
    let chase = [&["judge", CHASE][..], &CHASE_MOVES].concat();
    assert_eq!(ok(&chase), "0-1 perpetual-chase\n");
    assert_eq!(
        ok(&[&chase[..], &["--rule", "checks-only"]].concat()),
        "1/2-1/2 repetition\n"
    );
    assert_eq!(
        ok(&[&chase[..8], &["--rule", "asian"]].concat()),
        "ongoing\n"
    );
    let check = "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1";
    let checks = "a8a9 e9e8 a9a8 e8e9 a8a9 e9e8 a9a8 e8e9";
    let args = [
        &["judge", check][..],
        &checks.split(' ').collect::<Vec<_>>(),
    ]
    .concat();
    assert_eq!(ok(&args), "0-1 perpetual-check\n");
    assert_eq!(ok(&["judge", CHECKMATE, "b0b9"]), "1-0 checkmate\n");
    assert_eq!(ok(&["judge", STALEMATE]), "1-0 stalemate\n");
    let limit = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 119 80";
    assert_eq!(ok(&["judge", limit, "d0d1"]), "1/2-1/2 move-limit\n");
}

#[test]
fn judge_refuses_bad_moves_and_moves_after_the_end() {
    let chase = [&["judge", CHASE][..], &CHASE_MOVES, &["e9e8"]].concat();
    let err = fails(&chase, "");
    assert!(
        err.contains("move 10 'e9e8' comes after the end of the game: 0-1 perpetual-chase"),
        "{err}"
    );
    let err = fails(&["judge", "startpos", "h2e2", "h2e2"], "");
    assert!(err.contains("move 2 'h2e2' is refused"), "{err}");
    let err = fails(&["judge", "startpos", "h2e2", "z9z9"], "");
    assert!(err.contains("move 2 'z9z9'"), "{err}");
    let err = fails(&["judge", "rnbakabnr/9 w", "h2e2"], "");
    assert!(err.contains("bad fen"), "{err}");
    let err = fails(&["judge", "startpos", "--rule", "chinese"], "");
    assert!(err.contains("chinese"), "{err}");
}
