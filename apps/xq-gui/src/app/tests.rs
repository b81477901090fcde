//! The real UI driven by widget label in egui's headless harness, with the embedded fonts (the
//! harness panics on a glyph no font has, so these also prove the CJK subset covers the UI).

use std::cell::RefCell;
use std::rc::Rc;

use eframe::egui::accesskit::Toggled;
use eframe::egui::{self, Pos2, Rect, pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use xq_gui_model::Cue;
use xq_rules::{Move, Square};

use super::XqApp;
use crate::fonts;
use crate::sound::{Output, Speaker};

/// The desktop window's size, as `main` opens it.
const DESKTOP: [f32; 2] = [1100.0, 800.0];

/// A phone held upright, in logical pixels.
const PHONE: [f32; 2] = [390.0, 844.0];

/// The harness's margin round the app on every side (a window has none).
const HARNESS_MARGIN: f32 = 8.0;

fn harness(local: bool) -> Harness<'static, XqApp> {
    harness_of(XqApp::new(local), DESKTOP)
}

fn harness_of(app: XqApp, size: [f32; 2]) -> Harness<'static, XqApp> {
    Harness::builder()
        .with_size(size)
        // A background task (hosting, connecting) may finish between two steps, and the widgets it
        // brings take a few more steps to settle than the harness's default of four.
        .with_max_steps(16)
        .with_context_setup(fonts::install)
        .build_ui_state(|ui, app: &mut XqApp| app.show(ui), app)
}

/// A speaker that keeps what it was given to play.
#[derive(Clone, Default)]
struct Recorder(Rc<RefCell<Vec<Cue>>>);

impl Output for Recorder {
    fn play(&mut self, cue: Cue) {
        self.0.borrow_mut().push(cue);
    }
}

impl Recorder {
    fn played(&self) -> Vec<Cue> {
        self.0.borrow().clone()
    }
}

/// A local game whose speaker records what it plays.
fn recorded(size: [f32; 2]) -> (Harness<'static, XqApp>, Recorder) {
    let recorder = Recorder::default();
    let mut app = XqApp::new(true);
    app.speaker = Speaker::new(Box::new(recorder.clone()));
    (harness_of(app, size), recorder)
}

/// Where the control `name` was drawn in the last frame; it must be there once.
fn hit(harness: &Harness<'_, XqApp>, name: &str) -> Rect {
    let mut found = harness.state().hits.iter().filter(|(n, _)| *n == name);
    let (Some((_, rect)), None) = (found.next(), found.next()) else {
        panic!("no single control named {name}");
    };
    rect
}

/// Clicks the control `name` where the last frame drew it, as a script would.
fn click_named(harness: &mut Harness<'_, XqApp>, name: &str) {
    let centre = hit(harness, name).center();
    click_at(harness, centre);
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
    click_named(&mut harness, "Offer draw");
    harness.get_by_label("Red offers a draw.");
    click_named(&mut harness, "Accept");
    harness.get_by_label("Draw by agreement");
    harness.get_by_label("Game over: Draw by agreement");
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
    click_named(&mut harness, "Request undo");
    harness.get_by_label("Red asks to take back its last move.");
    click_named(&mut harness, "Decline");
    harness.get_by_label("Black declined the undo request");
    assert_eq!(harness.state().view.ply(), 1);
}

