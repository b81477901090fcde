//! `xq-gui`: the xq desktop client. Play Xiangqi with two players at one screen, save and
//! replay game records; network play joins when the client library exists.
//!
//! `xq-gui --local [--moves h2e2,h9g7] [--flip] --screenshot out.png` starts a local game,
//! plays the moves, draws one frame, writes it to a PNG and exits: for scripts and docs.

mod app;
mod board;
mod connect;
mod fonts;
mod record;
mod screenshot;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use clap::Parser;
use eframe::egui;
use xq_gui_model::Click;
use xq_rules::iccs::Iccs;

use crate::app::XqApp;
use crate::screenshot::Screenshot;

/// The window's size, fixed at start so scripts know where the board is.
const WINDOW_SIZE: [f32; 2] = [1100.0, 800.0];

/// Command-line options.
#[derive(Parser)]
#[command(version, about = "The xq Xiangqi client")]
struct Args {
    /// Start a game for two players at this screen.
    #[arg(long)]
    local: bool,
    /// Moves to play first, in ICCS, separated by commas (h2e2,h9g7).
    #[arg(long, value_delimiter = ',', requires = "local")]
    moves: Vec<String>,
    /// Turn the board around (Black at the bottom).
    #[arg(long)]
    flip: bool,
    /// Write a PNG of the window to this file after the first frames, then exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Where to put the window's top-left corner, as X,Y (there may be no window manager to
    /// place it).
    #[arg(long, value_name = "X,Y", default_value = "0,0", value_parser = parse_position)]
    position: [f32; 2],
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut app = XqApp::new(args.local);
    if args.flip {
        app.view.flip();
    }
    for text in &args.moves {
        play(&mut app, text).with_context(|| format!("cannot play {text}"))?;
    }

    let outcome = Arc::new(Mutex::new(None));
    let screenshot = args
        .screenshot
        .map(|path| Screenshot::new(path, Arc::clone(&outcome)));
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("xq")
            .with_inner_size(WINDOW_SIZE)
            .with_min_inner_size([640.0, 480.0])
            .with_position(args.position),
        ..Default::default()
    };
    eframe::run_native(
        "xq",
        options,
        Box::new(move |cc| {
            fonts::install(&cc.egui_ctx);
            Ok(Box::new(Window { app, screenshot }))
        }),
    )
    .map_err(|error| anyhow::anyhow!("cannot open the window: {error}"))?;

    let outcome = outcome.lock().map_or(None, |mut outcome| outcome.take());
    match outcome {
        Some(result) => result,
        None => Ok(()),
    }
}

/// Parses `X,Y`.
fn parse_position(text: &str) -> Result<[f32; 2], String> {
    let parse = |part: &str| {
        part.trim()
            .parse::<f32>()
            .map_err(|error| error.to_string())
    };
    let (x, y) = text.split_once(',').ok_or("expected X,Y")?;
    Ok([parse(x)?, parse(y)?])
}

/// Plays one ICCS move by clicking its two squares, as a player would.
fn play(app: &mut XqApp, text: &str) -> anyhow::Result<()> {
    let mv = text.parse::<Iccs>()?.to_move(app.view.position())?;
    let now = app.now();
    app.view.click(now, Some(mv.from))?;
    match app.view.click(now, Some(mv.to))? {
        Click::Move(_) => Ok(()),
        other => bail!("the click on {} did {other:?}", mv.to),
    }
}

/// The eframe app: the xq app plus the screenshot to take, if any.
struct Window {
    app: XqApp,
    screenshot: Option<Screenshot>,
}

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.show(ui);
        if let Some(screenshot) = &mut self.screenshot {
            screenshot.after_frame(ui.ctx());
        }
    }
}
