use super::*;
use crate::test_util::{iccs as mv, position as pos};

/// The squares of `set`, by name, in index order.
fn names(set: SquareSet) -> Vec<String> {
    set.iter().map(|sq| sq.to_string()).collect()
}

#[test]
fn generals_and_soldiers_at_home_are_never_targets() {
    // A soldier on its own side of the river can be taken, but threatening it is no chase.
    assert!(
        pos("4k4/9/9/9/p7R/9/9/9/9/3K5 w")
            .attack_set(Color::Red)
            .is_empty()
    );
    // Across the river it counts like any piece, once unprotected.
    assert_eq!(
        names(pos("4k4/9/9/9/9/p7R/9/9/9/3K5 w").attack_set(Color::Red)),
        ["a4"]
    );
    // Check is not a chase: the general is never in the set.
    assert!(
        pos("4k4/9/9/9/9/9/9/9/4R4/3K5 b")
            .attack_set(Color::Red)
            .is_empty()
    );
}

#[test]
fn generals_and_soldiers_never_attack() {
    // Red's soldier on d6 and general on e0 could each take an unprotected piece.
    let pos = pos("4k4/9/3n5/3P5/9/9/9/9/9/3K5 w");
    assert!(pos.capturers(Square::D7, Color::Red).contains(Square::D6));
    assert!(pos.attack_set(Color::Red).is_empty());
}

#[test]
fn minor_pieces_attack_a_chariot_whether_or_not_it_is_protected() {
    // Black's advisor on e8 guards d7 in every case.
    let horse_on_chariot = pos("4k4/4a4/3r5/9/2N6/9/9/9/9/5K3 w");
    assert_eq!(names(horse_on_chariot.recaptures(mv("c5d7"))), ["e8"]);
    assert_eq!(names(horse_on_chariot.attack_set(Color::Red)), ["d7"]);
    let cannon_on_chariot = pos("4k4/4a4/3r5/9/3P5/9/3C5/9/9/5K3 w");
    assert_eq!(names(cannon_on_chariot.attack_set(Color::Red)), ["d7"]);
    // A chariot on a protected horse threatens nothing; on an unprotected one it does.
    assert!(
        pos("4k4/4a4/3n5/9/9/9/3R5/9/9/5K3 w")
            .attack_set(Color::Red)
            .is_empty()
    );
    assert_eq!(
        names(pos("4k4/9/3n5/9/9/9/3R5/9/9/5K3 w").attack_set(Color::Red)),
        ["d7"]
    );
}

#[test]
fn palace_pieces_attack_stronger_pieces_whether_or_not_they_are_protected() {
    // Black's chariot on g8 guards the horse on g4 that Red's elephant can take.
    let pos = pos("4k4/6r2/9/9/9/6n2/9/4B4/9/3K5 w");
    assert_eq!(names(pos.recaptures(mv("e2g4"))), ["g8"]);
    assert_eq!(names(pos.attack_set(Color::Red)), ["g4"]);
}

#[test]
fn mutual_attacks_of_one_kind_are_exchange_offers() {
    // The chariots on a7 and e7 attack each other: no chase.
    assert!(
        pos("4k4/9/R3r4/9/9/9/9/9/9/3K5 w")
            .attack_set(Color::Red)
            .is_empty()
    );
    // Pinned to its general by Red's chariot on e3, Black's cannot take back: chased.
    let pinned = pos("4k4/9/R3r4/9/9/9/4R4/9/9/3K5 w");
    assert_eq!(names(pinned.pinned(Color::Black)), ["e7"]);
    assert_eq!(names(pinned.attack_set(Color::Red)), ["e7"]);
    // Horses attack each other only if both legs are free: a red soldier on d6 blocks the
    // black horse's way back to c5.
    assert!(
        pos("4k4/9/3n5/9/2N6/9/9/9/9/5K3 w")
            .attack_set(Color::Red)
            .is_empty()
    );
    assert_eq!(
        names(pos("4k4/9/3n5/3P5/2N6/9/9/9/9/5K3 w").attack_set(Color::Red)),
        ["d7"]
    );
}

