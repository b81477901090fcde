//! The window: the board with the game's controls beside it, or below it in a window taller
//! than wide (a phone held upright), and the status line at the bottom.

mod controls;
#[cfg(not(target_arch = "wasm32"))]
mod hits_file;

use eframe::egui::{self, Align, Button, Frame, Layout, Modal, RichText, ScrollArea, Ui};
use xq_gui_model::{BoardLayout, ComputerGame, ComputerSetup, LocalGame, Thinker, ViewModel};
use xq_session::{MatchConfig, Timestamp};
// std's `Instant` in a desktop build; in the browser, where std's panics, `performance.now()`.
use web_time::Instant;

use crate::board;
use crate::connect::ConnectPanel;
use crate::hits::Hits;
use crate::record::RecordPanel;
use crate::sound::Speaker;

/// The width of the controls beside the board in a wide window.
const CONTROLS_WIDTH: f32 = 300.0;

/// The wood-free border round the board when it spans the window's width.
const BOARD_MARGIN: f32 = 4.0;

/// The whole app: the view-model plus the few text fields that are only UI state.
pub(crate) struct XqApp {
    pub(crate) view: ViewModel,
    /// The origin of the game's timestamps.
    started: Instant,
    record: RecordPanel,
    pub(crate) connect: ConnectPanel,
    /// Where the board was last drawn.
    pub(crate) board: Option<BoardLayout>,
    /// Every button of the last frame, by label, for scripts and tests to click.
    pub(crate) hits: Hits,
    /// Where the view-model's cues go.
    pub(crate) speaker: Speaker,
    /// Whether a frame has been shown: the moves played before the first (the command line's)
    /// set the game up, and make no sound.
    shown: bool,
    /// The "Play the computer" choices.
    pub(crate) computer: ComputerChoice,
    /// A game against the computer to start at the next frame, when the app's context (which
    /// the thinker wakes) is known: the command line's or the page link's.
    pub(crate) pending_computer: Option<ComputerSetup>,
    #[cfg(not(target_arch = "wasm32"))]
    hits_file: Option<hits_file::HitsFile>,
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
            speaker: Speaker::system(),
            shown: false,
            computer: ComputerChoice::default(),
            pending_computer: None,
            #[cfg(not(target_arch = "wasm32"))]
            hits_file: hits_file::HitsFile::from_env(),
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

    /// Starts a game against the computer, whose thinker wakes `ctx` when it has a move.
    pub(crate) fn new_computer_game(&mut self, ctx: &egui::Context, setup: ComputerSetup) {
        let now = self.now();
        let game = ComputerGame::new(MatchConfig::default(), setup, seed(), thinker(ctx), now);
        self.view.start(now, Box::new(game));
    }

