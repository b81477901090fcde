//! Differential run against Fairy-Stockfish's repetition judge, through its Python module
//! `pyffish` (`is_optional_game_end`), over random two-move shuttles played twice.
//!
//! Fairy-Stockfish follows the Asian rules too, but not in every detail: it counts a check as a
//! chase and so rules "one check, one chase" a loss where the rule book allows it (the book's
//! article 12), and it misses chases the book counts (diagrams 79 and 105). So the two must
//! agree on nearly every cycle, not on all: the test prints each disagreement for reading and
//! fails below a floor of agreement. It needs `python3` with `pip install pyffish` and fails
//! (it does not skip) without them: `cargo test -p xq-session --test pyffish -- --ignored`.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use support::{play, shuttle};
use xq_rules::fen::Fen;
use xq_session::{GameResult, RepetitionRule, Status};

/// Reads `fen<TAB>iccs moves` lines and prints, for each, whether Fairy-Stockfish ended the
/// game before the last move, and its verdict after it from the side to move's view:
/// `early`, or `<ended 0|1> <value>`.
const SCRIPT: &str = r#"
import sys
import pyffish as sf

def uci(move):
    # "h2e2" -> "h3e3", "b9b2" -> "b10b3"
    return move[0] + str(int(move[1]) + 1) + move[2] + str(int(move[3]) + 1)

for line in sys.stdin:
    fen, moves = line.rstrip("\n").split("\t")
    moves = [uci(m) for m in moves.split()]
    if any(sf.is_optional_game_end("xiangqi", fen, moves[:k])[0] for k in range(1, len(moves))):
        print("early")
        continue
    ended, value = sf.is_optional_game_end("xiangqi", fen, moves)
    print("%d %d" % (ended, value))
"#;

/// How many cycles are compared.
const CYCLES: usize = 3_000;

/// The share of cycles on which the two must agree.
const FLOOR: f64 = 0.98;

/// How many cycles our judge must rule decisive, every one agreeing with Fairy-Stockfish: 30
/// do, 15 of them by chase, so a judge that missed chases would fail.
const DECISIVE: usize = 25;

/// A ruling from the side to move's view, as pyffish gives it: 1 won, -1 lost, 0 drawn.
fn score(result: GameResult, to_move: xq_rules::Color) -> i32 {
    match result {
        GameResult::Win { winner, .. } if winner == to_move => 1,
        GameResult::Win { .. } => -1,
        GameResult::Draw { .. } => 0,
    }
}

#[test]
#[ignore = "needs python3 and pyffish; run by .ci/run"]
fn rulings_agree_with_fairy_stockfish_on_nearly_every_cycle() {
    // Seeded choices: a splitmix sequence, so every run compares the same cycles.
    let mut seed = 0x5eed_u64;
    let mut next = || {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as usize
    };
    let mut cycles = Vec::new();
    while cycles.len() < CYCLES {
        let plies = 4 + next() % 56;
        let choices: Vec<usize> = (0..plies).map(|_| next()).collect();
        let Some((start, one)) = shuttle(&choices) else {
            continue;
        };
        let moves = [one.clone(), one].concat();
        let (before_last, last) = play(&start, &moves, RepetitionRule::Asian);
        let Status::Finished(result) = last else {
            continue;
        };
        if before_last == Status::Ongoing {
            cycles.push((start, moves, result));
        }
    }
    let input: String = cycles
        .iter()
        .map(|(start, moves, _)| {
            let moves: Vec<String> = moves.iter().map(ToString::to_string).collect();
            format!("{}\t{}\n", Fen::from_position(start), moves.join(" "))
        })
        .collect();
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        output.status.success(),
        "the pyffish script failed (is pyffish installed?)"
    );
    let verdicts = String::from_utf8_lossy(&output.stdout);
    let verdicts: Vec<&str> = verdicts.lines().collect();
    assert_eq!(verdicts.len(), cycles.len());

    let (mut compared, mut decisive, mut disagreements) = (0, 0, Vec::new());
    let mut decisive_disagreements = 0;
    for ((start, moves, result), verdict) in cycles.iter().zip(verdicts) {
        if verdict == "early" {
            continue;
        }
        compared += 1;
        let ours = score(*result, start.turn());
        decisive += usize::from(ours != 0);
        let theirs = match verdict.split_once(' ') {
            Some(("1", value)) => value.parse::<i32>().map(i32::signum).ok(),
            _ => None,
        };
        if theirs != Some(ours) {
            decisive_disagreements += usize::from(ours != 0);
            let moves: Vec<String> = moves.iter().map(ToString::to_string).collect();
            disagreements.push(format!(
                "{} {}: ours {result:?}, pyffish {verdict}",
                Fen::from_position(start),
                moves.join(" ")
            ));
        }
    }
    let agreed = compared - disagreements.len();
    println!(
        "{agreed} of {compared} cycles agree ({decisive} decisive by our ruling); disagreements:\n{}",
        disagreements.join("\n")
    );
    assert!(compared >= CYCLES / 2, "only {compared} cycles compared");
    assert!(decisive >= DECISIVE, "only {decisive} decisive cycles");
    assert_eq!(decisive_disagreements, 0, "a decisive ruling disagrees");
    assert!(
        agreed as f64 >= FLOOR * compared as f64,
        "{} of {compared} cycles disagree",
        disagreements.len()
    );
}