#[test]
fn resigning_ends_the_game_and_the_result_shows() {
    let mut harness = harness(true);
    assert!(harness.query_by_label_contains("Game over").is_none());
    click_named(&mut harness, "Resign");
    harness.get_by_label("Black wins by resignation");
    harness.get_by_label("Game over: Black wins by resignation");
    assert!(harness.query_by_label("Red's turn").is_none());
    assert!(is_enabled(&harness, "Rematch"));
    click_named(&mut harness, "Rematch");
    harness.get_by_label("Red's turn");
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

/// Plays `from`-`to` by clicking both squares.
fn click_move(harness: &mut Harness<'_, XqApp>, from: Square, to: Square) {
    let (from, to) = (at(harness, from), at(harness, to));
    click_at(harness, from);
    click_at(harness, to);
}

#[test]
fn a_move_reaches_the_speaker_and_mute_silences_it() {
    let (mut harness, speaker) = recorded(DESKTOP);
    click_move(&mut harness, Square::H2, Square::E2);
    assert_eq!(speaker.played(), [Cue::Move]);

    let mute =
        |harness: &Harness<'_, XqApp>| harness.get_by_label("Mute").accesskit_node().toggled();
    assert_eq!(mute(&harness), Some(Toggled::False));
    click_named(&mut harness, "Mute");
    assert!(harness.state().speaker.muted);
    assert_eq!(mute(&harness), Some(Toggled::True));
    click_move(&mut harness, Square::H9, Square::G7);
    assert_eq!(harness.state().view.ply(), 2);
    assert_eq!(speaker.played(), [Cue::Move], "muted");

    click_named(&mut harness, "Mute");
    assert!(!harness.state().speaker.muted);
    // The cannon takes the central soldier.
    click_move(&mut harness, Square::E2, Square::E6);
    assert_eq!(speaker.played(), [Cue::Move, Cue::Capture]);
}

#[test]
fn moves_played_before_the_window_shows_are_silent() {
    let recorder = Recorder::default();
    let mut app = XqApp::new(true);
    app.speaker = Speaker::new(Box::new(recorder.clone()));
    for mv in ["h2e2", "h9g7"] {
        crate::desktop::play(&mut app, mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    let mut harness = harness_of(app, DESKTOP);
    assert_eq!(harness.state().view.ply(), 2);
    assert_eq!(recorder.played(), []);
    click_move(&mut harness, Square::H0, Square::G2);
    assert_eq!(recorder.played(), [Cue::Move]);
}

#[test]
fn every_button_is_noted_by_its_label() {
    let mut harness = harness(true);
    let names = |harness: &Harness<'_, XqApp>| -> Vec<String> {
        harness
            .state()
            .hits
            .iter()
            .map(|(name, _)| name.to_owned())
            .collect()
    };
    let drawn = names(&harness);
    for name in [
        "New local game",
        "Flip board",
        "Mute",
        "Request undo",
        "Offer draw",
        "Resign",
        "Rematch",
        "Chinese",
        "WXF",
        "ICCS",
        "Save PGN",
        "Open PGN",
        "Create room",
        "Join",
        "Quick match",
        "Spectate",
        "Host a game",
        "Stop hosting",
    ] {
        assert!(drawn.iter().any(|n| n == name), "{name} in {drawn:?}");
    }
    // Each is noted where it is drawn: its rectangle is the widget's.
    for name in ["Resign", "Mute", "Join"] {
        let node = harness.get_by_label(name).rect();
        let noted = hit(&harness, name);
        assert!(noted.contains(node.center()), "{name}: {noted:?} {node:?}");
    }

    click_named(&mut harness, "Offer draw");
    let drawn = names(&harness);
    assert!(drawn.iter().any(|n| n == "Accept") && drawn.iter().any(|n| n == "Decline"));
    click_named(&mut harness, "Decline");
    assert!(
        !names(&harness).iter().any(|n| n == "Accept"),
        "the dialog closed"
    );

    let now = harness.state().now();
    let replay = harness.state_mut().view.open_pgn(now, "1. h2e2 *");
    assert!(replay.is_ok());
    harness.run();
    let drawn = names(&harness);
    for name in ["Start", "Back", "Forward", "End", "Close replay"] {
        assert!(drawn.iter().any(|n| n == name), "{name} in {drawn:?}");
    }
}

#[test]
fn a_wide_window_keeps_the_controls_beside_the_board() {
    let harness = harness(true);
    let Some(board) = harness.state().board else {
        panic!("the board was drawn");
    };
    let right = board.min.x + board.width();
    for (name, rect) in harness.state().hits.iter() {
        assert!(
            rect.min.x >= right,
            "{name} at {rect:?}, the board ends at {right}"
        );
    }
}

/// A touch event of the one finger these tests use.
fn touch(phase: egui::TouchPhase, pos: Pos2) -> egui::Event {
    egui::Event::Touch {
        device_id: egui::TouchDeviceId(1),
        id: egui::TouchId(1),
        phase,
        pos,
        force: None,
    }
}

/// The finger going down at `pos`, as a browser reports it: with no pointer over the page
/// before.
fn finger_down(harness: &Harness<'_, XqApp>, pos: Pos2) {
    harness.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    harness.event(touch(egui::TouchPhase::Start, pos));
}

/// The finger lifting off at `pos`, taking the pointer with it.
fn finger_up(harness: &Harness<'_, XqApp>, pos: Pos2) {
    harness.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.event(egui::Event::PointerGone);
    harness.event(touch(egui::TouchPhase::End, pos));
}

/// A tap at `pos` on a touch screen.
fn tap_at(harness: &mut Harness<'_, XqApp>, pos: Pos2) {
    finger_down(harness, pos);
    harness.step();
    finger_up(harness, pos);
    harness.run();
}

/// A finger drawn from `from` to `to` over a few frames.
fn swipe(harness: &mut Harness<'_, XqApp>, from: Pos2, to: Pos2) {
    finger_down(harness, from);
    harness.step();
    let steps = 8_u8;
    for step in 1..=steps {
        let pos = from.lerp(to, f32::from(step) / f32::from(steps));
        harness.event(egui::Event::PointerMoved(pos));
        harness.event(touch(egui::TouchPhase::Move, pos));
        harness.step();
    }
    finger_up(harness, to);
    harness.run();
}

#[test]
fn taps_on_the_board_play_a_move() {
    let (mut harness, speaker) = recorded(PHONE);
    let h2 = at(&harness, Square::H2);
    tap_at(&mut harness, h2);
    assert_eq!(harness.state().view.selection().square(), Some(Square::H2));
    let e2 = at(&harness, Square::E2);
    tap_at(&mut harness, e2);
    assert_eq!(
        harness.state().view.last_move(),
        Some(Move::new(Square::H2, Square::E2))
    );
    assert_eq!(speaker.played(), [Cue::Move]);
}

/// Sixteen plies of a quiet opening, in ICCS: enough for the move list to grow tall.
const OPENING: [&str; 16] = [
    "h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "b7a7", "a0b0", "a9b9", "c3c4", "c6c5",
    "g3g4", "g6g5", "b2b6", "h7h3",
];

#[test]
fn a_phone_shows_the_whole_board_across_the_top_and_scrolls_to_every_control() {
    let mut app = XqApp::new(true);
    for mv in OPENING {
        crate::desktop::play(&mut app, mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    }
    let mut harness = harness_of(app, PHONE);
    let [width, height] = PHONE;
    let Some(board) = harness.state().board else {
        panic!("the board was drawn");
    };
    let bottom = board.min.y + board.height();
    assert!(board.min.x >= 0.0 && board.min.y >= 0.0, "{board:?}");
    assert!(board.min.x + board.width() <= width, "{board:?}");
    let across = width - 2.0 * (HARNESS_MARGIN + super::BOARD_MARGIN);
    assert!(board.width() >= across - 0.5, "across the width: {board:?}");
    assert!(
        bottom < height * 0.6,
        "room for the controls below: {board:?}"
    );
    for (name, rect) in harness.state().hits.iter() {
        assert!(
            rect.min.x >= 0.0 && rect.max.x <= width,
            "{name} at {rect:?}"
        );
        assert!(
            rect.min.y >= bottom,
            "{name} at {rect:?}, below the board's {bottom}"
        );
    }
    // The game's buttons are in view at once; the connect panel is a finger's swipe away.
    let in_view = |rect: Rect| rect.max.y < height - 40.0;
    assert!(in_view(hit(&harness, "Resign")));
    assert!(!in_view(hit(&harness, "Join")), "below the fold");
    harness.state_mut().connect.code = "0O1IL".to_owned();
    for _ in 0..5 {
        if in_view(hit(&harness, "Join")) {
            break;
        }
        // The finger goes down beside the record's buttons, on nothing but the controls'
        // background, and pushes them up.
        let open = hit(&harness, "Open PGN");
        let finger = pos2(open.max.x + 60.0, open.center().y);
        swipe(&mut harness, finger, finger - vec2(0.0, 300.0));
    }
    assert!(in_view(hit(&harness, "Join")), "scrolled into view");
    assert_eq!(
        harness.state().board,
        Some(board),
        "the board stays put while the controls scroll"
    );
    click_named(&mut harness, "Join");
    harness.get_by_label_contains("invalid room code");
}

/// An app with a recording speaker, set to host a game (if asked) on this machine's loopback
/// on any free ports, its QUIC identity kept in `identity`.
fn online_app(identity: &std::path::Path) -> (XqApp, Recorder) {
    let recorder = Recorder::default();
    let mut app = XqApp::new(false);
    app.speaker = Speaker::new(Box::new(recorder.clone()));
    let host = &mut app.connect.host;
    host.ip = std::net::Ipv4Addr::LOCALHOST.into();
    host.udp_port = 0;
    host.quic_port = 0;
    host.identity_dir = identity.to_path_buf();
    (app, recorder)
}

#[test]
fn a_network_game_shows_turn_and_connection_sounds_on_both_screens_and_saves_when_over() {
    let identity = tempfile::tempdir().expect("a temporary directory");
    let (host_app, host_speaker) = online_app(identity.path());
    let mut host = harness_of(host_app, DESKTOP);
    click_named(&mut host, "Host a game");
    until(&mut host, "the room is created", |app| {
        app.connect.lobby.room().is_some()
    });
    host.get_by_label("Waiting for an opponent");
    let Some(code) = host.state().connect.lobby.room() else {
        panic!("a room");
    };
    let Some(url) = host.state().connect.lobby.hosted().and_then(|hosted| {
        hosted
            .urls()
            .iter()
            .find(|url| url.starts_with("udp://"))
            .cloned()
    }) else {
        panic!("a UDP address");
    };

    let (mut guest_app, guest_speaker) = online_app(identity.path());
    guest_app.connect.relay = url;
    guest_app.connect.code = code.to_string();
    let mut guest = harness_of(guest_app, DESKTOP);
    click_named(&mut guest, "Join");
    let connected = |app: &XqApp| app.view.presence() == Some(xq_gui_model::Presence::Connected);
    until(&mut guest, "the guest is in", connected);
    until(&mut host, "the host sees the guest", connected);
    for screen in [&host, &guest] {
        screen.get_by_label("Opponent connected");
    }

    // Whoever plays Red moves first; both screens hear the move once.
    let (mut red, mut black) = if host.query_by_label("Your turn (Red)").is_some() {
        (host, guest)
    } else {
        (guest, host)
    };
    black.get_by_label("Opponent's turn (Red)");
    click_move(&mut red, Square::H2, Square::E2);
    for (screen, what) in [
        (&mut red, "Red sees its move"),
        (&mut black, "Black sees it"),
    ] {
        until(screen, what, |app| app.view.ply() == 1);
    }
    red.get_by_label("Opponent's turn (Black)");
    black.get_by_label("Your turn (Black)");
    assert_eq!(host_speaker.played(), [Cue::Move]);
    assert_eq!(guest_speaker.played(), [Cue::Move]);

    // Black gives up; Red's screen shows the result and saves the finished game.
    click_named(&mut black, "Resign");
    until(&mut red, "the result arrives", |app| {
        app.view.result_line().is_some()
    });
    red.get_by_label("Game over: Red wins by resignation");
    assert!(
        red.query_by_label_contains("turn").is_none(),
        "nobody's turn"
    );
    let records = tempfile::tempdir().expect("a temporary directory");
    let path = records.path().join("game.pgn");
    red.state_mut().record.path = path.display().to_string();
    click_named(&mut red, "Save PGN");
    red.get_by_label_contains("Saved to");
    let text = std::fs::read_to_string(&path).expect("the record was saved");
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(text.ends_with("1. h2e2 1-0\n"), "{text}");
}

/// Runs frames until `done` holds, or fails after `limit`; returns how many frames ran.
fn frames_until(
    harness: &mut Harness<'_, XqApp>,
    what: &str,
    limit: std::time::Duration,
    done: impl Fn(&XqApp) -> bool,
) -> usize {
    let start = std::time::Instant::now();
    let mut frames = 0;
    while !done(harness.state()) {
        assert!(start.elapsed() < limit, "{what} within {limit:?}");
        std::thread::sleep(std::time::Duration::from_millis(2));
        harness.step();
        frames += 1;
    }
    harness.run();
    frames
}

#[test]
fn the_computer_replies_on_its_thread_while_the_window_keeps_drawing() {
    let mut harness = harness(false);
    harness.get_by_label("Against the computer").click();
    harness.run();
    // A level that searches long enough for frames to come in between.
    harness.state_mut().computer.level = 7;
    assert!(is_enabled(&harness, "Play Red"));
    click_named(&mut harness, "Play the computer");
    harness.get_by_label("Your turn (Red)");
    let (from, to) = (at(&harness, Square::H2), at(&harness, Square::E2));
    click_at(&mut harness, from);
    click_at(&mut harness, to);
    assert_eq!(harness.state().view.ply(), 1);
    // The move is on the board at once; the reply comes from the worker thread while frames
    // go on being drawn, and the board takes no click for the computer's side meanwhile.
    assert!(harness.state().view.thinking());
    harness.get_by_label("The computer is thinking…");
    let frames = frames_until(
        &mut harness,
        "the computer's reply",
        std::time::Duration::from_secs(20),
        |app| app.view.ply() == 2,
    );
    assert!(frames >= 1, "no frame was drawn while the computer thought");
    harness.get_by_label("Your turn (Red)");
    harness.get_by_label_contains("Evaluation");
    let view = &harness.state().view;
    let moved = view
        .last_move()
        .and_then(|mv| view.position().board().piece_at(mv.to));
    assert_eq!(moved.map(|piece| piece.color), Some(xq_rules::Color::Black));
    // Undo takes both moves back, granted at once.
    click_named(&mut harness, "Request undo");
    assert_eq!(harness.state().view.ply(), 0);
    assert!(harness.query_by_label("Accept").is_none());
}

#[test]
fn a_hint_in_a_local_game_marks_a_move_and_shows_the_evaluation() {
    let mut harness = harness(true);
    assert!(is_enabled(&harness, "Hint"));
    click_named(&mut harness, "Hint");
    frames_until(
        &mut harness,
        "the hint",
        std::time::Duration::from_secs(20),
        |app| app.view.hint_move().is_some(),
    );
    let hint = harness
        .state()
        .view
        .hint_move()
        .unwrap_or_else(|| panic!("a hint"));
    assert!(xq_rules::Position::startpos().is_legal(hint), "{hint}");
    harness.get_by_label_contains("Evaluation");
    // Playing it takes the mark away.
    let (from, to) = (at(&harness, hint.from), at(&harness, hint.to));
    click_at(&mut harness, from);
    click_at(&mut harness, to);
    assert_eq!(harness.state().view.hint_move(), None);
    assert_eq!(harness.state().view.last_move(), Some(hint));
}
