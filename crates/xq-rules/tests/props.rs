//! Properties over positions reached by random legal play-outs from the start.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use xq_rules::chinese::Chinese;
use xq_rules::fen::Fen;
use xq_rules::iccs::Iccs;
use xq_rules::wxf::Wxf;
use xq_rules::{Move, Position, Square};

/// Plays `choices[i] % n`-th legal move at ply `i`, stopping early when the side to move has
/// none, and returns every position on the way (the start included).
fn playout(choices: &[u32]) -> Vec<Position> {
    let mut pos = Position::startpos();
    let mut seen = vec![pos.clone()];
    for &choice in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[choice as usize % moves.len()]);
        seen.push(pos.clone());
    }
    seen
}

fn choices() -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec(any::<u32>(), 0..150)
}

fn fail(context: impl std::fmt::Display, err: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(format!("{context}: {err}"))
}

/// The FEN of `pos`, to name it in failures.
fn fen(pos: &Position) -> String {
    Fen::from_position(pos).to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn positions_revalidate_and_round_trip_through_fen(choices in choices()) {
        for pos in playout(&choices) {
            let text = fen(&pos);
            let again = Position::from_setup(pos.to_setup()).map_err(|e| fail(&text, e))?;
            prop_assert_eq!(&again, &pos, "{}", text);
            // The full recompute of the hash equals the one kept up to date move by move.
            prop_assert_eq!(again.zobrist_hash(), pos.zobrist_hash(), "{}", text);
            let parsed = text
                .parse::<Fen>()
                .map_err(|e| fail(&text, e))?
                .into_position()
                .map_err(|e| fail(&text, e))?;
            prop_assert_eq!(&parsed, &pos, "{}", text);
        }
    }

    #[test]
    fn every_legal_move_round_trips_through_each_notation(choices in choices()) {
        for pos in playout(&choices) {
            for mv in pos.legal_moves() {
                let context = format!("{} {mv}", fen(&pos));
                let iccs = Iccs::from(mv).to_string();
                let parsed = iccs.parse::<Iccs>().map_err(|e| fail(&context, e))?;
                prop_assert_eq!(parsed.to_move(&pos), Ok(mv), "{}", context);

                let wxf = Wxf::from_move(&pos, mv);
                prop_assert_eq!(wxf.to_move(&pos), Ok(mv), "{} {}", context, wxf);
                let parsed = wxf.to_string().parse::<Wxf>().map_err(|e| fail(&context, e))?;
                prop_assert_eq!(parsed.to_move(&pos), Ok(mv), "{} {}", context, wxf);

                let chinese = Chinese::from_move(&pos, mv);
                prop_assert_eq!(chinese.to_move(&pos), Ok(mv), "{} {}", context, chinese);
                let parsed = chinese
                    .to_string()
                    .parse::<Chinese>()
                    .map_err(|e| fail(&context, e))?;
                prop_assert_eq!(parsed.to_move(&pos), Ok(mv), "{} {}", context, chinese);
            }
        }
    }

    #[test]
    fn no_legal_move_leaves_the_mover_in_check(choices in choices()) {
        for pos in playout(&choices) {
            for mv in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(mv);
                // `from_setup` refuses a position whose side not to move is attacked or
                // faces the other general.
                let checked = Position::from_setup(after.to_setup());
                prop_assert!(checked.is_ok(), "{} {}: {:?}", fen(&pos), mv, checked.err());
            }
        }
    }

    #[test]
    fn legal_moves_agree_with_is_legal(choices in choices()) {
        // Every point pair is costly, so check each tenth position and the last one.
        let positions = playout(&choices);
        let last = positions.len() - 1;
        for (ply, pos) in positions.iter().enumerate() {
            let moves = pos.legal_moves();
            prop_assert_eq!(moves.len(), pos.count_legal_moves());
            prop_assert_eq!(!moves.is_empty(), pos.has_legal_move());
            prop_assert!(moves.iter().all(|&mv| pos.is_legal(mv)), "{}", fen(pos));
            let mut from_each: Vec<Move> =
                Square::all().flat_map(|sq| pos.legal_moves_from(sq)).collect();
            from_each.sort_unstable();
            let mut sorted = moves.to_vec();
            sorted.sort_unstable();
            prop_assert_eq!(&from_each, &sorted, "{}", fen(pos));
            if ply % 10 == 0 || ply == last {
                for from in Square::all() {
                    for to in Square::all() {
                        let mv = Move::new(from, to);
                        prop_assert_eq!(
                            pos.is_legal(mv),
                            moves.contains(&mv),
                            "{} {}", fen(pos), mv
                        );
                    }
                }
            }
            prop_assert_eq!(moves.is_empty(), pos.outcome().is_some(), "{}", fen(pos));
        }
    }
}
