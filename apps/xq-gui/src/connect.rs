//! The connect panel: a relay URL and the ways to find an opponent on it, or a relay hosted
//! here. What the buttons do is `xq-gui-net`'s [`Lobby`]; this only draws it.

use std::sync::Arc;

use eframe::egui::{Button, CollapsingHeader, Color32, Context, DragValue, RichText, TextEdit, Ui};
use xq_gui_net::{HostConfig, Lobby, RemoteGame, Wake};

use crate::hits::Hits;

/// The connect panel's fields, and the lobby they drive.
pub(crate) struct ConnectPanel {
    pub(crate) relay: String,
    pub(crate) code: String,
    pub(crate) host: HostConfig,
    pub(crate) lobby: Lobby,
}

impl Default for ConnectPanel {
    fn default() -> Self {
        Self {
            relay: "quic://127.0.0.1:7879?fp=".to_owned(),
            code: String::new(),
            host: HostConfig::default(),
            lobby: Lobby::new(),
        }
    }
}

impl ConnectPanel {
    /// The game a connection produced since the last frame, if any.
    pub(crate) fn poll(&mut self) -> Option<RemoteGame> {
        self.lobby.poll()
    }

    /// Whether a connection or a hosted relay is being started: the app keeps polling.
    pub(crate) const fn is_busy(&self) -> bool {
        self.lobby.is_busy()
    }

    /// Draws the panel, noting its buttons in `hits`.
    pub(crate) fn show(&mut self, ui: &mut Ui, hits: &mut Hits) {
        CollapsingHeader::new("Network play")
            .default_open(true)
            .show(ui, |ui| {
                self.join_controls(ui, hits);
                self.host_controls(ui, hits);
                self.outcome(ui);
            });
    }

    fn join_controls(&mut self, ui: &mut Ui, hits: &mut Hits) {
        ui.horizontal(|ui| {
            let label = ui.label("Relay");
            ui.text_edit_singleline(&mut self.relay)
                .labelled_by(label.id)
                .on_hover_text("A relay URL, or a relay cluster's nodes separated by commas");
        });
        ui.horizontal(|ui| {
            let label = ui.label("Room code");
            ui.text_edit_singleline(&mut self.code)
                .labelled_by(label.id);
        });
        let idle = !self.lobby.is_busy();
        let wake = waker(ui.ctx());
        ui.horizontal_wrapped(|ui| {
            let mut button = |label| hits.note(label, ui.add_enabled(idle, Button::new(label)));
            if button("Create room").clicked() {
                self.lobby.create(&self.relay, wake.clone());
            }
            if button("Join").clicked() {
                self.lobby.join(&self.relay, &self.code, wake.clone());
            }
            if button("Quick match").clicked() {
                self.lobby.quick_match(&self.relay, wake.clone());
            }
            if button("Spectate").clicked() {
                self.lobby.spectate(&self.relay, &self.code, wake.clone());
            }
        });
    }

    fn host_controls(&mut self, ui: &mut Ui, hits: &mut Hits) {
        ui.horizontal(|ui| {
            let label = ui.label("UDP port");
            ui.add(DragValue::new(&mut self.host.udp_port))
                .labelled_by(label.id);
            let label = ui.label("QUIC port");
            ui.add(DragValue::new(&mut self.host.quic_port))
                .labelled_by(label.id);
        });
        ui.horizontal(|ui| {
            let idle = !self.lobby.is_busy();
            let hosting = self.lobby.hosted().is_some();
            // One hosted relay at a time: its ports stay taken until it stops.
            let host = ui.add_enabled(idle && !hosting, Button::new("Host a game"));
            if hits.note("Host a game", host).clicked() {
                self.lobby.host(self.host.clone(), waker(ui.ctx()));
            }
            let stop = ui.add_enabled(hosting, Button::new("Stop hosting"));
            if hits.note("Stop hosting", stop).clicked() {
                self.lobby.stop_hosting();
            }
        });
    }

    /// Progress, the error, the room code to share and the hosted relay's addresses, in
    /// read-only fields so they can be selected and copied.
    fn outcome(&self, ui: &mut Ui) {
        if let Some(status) = self.lobby.status() {
            ui.label(RichText::new(status).italics());
        }
        if let Some(error) = self.lobby.error() {
            ui.label(RichText::new(error).color(Color32::RED));
        }
        if let Some(code) = self.lobby.room() {
            copyable(ui, "Share code", code.as_str());
        }
        if let Some(host) = self.lobby.hosted() {
            ui.label("The opponent connects to:");
            for url in host.urls() {
                copyable(ui, "Address", url);
            }
            if let Some(fingerprint) = host.fingerprint() {
                copyable(ui, "Fingerprint", &fingerprint);
            }
        }
    }
}

/// A labelled text that can be selected but not edited.
fn copyable(ui: &mut Ui, label: &str, mut text: &str) {
    ui.horizontal(|ui| {
        let label = ui.label(label);
        ui.add(TextEdit::singleline(&mut text).desired_width(f32::INFINITY))
            .labelled_by(label.id);
    });
}

/// Redraws the window when a network game has news.
pub(crate) fn waker(ctx: &Context) -> Wake {
    let ctx = ctx.clone();
    Arc::new(move || ctx.request_repaint())
}
