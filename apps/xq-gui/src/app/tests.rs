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
        // A background task (hosting, connecting) may finish between two steps, and the widgets it
        // brings take a few more steps to settle than the harness's default of four.
        .with_max_steps(16)
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

/// Runs frames until `done` holds (the network answers between frames).
fn until(harness: &mut Harness<'_, XqApp>, what: &str, done: impl Fn(&XqApp) -> bool) {
    let start = std::time::Instant::now();
    while !done(harness.state()) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{what}: {:?}",
            harness.state().connect.lobby.error()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
        harness.run();
    }
    harness.run();
}

fn is_enabled(harness: &Harness<'_, XqApp>, label: &str) -> bool {
    !harness.get_by_label(label).accesskit_node().is_disabled()
}

#[test]
fn the_connect_panel_offers_every_way_to_play() {
    let harness = harness(false);
    for label in [
        "Create room",
        "Join",
        "Quick match",
        "Spectate",
        "Host a game",
    ] {
        assert!(is_enabled(&harness, label), "{label}");
    }
    assert!(!is_enabled(&harness, "Stop hosting"));
    harness.get_by_label("Start a local game, play on a relay, or open a record");
}

#[test]
fn a_bad_url_or_room_code_is_reported_at_once() {
    let mut harness = harness(false);
    harness.state_mut().connect.relay = "relay.example:7879".to_owned();
    harness.get_by_label("Create room").click();
    harness.run();
    harness.get_by_label_contains("bad relay URL");

    harness.state_mut().connect.relay = "udp://127.0.0.1:7878".to_owned();
    harness.state_mut().connect.code = "0O1IL".to_owned();
    harness.get_by_label("Join").click();
    harness.run();
    harness.get_by_label_contains("invalid room code");
    assert!(is_enabled(&harness, "Join"));
}

#[test]
fn an_unreachable_relay_is_reported_after_trying() {
    let mut harness = harness(false);
    harness.state_mut().connect.relay = "mem://no-relay-here".to_owned();
    harness.get_by_label("Quick match").click();
    harness.run();
    until(&mut harness, "the failure is reported", |app| {
        !app.connect.lobby.is_busy()
    });
    harness.get_by_label_contains("cannot reach the relay");
    assert!(is_enabled(&harness, "Create room"));
}

#[test]
fn hosting_a_game_shows_the_room_code_and_addresses() {
    let mut harness = harness(false);
    let connect = &mut harness.state_mut().connect;
    connect.host.ip = std::net::Ipv4Addr::LOCALHOST.into();
    connect.host.udp_port = 0;
    connect.host.quic_port = 0;
    let identity = tempfile::tempdir().expect("a temporary directory");
    connect.host.identity_dir = identity.path().to_path_buf();
    harness.get_by_label("Host a game").click();
    harness.run();
    until(&mut harness, "the room is created", |app| {
        app.connect.lobby.room().is_some()
    });
    let Some(code) = harness.state().connect.lobby.room() else {
        panic!("a room");
    };
    let shared = harness.get_by_label("Share code").accesskit_node().value();
    assert_eq!(shared.as_deref(), Some(code.as_str()));
    harness.get_by_label_contains("waiting for an opponent");
    assert_eq!(harness.get_all_by_label("Address").count(), 2);
    harness.get_by_label("Fingerprint");
    assert!(is_enabled(&harness, "Stop hosting"));
    assert!(!is_enabled(&harness, "Host a game"));
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
