use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;

use super::*;

/// The history of `moves` (ICCS) played from `fen`.
fn history(fen: &str, moves: &str) -> History {
    let start = fen.parse::<Fen>().map(Fen::into_position);
    let Ok(Ok(start)) = start else {
        panic!("{fen}: not a legal position");
    };
    let mut history = History::new(start);
    for text in moves.split_whitespace() {
        let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        history.push(Move::new(iccs.from, iccs.to));
    }
    history
}

/// Both sides' faults in the repetition that ends `history`.
fn faults(history: &History) -> ByColor<Fault> {
    let first = third_occurrence(history).unwrap_or_else(|| panic!("no third occurrence"));
    let span = Span {
        positions: &history.positions()[first..],
        played: &history.played()[first..],
    };
    ByColor::new_with(|side| fault(&span, side, RepetitionRule::Asian))
}

#[test]
fn chasing_a_chariot_held_on_a_horse_leg_is_the_graver_chase() {
    // The rule book's diagram 39: Red's chariot and cannon chase Black's chariot on f8,
    // which holds back Red's horse on g8 from checking; Black's moves chase nothing.
    let d39 = history(
        "2baka3/C4rN2/4b1n2/1Rp5p/6p2/2P6/4c1P1c/4B3C/4A4/4KAB2 w - - 0 1",
        "b6b8 f9e8 b8b5 e8f9 b5b8 f9e8 b8b6 e8f9 b6b8",
    );
    let expected = ByColor {
        red: Fault::PinnedChariotChase,
        black: Fault::None,
    };
    assert_eq!(faults(&d39), expected);
    // An ordinary chase of that chariot, had it been free to move, ranks below.
    let free = history(
        "4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1",
        "a3b3 b7c7 b3c3 c7b7 c3b3 b7c7 b3c3 c7b7 c3b3",
    );
    let expected = ByColor {
        red: Fault::Chase,
        black: Fault::None,
    };
    assert_eq!(faults(&free), expected);
}

#[test]
fn the_single_side_with_the_gravest_fault_loses() {
    use Fault::{Chase, Check, None as Clean, PinnedChariotChase as Held};
    let lose = |loser: Color, reason| GameResult::Win {
        winner: !loser,
        reason,
    };
    let draw = GameResult::Draw {
        reason: DrawReason::Repetition,
    };
    let cases = [
        (Clean, Clean, draw),
        (Chase, Chase, draw),
        (Held, Held, draw),
        (Check, Check, draw),
        (Chase, Clean, lose(Color::Red, WinReason::PerpetualChase)),
        (Held, Chase, lose(Color::Red, WinReason::PerpetualChase)),
        (Chase, Held, lose(Color::Black, WinReason::PerpetualChase)),
        (Check, Held, lose(Color::Red, WinReason::PerpetualCheck)),
        (Chase, Check, lose(Color::Black, WinReason::PerpetualCheck)),
    ];
    for (red, black, expected) in cases {
        assert_eq!(
            ruling(ByColor { red, black }),
            expected,
            "{red:?} against {black:?}"
        );
    }
}

#[test]
fn answering_a_check_chases_nothing_the_check_held_back() {
    // Red's chariot checks from c8 and goes back to c9 (one check, one idle move). Black's
    // advisor blocks the check on e8, which makes legal again the capture of Red's cannon on
    // h9 by the chariot on i9 that stood there all along: no chase. Its way back to f9 cuts the
    // c9 chariot's protection of the cannon, a chase, but only every other move: a draw.
    let cycle = "c9c8 f9e8 c8c9 e8f9";
    let game = history(
        "rnR2a1Cr/5k3/5a2b/p1p1p1p1p/9/4P2cP/P1P3P1c/1C2B4/4K4/RNBA1A3 w - - 0 15",
        &format!("{cycle} {cycle}"),
    );
    let expected = ByColor {
        red: Fault::None,
        black: Fault::None,
    };
    assert_eq!(faults(&game), expected);
}

/// The positions and moves of `moves` (ICCS) played from `fen`.
fn line(fen: &str, moves: &str) -> (Vec<Position>, Vec<Move>) {
    let game = history(fen, moves);
    let moves = game.played().iter().map(|played| played.mv).collect();
    (game.positions().to_vec(), moves)
}

#[test]
fn a_cycle_is_judged_as_the_match_judges_its_repetition() {
    // Diagram 39 again: from the first occurrence on, one cycle is what the match judges.
    let fen = "2baka3/C4rN2/4b1n2/1Rp5p/6p2/2P6/4c1P1c/4B3C/4A4/4KAB2 w - - 0 1";
    let moves = "b6b8 f9e8 b8b5 e8f9 b5b8 f9e8 b8b6 e8f9 b6b8";
    let game = history(fen, moves);
    let expected = adjudicate(&game, RepetitionRule::Asian);
    let (positions, moves) = line(fen, moves);
    // The first occurrence is after b6b8; one cycle is the four moves that follow.
    let cycle = RepetitionRule::Asian.judge_cycle(&positions[1..6], &moves[1..5]);
    assert_eq!(cycle.ok(), expected);
    assert_eq!(
        cycle,
        Ok(GameResult::Win {
            winner: Color::Black,
            reason: WinReason::PerpetualChase
        })
    );
    // Under checks-only, a chase is no fault.
    assert_eq!(
        RepetitionRule::ChecksOnly.judge_cycle(&positions[1..6], &moves[1..5]),
        Ok(GameResult::Draw {
            reason: DrawReason::Repetition
        })
    );
}

#[test]
fn slices_that_are_no_cycle_are_refused() {
    let fen = "4k4/9/1c7/9/9/9/R8/9/9/3K5 w - - 0 1";
    let (positions, moves) = line(fen, "a3b3 b7c7 b3c3 c7b7 c3b3");
    let rule = RepetitionRule::Asian;
    assert_eq!(
        rule.judge_cycle(&positions[..1], &[]),
        Err(CycleError::Length)
    );
    assert_eq!(
        rule.judge_cycle(&positions[1..5], &moves[1..5]),
        Err(CycleError::Length)
    );
    assert_eq!(
        rule.judge_cycle(&positions[..4], &moves[..3]),
        Err(CycleError::NotRepeated)
    );
    let mut wrong = moves[1..5].to_vec();
    wrong[2] = wrong[0];
    assert_eq!(
        rule.judge_cycle(&positions[1..6], &wrong),
        Err(CycleError::Broken {
            ply: 2,
            mv: wrong[2]
        })
    );
    assert!(rule.judge_cycle(&positions[1..6], &moves[1..5]).is_ok());
    // A capture inside is refused even if the slices line up.
    let (positions, moves) = line("4k4/9/9/9/9/9/r8/9/9/R2K5 w - - 0 1", "a0a3");
    let mut ends = positions.clone();
    ends[1] = positions[0].clone();
    assert!(matches!(
        rule.judge_cycle(&ends, &moves),
        Err(CycleError::Broken { .. } | CycleError::Capture { .. })
    ));
}
