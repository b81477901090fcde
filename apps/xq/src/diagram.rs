//! A text diagram of the board in Chinese glyphs, Red at the bottom.

use std::fmt::Write;

use xq_rules::{File, Position, Rank, Square};

/// Full-width file letters, so they line up under the glyphs.
const FILES: &str = "ａｂｃｄｅｆｇｈｉ";

/// Renders ranks 9 down to 0 with their numbers, the river between ranks 5 and 4, and the file
/// letters; an empty point is `．`.
pub(crate) fn render(pos: &Position) -> String {
    let mut out = String::new();
    for rank in Rank::ALL.iter().rev() {
        if *rank == Rank::R4 {
            out.push_str("  ～～楚河～～漢界～\n");
        }
        out.push(rank.char());
        out.push(' ');
        for file in File::ALL {
            let glyph = pos
                .board()
                .piece_at(Square::new(file, *rank))
                .map_or('．', |p| p.glyph());
            out.push(glyph);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "  {FILES}");
    out
}
