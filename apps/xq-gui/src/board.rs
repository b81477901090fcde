//! The board: drawn from the view-model, with clicks and drags turned back into squares.

use eframe::egui::{
    Align2, Color32, CursorIcon, FontFamily, FontId, Pos2, Rect, Response, Sense, Stroke,
    StrokeKind, Ui, Vec2, pos2, vec2,
};
use xq_gui_model::{BoardLayout, Point, ViewModel};
use xq_rules::{Color, Move, Piece, Square};

use crate::fonts;

/// The colours of the board and pieces. The wood is what the X11 smoke test looks for.
mod palette {
    use eframe::egui::Color32;

    pub(super) const WOOD: Color32 = Color32::from_rgb(0xE6, 0xBD, 0x78);
    pub(super) const WOOD_EDGE: Color32 = Color32::from_rgb(0x9A, 0x64, 0x2E);
    pub(super) const LINE: Color32 = Color32::from_rgb(0x5C, 0x3A, 0x1A);
    pub(super) const SHADOW: Color32 = Color32::from_black_alpha(70);
    pub(super) const FACE: Color32 = Color32::from_rgb(0xFB, 0xEE, 0xD2);
    pub(super) const RIM: Color32 = Color32::from_rgb(0xB8, 0x86, 0x4B);
    pub(super) const RED: Color32 = Color32::from_rgb(0xC0, 0x1E, 0x1E);
    pub(super) const BLACK: Color32 = Color32::from_rgb(0x1E, 0x1E, 0x1E);
    pub(super) const SELECTED: Color32 = Color32::from_rgb(0x1F, 0x8F, 0x4E);
    pub(super) const TARGET: Color32 = Color32::from_rgba_premultiplied(0x14, 0x70, 0x3C, 0xC0);
    pub(super) const LAST_MOVE: Color32 = Color32::from_rgb(0x2A, 0x6E, 0xC8);
    /// The hint: a ring on its piece and an arrow to its target.
    pub(super) const HINT: Color32 = Color32::from_rgb(0x8E, 0x3C, 0xC8);
    pub(super) const CHECK: Color32 = Color32::from_rgb(0xE0, 0x10, 0x10);
    pub(super) const BANNER: Color32 = Color32::from_rgba_premultiplied(210, 210, 210, 210);
}

/// What the board did this frame.
pub(crate) struct BoardResponse {
    /// Where the board was drawn: the squares' screen positions (tests click on them).
    pub(crate) layout: BoardLayout,
    /// Clicks to forward to the view-model, in order (`None`: off the grid).
    pub(crate) clicks: Vec<Option<Square>>,
}

/// Draws the board in all the space `ui` has left and collects clicks: a click selects or
/// moves; a drag from a piece to a target is a click on each end.
pub(crate) fn show(ui: &mut Ui, view: &ViewModel) -> BoardResponse {
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let layout = BoardLayout::fit(
        point(rect.min),
        rect.width(),
        rect.height(),
        view.orientation(),
    );
    let board = Board {
        ui,
        layout,
        dragging: response
            .dragged()
            .then(|| response.interact_pointer_pos())
            .flatten(),
    };
    board.paint(view);
    let clicks = clicks(&response, &layout, view);
    if response.hovered() {
        ui.ctx().set_cursor_icon(CursorIcon::PointingHand);
    }
    BoardResponse { layout, clicks }
}

/// The clicks a frame's pointer input means on the board.
fn clicks(response: &Response, layout: &BoardLayout, view: &ViewModel) -> Vec<Option<Square>> {
    let at = |pos: Option<Pos2>| pos.and_then(|pos| layout.square_at(point(pos)));
    let mut clicks = Vec::new();
    if response.clicked() {
        clicks.push(at(response.interact_pointer_pos()));
    }
    if response.drag_started() {
        let from = at(response.ctx.input(|input| input.pointer.press_origin()));
        // Dragging the piece already picked up keeps it picked up.
        if from.is_some() && from != view.selection().square() {
            clicks.push(from);
        }
    }
    if response.drag_stopped() {
        let to = at(response.interact_pointer_pos());
        if to != view.selection().square() {
            clicks.push(to);
        }
    }
    clicks
}

struct Board<'a> {
    ui: &'a Ui,
    layout: BoardLayout,
    /// Where the picked-up piece is being dragged to.
    dragging: Option<Pos2>,
}

