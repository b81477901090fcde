//! The repetition judge, from the outside: the rule book's diagrams and the rule's
//! invariances (where a cycle is entered, which colour plays it).
//!
//! The diagrams live in `data/axf.txt`, which names the source of each: the position, the
//! moves up to the third occurrence, and the book's ruling. Each is played through a default
//! [`Match`]: the ruling must be the book's, and one move earlier the game must still be on.

use std::collections::HashMap;

mod support;

use proptest::prelude::*;
use support::{play, shuttle};
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::{Move, Position};
use xq_session::{DrawReason, GameResult, MatchConfig, RepetitionRule, Status, WinReason};

/// One diagram: where it starts, the moves up to the third occurrence, and the ruling.
struct Case {
    id: String,
    start: Position,
    moves: Vec<Move>,
    result: GameResult,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for block in include_str!("data/axf.txt").split("\n\n") {
        let fields: HashMap<&str, &str> = block
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_once(' '))
            .collect();
        let Some(&id) = fields.get("id") else {
            continue;
        };
        let field = |key| {
            *fields
                .get(key)
                .unwrap_or_else(|| panic!("{id}: no {key} line"))
        };
        let fen: Fen = field("fen").parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        cases.push(Case {
            id: id.to_owned(),
            start: fen.into_position().unwrap_or_else(|e| panic!("{id}: {e}")),
            moves: field("moves").split_whitespace().map(iccs).collect(),
            result: ruling(field("result")).unwrap_or_else(|| panic!("{id}: bad result")),
        });
    }
    cases
}

fn iccs(text: &str) -> Move {
    let iccs: Iccs = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    Move::new(iccs.from, iccs.to)
}

/// A ruling as `xq judge` prints it: `0-1 perpetual-chase`.
fn ruling(text: &str) -> Option<GameResult> {
    let (score, reason) = text.split_once(' ')?;
    let win = |winner, reason| Some(GameResult::Win { winner, reason });
    let winner = match score {
        "1-0" => xq_rules::Color::Red,
        "0-1" => xq_rules::Color::Black,
        "1/2-1/2" if reason == "repetition" => {
            return Some(GameResult::Draw {
                reason: DrawReason::Repetition,
            });
        }
        _ => return None,
    };
    match reason {
        "perpetual-check" => win(winner, WinReason::PerpetualCheck),
        "perpetual-chase" => win(winner, WinReason::PerpetualChase),
        _ => None,
    }
}

/// The position and moves seen from the other side: the board turned half way round and
/// the colours swapped.
fn mirrored(start: &Position, moves: &[Move]) -> (Position, Vec<Move>) {
    let moves = moves
        .iter()
        .map(|mv| Move::new(mv.from.flip(), mv.to.flip()))
        .collect();
    (start.mirrored(), moves)
}

/// The same result with the colours swapped.
fn swapped(result: GameResult) -> GameResult {
    match result {
        GameResult::Win { winner, reason } => GameResult::Win {
            winner: !winner,
            reason,
        },
        draw @ GameResult::Draw { .. } => draw,
    }
}

/// The repeating loop of a game that ends on a third occurrence made of two equal loops: the
/// position the loop starts from and its moves. `None` if the two loops differ.
fn the_loop(start: &Position, moves: &[Move]) -> Option<(Position, Vec<Move>)> {
    let mut positions = vec![start.clone()];
    for &mv in moves {
        let mut next = positions[positions.len() - 1].clone();
        next.play_unchecked(mv);
        positions.push(next);
    }
    let last = &positions[positions.len() - 1];
    let occurrences: Vec<usize> = (0..positions.len())
        .filter(|&ply| {
            positions[ply].board() == last.board() && positions[ply].turn() == last.turn()
        })
        .collect();
    let [.., first, second, third] = occurrences[..] else {
        return None;
    };
    let (one, two) = (&moves[first..second], &moves[second..third]);
    (one == two).then(|| (positions[first].clone(), one.to_vec()))
}

