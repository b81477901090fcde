//! The controls beside (or below) the board: whose turn and the clocks, who is connected, the
//! result, the game's buttons, the move list, the record and the connect panel.

use eframe::egui::{
    self, CollapsingHeader, Color32, Frame, Margin, RichText, ScrollArea, Sense, Slider, Ui, vec2,
};
use xq_gui_model::{Action, MoveEntry, Notation, Presence, Step};
use xq_rules::Color;
use xq_session::Timestamp;

use super::{XqApp, button};

/// The colours of the connection's dot.
mod palette {
    use eframe::egui::Color32;

    pub(super) const CONNECTED: Color32 = Color32::from_rgb(0x2E, 0xA0, 0x43);
    pub(super) const WAITING: Color32 = Color32::from_rgb(0x8A, 0x8A, 0x8A);
    pub(super) const AWAY: Color32 = Color32::from_rgb(0xE0, 0x9A, 0x10);
    pub(super) const OFFLINE: Color32 = Color32::from_rgb(0xD0, 0x20, 0x20);
}

impl XqApp {
    pub(super) fn controls(&mut self, ui: &mut Ui, now: Timestamp) {
        ui.heading("xq · 象棋");
        self.turn_and_clocks(ui, now);
        self.engine_lines(ui);
        self.connection(ui);
        if let Some(result) = self.view.result_line() {
            ui.label(RichText::new(result).heading().strong());
        }
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            if button(&mut self.hits, ui, "New local game", true) {
                self.new_local_game();
            }
            if button(&mut self.hits, ui, "Flip board", true) {
                self.view.flip();
            }
            self.hits
                .note("Mute", ui.checkbox(&mut self.speaker.muted, "Mute"));
            if button(&mut self.hits, ui, "Hint", self.view.can_hint()) {
                let _ = self.view.hint();
            }
        });
        let buttons = self.view.buttons();
        ui.horizontal_wrapped(|ui| {
            for action in Action::ALL {
                if button(&mut self.hits, ui, action.label(), buttons.enabled(action)) {
                    let _ = self.view.act(now, action);
                }
            }
            if button(&mut self.hits, ui, "Rematch", buttons.rematch) {
                let _ = self.view.rematch(now);
            }
        });
        ui.separator();
        self.move_list(ui, now);
        ui.separator();
        self.record.show(ui, &mut self.view, now, &mut self.hits);
        ui.separator();
        self.computer_panel(ui);
        ui.separator();
        self.connect.show(ui, &mut self.hits);
    }

    /// Whose turn it is, and the clocks with the side to move's standing out.
    fn turn_and_clocks(&self, ui: &mut Ui, now: Timestamp) {
        if let Some(turn) = self.view.turn_line() {
            ui.label(RichText::new(turn).strong().size(16.0));
        }
        let Some(clocks) = self.view.clocks(now) else {
            return;
        };
        let to_move = self.view.to_move();
        ui.horizontal(|ui| {
            for (side, name, left) in [
                (Color::Red, "Red", &clocks.red),
                (Color::Black, "Black", &clocks.black),
            ] {
                clock(ui, &format!("{name} {left}"), to_move == Some(side));
            }
        });
    }

    /// What the engine is doing and what it last found: the computer thinking, a hint being
    /// looked for, the evaluation.
    fn engine_lines(&self, ui: &mut Ui) {
        if self.view.thinking() {
            ui.label(RichText::new("The computer is thinking…").italics());
        }
        if self.view.hinting() {
            ui.label(RichText::new("Looking for a hint…").italics());
        }
        if let Some(evaluation) = self.view.evaluation() {
            ui.label(evaluation.to_string());
        }
    }

    /// "Play the computer": a level from 1 to 10, a side, and the button that starts it.
    fn computer_panel(&mut self, ui: &mut Ui) {
        CollapsingHeader::new("Against the computer")
            .default_open(false)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Level");
                    let slider = ui
                        .add(Slider::new(&mut self.computer.level, 1..=10))
                        .labelled_by(label.id);
                    self.hits.note("Level", slider);
                });
                ui.horizontal(|ui| {
                    for (side, name) in [(Color::Red, "Play Red"), (Color::Black, "Play Black")] {
                        let radio = ui.radio_value(&mut self.computer.person, side, name);
                        self.hits.note(name, radio);
                    }
                });
                if button(&mut self.hits, ui, "Play the computer", true) {
                    let setup = self.computer.setup();
                    self.new_computer_game(ui.ctx(), setup);
                }
            });
    }

    /// Who is connected to a network game: a coloured dot and the words.
    fn connection(&self, ui: &mut Ui) {
        let (Some(presence), Some(line)) = (self.view.presence(), self.view.presence_line()) else {
            return;
        };
        let color = match presence {
            Presence::Connected => palette::CONNECTED,
            Presence::Waiting => palette::WAITING,
            Presence::Away(_) | Presence::Reconnecting => palette::AWAY,
            Presence::Offline => palette::OFFLINE,
        };
        ui.horizontal(|ui| {
            let (rect, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
            ui.painter().circle_filled(rect.center(), 5.0, color);
            ui.label(line);
        });
    }

    fn move_list(&mut self, ui: &mut Ui, now: Timestamp) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Moves").strong());
            let current = self.view.notation();
            for notation in Notation::ALL {
                let tab = ui.selectable_label(notation == current, notation.name());
                if self.hits.note(notation.name(), tab).clicked() {
                    self.view.set_notation(now, notation);
                }
            }
        });
        let replaying = self.view.replay().is_some();
        let current = self.view.ply();
        let mut seek = None;
        ScrollArea::vertical()
            .id_salt("moves")
            .max_height(220.0)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                egui::Grid::new("move-grid")
                    .num_columns(3)
                    .striped(true)
                    .min_col_width(60.0)
                    .show(ui, |ui| {
                        for row in self.view.move_rows() {
                            ui.label(format!("{}.", row.number));
                            for entry in [&row.red, &row.black] {
                                match entry {
                                    Some(MoveEntry { ply, text }) => {
                                        let label = ui.selectable_label(
                                            *ply == current,
                                            RichText::new(text).monospace(),
                                        );
                                        if replaying && label.clicked() {
                                            seek = Some(*ply);
                                        }
                                    }
                                    None => {
                                        ui.label("");
                                    }
                                }
                            }
                            ui.end_row();
                        }
                    });
            });
        if let Some(ply) = seek {
            self.view.seek(ply);
        }
        if replaying {
            ui.horizontal_wrapped(|ui| {
                for (label, step) in [
                    ("Start", Step::Start),
                    ("Back", Step::Back),
                    ("Forward", Step::Forward),
                    ("End", Step::End),
                ] {
                    if button(&mut self.hits, ui, label, true) {
                        self.view.step(step);
                    }
                }
                if button(&mut self.hits, ui, "Close replay", true) {
                    self.view.close_replay(now);
                }
            });
        }
    }
}

/// One side's clock; the running one on the selection colour, so it is seen at a glance.
fn clock(ui: &mut Ui, text: &str, running: bool) {
    let text = RichText::new(text).monospace().size(18.0);
    let visuals = ui.visuals();
    let (fill, text) = if running {
        let selection = visuals.selection;
        (
            selection.bg_fill,
            text.strong().color(selection.stroke.color),
        )
    } else {
        (Color32::TRANSPARENT, text)
    };
    Frame::new()
        .fill(fill)
        .corner_radius(4)
        .inner_margin(Margin::symmetric(6, 2))
        .show(ui, |ui| ui.label(text));
}
