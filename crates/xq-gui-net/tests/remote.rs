//! Network games through the view-model, against a relay hosted in the test's process: what
//! one player does reaches the other's view, with no window.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use xq_gui_model::{
    Action, ActionError, BackendError, Click, Dialog, GameBackend, Presence, ViewModel,
};
use xq_gui_net::{Entry, Host, HostConfig, Lobby, Network, Pending, RemoteGame, Wake};
use xq_protocol::{RoomCode, RoomOptions, SeatChoice};
use xq_rules::{Color, Move, Square};
use xq_session::{Action as SessionAction, TimeControl, Timestamp};

/// How long anything may take on the loopback before the test fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// The time since the test began, as the view-model takes it.
struct Clock(Instant);

impl Clock {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX))
    }
}

fn no_wake() -> Wake {
    Arc::new(|| {})
}

/// Polls until the result arrives.
fn wait<T>(pending: &Pending<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(result) = pending.poll() {
            return result;
        }
        assert!(start.elapsed() < PATIENCE, "no result in time");
        sleep(Duration::from_millis(2));
    }
}

/// Ticks `view` until `done` holds.
fn until(clock: &Clock, view: &mut ViewModel, what: &str, done: impl Fn(&ViewModel) -> bool) {
    let start = Instant::now();
    loop {
        view.tick(clock.now());
        if done(view) {
            return;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{what}; the status is {:?}, the notice {:?}",
            view.status_line(),
            view.notice()
        );
        sleep(Duration::from_millis(2));
    }
}

fn connect(network: &Network, url: &str, entry: Entry) -> RemoteGame {
    let pending = network.connect(url, entry, no_wake()).expect("a valid URL");
    wait(&pending).expect("connected and seated")
}

fn view_of(clock: &Clock, game: RemoteGame) -> ViewModel {
    let mut view = ViewModel::new();
    view.start(clock.now(), Box::new(game));
    view
}

/// Red's view of a room it creates on `host`, and the room's code.
fn created(clock: &Clock, network: &Network, host: &Host) -> (ViewModel, RoomCode) {
    let game = connect(network, host.own_url(), Entry::Create(red_seat()));
    let code = game.code();
    (view_of(clock, game), code)
}

/// Ticks Red's `view` until its opponent is there and the game has begun.
fn until_begun(clock: &Clock, view: &mut ViewModel) {
    until(clock, view, "the game begins", |view| {
        view.status_line() == "Red to move · opponent connected"
    });
}

/// A relay hosted in this process on the loopback, and the directory of its identity.
fn hosted(network: &Network) -> (Host, tempfile::TempDir) {
    let identity = tempfile::tempdir().expect("a temporary directory");
    let config = HostConfig {
        ip: Ipv4Addr::LOCALHOST.into(),
        udp_port: 0,
        quic_port: 0,
        identity_dir: identity.path().to_path_buf(),
    };
    (
        wait(&Host::start(network, config)).expect("the relay starts"),
        identity,
    )
}

/// Room options that seat the creator at Red.
fn red_seat() -> RoomOptions {
    RoomOptions {
        seat: SeatChoice::Red,
        ..RoomOptions::default()
    }
}

/// Red's seat, with a minute on each clock and no increment.
fn timed() -> RoomOptions {
    RoomOptions {
        time_control: TimeControl::Increment {
            base: Duration::from_secs(60),
            increment: Duration::ZERO,
        },
        ..red_seat()
    }
}

/// Polls `game` at `now` until `done` holds: a game's clocks count from the times it is
/// polled at, so a test may pass any.
fn poll_until(
    game: &mut RemoteGame,
    now: Timestamp,
    what: &str,
    done: impl Fn(&RemoteGame) -> bool,
) {
    let start = Instant::now();
    loop {
        while game.poll_event(now).is_some() {}
        if done(game) {
            return;
        }
        assert!(start.elapsed() < PATIENCE, "{what}");
        sleep(Duration::from_millis(2));
    }
}

/// Red's clock in `game` at `now`.
fn red_clock(game: &RemoteGame, now: Timestamp) -> Duration {
    game.clocks(now).expect("a timed game").red
}