    /// Draws one frame and handles its input.
    pub(crate) fn show(&mut self, ui: &mut Ui) {
        self.hits.clear();
        let now = self.now();
        if let Some(game) = self.connect.poll() {
            self.view.start(now, Box::new(game));
        }
        if !self.shown {
            self.view.set_analyst(thinker(ui.ctx()));
        }
        // The page's `#computer` link, in the browser.
        #[cfg(target_arch = "wasm32")]
        if let Some(setup) = self.connect.poll_computer() {
            self.pending_computer = Some(setup);
        }
        if let Some(setup) = self.pending_computer.take() {
            self.new_computer_game(ui.ctx(), setup);
        }
        self.view.tick(now);
        if !self.shown {
            while self.view.poll_cue().is_some() {}
            self.shown = true;
        }
        let area = ui.available_rect_before_wrap();
        if area.width() < area.height() {
            self.portrait(ui, now);
        } else {
            self.landscape(ui, now);
        }
        self.dialog(ui, now);
        while let Some(cue) = self.view.poll_cue() {
            self.speaker.play(cue);
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(file) = &mut self.hits_file {
            file.write(&self.hits);
        }
        // A running clock counts down; a connection being made is polled until it is; the
        // computer's move and a hint come when the thinker wakes the app, and are polled too.
        let waiting = self.view.thinking() || self.view.hinting();
        if self.view.clock_running(now) || self.connect.is_busy() || waiting {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// A wide window: the controls on the right, the board in the middle.
    fn landscape(&mut self, ui: &mut Ui, now: Timestamp) {
        egui::Panel::right("controls")
            .resizable(false)
            .exact_size(CONTROLS_WIDTH)
            .show(ui, |ui| {
                ScrollArea::vertical().show(ui, |ui| self.controls(ui, now));
            });
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                self.status(ui);
                ui.with_layout(Layout::right_to_left(Align::Center), |ui| self.check(ui));
            });
        });
        egui::CentralPanel::default().show(ui, |ui| self.board(ui, now));
    }

    /// A tall, narrow window: the board across the top at full width, the controls below it
    /// to scroll through (with a finger on a phone), the status at the bottom.
    fn portrait(&mut self, ui: &mut Ui, now: Timestamp) {
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                self.status(ui);
                self.check(ui);
            });
        });
        let board_width = ui.available_width() - 2.0 * BOARD_MARGIN;
        // No separator line: its pixel would come off the board's height.
        egui::Panel::top("board")
            .resizable(false)
            .show_separator_line(false)
            .exact_size(BoardLayout::height_for(board_width) + 2.0 * BOARD_MARGIN)
            .frame(Frame::central_panel(ui.style()).inner_margin(BOARD_MARGIN))
            .show(ui, |ui| self.board(ui, now));
        egui::CentralPanel::default().show(ui, |ui| {
            ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| self.controls(ui, now));
        });
    }

    /// The board in all the room `ui` has, its clicks and taps forwarded.
    fn board(&mut self, ui: &mut Ui, now: Timestamp) {
        let response = board::show(ui, &self.view);
        for square in response.clicks {
            // A refused click leaves its reason in the view's notice.
            let _ = self.view.click(now, square);
        }
        self.board = Some(response.layout);
    }

    fn status(&self, ui: &mut Ui) {
        ui.label(RichText::new(self.view.status_line()).strong());
        if let Some(notice) = self.view.notice() {
            ui.separator();
            ui.label(RichText::new(notice).italics());
        }
    }

    /// "將軍" while a general is in check.
    fn check(&self, ui: &mut Ui) {
        if self.view.checked_general().is_some() {
            ui.label(RichText::new("將軍").color(egui::Color32::RED).strong());
        }
    }

    /// The opponent's request, over the whole window until it is answered.
    fn dialog(&mut self, ui: &Ui, now: Timestamp) {
        let Some(dialog) = self.view.dialog() else {
            return;
        };
        let mut answer = None;
        let hits = &mut self.hits;
        Modal::new(egui::Id::unique("request")).show(ui.ctx(), |ui| {
            ui.heading(dialog.title());
            ui.label(dialog.question());
            ui.horizontal(|ui| {
                if button(hits, ui, "Accept", true) {
                    answer = Some(true);
                }
                if button(hits, ui, "Decline", true) {
                    answer = Some(false);
                }
            });
        });
        if let Some(accept) = answer {
            let _ = self.view.answer(now, accept);
        }
    }
}

/// What the "Play the computer" panel has chosen: a level from 1 to 10 and a side.
pub(crate) struct ComputerChoice {
    pub(crate) level: u8,
    pub(crate) person: xq_rules::Color,
}

impl Default for ComputerChoice {
    fn default() -> Self {
        let setup = ComputerSetup::default();
        Self {
            level: setup.level.get(),
            person: setup.person,
        }
    }
}

impl ComputerChoice {
    /// The game chosen; a level out of range (which the slider never gives) is the default.
    pub(crate) fn setup(&self) -> ComputerSetup {
        ComputerSetup {
            person: self.person,
            level: xq_engine::Level::new(self.level)
                .unwrap_or_else(|_| ComputerSetup::default().level),
        }
    }
}

/// A thinker that wakes `ctx` when it has an answer: the engine on a worker thread on the
/// desktop, in a Web Worker in the browser.
fn thinker(ctx: &egui::Context) -> Box<dyn Thinker> {
    let ctx = ctx.clone();
    #[cfg(not(target_arch = "wasm32"))]
    {
        Box::new(crate::thinker::WorkerThinker::spawn(std::sync::Arc::new(
            move || ctx.request_repaint(),
        )))
    }
    #[cfg(target_arch = "wasm32")]
    {
        Box::new(xq_gui_web::WebThinker::new(std::rc::Rc::new(move || {
            ctx.request_repaint();
        })))
    }
}

/// A seed for the computer's random choices: a new game each time.
fn seed() -> u64 {
    let since = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .unwrap_or_default();
    // The low bits of the nanoseconds are what varies; the truncation is wanted.
    #[allow(clippy::cast_possible_truncation)]
    let nanos = since.as_nanos() as u64;
    nanos
}

/// Draws a button, enabled or not, notes it in `hits` by its label, and says whether it was
/// clicked.
pub(crate) fn button(hits: &mut Hits, ui: &mut Ui, label: &str, enabled: bool) -> bool {
    hits.note(label, ui.add_enabled(enabled, Button::new(label)))
        .clicked()
}

#[cfg(test)]
mod tests;
