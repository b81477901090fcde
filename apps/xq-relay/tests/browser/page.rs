//! One browser's page of the web client, driven as a person would: real pointer input on the
//! canvas, aimed through the page's hooks, and screenshots.

use std::cell::RefCell;
use std::fmt::Debug;
use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Client;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use xq_rules::Square;
use xq_rules::iccs::Iccs;

use super::hooks::{Hooks, SCRIPT};
use super::pixels::Shot;
use super::wait::wait_for;

/// Between a press and its release, and between the two clicks of a move: a few frames, so
/// the page sees each as a person's.
const HOLD: Duration = Duration::from_millis(60);

/// How long a control must stay put before it is clicked.
const SETTLE: Duration = Duration::from_millis(400);

/// A browser showing the web client.
pub(crate) struct Page {
    /// Its name in messages and screenshot files.
    pub(crate) name: &'static str,
    client: Client,
}

impl Page {
    /// The page of the browser `client`, called `name`.
    pub(crate) fn new(name: &'static str, client: Client) -> Self {
        Self { name, client }
    }

    /// Navigates to `url`.
    pub(crate) async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|err| panic!("{} cannot open {url}: {err}", self.name));
    }

    /// Reloads the page, as a person pressing F5, and checks that the document is a new one
    /// (a mark left in the old one is gone).
    pub(crate) async fn reload(&self) {
        let mark = "window.xqBeforeReload";
        self.client
            .execute(&format!("{mark} = true;"), vec![])
            .await
            .unwrap_or_else(|err| panic!("{} cannot mark its document: {err}", self.name));
        self.client
            .refresh()
            .await
            .unwrap_or_else(|err| panic!("{} cannot reload: {err}", self.name));
        let marked = self
            .client
            .execute(&format!("return {mark} === true;"), vec![])
            .await
            .unwrap_or_else(|err| panic!("{} cannot look for its mark: {err}", self.name));
        assert_eq!(
            marked.as_bool(),
            Some(false),
            "{} did not reload",
            self.name
        );
    }

    /// The fragment of the page's address (after the `#`), if it has one.
    pub(crate) async fn fragment(&self) -> Option<String> {
        self.client
            .current_url()
            .await
            .unwrap_or_else(|err| panic!("{} cannot tell its address: {err}", self.name))
            .fragment()
            .map(str::to_string)
    }

    /// The page's visible text.
    pub(crate) async fn text(&self) -> String {
        let text = self
            .client
            .execute(
                "return document.body ? document.body.innerText : '';",
                vec![],
            )
            .await
            .unwrap_or_else(|err| panic!("{} cannot read its text: {err}", self.name));
        text.as_str().unwrap_or_default().to_string()
    }

    /// Whether the browser gives a canvas a WebGL2 context, which the client draws with.
    pub(crate) async fn has_webgl2(&self) -> bool {
        let script = "return !!document.createElement('canvas').getContext('webgl2');";
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|err| panic!("{} cannot probe WebGL2: {err}", self.name))
            .as_bool()
            .unwrap_or(false)
    }

    /// The hooks as they are now; `Err` while the page has no canvas (or is loading).
    pub(crate) async fn hooks(&self) -> Result<Hooks, String> {
        let answer = self
            .client
            .execute(SCRIPT, vec![])
            .await
            .map_err(|err| format!("the hooks script failed: {err}"))?;
        Hooks::parse(answer)
    }

    /// What `pick` takes from the hooks once it takes something, within `limit`.
    ///
    /// # Panics
    ///
    /// When `limit` passes first, with the last hooks seen.
    pub(crate) async fn wait<T>(
        &self,
        what: &str,
        limit: Duration,
        pick: impl Fn(&Hooks) -> Option<T>,
    ) -> T {
        let what = format!("{} to show {what}", self.name);
        let pick = &pick;
        wait_for(&what, limit, || async move {
            let hooks = self.hooks().await?;
            pick(&hooks).ok_or_else(|| hooks.summary())
        })
        .await
    }

    /// A click (press and release of the left button) at `x`, `y` in the viewport.
    pub(crate) async fn click(&self, (x, y): (f64, f64)) {
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveTo {
                duration: None,
                x: x.round(),
                y: y.round(),
            })
            .pause(HOLD)
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .pause(HOLD)
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client
            .perform_actions(mouse)
            .await
            .unwrap_or_else(|err| panic!("{} cannot click at {x},{y}: {err}", self.name));
    }

    /// A click on `square`'s centre, where the board (as its hook tells now) draws it.
    pub(crate) async fn click_square(&self, square: Square) {
        let (board, canvas) = self
            .wait("a board", Duration::from_secs(5), |hooks| {
                hooks.board.map(|board| (board, hooks.canvas))
            })
            .await;
        let at = board.point(square);
        self.click((canvas.x + f64::from(at.x), canvas.y + f64::from(at.y)))
            .await;
    }

    /// Plays `mv` by clicking its piece, then its destination.
    pub(crate) async fn play(&self, mv: &str) {
        let Ok(mv) = mv.parse::<Iccs>() else {
            panic!("{mv:?} is no ICCS move");
        };
        self.click_square(mv.from).await;
        tokio::time::sleep(HOLD).await;
        self.click_square(mv.to).await;
    }

    /// What `pick` takes from the hooks once it has taken the same for [`SETTLE`], within
    /// `limit`. What has just appeared may still move: egui lays a new window out once unseen
    /// to learn its size, then places it, and a new layout can take a frame to settle.
    pub(crate) async fn wait_settled<T: Clone + PartialEq + Debug>(
        &self,
        what: &str,
        limit: Duration,
        pick: impl Fn(&Hooks) -> Option<T>,
    ) -> T {
        let seen: RefCell<Option<(T, Instant)>> = RefCell::new(None);
        let what = format!("{} to show {what}, settled", self.name);
        let (seen, pick) = (&seen, &pick);
        wait_for(&what, limit, || async move {
            let hooks = self.hooks().await?;
            let Some(now) = pick(&hooks) else {
                seen.replace(None);
                return Err(hooks.summary());
            };
            let mut seen = seen.borrow_mut();
            match &*seen {
                Some((before, since)) if *before == now && since.elapsed() >= SETTLE => Ok(now),
                Some((before, since)) if *before == now => {
                    Err(format!("{now:?} for {:?} only", since.elapsed()))
                }
                _ => {
                    let moved = format!("{now:?} just now");
                    *seen = Some((now, Instant::now()));
                    Err(moved)
                }
            }
        })
        .await
    }

    /// Clicks the control called `name` once it is drawn and has settled (within `limit`).
    pub(crate) async fn click_control(&self, name: &str, limit: Duration) {
        let what = format!("a {name:?} control");
        let rect = self
            .wait_settled(&what, limit, |hooks| hooks.control(name))
            .await;
        self.click(rect.centre()).await;
    }

    /// A screenshot of the viewport, saved in `dir` as `NAME-what.png`, with the hooks read
    /// just before it.
    pub(crate) async fn screenshot(&self, dir: &Path, what: &str) -> (Shot, Hooks) {
        let hooks = self
            .hooks()
            .await
            .unwrap_or_else(|err| panic!("{} has no hooks for its screenshot: {err}", self.name));
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|err| panic!("{} cannot take a screenshot: {err}", self.name));
        let path = dir.join(format!("{}-{what}.png", self.name));
        let shot = Shot::new(&png, &hooks, &path);
        println!("screenshot: {}", path.display());
        (shot, hooks)
    }

    /// Closes the browser.
    pub(crate) async fn close(self) {
        self.client
            .close()
            .await
            .unwrap_or_else(|err| panic!("{} cannot close: {err}", self.name));
    }
}
