//! The data hooks a browser test reads off the canvas element: what each attribute holds, and
//! which of them changed since they were last written.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use xq_client::Room;
use xq_gui_model::BoardLayout;
use xq_rules::{Color, Move};

/// The attribute values last written, so each one is written again only when it changes (a
/// DOM write per frame per attribute would be wasted work, and noise for a test watching
/// mutations).
#[derive(Debug, Default)]
pub struct Hooks {
    written: BTreeMap<&'static str, String>,
}

impl Hooks {
    /// No attribute written yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes that attribute `name` should now hold `value`; `true` if that differs from what
    /// was last noted, so it must be written.
    pub fn update(&mut self, name: &'static str, value: &str) -> bool {
        match self.written.get_mut(name) {
            Some(old) if old == value => false,
            Some(old) => {
                value.clone_into(old);
                true
            }
            None => {
                self.written.insert(name, value.to_owned());
                true
            }
        }
    }
}

/// `data-board`: `"{min_x} {min_y} {spacing} {red|black}"`, the board's top-left corner
/// (margin included) and line spacing in CSS pixels from the canvas's top-left, and the colour
/// at the bottom. The square on grid column `c` and row `r` (from the top) is at
/// `min + (0.8 + c, 0.8 + r) × spacing` ([`BoardLayout::MARGIN`]).
///
/// # Examples
///
/// ```
/// use xq_gui_model::{BoardLayout, Orientation, Point};
///
/// let layout = BoardLayout::fit(Point { x: 0.0, y: 0.0 }, 96.0, 106.0, Orientation::RED_BOTTOM);
/// assert_eq!(xq_gui_web::board_attr(&layout), "0 0 10 red");
/// ```
#[must_use]
pub fn board_attr(layout: &BoardLayout) -> String {
    let bottom = match layout.orientation.bottom {
        Color::Red => "red",
        Color::Black => "black",
    };
    format!(
        "{} {} {} {bottom}",
        layout.min.x, layout.min.y, layout.spacing
    )
}

/// `data-controls`: a JSON object of the named controls, `{"Name":[x,y,w,h],...}`, in CSS
/// pixels from the canvas's top-left. A name drawn twice keeps its first place.
///
/// # Examples
///
/// ```
/// let controls = [("Resign", [10.0, 20.0, 50.0, 18.5]), ("Say \"hi\"", [0.0, 0.0, 1.0, 1.0])];
/// assert_eq!(
///     xq_gui_web::controls_attr(controls),
///     r#"{"Resign":[10,20,50,18.5],"Say \"hi\"":[0,0,1,1]}"#
/// );
/// ```
#[must_use]
pub fn controls_attr<'a>(controls: impl IntoIterator<Item = (&'a str, [f32; 4])>) -> String {
    let mut seen = Vec::new();
    let mut json = String::from("{");
    for (name, [x, y, w, h]) in controls {
        if seen.contains(&name) {
            continue;
        }
        if !seen.is_empty() {
            json.push(',');
        }
        seen.push(name);
        json_string(&mut json, name);
        // Writing to a String cannot fail.
        let _ = write!(json, ":[{x},{y},{w},{h}]");
    }
    json.push('}');
    json
}

/// `data-seat`: `red`, `black`, `watching` (in a room without a seat) or `none` (in no room).
#[must_use]
pub const fn seat_attr(room: Option<Room>) -> &'static str {
    match room {
        Some(Room {
            seat: Some(Color::Red),
            ..
        }) => "red",
        Some(Room {
            seat: Some(Color::Black),
            ..
        }) => "black",
        Some(Room { seat: None, .. }) => "watching",
        None => "none",
    }
}

/// `data-moves`: the moves in ICCS, separated by spaces (`"h2e2 h9g7"`).
#[must_use]
pub fn moves_attr(moves: &[Move]) -> String {
    let mut text = String::new();
    for mv in moves {
        if !text.is_empty() {
            text.push(' ');
        }
        let _ = write!(text, "{mv}");
    }
    text
}

/// Appends `text` as a JSON string.
fn json_string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(json, "\\u{:04x}", u32::from(c));
            }
            c => json.push(c),
        }
    }
    json.push('"');
}

#[cfg(test)]
mod tests {
    use xq_gui_model::{Orientation, Point};
    use xq_rules::Square;

    use super::*;

    #[test]
    fn an_attribute_is_written_only_when_it_changes() {
        let mut hooks = Hooks::new();
        assert!(hooks.update("data-status", "Red to move"));
        assert!(!hooks.update("data-status", "Red to move"));
        assert!(hooks.update("data-code", ""), "each name on its own");
        assert!(hooks.update("data-status", "Black to move"));
        assert!(!hooks.update("data-status", "Black to move"));
    }

    #[test]
    fn the_board_hook_places_every_square() {
        let layout = BoardLayout::fit(
            Point { x: 4.0, y: 2.0 },
            192.0,
            212.0,
            Orientation::RED_BOTTOM.flipped(),
        );
        let attr = board_attr(&layout);
        assert_eq!(attr, "4 2 20 black");
        // A script finds e9 (Black's general, at the bottom when flipped) from the hook alone.
        let numbers: Vec<f32> = attr
            .split(' ')
            .take(3)
            .map(|n| n.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let (col, row) = (4.0, 9.0);
        let at = Point {
            x: numbers[0] + (BoardLayout::MARGIN + col) * numbers[2],
            y: numbers[1] + (BoardLayout::MARGIN + row) * numbers[2],
        };
        assert_eq!(layout.square_at(at), Some(Square::E9));
    }

    #[test]
    fn controls_are_json_with_escaped_names() {
        assert_eq!(controls_attr([]), "{}");
        let controls = [
            ("a\\b", [1.0, 2.0, 3.0, 4.0]),
            ("tab\t", [0.5, 0.0, 0.0, 0.0]),
            ("a\\b", [9.0, 9.0, 9.0, 9.0]),
        ];
        assert_eq!(
            controls_attr(controls),
            r#"{"a\\b":[1,2,3,4],"tab\u0009":[0.5,0,0,0]}"#
        );
    }

    #[test]
    fn seats_and_moves_read_as_words() {
        let code = "K7QX3M".parse().unwrap_or_else(|e| panic!("{e}"));
        let room = |seat| Some(Room { code, seat });
        assert_eq!(seat_attr(room(Some(Color::Red))), "red");
        assert_eq!(seat_attr(room(Some(Color::Black))), "black");
        assert_eq!(seat_attr(room(None)), "watching");
        assert_eq!(seat_attr(None), "none");
        let moves = [
            Move::new(Square::H2, Square::E2),
            Move::new(Square::H9, Square::G7),
        ];
        assert_eq!(moves_attr(&moves), "h2e2 h9g7");
        assert_eq!(moves_attr(&[]), "");
    }
}
