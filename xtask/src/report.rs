//! The bundle's sizes, as a visitor downloads them.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::run::{self, Failure};

/// Prints each file of the bundle in `dir` with its size and its size gzipped (what a
/// server compressing it sends), in bytes.
pub(crate) fn sizes(dir: &Path) -> Result<(), Failure> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .map_err(|error| Failure(format!("{}: {error}", dir.display())))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    files.sort();
    println!("{:<16} {:>12} {:>12}", "file", "bytes", "gzip -9");
    for path in files {
        let raw = fs::metadata(&path).map_or(0, |meta| meta.len());
        let gzip = gzipped(&path).map_or_else(|| "n/a".to_owned(), |len| len.to_string());
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        println!("{name:<16} {raw:>12} {gzip:>12}");
    }
    println!("in {}", dir.display());
    Ok(())
}

/// The size of `path` compressed by `gzip -9`, if gzip is installed.
fn gzipped(path: &Path) -> Option<usize> {
    let compressed = run::bytes(Command::new("gzip").args(["-9", "-n", "-c"]).arg(path))?;
    Some(compressed.len())
}
