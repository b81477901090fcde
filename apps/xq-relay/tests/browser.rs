//! The web client end to end, as people use it: the real `xq-relay` serves the page and its
//! WebSocket on loopback, and headless Chromium sessions, driven through chromedriver, use it.
//! Two of them create and join a room by its link, play a game to checkmate by clicking on
//! the canvas, take a move back through the undo dialog, reload a page and resume its seat;
//! screenshots are checked pixel by pixel and the relay's archived record move by move. A
//! third, with a phone's screen, checks that the board and the controls fit on it.
//!
//! The page's hooks (`data-*` attributes on its canvas) say where the board and the controls
//! are drawn and what the page shows; the clicks are real pointer input at those places.
//!
//! The browser tests are ignored by default: they need Debian's `chromium` and
//! `chromium-driver`, and a relay built with the web client (`cargo xtask web`, then
//! `XQ_WEB_DIR=$PWD/target/web cargo test -p xq-relay --test browser -- --ignored`, as
//! `.ci/run` does). Screenshots and logs are left in `target/browser/`.

/// The harness: processes, browsers, pages, hooks, pixels and waiting.
mod browser {
    pub(crate) mod driver;
    pub(crate) mod hooks;
    pub(crate) mod page;
    pub(crate) mod pixels;
    pub(crate) mod process;
    pub(crate) mod relay;
    pub(crate) mod wait;
}

use std::path::PathBuf;
use std::time::Duration;

use xq_rules::iccs::Iccs;
use xq_rules::{ByColor, Color, Position, Square};

use crate::browser::driver::{Chromedriver, Screen};
use crate::browser::hooks::Seat;
use crate::browser::page::Page;
use crate::browser::relay::Relay;
use crate::browser::wait::wait_for;

/// The game the browsers play, in ICCS: Red's horse walks round to g8 and mates the general
/// that its own advisors and its own horse (come to e8) hem in; Black's other moves keep out
/// of the way.
const LINE: [&str; 11] = [
    "h0g2", "b9c7", "g3g4", "c7e8", "g2f4", "a6a5", "f4g6", "i6i5", "g6e7", "a9a8", "e7g8",
];

/// After this many plies of [`LINE`], Red plays [`TAKEN_BACK`] instead, asks for it back, and
/// Black accepts.
const UNDO_AT: usize = 4;

/// The move Red takes back.
const TAKEN_BACK: &str = "i0i1";

/// After this many plies of [`LINE`], Black's page reloads and resumes its seat.
const RELOAD_AT: usize = 7;

/// The whole game, browsers' start included.
const GAME_LIMIT: Duration = Duration::from_secs(150);

/// The phone check.
const PHONE_LIMIT: Duration = Duration::from_secs(90);

/// The game against the computer, browser's start included.
const COMPUTER_LIMIT: Duration = Duration::from_secs(90);

/// A page's loading: the bundle's download and compilation, the connection, the room.
const LOAD: Duration = Duration::from_secs(30);

/// One move, one undo, one reload reaching both pages.
const STEP: Duration = Duration::from_secs(10);

/// A desktop browser's window, as `xq-gui` opens its own.
const DESKTOP: Screen = Screen::Desktop {
    width: 1100,
    height: 800,
};

/// A phone's screen (an iPhone's 390 × 844 CSS pixels at three device pixels each).
const PHONE: Screen = Screen::Phone {
    width: 390,
    height: 844,
    pixel_ratio: 3.0,
};

