//! The connect panel: a relay URL and the ways to find an opponent on it.

use eframe::egui::{Button, CollapsingHeader, Ui};

/// Why the network buttons are disabled.
const NOT_YET: &str = "network play arrives with xq-client";

/// The connect panel's fields.
pub(crate) struct ConnectPanel {
    relay: String,
    code: String,
}

impl Default for ConnectPanel {
    fn default() -> Self {
        Self {
            relay: "quic://127.0.0.1:4433".to_owned(),
            code: String::new(),
        }
    }
}

impl ConnectPanel {
    pub(crate) fn show(&mut self, ui: &mut Ui) {
        CollapsingHeader::new("Network play")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Relay");
                    ui.text_edit_singleline(&mut self.relay)
                        .labelled_by(label.id);
                });
                ui.horizontal(|ui| {
                    let label = ui.label("Room code");
                    ui.text_edit_singleline(&mut self.code)
                        .labelled_by(label.id);
                });
                ui.horizontal_wrapped(|ui| {
                    for label in ["Create room", "Join", "Quick match"] {
                        ui.add_enabled(false, Button::new(label))
                            .on_disabled_hover_text(NOT_YET);
                    }
                });
            });
    }
}
