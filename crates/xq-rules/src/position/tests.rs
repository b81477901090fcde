use super::*;
use crate::fen::Fen;
use crate::test_util::{iccs as mv, position as pos};

fn setup_err(text: &str) -> PositionError {
    let fen: Fen = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    let Err(err) = fen.into_position() else {
        panic!("{text} should be refused");
    };
    err
}

fn targets(pos: &Position, from: Square) -> Vec<String> {
    let mut v: Vec<String> = pos
        .legal_moves_from(from)
        .iter()
        .map(|m| m.to.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn validation_names_each_broken_rule() {
    use PositionError::*;
    let red = |role| Piece::new(Color::Red, role);
    let black = |role| Piece::new(Color::Black, role);
    let cases = [
        ("4k4/9/9/9/9/9/9/9/9/9 w", MissingGeneral(Color::Red)),
        ("9/9/9/9/9/9/9/9/9/4K4 w", MissingGeneral(Color::Black)),
        ("3kk4/9/9/9/9/9/9/9/9/4K4 w", ExtraGeneral(Color::Black)),
        (
            "4k4/9/9/9/9/9/9/9/4A4/3AKA3 w",
            TooManyPieces(red(Role::Advisor)),
        ),
        (
            "4k4/9/9/9/9/pppppp3/9/9/9/4K4 w",
            TooManyPieces(black(Role::Soldier)),
        ),
        (
            "4k4/9/9/9/9/9/9/9/9/2K6 w",
            ImpossibleSquare {
                piece: red(Role::General),
                square: Square::C0,
            },
        ),
        (
            "4k4/9/9/9/9/9/9/9/9/3KA4 w",
            ImpossibleSquare {
                piece: red(Role::Advisor),
                square: Square::E0,
            },
        ),
        (
            "4k4/9/9/9/9/4B4/9/9/9/3K5 w",
            ImpossibleSquare {
                piece: red(Role::Elephant),
                square: Square::E4,
            },
        ),
        (
            "4k4/9/9/9/2B6/9/9/9/9/3K5 w",
            ImpossibleSquare {
                piece: red(Role::Elephant),
                square: Square::C5,
            },
        ),
        (
            "4k4/9/9/9/9/9/9/9/P8/3K5 w",
            ImpossibleSquare {
                piece: red(Role::Soldier),
                square: Square::A1,
            },
        ),
        (
            "4k4/9/9/9/9/9/1P7/9/9/3K5 w",
            ImpossibleSquare {
                piece: red(Role::Soldier),
                square: Square::B3,
            },
        ),
        (
            "4k4/9/9/1p7/9/9/9/9/9/3K5 w",
            ImpossibleSquare {
                piece: black(Role::Soldier),
                square: Square::B6,
            },
        ),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", GeneralsFacing),
        ("3k5/9/9/9/9/9/9/9/9/3KR4 b", GeneralsFacing),
        ("4k4/9/9/9/9/9/9/9/9/3KR4 w", OppositeCheck),
        ("4k4/9/9/9/9/9/9/4n4/9/5K3 b", OppositeCheck),
    ];
    for (fen, err) in cases {
        assert_eq!(setup_err(fen), err, "{fen}");
    }
}

#[test]
fn soldiers_on_reachable_points_are_accepted() {
    // Red soldiers on their start files before the river, anywhere beyond it, even the last rank.
    pos("P3k4/9/9/4P4/9/P3P4/P8/9/9/3K5 w");
    // The side to move may be in check.
    assert!(pos("4k4/9/9/9/9/9/9/9/9/3KR4 b").is_check());
}

#[test]
fn horse_leg_blocks() {
    let p = pos("4k4/9/9/9/9/9/9/9/1C7/1N1K5 w");
    assert_eq!(targets(&p, Square::B0), vec!["d1"]);
    let p = pos("4k4/9/9/9/9/9/9/9/9/1NCK5 w");
    assert_eq!(targets(&p, Square::B0), vec!["a2", "c2"]);
}

#[test]
fn elephant_eye_and_river() {
    let p = pos("4k4/9/9/9/9/9/9/9/3C5/2BK5 w");
    assert_eq!(targets(&p, Square::C0), vec!["a2"]);
    let p = pos("4k4/9/9/9/9/2B6/9/9/9/3K5 w");
    assert_eq!(
        targets(&p, Square::C4),
        vec!["a2", "e2"],
        "never across the river"
    );
}

#[test]
fn cannon_needs_exactly_one_screen_to_capture() {
    let p = pos("4k4/9/9/9/9/9/9/9/9/r1N1CK3 w");
    let t = targets(&p, Square::E0);
    assert!(t.contains(&"a0".to_string()), "{t:?}");
    assert!(!t.contains(&"c0".to_string()));
    assert!(!t.contains(&"b0".to_string()));
    let p = pos("4k4/9/9/9/9/9/9/9/9/rNN1CK3 w");
    assert!(
        !targets(&p, Square::E0).contains(&"a0".to_string()),
        "two screens"
    );
}

#[test]
fn soldiers_move_sideways_only_across_the_river() {
    let p = pos("4k4/9/9/9/4P4/9/9/9/9/3K5 w");
    assert_eq!(targets(&p, Square::E5), vec!["d5", "e6", "f5"]);
    let p = pos("4k4/9/9/9/9/4P4/9/9/9/3K5 w");
    assert_eq!(targets(&p, Square::E4), vec!["e5"]);
}

#[test]
fn general_and_advisor_stay_in_the_palace() {
    let p = pos("4k4/9/9/9/9/9/9/9/9/3K1A3 w");
    assert_eq!(targets(&p, Square::D0), vec!["d1"]);
    assert_eq!(targets(&p, Square::F0), vec!["e1"]);
}

#[test]
fn flying_general_makes_moves_illegal() {
    // The red cannon on e1 is the only piece between the generals: it may only move along the file.
    let p = pos("4k4/9/9/9/9/9/9/9/4C4/4K4 w");
    let t = targets(&p, Square::E1);
    assert_eq!(t.len(), 7, "{t:?}");
    assert!(t.iter().all(|s| s.starts_with('e')), "{t:?}");
    // The general may not step onto the open file facing the other general.
    let p = pos("4k4/9/9/9/9/9/9/9/9/3K5 w");
    assert_eq!(targets(&p, Square::D0), vec!["d1"]);
    assert_eq!(
        p.check_move(mv("d0e0")),
        Err(IllegalMove::LeavesGeneralInCheck)
    );
}

#[test]
fn moving_into_a_cannon_line_is_check_and_illegal() {
    // A piece stepping between a cannon and its own general becomes a screen.
    let p = pos("4k4/9/9/9/4c4/9/9/9/9/4KA3 w");
    assert_eq!(
        p.check_move(mv("f0e1")),
        Err(IllegalMove::LeavesGeneralInCheck)
    );
}

#[test]
fn checkmate_and_stalemate_both_lose() {
    // Two chariots mate: one holds rank 8, the other checks along rank 9.
    let mate = pos("3k5/R8/9/9/9/9/9/9/9/1R2K4 w")
        .play(mv("b0b9"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(mate.is_check());
    assert!(mate.is_checkmate());
    assert_eq!(
        mate.outcome(),
        Some(Outcome::Decisive { winner: Color::Red })
    );
    // Black's general on d9 boxed in by the red general's file and a soldier, not in check.
    let stale = pos("3k5/4P4/9/9/9/9/9/9/9/4K4 b");
    assert!(!stale.is_check());
    assert!(stale.is_stalemate());
    assert_eq!(
        stale.outcome(),
        Some(Outcome::Decisive { winner: Color::Red })
    );
    assert_eq!(Position::startpos().outcome(), None);
}

#[test]
fn play_refuses_with_the_reason_and_returns_the_position() {
    let start = Position::startpos();
    let Err(err) = start.clone().play(mv("a0a5")) else {
        panic!("a0a5 jumps the soldier");
    };
    assert_eq!(err.reason, IllegalMove::CannotMoveThere(Role::Chariot));
    assert_eq!(*err.position, start);
    assert_eq!(
        start.check_move(mv("e5e4")),
        Err(IllegalMove::NoPiece(Square::E5))
    );
}

#[test]
fn hash_and_clocks_follow_moves() {
    let start = Position::startpos();
    let mut p = start.clone();
    for m in ["b0c2", "b9c7", "c2b0", "c7b9"] {
        p.play_unchecked(mv(m));
    }
    assert_eq!(p.zobrist_hash(), start.zobrist_hash());
    assert_eq!(p.halfmoves(), 4);
    assert_eq!(p.fullmoves().get(), 3);
    let captured = {
        let mut q = start.clone();
        q.play_unchecked(mv("h2h9"))
    };
    assert_eq!(captured, Some(Piece::new(Color::Black, Role::Horse)));
}

#[test]
fn a_mirrored_position_plays_the_mirrored_game() {
    let fen = "r1bakab1r/9/1cn3nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R b - - 4 5";
    let pos = pos(fen);
    let mirrored = pos.mirrored();
    assert_eq!(mirrored.mirrored(), pos);
    assert_eq!(mirrored.turn(), Color::Red);
    let mut moves: Vec<Move> = pos
        .legal_moves()
        .iter()
        .map(|mv| Move::new(mv.from.flip(), mv.to.flip()))
        .collect();
    let mut theirs = mirrored.legal_moves().to_vec();
    moves.sort();
    theirs.sort();
    assert_eq!(moves, theirs);
    assert_eq!(crate::perft(&mirrored, 2), crate::perft(&pos, 2));
}
