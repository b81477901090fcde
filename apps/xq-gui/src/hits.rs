//! The named controls drawn in the last frame, and where: what a script (the browser test, a
//! test of the window) clicks, found by name rather than by guessing coordinates.

use eframe::egui::{Rect, Response};

/// Named rectangles of the last frame, in the toolkit's logical pixels.
#[derive(Debug, Default)]
pub(crate) struct Hits {
    rects: Vec<(String, Rect)>,
}

impl Hits {
    /// Forgets the previous frame's controls.
    pub(crate) fn clear(&mut self) {
        self.rects.clear();
    }

    /// Notes that the control `name` was drawn where `response` says, and hands the response
    /// back, so a button is noted where it is drawn: `hits.note("Resign", ui.button("Resign"))`.
    pub(crate) fn note(&mut self, name: &str, response: Response) -> Response {
        self.rects.push((name.to_owned(), response.rect));
        response
    }

    /// Every control of the last frame, in drawing order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, Rect)> {
        self.rects.iter().map(|(name, rect)| (name.as_str(), *rect))
    }
}
