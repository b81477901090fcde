//! `cargo xtask web`: the browser bundle in `target/web/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run::{self, Failure};
use crate::{lock, report};

/// The target the browser runs.
const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The cargo profile of the bundle (the workspace's `[profile.wasm]`).
const PROFILE: &str = "wasm";
/// The page: a full-viewport canvas `#xq`, a loading line, the module that starts the app,
/// and the name of the engine's worker script.
const INDEX: &str = include_str!("../web/index.html");
/// The engine's Web Worker: it loads the engine's glue and answers the page's requests.
const WORKER: &str = include_str!("../web/engine-worker.js");
/// The worker script's name, as `index.html` names it.
const WORKER_NAME: &str = "engine-worker.js";

/// A wasm of the bundle: the package that builds it, the file cargo writes, and the name of
/// the glue (`NAME.js`) and wasm (`NAME_bg.wasm`) that wasm-bindgen writes for it.
struct Wasm {
    package: &'static str,
    artefact: &'static str,
    out_name: &'static str,
}

/// The client (`xq.js`, `xq_bg.wasm`, loaded by `index.html`), and the engine that plays the
/// computer in a Web Worker (`xq_engine.js`, `xq_engine_bg.wasm`, loaded by the worker).
const WASMS: [Wasm; 2] = [
    Wasm {
        package: "xq-gui",
        artefact: "xq-gui.wasm",
        out_name: "xq",
    },
    Wasm {
        package: "xq-engine-web",
        artefact: "xq_engine_web.wasm",
        out_name: "xq_engine",
    },
];
/// The wasm features rustc's output for the target uses, which binaryen must accept.
const WASM_FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Builds the bundle into `target/web/` (under `CARGO_TARGET_DIR` if set) and returns its
/// absolute path.
pub(crate) fn build(root: &Path) -> Result<PathBuf, Failure> {
    let target = target_dir(root);
    add_wasm_target()?;
    let bindgen = wasm_bindgen(root, &target)?;
    let cargo_home = cargo_home();
    let built = compile(root, &target, &cargo_home)?;
    let out = target.join("web");
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|error| io(&out, &error))?;
    }
    fs::create_dir_all(&out).map_err(|error| io(&out, &error))?;
    for (wasm, file) in WASMS.iter().zip(built) {
        let file = optimise(&file)?;
        let mut glue = Command::new(&bindgen);
        glue.arg(&file).arg("--out-dir").arg(&out).args([
            "--out-name",
            wasm.out_name,
            "--target",
            "web",
            "--no-typescript",
        ]);
        run::status(&mut glue)?;
    }
    for (name, text) in [("index.html", INDEX), (WORKER_NAME, WORKER)] {
        let path = out.join(name);
        fs::write(&path, text).map_err(|error| io(&path, &error))?;
    }
    for leak in [root, cargo_home.as_path()] {
        no_path_in(&out, leak)?;
    }
    report::sizes(&out)?;
    Ok(out)
}

/// Where cargo puts what it builds.
fn target_dir(root: &Path) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    if target.is_absolute() {
        target
    } else {
        root.join(target)
    }
}

/// Where cargo keeps the registry's sources.
fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            PathBuf::from(home).join(".cargo")
        },
        PathBuf::from,
    )
}

/// Installs the wasm target with rustup unless it is there.
fn add_wasm_target() -> Result<(), Failure> {
    let installed = run::output(Command::new("rustup").args(["target", "list", "--installed"]));
    match installed {
        Some(list) if list.lines().any(|line| line.trim() == WASM_TARGET) => Ok(()),
        Some(_) => run::status(Command::new("rustup").args(["target", "add", WASM_TARGET])),
        // Without rustup the toolchain is what it is: the build says if the target is missing.
        None => {
            eprintln!("xtask: no rustup: assuming the toolchain has {WASM_TARGET}");
            Ok(())
        }
    }
}

