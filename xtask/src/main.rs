//! The workspace's build tasks, in Rust so they run wherever cargo does:
//!
//! - `cargo xtask web` builds the browser client into `target/web/`: `index.html`, the
//!   JavaScript glue and the `.wasm`, and the engine that plays the computer in a Web Worker
//!   (`engine-worker.js` and its own glue and `.wasm`), and prints each file's size, raw and gzipped. It
//!   installs what it needs itself: the `wasm32-unknown-unknown` target, and the
//!   `wasm-bindgen` CLI at the version of the `wasm-bindgen` crate in `Cargo.lock` (under
//!   `target/tools/`); `wasm-opt` (binaryen) is used when it is on `PATH`.
//! - `cargo xtask relay [ARGS...]` builds the bundle, then runs the relay (`xq-relay ARGS`)
//!   with `XQ_WEB_DIR` naming it, so the relay built then serves it.

mod bundle;
mod lock;
mod report;
mod run;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::run::Failure;

const USAGE: &str = "usage: cargo xtask web | cargo xtask relay [ARGS...]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let result = match args.next().as_deref() {
        Some("web") if args.len() == 0 => bundle::build(&root()).map(drop),
        Some("relay") => relay(&root(), args.collect()),
        _ => Err(Failure(USAGE.to_owned())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's root: where this package sits. `cargo run` names the package's directory
/// at run time too, which is right even for a binary built in another checkout (one whose
/// target directory was copied); the name compiled in serves when run some other way.
fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest
        .parent()
        .map_or_else(|| manifest.clone(), Path::to_path_buf)
}

/// Builds the bundle, then runs the relay with it embedded.
fn relay(root: &Path, args: Vec<String>) -> Result<(), Failure> {
    let web = bundle::build(root)?;
    let mut cargo = run::cargo();
    cargo
        .current_dir(root)
        .args(["run", "--release", "--locked", "-p", "xq-relay", "--"])
        .args(args)
        .env("XQ_WEB_DIR", &web);
    run::status(&mut cargo)
}
