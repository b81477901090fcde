//! Where the board lies on screen: from squares to points and from a click back to a square.

use xq_rules::Square;

use crate::{Cell, Orientation};

/// A point on screen, in the toolkit's logical pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    /// From the left.
    pub x: f32,
    /// From the top.
    pub y: f32,
}

/// The board placed in a rectangle of the window: the largest board of the right shape that
/// fits, centred. The drawing code and the click handling both use it, so a click always lands
/// on the point that was drawn there.
///
/// The playing grid has 8 × 9 intervals of `spacing` between its 9 × 10 lines; a margin of
/// [`BoardLayout::MARGIN`] intervals on every side holds the outer pieces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardLayout {
    /// The top-left corner of the board, margin included.
    pub min: Point,
    /// The distance between neighbouring lines.
    pub spacing: f32,
    /// How the board is turned.
    pub orientation: Orientation,
}

impl BoardLayout {
    /// The margin around the grid, in intervals: room for a piece's radius and a bit of wood.
    pub const MARGIN: f32 = 0.8;
    /// A piece's radius, in intervals: pieces on neighbouring points almost touch.
    pub const PIECE_RADIUS: f32 = 0.45;

    /// The largest board that fits the rectangle from `min` of `width` × `height`, centred in it.
    #[must_use]
    pub fn fit(min: Point, width: f32, height: f32, orientation: Orientation) -> Self {
        let spacing = (width / Self::units_wide())
            .min(height / Self::units_high())
            .max(0.0);
        let x = min.x + (width - spacing * Self::units_wide()) / 2.0;
        let y = min.y + (height - spacing * Self::units_high()) / 2.0;
        Self {
            min: Point { x, y },
            spacing,
            orientation,
        }
    }

    /// The height of a board `width` wide, margin included: the room to give a board across
    /// the whole width of a tall, narrow window (a phone held upright).
    #[must_use]
    pub fn height_for(width: f32) -> f32 {
        width / Self::units_wide() * Self::units_high()
    }

    /// The board's width, margin included.
    #[must_use]
    pub fn width(&self) -> f32 {
        self.spacing * Self::units_wide()
    }

    /// The board's height, margin included.
    #[must_use]
    pub fn height(&self) -> f32 {
        self.spacing * Self::units_high()
    }

    /// A piece's radius on screen.
    #[must_use]
    pub fn piece_radius(&self) -> f32 {
        self.spacing * Self::PIECE_RADIUS
    }

    /// The centre of a grid cell, whether or not it is a square (fractions allowed, so the
    /// drawing can place the river text between rows).
    #[must_use]
    pub fn grid_point(&self, col: f32, row: f32) -> Point {
        Point {
            x: self.min.x + (Self::MARGIN + col) * self.spacing,
            y: self.min.y + (Self::MARGIN + row) * self.spacing,
        }
    }

    /// Where `square` is drawn.
    #[must_use]
    pub fn point(&self, square: Square) -> Point {
        let cell = self.orientation.cell(square);
        self.grid_point(f32::from(cell.col), f32::from(cell.row))
    }

    /// The square nearest to `point`, if the point lies within half an interval of it: the
    /// whole board is clickable, and a click in the margin far from the grid hits nothing.
    #[must_use]
    pub fn square_at(&self, point: Point) -> Option<Square> {
        if self.spacing <= 0.0 {
            return None;
        }
        let col = ((point.x - self.min.x) / self.spacing - Self::MARGIN).round();
        let row = ((point.y - self.min.y) / self.spacing - Self::MARGIN).round();
        if !(0.0..9.0).contains(&col) || !(0.0..10.0).contains(&row) {
            return None;
        }
        // Both are whole numbers in range after the checks above, so the casts are exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let cell = Cell {
            col: col as u8,
            row: row as u8,
        };
        self.orientation.square(cell)
    }

    const fn units_wide() -> f32 {
        8.0 + 2.0 * Self::MARGIN
    }

    const fn units_high() -> f32 {
        9.0 + 2.0 * Self::MARGIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(orientation: Orientation) -> BoardLayout {
        // 96 wide and 106 high at a spacing of 10: exactly the board.
        BoardLayout::fit(Point { x: 20.0, y: 30.0 }, 96.0, 106.0, orientation)
    }

    #[test]
    fn the_board_fills_the_tighter_dimension_and_is_centred() {
        let wide = BoardLayout::fit(Point::default(), 500.0, 106.0, Orientation::RED_BOTTOM);
        assert!((wide.spacing - 10.0).abs() < 1e-4);
        assert!((wide.min.x - 202.0).abs() < 1e-3);
        assert!((wide.height() - 106.0).abs() < 1e-3);
        let l = layout(Orientation::RED_BOTTOM);
        assert!((l.width() - 96.0).abs() < 1e-3);
    }

    #[test]
    fn a_board_across_the_width_fills_the_height_made_for_it() {
        let height = BoardLayout::height_for(390.0);
        assert!((height - 430.625).abs() < 1e-3, "{height}");
        let l = BoardLayout::fit(Point::default(), 390.0, height, Orientation::RED_BOTTOM);
        assert!((l.width() - 390.0).abs() < 1e-3);
        assert!((l.height() - height).abs() < 1e-3);
        assert!(l.min.x.abs() < 1e-3 && l.min.y.abs() < 1e-3);
    }

    #[test]
    fn squares_are_drawn_where_clicks_find_them() {
        for orientation in [Orientation::RED_BOTTOM, Orientation::RED_BOTTOM.flipped()] {
            let l = layout(orientation);
            for square in Square::all() {
                let p = l.point(square);
                assert_eq!(l.square_at(p), Some(square));
                // Anywhere within a little less than half an interval still hits it.
                let near = Point {
                    x: p.x + 4.9,
                    y: p.y - 4.9,
                };
                assert_eq!(l.square_at(near), Some(square));
            }
        }
    }

    #[test]
    fn red_at_the_bottom_puts_e0_at_the_bottom_centre() {
        let l = layout(Orientation::RED_BOTTOM);
        assert_eq!(l.point(Square::E0), Point { x: 68.0, y: 128.0 });
        assert_eq!(l.point(Square::A9), Point { x: 28.0, y: 38.0 });
        let flipped = layout(Orientation::RED_BOTTOM.flipped());
        assert_eq!(flipped.point(Square::E9), Point { x: 68.0, y: 128.0 });
    }

    #[test]
    fn clicks_off_the_grid_hit_nothing() {
        let l = layout(Orientation::RED_BOTTOM);
        assert_eq!(l.square_at(Point { x: 21.0, y: 31.0 }), None);
        assert_eq!(l.square_at(Point { x: 500.0, y: 60.0 }), None);
        assert_eq!(l.square_at(Point { x: -5.0, y: -5.0 }), None);
        let empty = BoardLayout::fit(Point::default(), 0.0, 0.0, Orientation::RED_BOTTOM);
        assert_eq!(empty.square_at(Point::default()), None);
    }
}