/// The `wasm-bindgen` CLI of exactly the `wasm-bindgen` crate's version in `Cargo.lock`,
/// installed under `target/tools/` unless it is there already.
fn wasm_bindgen(root: &Path, target: &Path) -> Result<PathBuf, Failure> {
    let lock_path = root.join("Cargo.lock");
    let lockfile = fs::read_to_string(&lock_path).map_err(|error| io(&lock_path, &error))?;
    let version = lock::version_of(&lockfile, "wasm-bindgen")
        .ok_or_else(|| Failure("Cargo.lock holds no single wasm-bindgen".to_owned()))?;
    let tools = target.join("tools");
    let bin = tools.join("bin").join("wasm-bindgen");
    let wanted = format!("wasm-bindgen {version}");
    let has = |bin: &Path| {
        run::output(Command::new(bin).arg("--version")).is_some_and(|said| said.trim() == wanted)
    };
    if !has(&bin) {
        let install = |locked: bool| {
            let mut install = run::cargo();
            install.arg("install");
            if locked {
                install.arg("--locked");
            }
            install
                .args(["wasm-bindgen-cli", "--version", &version])
                .arg("--root")
                .arg(&tools);
            run::status(&mut install)
        };
        if let Err(Failure(why)) = install(true) {
            // The CLI's own lock file can name a version the registry no longer offers (one
            // yanked since); the CLI at the same version, resolved afresh, writes the same glue.
            eprintln!("xtask: {why}; installing it again without its lock file");
            install(false)?;
        }
        if !has(&bin) {
            return Err(Failure(format!("{} is not {wanted}", bin.display())));
        }
    }
    Ok(bin)
}

/// Builds the client and the engine's worker for the browser in the size profile, in one
/// cargo run, with the workspace's and cargo's paths remapped so that no path of this
/// machine lands in the wasm (panic messages carry source paths); returns the wasm files in
/// the order of [`WASMS`].
fn compile(root: &Path, target: &Path, cargo_home: &Path) -> Result<Vec<PathBuf>, Failure> {
    let remap = |from: &Path, to: &str| format!("--remap-path-prefix={}={to}", from.display());
    let flags = [remap(root, "/xq"), remap(cargo_home, "/cargo")].join("\u{1f}");
    let mut build = run::cargo();
    build
        .current_dir(root)
        .args(["build", "--locked", "--target", WASM_TARGET])
        .args(WASMS.iter().flat_map(|wasm| ["-p", wasm.package]))
        .args(["--profile", PROFILE])
        .env("CARGO_ENCODED_RUSTFLAGS", flags)
        .env_remove("RUSTFLAGS");
    run::status(&mut build)?;
    let dir = target.join(WASM_TARGET).join(PROFILE);
    Ok(WASMS.iter().map(|wasm| dir.join(wasm.artefact)).collect())
}

/// Shrinks rustc's wasm with binaryen's `wasm-opt -Oz`, if it is installed; returns the wasm
/// to hand to wasm-bindgen.
///
/// It runs before wasm-bindgen, not after: wasm-bindgen adds a second table (for JavaScript
/// values), and Debian 12's binaryen (108) writes that table's export as the first table's,
/// which breaks the page; rustc's output has one table, and wasm-bindgen's own additions are
/// small.
fn optimise(wasm: &Path) -> Result<PathBuf, Failure> {
    if !run::on_path("wasm-opt") {
        eprintln!(
            "xtask: wasm-opt is not on PATH (Debian: apt-get install binaryen): the wasm is \
             left as rustc and wasm-bindgen wrote it"
        );
        return Ok(wasm.to_path_buf());
    }
    let optimised = wasm.with_extension("opt.wasm");
    let mut opt = Command::new("wasm-opt");
    opt.arg("-Oz")
        .args(WASM_FEATURES)
        .arg(wasm)
        .arg("-o")
        .arg(&optimised);
    run::status(&mut opt)?;
    Ok(optimised)
}

/// Fails if any file of the bundle in `dir` holds the path `leak`.
fn no_path_in(dir: &Path, leak: &Path) -> Result<(), Failure> {
    let needle = leak.to_string_lossy();
    if needle.len() < 2 {
        return Ok(());
    }
    for entry in fs::read_dir(dir).map_err(|error| io(dir, &error))? {
        let path = entry.map_err(|error| io(dir, &error))?.path();
        let bytes = fs::read(&path).map_err(|error| io(&path, &error))?;
        if bytes
            .windows(needle.len())
            .any(|window| window == needle.as_bytes())
        {
            return Err(Failure(format!(
                "{} holds the path {needle}: a remap is missing",
                path.display()
            )));
        }
    }
    Ok(())
}

fn io(path: &Path, error: &std::io::Error) -> Failure {
    Failure(format!("{}: {error}", path.display()))
}
