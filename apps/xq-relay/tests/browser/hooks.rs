//! The page's hooks for tests: the `data-*` attributes the web client keeps on its canvas
//! (`<canvas id="xq">`), with the canvas's place in the viewport, read in one script call.

use std::collections::BTreeMap;

use serde::Deserialize;
use xq_gui_model::{BoardLayout, Orientation, Point};
use xq_rules::Color;

/// The script that reads them: `null` until the canvas is there.
pub(crate) const SCRIPT: &str = r"
const canvas = document.getElementById('xq');
if (!canvas) { return null; }
const rect = canvas.getBoundingClientRect();
const hook = (name) => canvas.getAttribute('data-' + name);
return {
    board: hook('board'),
    controls: hook('controls'),
    status: hook('status'),
    code: hook('code'),
    seat: hook('seat'),
    moves: hook('moves'),
    connected: hook('connected'),
    canvas: [rect.left, rect.top, rect.width, rect.height],
    viewport: [0, 0, window.innerWidth, window.innerHeight],
    pixel_ratio: window.devicePixelRatio,
};
";

/// A rectangle in CSS pixels: from its left, top corner, so wide and so high.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(from = "[f64; 4]")]
pub(crate) struct Rect {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) w: f64,
    pub(crate) h: f64,
}

impl Rect {
    /// Its centre.
    pub(crate) fn centre(self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    /// The same rectangle moved by `dx`, `dy`.
    pub(crate) fn offset(self, dx: f64, dy: f64) -> Self {
        Self {
            x: self.x + dx,
            y: self.y + dy,
            ..self
        }
    }

    /// Whether `inner` lies wholly inside, allowing half a pixel for rounding.
    pub(crate) fn contains(self, inner: Self) -> bool {
        const SLACK: f64 = 0.5;
        inner.x >= self.x - SLACK
            && inner.y >= self.y - SLACK
            && inner.x + inner.w <= self.x + self.w + SLACK
            && inner.y + inner.h <= self.y + self.h + SLACK
    }
}

impl From<[f64; 4]> for Rect {
    fn from([x, y, w, h]: [f64; 4]) -> Self {
        Self { x, y, w, h }
    }
}

/// Which seat a page holds (`data-seat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seat {
    /// It plays this side.
    Player(Color),
    /// It watches.
    Watching,
    /// None yet.
    None,
}

/// What the page shows, as its hooks tell.
#[derive(Clone, Debug)]
pub(crate) struct Hooks {
    /// Where the board is drawn, relative to the canvas (`None` before it is).
    pub(crate) board: Option<BoardLayout>,
    /// The named controls drawn in the last frame, relative to the canvas.
    pub(crate) controls: BTreeMap<String, Rect>,
    /// The status line.
    pub(crate) status: String,
    /// The room's code, empty before there is one.
    pub(crate) code: String,
    /// The page's seat.
    pub(crate) seat: Seat,
    /// The game's moves in ICCS.
    pub(crate) moves: Vec<String>,
    /// Whether it is connected to the relay.
    pub(crate) connected: bool,
    /// The canvas's rectangle in the viewport.
    pub(crate) canvas: Rect,
    /// The viewport.
    pub(crate) viewport: Rect,
    /// Device pixels per CSS pixel: the screenshot's scale.
    pub(crate) pixel_ratio: f64,
}

/// [`SCRIPT`]'s answer as it comes.
#[derive(Deserialize)]
struct Raw {
    board: Option<String>,
    controls: Option<String>,
    status: Option<String>,
    code: Option<String>,
    seat: Option<String>,
    moves: Option<String>,
    connected: Option<String>,
    canvas: Rect,
    viewport: Rect,
    pixel_ratio: f64,
}

impl Hooks {
    /// The hooks from [`SCRIPT`]'s answer: `Err` saying what is missing while the page has no
    /// canvas yet.
    ///
    /// # Panics
    ///
    /// When a hook is there but malformed: that is the page's bug, not a wait.
    pub(crate) fn parse(answer: serde_json::Value) -> Result<Self, String> {
        if answer.is_null() {
            return Err("no canvas#xq on the page".into());
        }
        let raw: Raw = serde_json::from_value(answer.clone())
            .unwrap_or_else(|err| panic!("unexpected hooks {answer}: {err}"));
        let controls = match raw.controls.as_deref() {
            None | Some("") => BTreeMap::new(),
            Some(json) => serde_json::from_str(json)
                .unwrap_or_else(|err| panic!("data-controls {json:?} is not a map: {err}")),
        };
        let seat = match raw.seat.as_deref() {
            Some("red") => Seat::Player(Color::Red),
            Some("black") => Seat::Player(Color::Black),
            Some("watching") => Seat::Watching,
            None | Some("none") => Seat::None,
            Some(other) => panic!("unexpected data-seat {other:?}"),
        };
        Ok(Self {
            board: raw.board.as_deref().map(board),
            controls,
            status: raw.status.unwrap_or_default(),
            code: raw.code.unwrap_or_default(),
            seat,
            moves: raw
                .moves
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            connected: raw.connected.as_deref() == Some("true"),
            canvas: raw.canvas,
            viewport: raw.viewport,
            pixel_ratio: raw.pixel_ratio,
        })
    }

