//! The connect panel: a relay URL and the ways to find an opponent on it, or a relay hosted
//! here. What the buttons do is `xq-gui-net`'s [`Lobby`]; this only draws it.

use std::sync::Arc;

use eframe::egui::{Button, CollapsingHeader, Color32, Context, DragValue, RichText, TextEdit, Ui};
use xq_gui_net::{HostConfig, Lobby, RemoteGame, Wake};

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

    pub(crate) fn show(&mut self, ui: &mut Ui) {
        CollapsingHeader::new("Network play")
            .default_open(true)
            .show(ui, |ui| {
                self.join_controls(ui);
                self.host_controls(ui);
                self.outcome(ui);
            });
    }

    fn join_controls(&mut self, ui: &mut Ui) {
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
        let idle = !self.lobby.is_busy();
        let wake = waker(ui.ctx());
        ui.horizontal_wrapped(|ui| {
            if ui.add_enabled(idle, Button::new("Create room")).clicked() {
                self.lobby.create(&self.relay, wake.clone());
            }
            if ui.add_enabled(idle, Button::new("Join")).clicked() {
                self.lobby.join(&self.relay, &self.code, wake.clone());
            }
            if ui.add_enabled(idle, Button::new("Quick match")).clicked() {
                self.lobby.quick_match(&self.relay, wake.clone());
            }
            if ui.add_enabled(idle, Button::new("Spectate")).clicked() {
                self.lobby.spectate(&self.relay, &self.code, wake.clone());
            }
        });
    }

    fn host_controls(&mut self, ui: &mut Ui) {
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
            if ui
                .add_enabled(idle && !hosting, Button::new("Host a game"))
                .clicked()
            {
                self.lobby.host(self.host.clone(), waker(ui.ctx()));
            }
            if ui
                .add_enabled(hosting, Button::new("Stop hosting"))
                .clicked()
            {
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
