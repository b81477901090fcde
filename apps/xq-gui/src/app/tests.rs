//! The real UI driven by widget label in egui's headless harness, with the embedded fonts (the
//! harness panics on a glyph no font has, so these also prove the CJK subset covers the UI).

use eframe::egui::{Pos2, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use xq_rules::{Move, Square};

use super::XqApp;
use crate::fonts;

fn harness(local: bool) -> Harness<'static, XqApp> {
    Harness::builder()
        .with_size([1100.0, 800.0])
        .with_context_setup(fonts::install)
        .build_ui_state(|ui, app: &mut XqApp| app.show(ui), XqApp::new(local))
}

/// Where `square` was drawn in the last frame.
fn at(harness: &Harness<'_, XqApp>, square: Square) -> Pos2 {
    let Some(layout) = harness.state().board else {
        panic!("the board was drawn");
    };
    let point = layout.point(square);
    pos2(point.x, point.y)
}

/// A mouse click at `pos`: press and release on the spot.
fn click_at(harness: &mut Harness<'_, XqApp>, pos: Pos2) {
    harness.hover_at(pos);
    harness.drag_at(pos);
    harness.drop_at(pos);
    harness.run();
}

#[test]
fn clicking_a_piece_and_then_its_target_plays_the_move() {
    let mut harness = harness(true);
    let h2 = at(&harness, Square::H2);
    click_at(&mut harness, h2);
    assert_eq!(harness.state().view.selection().square(), Some(Square::H2));
    let e2 = at(&harness, Square::E2);
    click_at(&mut harness, e2);
    assert_eq!(
        harness.state().view.last_move(),
        Some(Move::new(Square::H2, Square::E2))
    );
    harness.get_by_label("Black to move");
    harness.get_by_label("炮二平五");
    harness.get_by_label("WXF").click();
    harness.run();
    harness.get_by_label("C2=5");
}

#[test]
fn dragging_a_piece_to_its_target_plays_the_move() {
    let mut harness = harness(true);
    let (from, to) = (at(&harness, Square::B0), at(&harness, Square::C2));
    harness.hover_at(from);
    harness.drag_at(from);
    harness.run();
    harness.hover_at(to);
    harness.run();
    harness.drop_at(to);
    harness.run();
    assert_eq!(
        harness.state().view.last_move(),
        Some(Move::new(Square::B0, Square::C2))
    );
}

#[test]
fn a_draw_offered_at_one_screen_is_answered_in_a_dialog() {
    let mut harness = harness(true);
    harness.get_by_label("Offer draw").click();
    harness.run();
    harness.get_by_label("Red offers a draw.");
    harness.get_by_label("Accept").click();
    harness.run();
    harness.get_by_label("Draw by agreement");
    assert!(harness.query_by_label("Accept").is_none());
    assert!(
        !harness
            .get_by_label("Rematch")
            .accesskit_node()
            .is_disabled()
    );
    assert!(
        harness
            .get_by_label("Resign")
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn an_undo_request_declined_keeps_the_move() {
    let mut harness = harness(true);
    assert!(
        harness
            .get_by_label("Request undo")
            .accesskit_node()
            .is_disabled()
    );
    let (from, to) = (at(&harness, Square::H2), at(&harness, Square::E2));
    click_at(&mut harness, from);
    click_at(&mut harness, to);
    harness.get_by_label("Request undo").click();
    harness.run();
    harness.get_by_label("Red asks to take back its last move.");
    harness.get_by_label("Decline").click();
    harness.run();
    harness.get_by_label("Black declined the undo request");
    assert_eq!(harness.state().view.ply(), 1);
}

#[test]
fn resigning_ends_the_game() {
    let mut harness = harness(true);
    harness.get_by_label("Resign").click();
    harness.run();
    harness.get_by_label("Black wins by resignation");
}

#[test]
fn network_play_is_offered_but_disabled() {
    let harness = harness(false);
    for label in ["Create room", "Join", "Quick match"] {
        assert!(
            harness.get_by_label(label).accesskit_node().is_disabled(),
            "{label}"
        );
    }
    harness.get_by_label("Start a local game, or open a record");
}

#[test]
fn check_is_announced_on_screen() {
    let mut harness = harness(true);
    // Red's cannon takes the central soldier and checks over Black's own cannon on e7.
    for (from, to) in [
        (Square::H2, Square::E2),
        (Square::H7, Square::E7),
        (Square::E2, Square::E6),
    ] {
        let (from, to) = (at(&harness, from), at(&harness, to));
        click_at(&mut harness, from);
        click_at(&mut harness, to);
    }
    assert!(harness.state().view.checked_general().is_some());
    harness.get_by_label("將軍");
}