/// Every rotation of a loop: the position it is entered at, and its moves twice over from
/// there, which end on that position's third occurrence.
fn rotations(start: &Position, one: &[Move]) -> Vec<(Position, Vec<Move>)> {
    let mut entry = start.clone();
    let mut rotations = Vec::new();
    for k in 0..one.len() {
        let moves = one[k..]
            .iter()
            .chain(&one[..k])
            .copied()
            .collect::<Vec<_>>();
        rotations.push((entry.clone(), [moves.clone(), moves].concat()));
        entry.play_unchecked(one[k]);
    }
    rotations
}

#[test]
fn every_diagram_is_ruled_as_the_book_rules_it() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let (before_last, last) = play(&case.start, &case.moves, RepetitionRule::Asian);
        assert_eq!(before_last, Status::Ongoing, "{}: ended early", case.id);
        if last != Status::Finished(case.result) {
            wrong.push(format!(
                "{}: expected {:?}, got {last:?}",
                case.id, case.result
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn under_checks_only_every_chase_is_a_draw() {
    for case in cases() {
        let (_, last) = play(&case.start, &case.moves, RepetitionRule::ChecksOnly);
        let expected = match case.result {
            GameResult::Win {
                reason: WinReason::PerpetualChase,
                ..
            } => GameResult::Draw {
                reason: DrawReason::Repetition,
            },
            other => other,
        };
        assert_eq!(last, Status::Finished(expected), "{}", case.id);
    }
}

#[test]
fn a_diagram_played_by_the_other_colour_swaps_the_ruling() {
    for case in cases() {
        let (start, moves) = mirrored(&case.start, &case.moves);
        let (_, last) = play(&start, &moves, RepetitionRule::Asian);
        assert_eq!(last, Status::Finished(swapped(case.result)), "{}", case.id);
    }
}

#[test]
fn a_diagram_entered_at_any_point_of_its_loop_is_ruled_alike() {
    let mut loops = 0;
    for case in cases() {
        let Some((entry, one)) = the_loop(&case.start, &case.moves) else {
            continue;
        };
        loops += 1;
        for (start, moves) in rotations(&entry, &one) {
            let (before_last, last) = play(&start, &moves, RepetitionRule::Asian);
            assert_eq!(before_last, Status::Ongoing, "{}", case.id);
            assert_eq!(
                last,
                Status::Finished(case.result),
                "{}: from {}",
                case.id,
                Fen::from_position(&start)
            );
        }
    }
    assert!(loops >= 100, "only {loops} diagrams repeat one loop");
}

#[test]
fn rules_are_named_as_config_files_and_pgn_write_them() {
    for rule in RepetitionRule::ALL {
        assert_eq!(rule.to_string().parse(), Ok(rule));
    }
    assert_eq!("Checks-Only".parse(), Ok(RepetitionRule::ChecksOnly));
    assert!("chinese".parse::<RepetitionRule>().is_err());
    assert_eq!(MatchConfig::default().repetition, RepetitionRule::Asian);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random shuttles: entering the loop at any of its positions gives the same ruling, and
    /// the other colour playing it gets the ruling swapped.
    #[test]
    fn random_shuttles_are_ruled_alike_wherever_entered_and_by_either_colour(
        choices in prop::collection::vec(any::<usize>(), 4..60),
    ) {
        let Some((start, one)) = shuttle(&choices) else {
            return Ok(());
        };
        let ruled = |start: &Position, moves: &[Move]| play(start, moves, RepetitionRule::Asian);
        let (before_last, first) = ruled(&start, &[one.clone(), one.clone()].concat());
        // A mate or stalemate on the way ends another game: nothing to compare.
        prop_assume!(before_last == Status::Ongoing);
        for (entry, moves) in rotations(&start, &one) {
            prop_assert_eq!(ruled(&entry, &moves).1, first);
        }
        let (mirror, moves) = mirrored(&start, &[one.clone(), one].concat());
        let swapped_status = match first {
            Status::Finished(result) => Status::Finished(swapped(result)),
            ongoing => ongoing,
        };
        prop_assert_eq!(ruled(&mirror, &moves).1, swapped_status);
    }
}
