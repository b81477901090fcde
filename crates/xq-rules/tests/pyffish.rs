//! Differential test against Fairy-Stockfish, through its Python module `pyffish`.
//!
//! A small Python script plays seeded random games with pyffish and prints, for the positions
//! it visits, pyffish's FEN, whether the side to move is in check, every legal move with its
//! WXF text, and the game result when no move is left. This side replays the same games and
//! compares move generation, WXF output, check and end-of-game status and FEN output.
//!
//! It needs `python3` with `pip install pyffish`, and fails (it does not skip) without them:
//! `cargo test -p xq-rules --test pyffish -- --ignored`.

use std::collections::BTreeMap;
use std::process::Command;

use xq_rules::Position;
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::wxf::Wxf;

/// Pyffish numbers ranks 1–10 where ICCS uses 0–9; the script converts its moves to ICCS.
/// Output, one record per line, fields separated by tabs:
/// - `game`: a new game starts from the start position;
/// - `pos <fen> <check 0|1> <iccs=wxf ...> <result or ->`: a visited position (recorded for
///   some positions only: the WXF writer is slow);
/// - `move <iccs> <fen after>`: the move played and pyffish's FEN of the result.
const SCRIPT: &str = r#"
import random, sys
import pyffish as sf

V = "xiangqi"
WXF = sf.NOTATION_XIANGQI_WXF

def iccs(uci):
    # "h3e3" -> "h2e2", "b10b3" -> "b9b2"
    i = 1
    while uci[i].isdigit():
        i += 1
    return uci[0] + str(int(uci[1:i]) - 1) + uci[i] + str(int(uci[i + 1:]) - 1)

rng = random.Random(20240611)
out = sys.stdout
for game in range(int(sys.argv[1])):
    out.write("game\n")
    fen, last = sf.start_fen(V), None
    for ply in range(rng.randrange(1, 200)):
        moves = sf.legal_moves(V, fen, [])
        if not moves or rng.random() < 0.08:
            check = last is not None and sf.gives_check(V, last[0], [last[1]])
            listed = " ".join(sorted(
                iccs(m) + "=" + sf.get_san(V, fen, m, False, WXF) for m in moves))
            result = "-" if moves else str(sf.game_result(V, fen, []))
            out.write("pos\t%s\t%d\t%s\t%s\n" % (fen, check, listed, result))
        if not moves:
            break
        move = rng.choice(moves)
        last, fen = (fen, move), sf.get_fen(V, fen, [move])
        out.write("move\t%s\t%s\n" % (iccs(move), fen))
"#;

/// How many games the script plays.
const GAMES: u32 = 150;

#[test]
#[ignore = "needs python3 with pyffish"]
fn agrees_with_fairy_stockfish() {
    let output = Command::new("python3")
        .args(["-c", SCRIPT, &GAMES.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 (pyffish is required): {e}"));
    assert!(
        output.status.success(),
        "the pyffish script failed (is pyffish installed? pip install pyffish):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("the script prints UTF-8");

    let mut pos = Position::startpos();
    let mut mismatches = Vec::new();
    let (mut positions, mut ends, mut moves_compared, mut fens_compared) = (0, 0, 0, 0);
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["game"] => pos = Position::startpos(),
            ["move", iccs, fen] => {
                let mv = parse_iccs(iccs).to_move(&pos).unwrap_or_else(|e| {
                    panic!(
                        "pyffish played {iccs}, illegal here ({e}): {}",
                        fen_of(&pos)
                    )
                });
                pos.play_unchecked(mv);
                fens_compared += 1;
                if fen_of(&pos) != *fen {
                    mismatches.push(format!(
                        "fen after {iccs}: ours {} theirs {fen}",
                        fen_of(&pos)
                    ));
                }
            }
            ["pos", fen, check, listed, result] => {
                positions += 1;
                let here = fen_of(&pos);
                let context = format!("position {here} (pyffish: {fen})");
                if fen.parse::<Fen>().ok().and_then(|f| f.into_position().ok()) != Some(pos.clone())
                {
                    mismatches.push(format!("{context}: pyffish's fen reads differently"));
                }
                if pos.is_check() != (*check == "1") {
                    mismatches.push(format!(
                        "{context}: check ours {} theirs {check}",
                        pos.is_check()
                    ));
                }
                let theirs: BTreeMap<&str, &str> = listed
                    .split_whitespace()
                    .filter_map(|pair| pair.split_once('='))
                    .collect();
                let ours: BTreeMap<String, String> = pos
                    .legal_moves()
                    .into_iter()
                    .map(|mv| {
                        (
                            Iccs::from(mv).to_string(),
                            Wxf::from_move(&pos, mv).to_string(),
                        )
                    })
                    .collect();
                let our_moves: Vec<&str> = ours.keys().map(String::as_str).collect();
                let their_moves: Vec<&str> = theirs.keys().copied().collect();
                if our_moves != their_moves {
                    mismatches.push(format!(
                        "{context}: legal moves\n  ours   {our_moves:?}\n  theirs {their_moves:?}"
                    ));
                }
                for (iccs, wxf) in &ours {
                    if let Some(their_wxf) = theirs.get(iccs.as_str()) {
                        moves_compared += 1;
                        if wxf != their_wxf {
                            mismatches
                                .push(format!("{context}: {iccs} ours {wxf} theirs {their_wxf}"));
                        }
                    }
                }
                // Pyffish scores a position without moves from the mover's view: mated and
                // stalemated sides both lose in Xiangqi.
                ends += usize::from(*result != "-");
                let their_loss = *result == "-32000";
                let our_loss = pos.outcome().is_some();
                if their_loss != our_loss || (*result != "-" && !their_loss) {
                    mismatches.push(format!(
                        "{context}: end ours {:?} (mate {}, stalemate {}) theirs {result}",
                        pos.outcome(),
                        pos.is_checkmate(),
                        pos.is_stalemate()
                    ));
                }
            }
            _ => panic!("unexpected line from the script: {line}"),
        }
    }
    println!(
        "compared {positions} positions ({ends} without moves), {moves_compared} moves' WXF and \
         {fens_compared} FENs"
    );
    assert!(positions > 800, "too few positions compared: {positions}");
    assert!(
        mismatches.is_empty(),
        "{} mismatches with Fairy-Stockfish; the first ones:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn parse_iccs(text: &str) -> Iccs {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn fen_of(pos: &Position) -> String {
    Fen::from_position(pos).to_string()
}
