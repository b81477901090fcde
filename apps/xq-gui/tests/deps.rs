//! What the GUI links: its hosted relay keeps nothing and serves no metrics, so the build has
//! no SQLite and no HTTP server. A dependency that pulls them back in (a default feature of
//! `xq-server` or `xq-store`, say) fails here, and so does an audio library in the default
//! build.

use std::collections::BTreeSet;
use std::process::Command;

/// The packages `package` links on any target, as `cargo tree` lists them. Not offline: the
/// other targets' packages are not downloaded by a build for this one, and on a fresh
/// machine `cargo tree` fetches them first.
fn linked(package: &str) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--locked", "--target", "all"])
        .args([
            "-e", "normal", "--prefix", "none", "--format", "{p}", "-p", package,
        ])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_gui_links_no_database_and_no_http_server() {
    let linked = linked("xq-gui");
    // The tree is the GUI's: the toolkit, network play and the hosted relay are in it.
    for present in ["eframe", "xq-gui-model", "xq-gui-net", "xq-server"] {
        assert!(
            linked.contains(present),
            "{present} is missing from {linked:?}"
        );
    }
    let heavy = [
        "rusqlite",
        "libsqlite3-sys",
        "hyper",
        "hyper-util",
        "http-body-util",
        "prometheus-client",
    ];
    let found: Vec<_> = heavy
        .iter()
        .filter(|name| linked.contains(**name))
        .collect();
    assert!(found.is_empty(), "the GUI links {found:?}");
}

#[test]
fn the_default_gui_links_no_audio_library() {
    // Move sounds on the desktop are the `sound` feature's: without it, a build needs no
    // system audio library (ALSA's headers on Linux).
    let linked = linked("xq-gui");
    let audio = ["rodio", "cpal", "alsa", "alsa-sys", "coreaudio-rs"];
    let found: Vec<_> = audio
        .iter()
        .filter(|name| linked.contains(**name))
        .collect();
    assert!(found.is_empty(), "the default GUI links {found:?}");
}

#[test]
fn the_view_model_links_no_io() {
    let linked = linked("xq-gui-model");
    // The relay game reads the client's mirror: the sans-IO core of `xq-client`, without the
    // tokio client and its transports.
    for present in ["xq-session", "xq-client"] {
        assert!(
            linked.contains(present),
            "{present} is missing from {linked:?}"
        );
    }
    let io = [
        "tokio",
        "xq-server",
        "xq-store",
        "xq-transport",
        "xq-transport-udp",
        "xq-transport-quic",
    ];
    let found: Vec<_> = io.iter().filter(|name| linked.contains(**name)).collect();
    assert!(found.is_empty(), "the view-model links {found:?}");
}