#[test]
fn a_pinned_attacker_threatens_only_its_pinner() {
    // Red's chariot on d1 holds the leg of Black's horse on c1, aimed at e0: it may take the
    // horse, not the unprotected cannon up the file.
    let pos = pos("3k5/9/9/9/3c5/9/9/9/2nR5/4K4 w");
    assert_eq!(names(pos.pinned(Color::Red)), ["d1"]);
    assert!(pos.capturers(Square::D5, Color::Red).is_empty());
    assert_eq!(names(pos.attack_set(Color::Red)), ["c1"]);
}

#[test]
fn a_recapture_that_would_face_the_generals_protects_nothing() {
    // Black's general would take back on d9, onto the file of Red's general.
    let facing = pos("R2ak4/9/9/9/9/9/9/9/9/3K5 w");
    assert!(facing.recaptures(mv("a9d9")).is_empty());
    assert_eq!(names(facing.attack_set(Color::Red)), ["d9"]);
    let apart = pos("R2ak4/9/9/9/9/9/9/9/9/5K3 w");
    assert_eq!(names(apart.recaptures(mv("a9d9"))), ["e9"]);
    assert!(apart.attack_set(Color::Red).is_empty());
}

#[test]
fn a_pinned_defender_protects_nothing() {
    // Black's chariot on c9 would take back on c7, but Red's chariot on a9 pins it.
    let pinned = pos("R1rk5/9/2n6/9/9/9/2R6/9/9/5K3 w");
    assert!(pinned.recaptures(mv("c3c7")).is_empty());
    assert_eq!(names(pinned.attack_set(Color::Red)), ["c7"]);
    let free = pos("2rk5/9/2n6/9/9/9/2R6/9/9/5K3 w");
    assert_eq!(names(free.recaptures(mv("c3c7"))), ["c9"]);
    assert!(free.attack_set(Color::Red).is_empty());
}

#[test]
fn a_capture_that_gives_check_needs_a_recapture_that_answers_it() {
    // Red's chariot takes the horse on d7 and checks along the file; the advisor's
    // recapture also removes the checker, so it stands.
    let pos = pos("3k5/4a4/3n5/9/9/9/9/9/3R5/4K4 w");
    assert_eq!(names(pos.recaptures(mv("d1d7"))), ["e8"]);
}

#[test]
fn pins_come_from_chariots_cannons_horse_legs_and_the_other_general() {
    // A cannon behind two screens pins both.
    assert_eq!(
        names(pos("3k5/9/9/4c4/9/9/4N4/9/4A4/4K4 w").pinned(Color::Red)),
        ["e1", "e3"]
    );
    // Red's chariot on d1 blocks the leg of Black's horse on c1, aimed at e0.
    let leg = pos("3k5/9/9/9/3c5/9/9/9/2nR5/4K4 w");
    assert_eq!(names(leg.pinned(Color::Red)), ["d1"]);
    assert_eq!(names(leg.horse_leg_pins(Color::Red)), ["d1"]);
    // The flying general: the only piece between the generals is pinned.
    assert_eq!(
        names(pos("4k4/9/9/9/9/4n4/9/9/9/4K4 w").pinned(Color::Black)),
        ["e4"]
    );
}

#[test]
fn what_is_not_a_capture_has_no_capturers_or_recaptures() {
    let pos = Position::startpos();
    assert!(pos.capturers(Square::E4, Color::Red).is_empty());
    assert!(pos.capturers(Square::A3, Color::Red).is_empty());
    assert!(pos.recaptures(mv("h2e2")).is_empty());
    // A capture of one's own piece, or of a general, protects nothing either.
    assert!(pos.recaptures(mv("a0a3")).is_empty());
    assert!(pos.attack_set(Color::Red).is_empty());
    assert!(pos.attack_set(Color::Black).is_empty());
    assert!(pos.pinned(Color::Red).is_empty());
}
