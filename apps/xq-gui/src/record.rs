//! Saving the game as PGN and opening a record to replay: a path field and two buttons.

use eframe::egui::{RichText, Ui};
use xq_gui_model::ViewModel;
use xq_session::Timestamp;

use crate::app::button;
use crate::hits::Hits;

/// The record section's state: the path typed in and the outcome of the last save or open.
pub(crate) struct RecordPanel {
    pub(crate) path: String,
    outcome: Option<String>,
}

impl Default for RecordPanel {
    fn default() -> Self {
        Self {
            path: "game.pgn".to_owned(),
            outcome: None,
        }
    }
}

impl RecordPanel {
    /// Draws the section. The game shown saves whether it is on or over, local or on a relay
    /// (its record stays once the relay has closed the room), and so does a replay.
    pub(crate) fn show(
        &mut self,
        ui: &mut Ui,
        view: &mut ViewModel,
        now: Timestamp,
        hits: &mut Hits,
    ) {
        ui.label(RichText::new("Record (PGN)").strong());
        ui.horizontal(|ui| {
            let label = ui.label("File");
            ui.text_edit_singleline(&mut self.path)
                .labelled_by(label.id);
        });
        ui.horizontal(|ui| {
            let text = view.save_pgn();
            if button(hits, ui, "Save PGN", text.is_some())
                && let Some(text) = text
            {
                self.outcome = Some(self.save(&text));
            }
            if button(hits, ui, "Open PGN", true) {
                self.outcome = Some(self.open(view, now));
            }
        });
        if let Some(outcome) = &self.outcome {
            ui.label(RichText::new(outcome).italics());
        }
    }

    /// Writes the record to the file named in the field.
    #[cfg(not(target_arch = "wasm32"))]
    fn save(&self, text: &str) -> String {
        match std::fs::write(&self.path, text) {
            Ok(()) => format!("Saved to {}", self.path),
            Err(error) => format!("Cannot save: {error}"),
        }
    }

    /// Downloads the record as a file named as the field says: a page cannot write files.
    #[cfg(target_arch = "wasm32")]
    fn save(&self, text: &str) -> String {
        match xq_gui_web::download(&self.path, text) {
            Ok(()) => format!("Downloaded {}", self.path),
            Err(error) => format!("Cannot download: {error}"),
        }
    }

    fn open(&self, view: &mut ViewModel, now: Timestamp) -> String {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => match view.open_pgn(now, &text) {
                Ok(()) => format!("Replaying {}", self.path),
                Err(error) => format!("Not a game record: {error}"),
            },
            Err(error) => format!("Cannot open: {error}"),
        }
    }
}