#[test]
fn the_scripted_line_is_legal_and_ends_in_checkmate() {
    let position = replay(&LINE);
    assert!(position.is_checkmate(), "{LINE:?} does not mate");
    assert_eq!(position.turn(), Color::Black, "Red gives the mate");
    // The detour is legal where it is played, and taking it back leaves Red to move again.
    let before = replay(&LINE[..UNDO_AT]);
    assert_eq!(before.turn(), Color::Red);
    let _ = replay_from(before, &[TAKEN_BACK]);
    // Black is the one to move after the reload, so the reloaded page plays on at once.
    assert_eq!(replay(&LINE[..RELOAD_AT]).turn(), Color::Black);
    assert!(UNDO_AT < RELOAD_AT && RELOAD_AT < LINE.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium, chromedriver and a relay built with XQ_WEB_DIR (see .ci/run)"]
async fn two_browsers_play_a_game_to_checkmate_through_the_relay() {
    tokio::time::timeout(GAME_LIMIT, play_a_game())
        .await
        .unwrap_or_else(|_| panic!("the game took longer than {GAME_LIMIT:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium, chromedriver and a relay built with XQ_WEB_DIR (see .ci/run)"]
async fn the_board_and_the_controls_fit_a_phone_screen() {
    tokio::time::timeout(PHONE_LIMIT, check_a_phone())
        .await
        .unwrap_or_else(|_| panic!("the phone check took longer than {PHONE_LIMIT:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium, chromedriver and a relay built with XQ_WEB_DIR (see .ci/run)"]
async fn a_browser_plays_the_computer_whose_engine_runs_in_a_web_worker() {
    tokio::time::timeout(COMPUTER_LIMIT, play_the_computer())
        .await
        .unwrap_or_else(|_| panic!("the computer game took longer than {COMPUTER_LIMIT:?}"));
}

/// Opens `#computer/1`, plays a move by clicking, and waits for the computer's reply on the
/// board: it comes from the engine's Web Worker, while the page goes on drawing.
async fn play_the_computer() {
    let out = artefacts();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("no temporary directory: {err}"));
    let relay = Relay::start(dir.path(), &out.join("computer-relay.log")).await;
    let driver = Chromedriver::start(&out.join("computer-chromedriver.log")).await;
    let page = open(&driver, "computer", DESKTOP, dir.path()).await;
    page.goto(&relay.link("computer/1")).await;
    expect_the_client(&page).await;
    page.wait("its turn against the computer", LOAD, |hooks| {
        (hooks.board.is_some() && hooks.status == "Red to move" && hooks.moves.is_empty())
            .then_some(())
    })
    .await;
    page.play("h2e2").await;
    let moves = page
        .wait("the computer's reply", STEP * 3, |hooks| {
            (hooks.moves.len() == 2).then(|| hooks.moves.clone())
        })
        .await;
    assert_eq!(moves[0], "h2e2");
    // The reply is a legal move of Black's, and the page shows it as the position to play on.
    let position = replay(&moves);
    assert_eq!(position.turn(), Color::Red);
    page.wait("Red to move again", STEP, |hooks| {
        (hooks.status == "Red to move").then_some(())
    })
    .await;
    let (shot, hooks) = page.screenshot(&out, "reply").await;
    let board = hooks.board.unwrap_or_else(|| panic!("the board went"));
    shot.check_squares(&board, &position, Square::all())
        .unwrap_or_else(|err| panic!("computer: {err}"));
    // A second move, a second reply: the worker serves the whole game.
    let second = ["h0g2", "b0c2", "i0i1", "a0a1", "e3e4"]
        .into_iter()
        .find(|mv| iccs(mv).to_move(&position).is_ok())
        .unwrap_or_else(|| panic!("no scripted move is legal after {moves:?}"));
    page.play(second).await;
    page.wait("the computer's second reply", STEP * 3, |hooks| {
        (hooks.moves.len() == 4).then_some(())
    })
    .await;
    page.close().await;
}

async fn play_a_game() {
    let out = artefacts();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("no temporary directory: {err}"));
    let mut relay = Relay::start(dir.path(), &out.join("game-relay.log")).await;
    let driver = Chromedriver::start(&out.join("game-chromedriver.log")).await;
    let (a, b) = tokio::join!(
        open(&driver, "a", DESKTOP, dir.path()),
        open(&driver, "b", DESKTOP, dir.path()),
    );

    // A creates the room; B follows the link A would share.
    a.goto(&relay.link("create")).await;
    expect_the_client(&a).await;
    let code = a
        .wait("a room code", LOAD, |hooks| {
            (!hooks.code.is_empty()).then(|| hooks.code.clone())
        })
        .await;
    b.goto(&relay.link(&format!("join/{code}"))).await;
    let (seat_a, seat_b) = tokio::join!(seated(&a), seated(&b));
    assert_ne!(seat_a, seat_b, "both pages hold the same seat");
    // Both addresses are the room's link now, which a reload follows to resume the seat.
    let link = format!("join/{code}");
    for page in [&a, &b] {
        wait_for(
            &format!("{}'s address to be #{link}", page.name),
            STEP,
            || async {
                let fragment = page.fragment().await;
                (fragment.as_deref() == Some(link.as_str()))
                    .then_some(())
                    .ok_or_else(|| format!("#{}", fragment.unwrap_or_default()))
            },
        )
        .await;
    }
    let (red, black) = if seat_a == Color::Red { (a, b) } else { (b, a) };
    let pages = ByColor {
        red: &red,
        black: &black,
    };
    let mut game = Game::new(pages);
    // WebGL2 draws: the board and the pieces in their starting places.
    game.check_screenshots(&out, "start", Square::all()).await;

    for mv in &LINE[..UNDO_AT] {
        game.play(mv).await;
    }
    game.play(TAKEN_BACK).await;
    red.click_control("Request undo", STEP).await;
    black.click_control("Accept", STEP).await;
    game.taken_back(1).await;

    for mv in &LINE[UNDO_AT..RELOAD_AT] {
        game.play(mv).await;
    }
    black.reload().await;
    black
        .wait(
            "its seat and the moves again after the reload",
            LOAD,
            |hooks| {
                (hooks.seat == Seat::Player(Color::Black)
                    && hooks.connected
                    && hooks.moves == game.moves)
                    .then_some(())
            },
        )
        .await;
    // Both draw the position as it is, the reloaded one from what the relay sent it.
    game.check_screenshots(&out, "reloaded", Square::all())
        .await;

    for mv in &LINE[RELOAD_AT..] {
        game.play(mv).await;
    }
    for page in [&red, &black] {
        page.wait("the checkmate in its status", STEP, |hooks| {
            hooks
                .status
                .to_lowercase()
                .contains("checkmate")
                .then_some(())
        })
        .await;
    }
    // The last moves' squares: their pieces where they went, nothing where they came from.
    let touched: Vec<Square> = LINE[LINE.len() - 4..]
        .iter()
        .flat_map(|mv| {
            let mv = iccs(mv);
            [mv.from, mv.to]
        })
        .collect();
    game.check_screenshots(&out, "mate", touched).await;

    red.close().await;
    black.close().await;
    relay.stop().await;
    assert_eq!(relay.archived_moves().await, LINE, "the archived record");
}

async fn check_a_phone() {
    let out = artefacts();
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("no temporary directory: {err}"));
    let relay = Relay::start(dir.path(), &out.join("phone-relay.log")).await;
    let driver = Chromedriver::start(&out.join("phone-chromedriver.log")).await;
    let phone = open(&driver, "phone", PHONE, dir.path()).await;
    phone.goto(&relay.link("create")).await;
    expect_the_client(&phone).await;
    seated(&phone).await;
    phone
        .wait_settled("the board and its controls", LOAD, |hooks| {
            let controls = hooks.controls.clone();
            hooks
                .board
                .filter(|_| !controls.is_empty())
                .map(|board| (board, controls))
        })
        .await;
    let (shot, hooks) = phone.screenshot(&out, "board").await;
    let board = hooks.board.unwrap_or_else(|| panic!("the board went"));
    let on_screen = browser::hooks::Rect {
        x: hooks.canvas.x + f64::from(board.min.x),
        y: hooks.canvas.y + f64::from(board.min.y),
        w: f64::from(board.width()),
        h: f64::from(board.height()),
    };
    assert!(
        hooks.viewport.contains(on_screen),
        "the board {on_screen:?} spills out of the phone's viewport {:?} (see {})",
        hooks.viewport,
        shot.path.display()
    );
    // The board takes the phone's width, or near it: a board squeezed beside the controls
    // is too small to play on with a finger.
    assert!(
        on_screen.w >= 0.9 * hooks.viewport.w,
        "the board is {} px wide on a {} px screen (see {})",
        on_screen.w,
        hooks.viewport.w,
        shot.path.display()
    );
    for name in hooks.controls.keys() {
        let rect = hooks
            .control(name)
            .unwrap_or_else(|| panic!("{name} is listed"));
        assert!(
            hooks.viewport.contains(rect),
            "the control {name:?} at {rect:?} is off the phone's screen {:?} (see {})",
            hooks.viewport,
            shot.path.display()
        );
    }
    shot.check_board(&board)
        .unwrap_or_else(|err| panic!("phone: {err}"));
    shot.check_squares(&board, &Position::startpos(), Square::all())
        .unwrap_or_else(|err| panic!("phone: {err}"));
    phone.close().await;
}

/// The game as both pages should show it, and the moves that change it.
struct Game<'a> {
    pages: ByColor<&'a Page>,
    /// The moves played so far, in ICCS.
    moves: Vec<String>,
}

impl<'a> Game<'a> {
    fn new(pages: ByColor<&'a Page>) -> Self {
        Self {
            pages,
            moves: Vec::new(),
        }
    }

    /// The position the moves lead to.
    fn position(&self) -> Position {
        replay(&self.moves)
    }

    /// The side to move plays `mv` on its page, and both pages show it.
    async fn play(&mut self, mv: &str) {
        let mover = self.pages[self.position().turn()];
        mover.play(mv).await;
        self.moves.push(mv.to_string());
        self.both_show(&format!("{mv} played")).await;
    }

    /// The last `plies` moves are taken back, and both pages show it.
    async fn taken_back(&mut self, plies: usize) {
        let kept = self.moves.len() - plies;
        let undone = self.moves.split_off(kept);
        self.both_show(&format!("{undone:?} taken back")).await;
    }

    /// Waits for both pages' move lists to be [`Self::moves`].
    async fn both_show(&self, what: &str) {
        let moves = &self.moves;
        let wait = |page: &'a Page| {
            page.wait(what, STEP, move |hooks| {
                (hooks.moves == *moves).then_some(())
            })
        };
        tokio::join!(wait(self.pages.red), wait(self.pages.black));
    }

    /// Screenshots of both pages, saved as `NAME-what.png`, in which the board is drawn and
    /// each of `squares` shows what the position has there.
    async fn check_screenshots(
        &self,
        out: &std::path::Path,
        what: &str,
        squares: impl IntoIterator<Item = Square>,
    ) {
        let position = self.position();
        let squares: Vec<Square> = squares.into_iter().collect();
        for page in [self.pages.red, self.pages.black] {
            let (shot, hooks) = page.screenshot(out, what).await;
            let board = hooks
                .board
                .unwrap_or_else(|| panic!("{} has no board to screenshot", page.name));
            shot.check_board(&board)
                .unwrap_or_else(|err| panic!("{}: {err}", page.name));
            shot.check_squares(&board, &position, squares.iter().copied())
                .unwrap_or_else(|err| panic!("{}: {err}", page.name));
        }
    }
}

/// A new browser called `name`, its profile in a directory of its own under `dir`.
async fn open(
    driver: &Chromedriver,
    name: &'static str,
    screen: Screen,
    dir: &std::path::Path,
) -> Page {
    let profile = dir.join(format!("profile-{name}"));
    std::fs::create_dir(&profile)
        .unwrap_or_else(|err| panic!("cannot create {}: {err}", profile.display()));
    let page = Page::new(name, driver.open(screen, &profile).await);
    assert!(
        page.has_webgl2().await,
        "{name}: this Chromium gives no WebGL2 context (SwiftShader missing?)"
    );
    page
}

/// Fails at once, and clearly, when the relay was built without the web client.
async fn expect_the_client(page: &Page) {
    let text = page.text().await;
    assert!(
        !text.contains("built without the web client"),
        "the relay serves no web client: build the bundle (`cargo xtask web`) and the relay \
         with XQ_WEB_DIR=$PWD/target/web; its page says {text:?}"
    );
}

/// The colour the page plays, once it is seated and connected.
async fn seated(page: &Page) -> Color {
    page.wait("a seat", LOAD, |hooks| match hooks.seat {
        Seat::Player(color) if hooks.connected => Some(color),
        _ => None,
    })
    .await
}

/// The position after `moves` from the start.
fn replay(moves: &[impl AsRef<str>]) -> Position {
    replay_from(Position::startpos(), moves)
}

/// The position after `moves` from `position`.
///
/// # Panics
///
/// When a move is illegal where it is played.
fn replay_from(position: Position, moves: &[impl AsRef<str>]) -> Position {
    moves.iter().fold(position, |position, text| {
        let text = text.as_ref();
        let mv = iccs(text)
            .to_move(&position)
            .unwrap_or_else(|err| panic!("{text} is illegal here: {err}"));
        position
            .play(mv)
            .unwrap_or_else(|err| panic!("{text} is illegal here: {}", err.reason))
    })
}

/// `text` as an ICCS move.
fn iccs(text: &str) -> Iccs {
    text.parse()
        .unwrap_or_else(|err| panic!("{text:?} is no ICCS move: {err}"))
}

/// Where screenshots and logs are left for a look: `target/browser/`.
fn artefacts() -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap_or_else(|| panic!("the target directory has a parent"))
        .join("browser");
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|err| panic!("cannot create {}: {err}", dir.display()));
    dir
}
