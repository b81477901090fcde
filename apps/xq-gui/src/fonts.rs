//! The fonts: egui's defaults plus an embedded subset of Noto Serif CJK for the Chinese text.

use std::sync::Arc;

use eframe::egui::{Context, FontData, FontDefinitions, FontFamily};

/// The CJK glyphs the UI uses (pieces, river, check, notation), cut from Noto Serif CJK TC
/// Bold; `assets/README.md` says how. Embedded, so the board reads right on a machine with no
/// CJK fonts, where egui's defaults would draw empty boxes.
const GLYPHS: &[u8] = include_bytes!("../assets/xiangqi-glyphs.otf");

const GLYPHS_NAME: &str = "noto-serif-cjk-subset";

/// The family the piece glyphs are drawn in: the CJK subset first, so a piece never falls
/// back to a Latin face.
pub(crate) fn pieces() -> FontFamily {
    FontFamily::Name("xiangqi-pieces".into())
}

/// Installs the fonts: the subset as the last fallback of egui's families, so any CJK text in
/// labels renders, and as the first font of [`pieces`]. Call before the first frame.
pub(crate) fn install(ctx: &Context) {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        GLYPHS_NAME.to_owned(),
        Arc::new(FontData::from_static(GLYPHS)),
    );
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .push(GLYPHS_NAME.to_owned());
    }
    fonts
        .families
        .insert(pieces(), vec![GLYPHS_NAME.to_owned()]);
    ctx.set_fonts(fonts);
}

#[cfg(test)]
mod tests {
    use eframe::egui::{FontId, RawInput};
    use xq_rules::{Color, Piece, Role};

    use super::*;

    /// The Chinese text the UI can show: the river, the check, the files' numerals, the title,
    /// and every character Chinese move notation writes.
    const TEXT: &str = "楚河漢界將軍象棋一二三四五六七八九１２３４５６７８９\
                        车马相仕帅炮兵象士将卒进退平前中后";

    #[test]
    fn the_embedded_subset_has_every_glyph_the_ui_shows() {
        let ctx = Context::default();
        install(&ctx);
        // Fonts take effect with the next pass; its texture upload is not wanted here.
        ctx.run_ui(RawInput::default(), |_| {})
            .textures_delta
            .clear();
        let pieces: String = Color::ALL
            .iter()
            .flat_map(|&color| Role::ALL.map(|role| Piece::new(color, role).glyph()))
            .collect();
        ctx.fonts_mut(|fonts| {
            let glyphs = FontId::new(20.0, super::pieces());
            assert!(fonts.has_glyphs(&glyphs, &pieces), "{pieces}");
            assert!(fonts.has_glyphs(&glyphs, TEXT));
            let labels = FontId::proportional(14.0);
            assert!(fonts.has_glyphs(&labels, &pieces));
            assert!(fonts.has_glyphs(&labels, TEXT));
        });
    }
}
