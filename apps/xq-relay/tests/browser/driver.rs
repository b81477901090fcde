//! chromedriver and the headless Chromium sessions it drives.

use std::path::Path;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use tokio::process::Command;

use super::process::Guarded;

/// How long chromedriver may take to start, and a browser to open.
const START: Duration = Duration::from_secs(30);

/// The flags every browser gets. WebGL2 without a GPU is SwiftShader's, through ANGLE; the
/// rest keep Chromium from reaching for the network (loopback is all these tests may use) and
/// from spending the two cores on what a test does not need.
const FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--metrics-recording-only",
    "--no-pings",
    // Every name but the loopback address fails to resolve, so nothing leaves the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

/// What a browser's window is like.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Screen {
    /// A desktop window of this many CSS pixels, at one device pixel per CSS pixel.
    Desktop { width: u32, height: u32 },
    /// A phone, through Chromium's mobile emulation: a viewport of this many CSS pixels at
    /// `pixel_ratio` device pixels each, with touch. (A window that small is not one: Chromium
    /// keeps windows at least 500 pixels wide.)
    Phone {
        width: u32,
        height: u32,
        pixel_ratio: f64,
    },
}

/// A running chromedriver on a loopback port.
pub(crate) struct Chromedriver {
    _process: Guarded,
    url: String,
}

impl Chromedriver {
    /// Starts `chromedriver` on a free port, its log in `log`, and waits until it listens.
    pub(crate) async fn start(log: &Path) -> Self {
        let port = free_port();
        let mut command = Command::new("chromedriver");
        command
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()));
        let mut process = Guarded::spawn(
            "chromedriver",
            command,
            "install Debian's chromium and chromium-driver",
        );
        process
            .read_until("that it started", START, |line| {
                line.contains("started successfully").then_some(())
            })
            .await;
        Self {
            _process: process,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// A new browser of `screen`, its profile in `profile` (which must exist and be empty).
    pub(crate) async fn open(&self, screen: Screen, profile: &Path) -> Client {
        let mut args: Vec<String> = FLAGS.iter().map(ToString::to_string).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let mut options = serde_json::Map::new();
        match screen {
            Screen::Desktop { width, height } => {
                args.push(format!("--window-size={width},{height}"));
            }
            Screen::Phone {
                width,
                height,
                pixel_ratio,
            } => {
                // Emulation alone leaves a ResizeObserver's device-pixel sizes at one device
                // pixel per CSS pixel while devicePixelRatio says otherwise, and eframe sizes
                // its canvas by the former and draws by the latter (at a third of the size,
                // stretched); a real scale factor makes the two agree, as on a phone.
                args.push(format!("--force-device-scale-factor={pixel_ratio}"));
                let metrics = json!({
                    "width": width,
                    "height": height,
                    "pixelRatio": pixel_ratio,
                    "touch": true,
                    "mobile": true,
                });
                options.insert(
                    "mobileEmulation".into(),
                    json!({ "deviceMetrics": metrics }),
                );
            }
        }
        options.insert("args".into(), json!(args));
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("chrome"));
        capabilities.insert("goog:chromeOptions".into(), Value::Object(options));
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(capabilities);
        tokio::time::timeout(START, builder.connect(&self.url))
            .await
            .unwrap_or_else(|_| panic!("no browser within {START:?}"))
            .unwrap_or_else(|err| panic!("chromedriver cannot open a browser: {err}"))
    }
}

/// A loopback port nobody listens on now (the kernel's pick, released at once).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap_or_else(|err| panic!("cannot find a free port: {err}"))
        .port()
}
