//! Screenshots read by their pixels: whether the board's wood is drawn, and whether each
//! square shows the piece the game put there (a disc of a red or black piece) or nothing.
//!
//! The colours are the GUI's palette (apps/xq-gui's `board.rs`), with room for
//! anti-aliasing and for SwiftShader's rounding.

use std::path::{Path, PathBuf};

use image::{ImageFormat, Rgba, RgbaImage};
use xq_gui_model::{BoardLayout, Point};
use xq_rules::{Color, Position, Square};

use super::hooks::Hooks;

/// A screenshot of a page's viewport, placed by the hooks read with it.
pub(crate) struct Shot {
    image: RgbaImage,
    /// The canvas's top-left corner in the viewport, in CSS pixels.
    canvas: (f64, f64),
    /// Device pixels per CSS pixel.
    scale: f64,
    /// Where it was saved.
    pub(crate) path: PathBuf,
}

/// What a pixel looks like, by the palette.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Looks {
    /// The board's wood (E6BD78).
    Wood,
    /// A piece's face (FBEED2).
    Face,
    /// Red's ink (C01E1E): its pieces' glyphs and rings.
    RedInk,
    /// Black's ink (1E1E1E).
    BlackInk,
}

impl Looks {
    fn matches(self, Rgba([r, g, b, _]): Rgba<u8>) -> bool {
        let near = |value: u8, target: u8, slack: u8| value.abs_diff(target) <= slack;
        match self {
            Self::Wood => near(r, 0xE6, 24) && near(g, 0xBD, 24) && near(b, 0x78, 24),
            Self::Face => near(r, 0xFB, 20) && near(g, 0xEE, 20) && near(b, 0xD2, 24),
            Self::RedInk => r > 140 && g < 90 && b < 90,
            Self::BlackInk => r < 80 && g < 80 && b < 80,
        }
    }
}

impl Shot {
    /// Decodes the PNG `png` taken with `hooks` read and saves it at `path`.
    pub(crate) fn new(png: &[u8], hooks: &Hooks, path: &Path) -> Self {
        std::fs::write(path, png)
            .unwrap_or_else(|err| panic!("cannot save {}: {err}", path.display()));
        let image = image::load_from_memory_with_format(png, ImageFormat::Png)
            .unwrap_or_else(|err| panic!("the screenshot {} is no PNG: {err}", path.display()))
            .to_rgba8();
        Self {
            image,
            canvas: (hooks.canvas.x, hooks.canvas.y),
            scale: hooks.pixel_ratio,
            path: path.to_path_buf(),
        }
    }

    /// The fraction of the pixels in the square box of half-side `half` around `centre` (both
    /// in CSS pixels, relative to the canvas) that look like `looks`. Pixels off the picture
    /// count as not.
    pub(crate) fn fraction(&self, centre: Point, half: f32, looks: Looks) -> f64 {
        let (x0, x1) = self.span(centre.x, half, self.canvas.0);
        let (y0, y1) = self.span(centre.y, half, self.canvas.1);
        let mut total = 0_u32;
        let mut matching = 0_u32;
        for y in y0..y1 {
            for x in x0..x1 {
                total += 1;
                let pixel = u32::try_from(x)
                    .ok()
                    .zip(u32::try_from(y).ok())
                    .and_then(|(x, y)| self.image.get_pixel_checked(x, y));
                if pixel.is_some_and(|pixel| looks.matches(*pixel)) {
                    matching += 1;
                }
            }
        }
        if total == 0 {
            0.0
        } else {
            f64::from(matching) / f64::from(total)
        }
    }

    /// The device pixels from `at - half` to `at + half` (CSS pixels from the canvas's
    /// `origin`), ends rounded.
    fn span(&self, at: f32, half: f32, origin: f64) -> (i64, i64) {
        let device = |css: f32| {
            // Screens are a few thousand pixels wide: the rounded value fits.
            #[allow(clippy::cast_possible_truncation)]
            let px = ((f64::from(css) + origin) * self.scale).round() as i64;
            px
        };
        (device(at - half), device(at + half))
    }

