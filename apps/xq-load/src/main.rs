//! `xq-load`: a load generator that plays many matches against a relay at once and measures
//! throughput, latency and the relay's CPU and memory.
//!
//! Each match is one task holding both of its clients ([`table`]), which replay scripted games
//! ([`script`]) through a sans-IO protocol conversation ([`player`]) over the transports
//! directly ([`link`]; no `xq-client`: its mirror, reconnection and event channel would cost
//! the load generator more CPU than the relay it measures). [`fleet`] runs the matches and
//! reads the [`meter`]; [`report`] prints the figures. `--baseline` measures the machine
//! instead, through a raw UDP [`forwarder`].

mod cli;
mod fleet;
mod forwarder;
mod link;
mod meter;
mod player;
mod report;
mod script;
mod table;

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::Parser;
use xq_transport::Address;

use crate::cli::Args;
use crate::forwarder::{Forwarder, FrameSizes, RawTable};
use crate::link::Dialer;
use crate::report::Mode;
use crate::script::Scripts;
use crate::table::RelayTable;

fn main() -> ExitCode {
    match load(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xq-load: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the benchmark and prints its `key: value` lines.
fn load(args: Args) -> Result<()> {
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads);
    }
    runtime
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(run(args))
}

async fn run(args: Args) -> Result<()> {
    let mut out = io::stdout().lock();
    if args.baseline {
        let sizes = FrameSizes::measure()?;
        let forwarder = Forwarder::start(args.matches, sizes.event)?;
        let addr = forwarder.addr;
        let setup = move |index| RawTable::seat(addr, index, sizes.command);
        let report = fleet::drive(&args, Some(forwarder.thread.clone()), setup).await?;
        forwarder.stop();
        return report.write(&mut out, Mode::Baseline, "raw-udp", args.rate);
    }
    let relay = args
        .relay_pid
        .map(|pid| PathBuf::from(format!("/proc/{pid}")));
    let url = args.url.clone().unwrap_or_default();
    let sockets = args.sockets();
    let (transport, dialers) = match url.parse::<Address>()? {
        Address::Udp { host, port } => ("udp", Dialer::udp(&host, port, sockets).await?),
        Address::Quic { .. } => ("quic", Dialer::quic(&url, sockets).await?),
        Address::Ws { .. } => ("ws", Dialer::ws(&url)),
        Address::Wss { .. } => ("wss", Dialer::ws(&url)),
        Address::Mem { .. } => bail!(
            "mem:// reaches only listeners inside the same process: give the relay's udp://, \
             quic:// or ws:// URL"
        ),
        _ => bail!("unsupported transport in {url}"),
    };
    let scripts = Arc::new(Scripts::new(args.seed)?);
    let matches = args.matches;
    let setup = move |index: usize| {
        // Clients 2i and 2i + 1 play match i; neighbours share a socket.
        let dialer = |client: usize| dialers[client * dialers.len() / (2 * matches)].clone();
        RelayTable::seat(
            [dialer(2 * index), dialer(2 * index + 1)],
            scripts.pick(index),
        )
    };
    let report = fleet::drive(&args, relay, setup).await?;
    let mode = if args.idle { Mode::Idle } else { Mode::Play };
    report.write(&mut out, mode, transport, args.rate)
}