#[test]
fn two_players_and_a_spectator_play_through_a_hosted_relay() {
    let clock = Clock(Instant::now());
    let network = Network::new().expect("a runtime");
    let (host, _identity) = hosted(&network);
    let [udp, quic] = host.urls() else {
        panic!("a UDP and a QUIC address: {:?}", host.urls());
    };
    assert!(quic.ends_with(&format!(
        "fp={}",
        host.fingerprint().expect("a fingerprint")
    )));

    // Red creates a room through the in-process listener and waits.
    let (mut red, code) = created(&clock, &network, &host);
    assert_eq!(red.status_line(), "Red to move · waiting for an opponent");
    assert_eq!(red.click(clock.now(), Some(Square::H2)), Ok(Click::Ignored));

    // Black joins over UDP, a spectator watches over QUIC.
    let mut black = view_of(&clock, connect(&network, udp, Entry::Join(code)));
    let mut watcher = view_of(&clock, connect(&network, quic, Entry::Spectate(code)));
    assert_eq!(black.orientation().bottom, Color::Black);
    until_begun(&clock, &mut red);
    assert!(!red.buttons().request_undo && red.buttons().resign);

    // Red's move reaches Black and the spectator.
    let now = clock.now();
    red.click(now, Some(Square::H2))
        .expect("a piece to pick up");
    let h2e2 = Move::new(Square::H2, Square::E2);
    assert_eq!(red.click(now, Some(Square::E2)), Ok(Click::Move(h2e2)));
    until(&clock, &mut black, "the move arrives", |view| {
        view.last_move() == Some(h2e2)
    });
    until(&clock, &mut watcher, "the spectator sees it", |view| {
        view.last_move() == Some(h2e2)
    });
    assert!(!watcher.buttons().resign);
    assert_eq!(
        watcher.status_line(),
        "Black to move · both players connected"
    );

    // An undo request opens the dialog on the other side; accepting takes the move back.
    until(&clock, &mut red, "the move is echoed", |view| {
        view.buttons().request_undo
    });
    red.act(clock.now(), Action::RequestUndo)
        .expect("undo can be asked");
    until(&clock, &mut black, "the undo request arrives", |view| {
        matches!(view.dialog(), Some(Dialog::Undo(_)))
    });
    black.answer(clock.now(), true).expect("an answer");
    until(&clock, &mut red, "the move is taken back", |view| {
        view.ply() == 0
    });

    // A draw offered and accepted ends the game on both sides.
    red.act(clock.now(), Action::OfferDraw)
        .expect("a draw offer");
    until(&clock, &mut black, "the offer arrives", |view| {
        matches!(view.dialog(), Some(Dialog::Draw { by: Color::Red }))
    });
    black.answer(clock.now(), true).expect("an answer");
    for view in [&mut red, &mut black, &mut watcher] {
        until(&clock, view, "the game ends", |view| {
            view.status_line().starts_with("Draw by agreement")
        });
        assert!(view.save_pgn().is_some_and(|pgn| pgn.contains("1/2-1/2")));
    }

    // Both ask for a rematch: colours swap.
    red.rematch(clock.now()).expect("a rematch request");
    black.rematch(clock.now()).expect("a rematch request");
    until(&clock, &mut red, "the rematch begins", |view| {
        view.orientation().bottom == Color::Black && view.status_line().starts_with("Red to move")
    });

    // Black leaves: Red is told.
    drop(black);
    until(
        &clock,
        &mut red,
        "the opponent's departure is noticed",
        |view| view.status_line().ends_with("opponent disconnected"),
    );
}

#[test]
fn a_list_of_relays_plays_through_the_first_that_answers() {
    let clock = Clock(Instant::now());
    let network = Network::new().expect("a runtime");
    let (host, _identity) = hosted(&network);
    let (mut red, code) = created(&clock, &network, &host);
    // Nobody listens at the first node of the list.
    let list = format!("mem://gui-nobody-here, {}", host.own_url());
    let black = view_of(&clock, connect(&network, &list, Entry::Join(code)));
    assert_eq!(black.orientation().bottom, Color::Black);
    until_begun(&clock, &mut red);
}