    /// Whether the board is drawn where `layout` says: the wood shows in the middle of the
    /// grid's cells, away from the lines, the pieces and the river's writing. A few cells may
    /// be covered: the glow round a general in check reaches into the two beside it.
    pub(crate) fn check_board(&self, layout: &BoardLayout) -> Result<(), String> {
        const COVERED: usize = 4;
        let half = layout.spacing * 0.15;
        let mut bare = Vec::new();
        for row in (0_u8..9).filter(|row| *row != 4) {
            for col in 0_u8..8 {
                let centre = layout.grid_point(f32::from(col) + 0.5, f32::from(row) + 0.5);
                let wood = self.fraction(centre, half, Looks::Wood);
                if wood < 0.5 {
                    bare.push(format!("cell {col},{row}: {wood:.2}"));
                }
            }
        }
        if bare.len() <= COVERED {
            Ok(())
        } else {
            Err(format!(
                "no wood in {} of the board's 64 cells ({}; see {})",
                bare.len(),
                bare.join(", "),
                self.path.display()
            ))
        }
    }

    /// Whether each of `squares` shows what it holds in `position`: a red or black piece's
    /// disc, or the bare board.
    pub(crate) fn check_squares(
        &self,
        layout: &BoardLayout,
        position: &Position,
        squares: impl IntoIterator<Item = Square>,
    ) -> Result<(), String> {
        let wrong: Vec<String> = squares
            .into_iter()
            .filter_map(|square| {
                let expected = position
                    .board()
                    .piece_at(square)
                    .map_or(Seen::Bare, |piece| Seen::Piece(piece.color));
                let looks = self.square(layout, square);
                (looks.seen != expected)
                    .then(|| format!("{square}: expected {expected:?}, {looks}"))
            })
            .collect();
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} squares look wrong in {}: {}",
                wrong.len(),
                self.path.display(),
                wrong.join("; ")
            ))
        }
    }

    /// What the middle of `square` shows.
    fn square(&self, layout: &BoardLayout, square: Square) -> SquareLooks {
        let centre = layout.point(square);
        // Inside the disc, inside the last move's ring, across the glyph and the ink ring.
        let half = layout.spacing * 0.3;
        let face = self.fraction(centre, half, Looks::Face);
        let red = self.fraction(centre, half, Looks::RedInk);
        let black = self.fraction(centre, half, Looks::BlackInk);
        let seen = if face < 0.2 {
            Seen::Bare
        } else if red > 0.02 && red > black {
            Seen::Piece(Color::Red)
        } else if black > 0.02 {
            Seen::Piece(Color::Black)
        } else {
            Seen::Unclear
        };
        SquareLooks {
            seen,
            face,
            red,
            black,
        }
    }
}

/// What a square's middle shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    /// The board only.
    Bare,
    /// A piece of this colour.
    Piece(Color),
    /// A piece's face but neither side's ink.
    Unclear,
}

/// What a square's middle was seen to be, with the fractions that decided it.
struct SquareLooks {
    seen: Seen,
    face: f64,
    red: f64,
    black: f64,
}

impl std::fmt::Display for SquareLooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seen {:?} (face {:.2}, red ink {:.2}, black ink {:.2})",
            self.seen, self.face, self.red, self.black
        )
    }
}

#[cfg(test)]
mod tests {
    use xq_gui_model::Orientation;

    use super::*;

    const WOOD: Rgba<u8> = Rgba([0xE6, 0xBD, 0x78, 0xFF]);
    const FACE: Rgba<u8> = Rgba([0xFB, 0xEE, 0xD2, 0xFF]);
    const RED: Rgba<u8> = Rgba([0xC0, 0x1E, 0x1E, 0xFF]);
    const BLACK: Rgba<u8> = Rgba([0x1E, 0x1E, 0x1E, 0xFF]);

