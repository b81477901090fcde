//! Perft of the start position, deep, beside Pikafish's in the same run.
//!
//! `cargo bench -p xq-rules --bench perft` counts the start position to depth 6 (`PERFT_DEPTH`
//! sets another) on one thread and prints nodes per second. If `PIKAFISH` names a Pikafish
//! binary, the same perft runs there too (`position startpos`, `go perft N`), and the ratio of
//! the two rates is printed. Pikafish's time is the wall time of its process minus that of a
//! `go perft 1` run, which is its start-up (so compare at depth 5 or more, where that start-up
//! is a small part of the total). On a shared machine the load drifts, so xq runs
//! both before and after Pikafish, and the ratio takes the mean of its two rates.
//!
//! Both count the same way: the last ply in bulk, as the number of legal moves of each
//! position one ply short of the leaves, without playing them.

#![allow(missing_docs)] // a bench binary

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use xq_rules::{Position, perft};

/// Published leaf counts of the start position, by depth.
const STARTPOS: [u64; 8] = [
    1,
    44,
    1_920,
    79_666,
    3_290_240,
    133_312_995,
    5_392_831_844,
    219_067_051_347,
];

fn main() {
    let depth: usize = std::env::var("PERFT_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .filter(|&d| d < STARTPOS.len())
        .unwrap_or(6);
    let before = xq(depth);
    let Some(binary) = std::env::var_os("PIKAFISH") else {
        println!("(set PIKAFISH to a pikafish binary to compare)");
        return;
    };
    let startup = pikafish(&binary, 1).1;
    let (nodes, total) = pikafish(&binary, depth);
    assert_eq!(nodes, STARTPOS[depth], "pikafish perft {depth}");
    let pika = total.saturating_sub(startup);
    let pika_rate = rate(nodes, pika);
    println!(
        "Pikafish  perft(startpos, {depth}) = {nodes} in {:.2} s ({:.2} s less {:.2} s start-up): \
         {:.1} M nodes/s",
        pika.as_secs_f64(),
        total.as_secs_f64(),
        startup.as_secs_f64(),
        pika_rate / 1e6
    );
    let after = xq(depth);
    let xq_rate = (before + after) / 2.0;
    println!(
        "ratio xq / Pikafish: {:.2}x (xq's mean rate {:.1} M nodes/s)",
        xq_rate / pika_rate,
        xq_rate / 1e6
    );
}

/// Runs xq's perft, prints it and returns its rate in nodes per second.
fn xq(depth: usize) -> f64 {
    let clock = Instant::now();
    let nodes = perft(&Position::startpos(), depth as u32);
    let time = clock.elapsed();
    assert_eq!(nodes, STARTPOS[depth], "xq perft {depth}");
    let xq_rate = rate(nodes, time);
    println!(
        "xq-rules  perft(startpos, {depth}) = {nodes} in {:.2} s: {:.1} M nodes/s",
        time.as_secs_f64(),
        xq_rate / 1e6
    );
    xq_rate
}

fn rate(nodes: u64, time: Duration) -> f64 {
    nodes as f64 / time.as_secs_f64()
}

/// Runs Pikafish's perft and returns its node count and the process's wall time.
fn pikafish(binary: &std::ffi::OsStr, depth: usize) -> (u64, Duration) {
    let clock = Instant::now();
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.to_string_lossy()));
    child
        .stdin
        .take()
        .map(|mut stdin| write!(stdin, "position startpos\ngo perft {depth}\nquit\n"))
        .transpose()
        .unwrap_or_else(|e| panic!("cannot talk to pikafish: {e}"));
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("pikafish failed: {e}"));
    let time = clock.elapsed();
    let text = String::from_utf8_lossy(&output.stdout);
    let nodes = text
        .lines()
        .find_map(|line| line.strip_prefix("Nodes searched: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no node count in pikafish's output:\n{text}"));
    (nodes, time)
}
