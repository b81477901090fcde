//! The named controls, written to a file for scripts that drive the desktop window (the X11
//! smoke test clicks buttons by name): `XQ_GUI_HITS=FILE xq-gui …`.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::hits::Hits;

/// The environment variable naming the file.
const VAR: &str = "XQ_GUI_HITS";

/// The file the controls go to, and what it holds now.
pub(super) struct HitsFile {
    path: PathBuf,
    written: String,
}

impl HitsFile {
    /// The file `XQ_GUI_HITS` names, if it is set.
    pub(super) fn from_env() -> Option<Self> {
        std::env::var_os(VAR).map(|path| Self::new(path.into()))
    }

    const fn new(path: PathBuf) -> Self {
        Self {
            path,
            written: String::new(),
        }
    }

    /// Writes the frame's controls if they changed since the last write: a line for each,
    /// `name<TAB>left<TAB>top<TAB>right<TAB>bottom` in the window's logical pixels. The file
    /// is replaced whole (written beside it, then renamed), so a reader never sees half of it.
    pub(super) fn write(&mut self, hits: &Hits) {
        let text = lines(hits);
        if text == self.written {
            return;
        }
        let mut part = self.path.clone().into_os_string();
        part.push(".part");
        let part = PathBuf::from(part);
        if let Err(error) =
            std::fs::write(&part, &text).and_then(|()| std::fs::rename(&part, &self.path))
        {
            eprintln!("xq-gui: cannot write {}: {error}", self.path.display());
        }
        // Once per change, failed or not: a frame does not retry what the last one could not.
        self.written = text;
    }
}

fn lines(hits: &Hits) -> String {
    let mut text = String::new();
    for (name, rect) in hits.iter() {
        // Writing to a String cannot fail.
        let _ = writeln!(
            text,
            "{name}\t{:.1}\t{:.1}\t{:.1}\t{:.1}",
            rect.min.x, rect.min.y, rect.max.x, rect.max.y
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use eframe::egui::{self, Rect, pos2};

    use super::*;

    /// The hits of a frame with `labels` as buttons, one below the other.
    fn frame_of(labels: &[&str]) -> Hits {
        let mut hits = Hits::default();
        let ctx = egui::Context::default();
        // Only the layout is wanted, not the texture upload.
        ctx.run_ui(egui::RawInput::default(), |ui| {
            for label in labels {
                hits.note(label, ui.button(*label));
            }
        })
        .textures_delta
        .clear();
        hits
    }

    #[test]
    fn the_controls_are_written_a_line_each_once_per_change() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("hits.tsv");
        let mut file = HitsFile::new(path.clone());
        let hits = frame_of(&["Resign", "Mute"]);
        file.write(&hits);
        let text = std::fs::read_to_string(&path).expect("written");
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert_eq!(rows[0][0], "Resign");
        assert_eq!(rows[1][0], "Mute");
        let number = |s: &str| s.parse::<f32>().expect("a number");
        let resign = Rect::from_min_max(
            pos2(number(rows[0][1]), number(rows[0][2])),
            pos2(number(rows[0][3]), number(rows[0][4])),
        );
        let Some((_, drawn)) = hits.iter().next() else {
            panic!("a control");
        };
        assert!(
            (resign.center() - drawn.center()).length() < 0.1,
            "{resign:?} {drawn:?}"
        );

        // The same controls again: nothing is written.
        std::fs::remove_file(&path).expect("removed");
        file.write(&hits);
        assert!(!path.exists());
        file.write(&frame_of(&["Resign"]));
        assert_eq!(
            std::fs::read_to_string(&path)
                .expect("rewritten")
                .lines()
                .count(),
            1
        );
    }
}
