//! The browser's connect panel, the web lobby: create a room, ask for a quick match, or join
//! or watch a room by its code, on the relay that served the page; once seated, the link to
//! share. What the buttons do is `xq-gui-web`'s [`WebLobby`]; this only draws it.

use std::cell::OnceCell;
use std::rc::Rc;

use eframe::egui::{Button, CollapsingHeader, Color32, Context, RichText, TextEdit, Ui};
use xq_client::Room;
use xq_gui_web::{Entry, WebGame, WebLobby};
use xq_rules::Color;

use crate::hits::Hits;

/// The web lobby's field, and the lobby it drives.
pub(crate) struct ConnectPanel {
    code: String,
    lobby: WebLobby,
    /// The app's context, for the lobby's wake-ups: known from the first frame on.
    ctx: Rc<OnceCell<Context>>,
}

impl Default for ConnectPanel {
    fn default() -> Self {
        let ctx: Rc<OnceCell<Context>> = Rc::default();
        let repaint = Rc::clone(&ctx);
        let wake = Rc::new(move || {
            if let Some(ctx) = repaint.get() {
                ctx.request_repaint();
            }
        });
        Self {
            code: String::new(),
            lobby: WebLobby::new(wake),
            ctx,
        }
    }
}

impl ConnectPanel {
    /// The game a link or a button produced since the last frame, if any.
    pub(crate) fn poll(&mut self) -> Option<WebGame> {
        self.lobby.poll()
    }

    /// The game against the computer a `#computer` link asked for, if one did since the last
    /// frame.
    pub(crate) fn poll_computer(&mut self) -> Option<xq_gui_model::ComputerSetup> {
        self.lobby.poll_computer()
    }

    /// Whether a room is being entered: the app keeps polling.
    pub(crate) const fn is_busy(&self) -> bool {
        self.lobby.is_busy()
    }

    /// The room of the game on the relay, and this browser's seat in it.
    pub(crate) fn room(&self) -> Option<Room> {
        self.lobby.room()
    }

    /// Whether the game's connection is up.
    pub(crate) fn is_connected(&self) -> bool {
        self.lobby.is_connected()
    }

    /// Draws the panel, noting its buttons in `hits`.
    pub(crate) fn show(&mut self, ui: &mut Ui, hits: &mut Hits) {
        self.ctx.get_or_init(|| ui.ctx().clone());
        CollapsingHeader::new("Play online")
            .default_open(true)
            .show(ui, |ui| {
                self.room_line(ui, hits);
                self.entry_controls(ui, hits);
                if let Some(status) = self.lobby.status() {
                    ui.label(RichText::new(status).italics());
                }
                if let Some(error) = self.lobby.error() {
                    ui.label(RichText::new(error).color(Color32::RED));
                }
            });
    }

    /// The room played in, and the link that brings the opponent to it.
    fn room_line(&self, ui: &mut Ui, hits: &mut Hits) {
        let Some(room) = self.lobby.room() else {
            return;
        };
        let part = match room.seat {
            Some(Color::Red) => "playing Red",
            Some(Color::Black) => "playing Black",
            None => "watching",
        };
        ui.label(format!("Room {} · {part}", room.code));
        if let Some(link) = self.lobby.share_link() {
            ui.label("Send this link to your opponent:");
            ui.horizontal(|ui| {
                let mut text = link.as_str();
                ui.add(TextEdit::singleline(&mut text).desired_width(200.0));
                if hits.note("Copy", ui.button("Copy")).clicked() {
                    ui.ctx().copy_text(link.clone());
                }
            });
        }
    }

    fn entry_controls(&mut self, ui: &mut Ui, hits: &mut Hits) {
        let idle = !self.lobby.is_busy();
        ui.horizontal_wrapped(|ui| {
            let create = ui.add_enabled(idle, Button::new("Create room"));
            if hits.note("Create room", create).clicked() {
                self.lobby.enter(Entry::Create);
            }
            let quick = ui.add_enabled(idle, Button::new("Quick match"));
            if hits.note("Quick match", quick).clicked() {
                self.lobby.enter(Entry::Quick);
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Room code");
            ui.add(TextEdit::singleline(&mut self.code).desired_width(80.0))
                .labelled_by(label.id);
            let join = ui.add_enabled(idle, Button::new("Join"));
            if hits.note("Join", join).clicked() {
                self.lobby.enter_typed(&self.code, false);
            }
            let watch = ui.add_enabled(idle, Button::new("Watch"));
            if hits.note("Watch", watch).clicked() {
                self.lobby.enter_typed(&self.code, true);
            }
        });
    }
}