impl Board<'_> {
    fn paint(&self, view: &ViewModel) {
        self.wood();
        self.grid();
        self.file_numbers();
        let last_move = view.last_move();
        if let Some(mv) = last_move {
            self.origin_mark(mv.from);
        }
        let selected = view.selection().square();
        let pos = view.position();
        for (square, piece) in pos.board().pieces() {
            if self.dragging.is_some() && Some(square) == selected {
                continue;
            }
            let at = self.pos(square);
            self.piece(at, piece);
            if last_move.is_some_and(|mv| mv.to == square) {
                self.ring(at, palette::LAST_MOVE);
            }
            if Some(square) == selected {
                self.ring(at, palette::SELECTED);
            }
        }
        for target in view.selection().targets() {
            if pos.board().piece_at(target).is_some() {
                self.ring(self.pos(target), palette::TARGET);
            } else {
                self.painter_circle(self.pos(target), 0.13, palette::TARGET);
            }
        }
        if let Some(hint) = view.hint_move() {
            self.hint(hint);
        }
        if let Some(general) = view.checked_general() {
            self.check(general);
        }
        if let (Some(at), Some(piece)) = (
            self.dragging,
            selected.and_then(|square| pos.board().piece_at(square)),
        ) {
            self.piece(at, piece);
            self.ring(at, palette::SELECTED);
        }
    }

    fn wood(&self) {
        let painter = self.ui.painter();
        let rect = Rect::from_min_size(
            pos(self.layout.min),
            vec2(self.layout.width(), self.layout.height()),
        );
        let corner = self.layout.spacing * 0.12;
        painter.rect_filled(
            rect.translate(Vec2::splat(self.layout.spacing * 0.06)),
            corner,
            palette::SHADOW,
        );
        painter.rect_filled(rect, corner, palette::WOOD);
        painter.rect_stroke(
            rect,
            corner,
            Stroke::new(self.width(0.05), palette::WOOD_EDGE),
            StrokeKind::Inside,
        );
    }

    fn grid(&self) {
        let painter = self.ui.painter();
        let line = Stroke::new(self.width(0.03), palette::LINE);
        let g = |col: f32, row: f32| pos(self.layout.grid_point(col, row));
        for row in 0_u8..10 {
            let row = f32::from(row);
            painter.line_segment([g(0.0, row), g(8.0, row)], line);
        }
        for col in 1_u8..8 {
            let col = f32::from(col);
            // The river cuts the inner files.
            painter.line_segment([g(col, 0.0), g(col, 4.0)], line);
            painter.line_segment([g(col, 5.0), g(col, 9.0)], line);
        }
        for (top, bottom) in [(0.0, 2.0), (7.0, 9.0)] {
            painter.line_segment([g(3.0, top), g(5.0, bottom)], line);
            painter.line_segment([g(5.0, top), g(3.0, bottom)], line);
        }
        painter.rect_stroke(
            Rect::from_two_pos(g(0.0, 0.0), g(8.0, 9.0)),
            0.0,
            Stroke::new(self.width(0.07), palette::LINE),
            StrokeKind::Middle,
        );
        // The cannons' and soldiers' starting points carry little corner marks.
        for row in [2_u8, 7] {
            for col in [1_u8, 7] {
                self.point_mark(col, row);
            }
        }
        for row in [3_u8, 6] {
            for col in (0_u8..9).step_by(2) {
                self.point_mark(col, row);
            }
        }
        let river = FontId::new(self.layout.spacing * 0.55, fonts::pieces());
        for (col, text) in [(2.0, "楚 河"), (6.0, "漢 界")] {
            painter.text(
                g(col, 4.5),
                Align2::CENTER_CENTER,
                text,
                river.clone(),
                palette::LINE,
            );
        }
    }

    /// Four small corners around a grid point (three or two at the board's edge).
    fn point_mark(&self, col: u8, row: u8) {
        let painter = self.ui.painter();
        let stroke = Stroke::new(self.width(0.025), palette::LINE);
        let centre = pos(self.layout.grid_point(f32::from(col), f32::from(row)));
        let gap = self.layout.spacing * 0.08;
        let arm = self.layout.spacing * 0.2;
        for dx in [-1.0_f32, 1.0] {
            if (col == 0 && dx < 0.0) || (col == 8 && dx > 0.0) {
                continue;
            }
            for dy in [-1.0_f32, 1.0] {
                let corner = centre + vec2(dx * gap, dy * gap);
                painter.line_segment([corner, corner + vec2(dx * arm, 0.0)], stroke);
                painter.line_segment([corner, corner + vec2(0.0, dy * arm)], stroke);
            }
        }
    }

    /// The files' numbers, each side counting from its own right: Chinese numerals for Red,
    /// digits for Black, as printed on Xiangqi boards.
    fn file_numbers(&self) {
        const CHINESE: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
        const DIGITS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
        let bottom = self.layout.orientation.bottom;
        let font = FontId::new(self.layout.spacing * 0.24, FontFamily::Proportional);
        let offset = BoardLayout::MARGIN * 0.78;
        for col in 0_u8..9 {
            for (side, row, number) in [(bottom, 9.0 + offset, 8 - col), (!bottom, -offset, col)] {
                let names = match side {
                    Color::Red => CHINESE,
                    Color::Black => DIGITS,
                };
                self.ui.painter().text(
                    pos(self.layout.grid_point(f32::from(col), row)),
                    Align2::CENTER_CENTER,
                    names[usize::from(number)],
                    font.clone(),
                    palette::LINE,
                );
            }
        }
    }

    fn piece(&self, at: Pos2, piece: Piece) {
        let painter = self.ui.painter();
        let r = self.layout.piece_radius();
        let ink = match piece.color {
            Color::Red => palette::RED,
            Color::Black => palette::BLACK,
        };
        painter.circle_filled(at + Vec2::splat(r * 0.09), r, palette::SHADOW);
        painter.circle(at, r, palette::FACE, Stroke::new(r * 0.1, palette::RIM));
        painter.circle_stroke(at, r * 0.8, Stroke::new(r * 0.05, ink));
        let glyph = FontId::new(r * 1.2, fonts::pieces());
        painter.text(at, Align2::CENTER_CENTER, piece.glyph(), glyph, ink);
    }

    fn ring(&self, at: Pos2, color: Color32) {
        let r = self.layout.piece_radius();
        self.ui
            .painter()
            .circle_stroke(at, r * 1.08, Stroke::new(r * 0.14, color));
    }

    /// A small hollow circle where the last move came from.
    fn origin_mark(&self, square: Square) {
        let r = self.layout.spacing * 0.16;
        self.ui.painter().circle(
            self.pos(square),
            r,
            palette::LAST_MOVE.gamma_multiply(0.35),
            Stroke::new(self.width(0.03), palette::LAST_MOVE),
        );
    }

    /// The hint: its piece ringed, an arrow to where it goes, and that point marked.
    fn hint(&self, mv: Move) {
        let (from, to) = (self.pos(mv.from), self.pos(mv.to));
        self.ring(from, palette::HINT);
        let stroke = Stroke::new(self.width(0.06), palette::HINT);
        self.ui.painter().arrow(from, to - from, stroke);
        self.ui.painter().circle_stroke(
            to,
            self.layout.piece_radius() * 0.6,
            Stroke::new(self.width(0.05), palette::HINT),
        );
    }

    fn painter_circle(&self, at: Pos2, radius: f32, color: Color32) {
        self.ui
            .painter()
            .circle_filled(at, self.layout.spacing * radius, color);
    }

    /// A red glow round the general in check and "將軍" across the river.
    fn check(&self, general: Square) {
        let painter = self.ui.painter();
        let at = self.pos(general);
        let r = self.layout.piece_radius();
        for (grow, alpha) in [(1.35, 0.25), (1.2, 0.5)] {
            painter.circle_stroke(
                at,
                r * grow,
                Stroke::new(r * 0.18, palette::CHECK.gamma_multiply(alpha)),
            );
        }
        self.ring(at, palette::CHECK);
        let centre = pos(self.layout.grid_point(4.0, 4.5));
        let banner = Rect::from_center_size(
            centre,
            vec2(self.layout.spacing * 2.6, self.layout.spacing * 1.1),
        );
        painter.rect_filled(banner, self.layout.spacing * 0.2, palette::BANNER);
        painter.rect_stroke(
            banner,
            self.layout.spacing * 0.2,
            Stroke::new(self.width(0.05), palette::CHECK),
            StrokeKind::Inside,
        );
        painter.text(
            centre,
            Align2::CENTER_CENTER,
            "將軍",
            FontId::new(self.layout.spacing * 0.8, fonts::pieces()),
            palette::CHECK,
        );
    }

    fn pos(&self, square: Square) -> Pos2 {
        pos(self.layout.point(square))
    }

    /// A line width of `fraction` of an interval, at least a pixel so thin lines never vanish.
    fn width(&self, fraction: f32) -> f32 {
        (self.layout.spacing * fraction).max(1.0)
    }
}

fn point(pos: Pos2) -> Point {
    Point { x: pos.x, y: pos.y }
}

const fn pos(point: Point) -> Pos2 {
    pos2(point.x, point.y)
}