#[test]
fn only_the_players_may_ask_for_a_rematch() {
    let clock = Clock(Instant::now());
    let network = Network::new().expect("a runtime");
    let (host, _identity) = hosted(&network);
    let (mut red, code) = created(&clock, &network, &host);
    let mut black = view_of(&clock, connect(&network, host.own_url(), Entry::Join(code)));
    let mut watcher = view_of(
        &clock,
        connect(&network, host.own_url(), Entry::Spectate(code)),
    );
    until_begun(&clock, &mut red);
    assert!(!red.buttons().rematch, "the game is on");

    red.act(clock.now(), Action::Resign).expect("a resignation");
    for view in [&mut red, &mut black, &mut watcher] {
        until(&clock, view, "the game ends", |view| {
            view.status_line().starts_with("Black wins")
        });
    }
    assert!(red.buttons().rematch && black.buttons().rematch);
    assert!(!watcher.buttons().rematch);
    // A spectator's request is refused here, not sent for the relay to refuse.
    assert_eq!(
        watcher.rematch(clock.now()),
        Err(ActionError::Backend(BackendError::NotYourSeat))
    );
    assert_eq!(watcher.notice(), Some("you do not play that side"));
}

#[test]
fn the_running_clock_counts_down_for_the_joiner_and_a_spectator() {
    let clock = Clock(Instant::now());
    let network = Network::new().expect("a runtime");
    let (host, _identity) = hosted(&network);
    let red = connect(&network, host.own_url(), Entry::Create(timed()));
    let code = red.code();
    let black = connect(&network, host.own_url(), Entry::Join(code));
    let watcher = connect(&network, host.own_url(), Entry::Spectate(code));
    // Both entered a running game, and nothing needs to happen for Red's clock to go down.
    for mut game in [black, watcher] {
        let now = clock.now();
        while game.poll_event(now).is_some() {}
        let later = now + Duration::from_secs(10);
        assert_eq!(
            red_clock(&game, now) - red_clock(&game, later),
            Duration::from_secs(10),
            "seat {:?}",
            game.seat()
        );
    }
}

#[test]
fn a_clock_stops_where_the_relay_stopped_it_when_the_game_ends() {
    let clock = Clock(Instant::now());
    let network = Network::new().expect("a runtime");
    let (host, _identity) = hosted(&network);
    let mut red = connect(&network, host.own_url(), Entry::Create(timed()));
    let _black = connect(&network, host.own_url(), Entry::Join(red.code()));
    let start = clock.now();
    poll_until(&mut red, start, "the game begins", |game| {
        game.presence() == Some(Presence::Connected)
    });

    // Red thinks for 20 s on this screen's clock (the relay keeps its own), then resigns.
    let resigned = start + Duration::from_secs(20);
    let left = red_clock(&red, resigned);
    assert!(left <= Duration::from_secs(40), "{left:?}");
    red.send(resigned, SessionAction::Resign.by(Color::Red))
        .expect("a resignation");
    poll_until(&mut red, resigned, "the game ends", |game| {
        !game.status().is_ongoing()
    });
    // The end stops the clocks where the relay's did: by its clock, not this screen's, which
    // ran 20 s ahead. They stay there.
    let stopped = red_clock(&red, resigned);
    assert!(stopped > left, "{stopped:?} against {left:?}");
    let later = resigned + Duration::from_secs(5);
    assert_eq!(red_clock(&red, later), stopped);
}

