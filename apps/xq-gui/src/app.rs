//! The window: the board in the middle, the game's controls beside it, the status below.

use eframe::egui::{self, Align, Layout, Modal, RichText, ScrollArea, Ui};
use xq_gui_model::{Action, BoardLayout, LocalGame, MoveEntry, Notation, Step, ViewModel};
use xq_session::{MatchConfig, Timestamp};
// std's `Instant` in a desktop build; in the browser, where std's panics, `performance.now()`.
use web_time::Instant;

use crate::board;
use crate::connect::ConnectPanel;
use crate::hits::Hits;
use crate::record::RecordPanel;

/// The whole app: the view-model plus the few text fields that are only UI state.
pub(crate) struct XqApp {
    pub(crate) view: ViewModel,
    /// The origin of the game's timestamps.
    started: Instant,
    record: RecordPanel,
    pub(crate) connect: ConnectPanel,
    /// Where the board was last drawn.
    pub(crate) board: Option<BoardLayout>,
    /// The buttons drawn in the last frame, and where.
    pub(crate) hits: Hits,
}

impl XqApp {
    /// An app showing the idle board, or a local game when `local`.
    pub(crate) fn new(local: bool) -> Self {
        let mut app = Self {
            view: ViewModel::new(),
            started: Instant::now(),
            record: RecordPanel::default(),
            connect: ConnectPanel::default(),
            board: None,
            hits: Hits::default(),
        };
        if local {
            app.new_local_game();
        }
        app
    }

    /// The time now on the game's clock: milliseconds since the app started.
    pub(crate) fn now(&self) -> Timestamp {
        let millis = self.started.elapsed().as_millis();
        Timestamp::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
    }

    fn new_local_game(&mut self) {
        let now = self.now();
        let game = LocalGame::new(MatchConfig::default(), now);
        self.view.start(now, Box::new(game));
    }

    /// Draws one frame and handles its input.
    pub(crate) fn show(&mut self, ui: &mut Ui) {
        self.hits.clear();
        let now = self.now();
        if let Some(game) = self.connect.poll() {
            self.view.start(now, Box::new(game));
        }
        self.view.tick(now);
        egui::Panel::right("controls")
            .resizable(false)
            .exact_size(300.0)
            .show(ui, |ui| {
                ScrollArea::vertical().show(ui, |ui| self.controls(ui, now));
            });
        egui::Panel::bottom("status").show(ui, |ui| self.status(ui));
        egui::CentralPanel::default().show(ui, |ui| {
            let response = board::show(ui, &self.view);
            for square in response.clicks {
                // A refused click leaves its reason in the view's notice.
                let _ = self.view.click(now, square);
            }
            self.board = Some(response.layout);
        });
        self.dialog(ui, now);
        // A running clock counts down; a connection being made is polled until it is.
        if self.view.clock_running(now) || self.connect.is_busy() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    fn controls(&mut self, ui: &mut Ui, now: Timestamp) {
        ui.heading("xq · 象棋");
        if let Some(clocks) = self.view.clocks(now) {
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(format!("Red {}", clocks.red))
                        .monospace()
                        .size(18.0),
                );
                ui.separator();
                ui.label(
                    RichText::new(format!("Black {}", clocks.black))
                        .monospace()
                        .size(18.0),
                );
            });
        }
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            if self
                .hits
                .note("New local game", ui.button("New local game"))
                .clicked()
            {
                self.new_local_game();
            }
            if self
                .hits
                .note("Flip board", ui.button("Flip board"))
                .clicked()
            {
                self.view.flip();
            }
        });
        let buttons = self.view.buttons();
        ui.horizontal_wrapped(|ui| {
            for action in Action::ALL {
                let button =
                    ui.add_enabled(buttons.enabled(action), egui::Button::new(action.label()));
                if self.hits.note(action.label(), button).clicked() {
                    let _ = self.view.act(now, action);
                }
            }
            let rematch = ui.add_enabled(buttons.rematch, egui::Button::new("Rematch"));
            if self.hits.note("Rematch", rematch).clicked() {
                let _ = self.view.rematch(now);
            }
        });
        ui.separator();
        self.move_list(ui, now);
        ui.separator();
        self.record.show(ui, &mut self.view, now, &mut self.hits);
        ui.separator();
        self.connect.show(ui, &mut self.hits);
    }

    fn move_list(&mut self, ui: &mut Ui, now: Timestamp) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Moves").strong());
            let current = self.view.notation();
            for notation in Notation::ALL {
                if ui
                    .selectable_label(notation == current, notation.name())
                    .clicked()
                {
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
            ui.horizontal(|ui| {
                for (label, step) in [
                    ("Start", Step::Start),
                    ("Back", Step::Back),
                    ("Forward", Step::Forward),
                    ("End", Step::End),
                ] {
                    if self.hits.note(label, ui.button(label)).clicked() {
                        self.view.step(step);
                    }
                }
                if self
                    .hits
                    .note("Close replay", ui.button("Close replay"))
                    .clicked()
                {
                    self.view.close_replay(now);
                }
            });
        }
    }

    fn status(&self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(self.view.status_line()).strong());
            if let Some(notice) = self.view.notice() {
                ui.separator();
                ui.label(RichText::new(notice).italics());
            }
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                if self.view.checked_general().is_some() {
                    ui.label(RichText::new("將軍").color(egui::Color32::RED).strong());
                }
            });
        });
    }

    /// The opponent's request, over the whole window until it is answered.
    fn dialog(&mut self, ui: &Ui, now: Timestamp) {
        let Some(dialog) = self.view.dialog() else {
            return;
        };
        let mut answer = None;
        Modal::new(egui::Id::unique("request")).show(ui.ctx(), |ui| {
            ui.heading(dialog.title());
            ui.label(dialog.question());
            ui.horizontal(|ui| {
                if self.hits.note("Accept", ui.button("Accept")).clicked() {
                    answer = Some(true);
                }
                if self.hits.note("Decline", ui.button("Decline")).clicked() {
                    answer = Some(false);
                }
            });
        });
        if let Some(accept) = answer {
            let _ = self.view.answer(now, accept);
        }
    }
}

#[cfg(test)]
mod tests;
