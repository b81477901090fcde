//! The browser's entry: the app on the page's canvas `#xq`, and the data hooks a browser test
//! reads off that canvas after every frame.

use eframe::egui;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use xq_gui_web::{CanvasHooks, board_attr, controls_attr, moves_attr, seat_attr};
use xq_session::pgn;

use crate::app::XqApp;
use crate::fonts;

/// The canvas the page draws on.
const CANVAS: &str = "xq";
/// The page's loading line, replaced once the app runs (or says why it cannot).
const LOADING: &str = "loading";

/// Starts the app on the page's canvas, in the background: the browser runs it from then on.
pub(crate) fn start() {
    wasm_bindgen_futures::spawn_local(async {
        let outcome = run().await;
        if let Some(line) = web_sys::window()
            .and_then(|window| window.document())
            .and_then(|document| document.get_element_by_id(LOADING))
        {
            match outcome {
                Ok(()) => line.remove(),
                Err(error) => line.set_text_content(Some(&format!("xq cannot start: {error}"))),
            }
        }
    });
}

/// Finds the canvas and starts eframe's web runner on it.
async fn run() -> Result<(), String> {
    let canvas = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id(CANVAS))
        .and_then(|element| element.dyn_into::<HtmlCanvasElement>().ok())
        .ok_or_else(|| format!("the page has no canvas #{CANVAS}"))?;
    let hooks = CanvasHooks::new(canvas.clone().into());
    eframe::WebRunner::new()
        .start(
            canvas,
            eframe::WebOptions::default(),
            Box::new(|cc| {
                fonts::install(&cc.egui_ctx);
                // The hooks are in egui points, which are CSS pixels at a zoom factor of 1.
                cc.egui_ctx.set_zoom_factor(1.0);
                cc.egui_ctx
                    .options_mut(|options| options.zoom_with_keyboard = false);
                Ok(Box::new(Page {
                    app: XqApp::new(false),
                    hooks,
                    moves: Moves::default(),
                }))
            }),
        )
        .await
        .map_err(|error| format!("{error:?}"))
}

/// The eframe app of the page: the xq app, and the hooks it leaves on the canvas.
struct Page {
    app: XqApp,
    hooks: CanvasHooks,
    moves: Moves,
}

/// The moves hook, worked out again only when the record changes.
#[derive(Default)]
struct Moves {
    /// The record, as PGN, that `attr` was read from.
    pgn: Option<String>,
    attr: String,
}

impl eframe::App for Page {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.show(ui);
        self.write_hooks();
    }
}

impl Page {
    /// Leaves the last frame's facts on the canvas, for a browser test.
    fn write_hooks(&mut self) {
        let app = &self.app;
        if let Some(layout) = &app.board {
            self.hooks.set("data-board", &board_attr(layout));
        }
        let controls = app
            .hits
            .iter()
            .map(|(name, rect)| (name, [rect.min.x, rect.min.y, rect.width(), rect.height()]));
        self.hooks.set("data-controls", &controls_attr(controls));
        self.hooks.set("data-status", &app.view.status_line());
        let room = app.connect.room();
        let code = room.map(|room| room.code.to_string()).unwrap_or_default();
        self.hooks.set("data-code", &code);
        self.hooks.set("data-seat", seat_attr(room));
        let pgn = app.view.save_pgn();
        if pgn != self.moves.pgn {
            // The record's own parser reads the moves back: no second account of them.
            self.moves.attr = pgn
                .as_deref()
                .and_then(|text| pgn::parse(text).ok())
                .map(|record| moves_attr(record.moves()))
                .unwrap_or_default();
            self.moves.pgn = pgn;
        }
        self.hooks.set("data-moves", &self.moves.attr);
        let connected = if app.connect.is_connected() {
            "true"
        } else {
            "false"
        };
        self.hooks.set("data-connected", connected);
    }
}