#[test]
fn the_lobby_reports_bad_urls_codes_and_unreachable_relays() {
    let mut lobby = Lobby::new();
    lobby.create("not a url", no_wake());
    assert!(
        lobby
            .error()
            .is_some_and(|error| error.starts_with("bad relay URL"))
    );
    assert!(!lobby.is_busy());

    // A list is checked item by item: a hole in it, or an item that is no URL.
    lobby.create("mem://a,,mem://b", no_wake());
    assert!(
        lobby
            .error()
            .is_some_and(|error| error.starts_with("bad relay list"))
    );
    lobby.create("mem://a,not a url", no_wake());
    assert!(
        lobby
            .error()
            .is_some_and(|error| error.starts_with("bad relay URL"))
    );

    lobby.join("mem://nobody-here", "0000", no_wake());
    assert!(
        lobby
            .error()
            .is_some_and(|error| error.starts_with("invalid room code"))
    );

    // Nobody listens at the first; the second parses but names no way to trust the relay,
    // which only connecting checks.
    for url in ["mem://nobody-here", "quic://127.0.0.1:1"] {
        lobby.create(url, no_wake());
        assert!(lobby.is_busy());
        let start = Instant::now();
        while lobby.is_busy() {
            assert!(lobby.poll().is_none());
            assert!(start.elapsed() < PATIENCE, "no answer in time");
            sleep(Duration::from_millis(2));
        }
        assert!(
            lobby
                .error()
                .is_some_and(|error| error.starts_with("cannot reach the relay")),
            "{url}: {:?}",
            lobby.error()
        );
    }
}

/// Hosts through `lobby` as `config` says, and returns the room it creates.
fn host_through(lobby: &mut Lobby, config: HostConfig) -> RemoteGame {
    lobby.host(config, no_wake());
    let start = Instant::now();
    loop {
        if let Some(game) = lobby.poll() {
            return game;
        }
        assert!(lobby.error().is_none(), "{:?}", lobby.error());
        assert!(start.elapsed() < PATIENCE, "no room in time");
        sleep(Duration::from_millis(2));
    }
}

/// Settings for a relay on the loopback, on any free ports.
fn loopback(identity: &tempfile::TempDir) -> HostConfig {
    HostConfig {
        ip: Ipv4Addr::LOCALHOST.into(),
        udp_port: 0,
        quic_port: 0,
        identity_dir: identity.path().to_path_buf(),
    }
}

#[test]
fn hosting_creates_a_room_to_share() {
    let mut lobby = Lobby::new();
    let identity = tempfile::tempdir().expect("a temporary directory");
    let game = host_through(&mut lobby, loopback(&identity));
    assert_eq!(lobby.room(), Some(game.code()));
    assert!(game.presence().is_some());
    assert_eq!(lobby.hosted().map(|host| host.urls().len()), Some(2));
}

/// Hosting again, at once, after stopping, or after stopping a relay still starting, binds the
/// same ports: the lobby waits until the relay it hosted before has let them go.
#[test]
fn hosting_again_reuses_the_ports() {
    let mut lobby = Lobby::new();
    let identity = tempfile::tempdir().expect("a temporary directory");
    let _first = host_through(&mut lobby, loopback(&identity));
    let port = |url: &String| {
        url.parse::<xq_transport::Address>()
            .map(|address| match address {
                xq_transport::Address::Udp { port, .. }
                | xq_transport::Address::Quic { port, .. } => port,
                other => panic!("not a network address: {other:?}"),
            })
            .expect("a URL")
    };
    let urls = lobby.hosted().expect("hosting").urls().to_vec();
    let [udp, quic] = urls.as_slice() else {
        panic!("a UDP and a QUIC address: {urls:?}");
    };
    let same_ports = HostConfig {
        udp_port: port(udp),
        quic_port: port(quic),
        ..loopback(&identity)
    };
    let _second = host_through(&mut lobby, same_ports.clone());
    assert_eq!(lobby.hosted().expect("hosting").urls(), urls);
    lobby.stop_hosting();
    let _third = host_through(&mut lobby, same_ports.clone());
    assert_eq!(lobby.hosted().expect("hosting").urls(), urls);
    // Stopped while it starts: the relay shuts down as soon as it is up.
    lobby.host(same_ports.clone(), no_wake());
    lobby.stop_hosting();
    assert!(!lobby.is_busy());
    let _fourth = host_through(&mut lobby, same_ports);
    assert_eq!(lobby.hosted().expect("hosting").urls(), urls);
}
