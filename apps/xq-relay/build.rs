//! Embeds the web client's bundle (`cargo xtask web` builds it) into the relay.
//!
//! The bundle is the directory named by `XQ_WEB_DIR`; without it the relay is built with no
//! web client and serves a page saying how to build one. Every file is embedded as it is and,
//! where compression pays, gzip-compressed here once, so the relay never compresses while
//! serving. The page (`index.html`) is rewritten to load the other files from a path that
//! names the bundle's version, so a browser may cache them for good and still never mixes two
//! versions.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

use flate2::Compression;
use flate2::write::GzEncoder;

/// The page every other file hangs off.
const PAGE: &str = "index.html";

fn main() {
    println!("cargo:rerun-if-env-changed=XQ_WEB_DIR");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let code = match env::var_os("XQ_WEB_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            println!("cargo:rerun-if-changed={}", dir.display());
            embed(&dir, &out)
        }
        None => "const BUNDLE: Option<Bundle> = None;\n".to_owned(),
    };
    fs::write(out.join("web_bundle.rs"), code).expect("OUT_DIR is writable");
}

/// The Rust source of the bundle in `dir`: `const BUNDLE: Option<Bundle>`.
fn embed(dir: &Path, out: &Path) -> String {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("XQ_WEB_DIR={}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let path = entry.path();
            let name = entry.file_name().into_string().unwrap_or_else(|name| {
                panic!("{}: a file name that is not UTF-8: {name:?}", dir.display())
            });
            let body = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (name, body)
        })
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|(name, _)| name == PAGE),
        "XQ_WEB_DIR={} has no {PAGE}: build it with `cargo xtask web`",
        dir.display()
    );
    let version = format!(
        "{:016x}",
        fnv(files
            .iter()
            .flat_map(|(name, body)| { name.as_bytes().iter().chain(body).copied() }))
    );
    for (name, body) in &mut files {
        if name == PAGE {
            *body = versioned_page(body, &version, dir);
        }
    }

    let web = out.join("web");
    fs::create_dir_all(&web).expect("OUT_DIR is writable");
    let mut code = String::from("const BUNDLE: Option<Bundle> = Some(Bundle {\n");
    writeln!(code, "    version: {version:?},").expect("writing to a String");
    code.push_str("    files: &[\n");
    for (name, body) in &files {
        let plain = web.join(name);
        fs::write(&plain, body).expect("OUT_DIR is writable");
        let gzip = compressible(name)
            .then(|| gzip(body))
            .filter(|packed| packed.len() < body.len())
            .map(|packed| {
                let path = web.join(format!("{name}.gz"));
                fs::write(&path, packed).expect("OUT_DIR is writable");
                format!("Some(include_bytes!({:?}))", path.display().to_string())
            })
            .unwrap_or_else(|| "None".to_owned());
        writeln!(
            code,
            "        File {{ name: {name:?}, body: include_bytes!({:?}), gzip: {gzip}, etag: \"\\\"{:016x}\\\"\" }},",
            plain.display().to_string(),
            fnv(body.iter().copied()),
        )
        .expect("writing to a String");
    }
    code.push_str("    ],\n});\n");
    code
}

/// The page with every reference to a file of the bundle (`./NAME`) pointed at the
/// versioned path the relay serves it under.
fn versioned_page(page: &[u8], version: &str, dir: &Path) -> Vec<u8> {
    let mut text = String::from_utf8(page.to_vec())
        .unwrap_or_else(|_| panic!("{}/{PAGE} is not UTF-8", dir.display()));
    let names: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name != PAGE)
        .collect();
    for name in names {
        text = text.replace(&format!("./{name}"), &format!("./v/{version}/{name}"));
    }
    text.into_bytes()
}

/// Whether gzip is worth trying: text and wasm shrink, images are compressed already.
fn compressible(name: &str) -> bool {
    [".html", ".js", ".wasm", ".css", ".json", ".svg", ".txt"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// `body` gzip-compressed at the best level (it is done once, at build time).
fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(body).expect("writing to a Vec");
    encoder.finish().expect("writing to a Vec")
}

/// FNV-1a, 64 bits: a stable fingerprint of the bundle's contents for its version and ETags.
fn fnv(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