    /// A picture of `position` as the GUI draws it, roughly: wood, and for each piece a face
    /// with its side's ink in the middle; at two device pixels per CSS pixel, the canvas at
    /// 10, 20 in the viewport.
    fn shot(position: &Position, layout: &BoardLayout) -> Shot {
        let scale = 2.0;
        let canvas = (10.0, 20.0);
        let device = |css: f32, origin: f64| (f64::from(css) + origin) * scale;
        let mut image = RgbaImage::from_pixel(1000, 1100, Rgba([0x20, 0x20, 0x20, 0xFF]));
        let mut fill =
            |x0: f64, y0: f64, x1: f64, y1: f64, colour: &dyn Fn(f64, f64) -> Option<Rgba<u8>>| {
                // Whole pixels of a picture 1000 wide: the casts are exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                for y in (y0.max(0.0) as u32)..(y1.min(1100.0) as u32) {
                    for x in (x0.max(0.0) as u32)..(x1.min(1000.0) as u32) {
                        if let Some(pixel) = colour(f64::from(x), f64::from(y)) {
                            image.put_pixel(x, y, pixel);
                        }
                    }
                }
            };
        let (left, top) = (
            device(layout.min.x, canvas.0),
            device(layout.min.y, canvas.1),
        );
        let (w, h) = (
            f64::from(layout.width()) * scale,
            f64::from(layout.height()) * scale,
        );
        fill(left, top, left + w, top + h, &|_, _| Some(WOOD));
        for (square, piece) in position.board().pieces() {
            let at = layout.point(square);
            let (cx, cy) = (device(at.x, canvas.0), device(at.y, canvas.1));
            let r = f64::from(layout.piece_radius()) * scale;
            let ink = match piece.color {
                Color::Red => RED,
                Color::Black => BLACK,
            };
            fill(cx - r, cy - r, cx + r, cy + r, &|x, y| {
                let d = (x - cx).hypot(y - cy);
                if d < r * 0.3 {
                    Some(ink)
                } else {
                    (d < r).then_some(FACE)
                }
            });
        }
        Shot {
            image,
            canvas,
            scale,
            path: PathBuf::from("drawn.png"),
        }
    }

    fn layout(bottom: Color) -> BoardLayout {
        BoardLayout::fit(
            Point { x: 5.0, y: 5.0 },
            480.0,
            530.0,
            Orientation { bottom },
        )
    }

    fn after(moves: &[&str]) -> Position {
        moves.iter().fold(Position::startpos(), |position, text| {
            let mv = text
                .parse::<xq_rules::iccs::Iccs>()
                .unwrap_or_else(|err| panic!("{err}"))
                .to_move(&position)
                .unwrap_or_else(|err| panic!("{err}"));
            position
                .play(mv)
                .unwrap_or_else(|err| panic!("{}", err.reason))
        })
    }

    #[test]
    fn sees_the_board_and_every_piece_where_it_is() {
        for bottom in [Color::Red, Color::Black] {
            let layout = layout(bottom);
            let position = after(&["h2e2", "h9g7"]);
            let shot = shot(&position, &layout);
            shot.check_board(&layout)
                .unwrap_or_else(|err| panic!("{err}"));
            shot.check_squares(&layout, &position, Square::all())
                .unwrap_or_else(|err| panic!("{err}"));
        }
    }

    #[test]
    fn a_piece_not_where_the_moves_put_it_is_seen() {
        let layout = layout(Color::Red);
        let shot = shot(&Position::startpos(), &layout);
        let moved = after(&["h2e2"]);
        let err = shot
            .check_squares(&layout, &moved, Square::all())
            .err()
            .unwrap_or_else(|| panic!("the cannon's move went unnoticed"));
        assert!(err.starts_with("2 squares look wrong"), "{err}");
        assert!(err.contains("h2: expected Bare"), "{err}");
        assert!(err.contains("e2: expected Piece(Red)"), "{err}");
        // Whose piece it is, too.
        assert_eq!(
            shot.square(&layout, Square::E0).seen,
            Seen::Piece(Color::Red)
        );
        assert_eq!(
            shot.square(&layout, Square::E9).seen,
            Seen::Piece(Color::Black)
        );
    }

    #[test]
    fn a_board_drawn_elsewhere_is_not_seen() {
        let drawn = layout(Color::Red);
        let shot = shot(&Position::startpos(), &drawn);
        let elsewhere = BoardLayout {
            min: Point {
                x: drawn.min.x + 300.0,
                y: drawn.min.y,
            },
            ..drawn
        };
        assert!(shot.check_board(&elsewhere).is_err());
    }
}