    /// A named control's rectangle in the viewport.
    pub(crate) fn control(&self, name: &str) -> Option<Rect> {
        self.controls
            .get(name)
            .map(|rect| rect.offset(self.canvas.x, self.canvas.y))
    }

    /// A one-line summary for failure messages.
    pub(crate) fn summary(&self) -> String {
        format!(
            "seat {:?}, connected {}, code {:?}, status {:?}, moves {:?}, controls {:?}",
            self.seat,
            self.connected,
            self.code,
            self.status,
            self.moves,
            self.controls.keys().collect::<Vec<_>>()
        )
    }
}

/// `data-board`: `"{min_x} {min_y} {spacing} {red|black}"`, the colour at the bottom.
fn board(text: &str) -> BoardLayout {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [x, y, spacing, bottom] = fields[..] else {
        panic!("data-board {text:?} has not four fields");
    };
    let number = |field: &str| -> f32 {
        field
            .parse()
            .unwrap_or_else(|err| panic!("data-board {text:?}: {field:?} is no number: {err}"))
    };
    let bottom = match bottom {
        "red" => Color::Red,
        "black" => Color::Black,
        other => panic!("data-board {text:?}: {other:?} is neither red nor black"),
    };
    BoardLayout {
        min: Point {
            x: number(x),
            y: number(y),
        },
        spacing: number(spacing),
        orientation: Orientation { bottom },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(board: &str, controls: &str, seat: &str) -> serde_json::Value {
        json!({
            "board": board, "controls": controls, "status": "Red to move", "code": "ABCD",
            "seat": seat, "moves": "h2e2 h9g7", "connected": "true",
            "canvas": [10.0, 20.0, 800.0, 600.0], "viewport": [0, 0, 1100, 800],
            "pixel_ratio": 1.0,
        })
    }

    #[test]
    fn reads_every_hook() {
        let hooks = Hooks::parse(answer(
            "12.5 30 40.25 black",
            r#"{"Resign":[700,10,80,24]}"#,
            "black",
        ))
        .unwrap_or_else(|err| panic!("{err}"));
        let board = hooks.board.unwrap_or_else(|| panic!("a board"));
        assert_eq!(board.min, Point { x: 12.5, y: 30.0 });
        assert!((board.spacing - 40.25).abs() < f32::EPSILON);
        assert_eq!(board.orientation.bottom, Color::Black);
        assert_eq!(hooks.seat, Seat::Player(Color::Black));
        assert_eq!(hooks.moves, ["h2e2", "h9g7"]);
        assert!(hooks.connected);
        // Controls come relative to the canvas and are clicked in the viewport.
        assert_eq!(
            hooks.control("Resign"),
            Some(Rect {
                x: 710.0,
                y: 30.0,
                w: 80.0,
                h: 24.0
            })
        );
        assert_eq!(hooks.control("Accept"), None);
    }

    #[test]
    fn a_page_without_its_canvas_is_not_ready_yet() {
        assert!(Hooks::parse(serde_json::Value::Null).is_err());
    }

    #[test]
    #[should_panic(expected = "neither red nor black")]
    fn a_malformed_board_hook_is_the_page_s_bug() {
        let _ = Hooks::parse(answer("1 2 3 blue", "{}", "red"));
    }

    #[test]
    fn a_rectangle_contains_what_lies_inside_it() {
        let outer = Rect::from([0.0, 0.0, 390.0, 844.0]);
        assert!(outer.contains(Rect::from([10.0, 100.0, 370.0, 400.0])));
        assert!(!outer.contains(Rect::from([10.0, 100.0, 390.0, 400.0])));
        assert!(!outer.contains(Rect::from([-2.0, 100.0, 100.0, 100.0])));
    }
}
