//! The desktop's entry: the command line, the window, and network play as the command line
//! asks for it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use clap::{ArgGroup, Parser, ValueEnum};
use eframe::egui;
use xq_engine::Level;
use xq_gui_model::{Click, ComputerSetup};
use xq_rules::Color;
use xq_rules::iccs::Iccs;

use crate::app::XqApp;
use crate::connect::{ConnectPanel, waker};
use crate::fonts;
use crate::screenshot::Screenshot;

/// The window's size, fixed at start so scripts know where the board is.
const WINDOW_SIZE: [f32; 2] = [1100.0, 800.0];

/// Command-line options.
#[derive(Parser)]
#[command(version, about = "The xq Xiangqi client")]
#[command(group(
    ArgGroup::new("entry")
        .args(["create", "join", "quick", "spectate"])
        .requires("connect")
))]
struct Args {
    /// Start a game for two players at this screen.
    #[arg(long, conflicts_with_all = ["connect", "host"])]
    local: bool,
    /// Play the computer at this level, from 1 (a beginner) to 10 (full strength).
    #[arg(long, value_name = "LEVEL", conflicts_with_all = ["local", "connect", "host"])]
    computer: Option<Level>,
    /// The side to play against the computer (Red moves first).
    #[arg(long, value_enum, default_value_t = Side::Red, requires = "computer")]
    side: Side,
    /// Play on the relay at this URL (udp://HOST:PORT, quic://HOST:PORT?fp=HEX or mem://NAME),
    /// entering a room as --create, --join, --quick or --spectate says. A comma-separated list
    /// of a relay cluster's nodes plays through the first that answers, and resumes through
    /// the next when that one goes away.
    #[arg(
        long,
        value_name = "URL[,URL...]",
        requires = "entry",
        conflicts_with = "host"
    )]
    connect: Option<String>,
    /// Create a room on the relay and show its code to share.
    #[arg(long)]
    create: bool,
    /// Join the room with this code.
    #[arg(long, value_name = "CODE")]
    join: Option<String>,
    /// Play the next player who asks the relay for a quick match.
    #[arg(long)]
    quick: bool,
    /// Watch the room with this code.
    #[arg(long, value_name = "CODE")]
    spectate: Option<String>,
    /// Host a game: serve a relay from this process on UDP and QUIC and create a room on it.
    #[arg(long)]
    host: bool,
    /// The hosted relay's UDP port (0: any free port).
    #[arg(long, value_name = "PORT", default_value_t = 7878)]
    udp_port: u16,
    /// The hosted relay's QUIC port (0: any free port).
    #[arg(long, value_name = "PORT", default_value_t = 7879)]
    quic_port: u16,
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

/// A side to play, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    Red,
    Black,
}

/// Parses the command line, opens the window and runs it until it closes.
pub(crate) fn main() -> anyhow::Result<()> {
    let mut args = Args::parse();
    let mut app = XqApp::new(args.local);
    if args.flip {
        app.view.flip();
    }
    if let Some(level) = args.computer {
        let person = match args.side {
            Side::Red => Color::Red,
            Side::Black => Color::Black,
        };
        app.pending_computer = Some(ComputerSetup { person, level });
    }
    for text in &args.moves {
        play(&mut app, text).with_context(|| format!("cannot play {text}"))?;
    }

    let outcome = Arc::new(Mutex::new(None));
    let screenshot = args
        .screenshot
        .take()
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
            go_online(&mut app.connect, &cc.egui_ctx, &args);
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

/// Starts the network play the command line asks for, as the panel's buttons would.
fn go_online(panel: &mut ConnectPanel, ctx: &egui::Context, args: &Args) {
    if args.host {
        panel.host.udp_port = args.udp_port;
        panel.host.quic_port = args.quic_port;
        panel.lobby.host(panel.host.clone(), waker(ctx));
    }
    let Some(url) = &args.connect else {
        return;
    };
    panel.relay.clone_from(url);
    let wake = waker(ctx);
    if args.create {
        panel.lobby.create(url, wake);
    } else if args.quick {
        panel.lobby.quick_match(url, wake);
    } else if let Some(code) = &args.join {
        panel.code.clone_from(code);
        panel.lobby.join(url, code, wake);
    } else if let Some(code) = &args.spectate {
        panel.code.clone_from(code);
        panel.lobby.spectate(url, code, wake);
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
pub(crate) fn play(app: &mut XqApp, text: &str) -> anyhow::Result<()> {
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
