//! `xq-load`: a load generator that plays many matches against a relay (or the nodes of a
//! relay cluster) at once and measures throughput, latency and the relay's CPU and memory.
//!
//! Each match is one task holding both of its clients ([`table`]), which replay scripted games
//! ([`script`]) through a sans-IO protocol conversation ([`player`]) over the transports
//! directly ([`link`]; no `xq-client` driver: its mirror, reconnection and event channel would
//! cost the load generator more CPU than the relay it measures). Against a cluster the players
//! are split across the nodes so that every join is redirected to the room's owner. [`fleet`] runs the matches and
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
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;

use crate::cli::Args;
use crate::forwarder::{Forwarder, FrameSizes, RawTable};
use crate::link::Nodes;
use crate::meter::Processes;
use crate::report::{Mode, Run};
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
        let thread = Processes::new(vec![forwarder.thread.clone()]);
        let report = fleet::drive(&args, &thread, &Processes::default(), setup).await?;
        forwarder.stop();
        let run = Run {
            mode: Mode::Baseline,
            transport: "raw-udp",
            nodes: 1,
            rate: args.rate,
        };
        return report.write(&mut out, run);
    }
    let relays = args.url.as_ref().context("no relay URL given")?;
    let nodes = Nodes::bind(relays, args.sockets()).await?;
    let (transport, count) = (nodes.transport(), nodes.len());
    let scripts = Arc::new(Scripts::new(args.seed)?);
    let matches = args.matches;
    let setup =
        move |index: usize| RelayTable::seat(nodes.seat(index, matches), scripts.pick(index));
    let relay = Processes::pids(&args.relay_pid);
    let nats = Processes::pids(&args.nats_pid);
    let report = fleet::drive(&args, &relay, &nats, setup).await?;
    let run = Run {
        mode: if args.idle { Mode::Idle } else { Mode::Play },
        transport: transport.name(),
        nodes: count,
        rate: args.rate,
    };
    report.write(&mut out, run)
}
