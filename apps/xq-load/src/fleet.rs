//! The fleet of matches: sets them all up, lets them play through the warm-up and the
//! measured time (or sit idle), and collects what they measured, with the meter's readings.
//! Each match is one task; the tasks read the [`Phase`] after every move.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tokio::sync::{Semaphore, mpsc, watch};

use crate::cli::Args;
use crate::meter::{Processes, Usage, cpu_percent};
use crate::report::{Report, Tally};

/// How long one move (with the rematch it may start) may take before the match counts as
/// failed: far above any latency the tool reports, so only a lost or stuck connection reaches
/// it.
const STALL: Duration = Duration::from_secs(5);
/// How long the matches get to finish their last move and close, once the time is up.
const WIND_DOWN: Duration = Duration::from_secs(5);
/// Error messages printed to standard error; the rest are only counted.
const ERRORS_SHOWN: usize = 5;

/// The two clients of one match, ready to play.
pub(crate) trait Table: Send + 'static {
    /// How many redirects its clients followed to their seats (a relay cluster's node sends
    /// a client asking for a room that another node owns there).
    fn redirects(&self) -> usize;

    /// Plays the next move and waits until both clients have its event; if that ended the
    /// game, starts the next one.
    fn step(&mut self) -> impl Future<Output = Result<Ply>> + Send;

    /// Closes both clients.
    fn close(self) -> impl Future<Output = ()> + Send;
}

/// What one [`Table::step`] measured.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ply {
    /// From sending the move to the opponent receiving its event.
    pub(crate) latency: Duration,
    /// Whether the move ended a game (and a new one has begun).
    pub(crate) game_over: bool,
}

/// Where the benchmark stands; every match task reads it after each move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The matches are being set up.
    Setup,
    /// Playing, not measured yet.
    Warmup,
    /// Playing and measured.
    Measure,
    /// Time is up: finish the move in progress and close.
    Stop,
}

/// Sets up every match with `setup`, lets them play through the warm-up and the measured time
/// (or sit idle), and collects what they measured. `relay` is the processes (or thread) whose
/// CPU and memory are reported as the relay's, summed; `nats` those whose CPU is reported
/// beside them as the NATS servers'.
pub(crate) async fn drive<T, F, Fut>(
    args: &Args,
    relay: &Processes,
    nats: &Processes,
    setup: F,
) -> Result<Report>
where
    T: Table,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Result<T>> + Send + 'static,
{
    let relay_before = relay.read();
    let (phase_tx, phase) = watch::channel(Phase::Setup);
    let (ready_tx, mut ready) = mpsc::channel(args.matches);
    let permits = Arc::new(Semaphore::new(args.connect_concurrency.max(1)));
    let errors = Arc::new(AtomicUsize::new(0));
    let interval = args
        .rate
        .map(|rate| Duration::try_from_secs_f64(args.matches as f64 / rate))
        .transpose()
        .map_err(|_| {
            anyhow::anyhow!(
                "--rate is too small: each match would wait longer than a duration holds"
            )
        })?;
    let idle = args.idle;
    let tasks: Vec<_> = (0..args.matches)
        .map(|index| {
            let setup = setup(index);
            let permits = Arc::clone(&permits);
            let ready = ready_tx.clone();
            let phase = phase.clone();
            let errors = Arc::clone(&errors);
            // Matches start their schedules spread over one interval, not all at once.
            let offset = interval.map(|i| i.mul_f64(index as f64 / args.matches as f64));
            tokio::spawn(async move {
                let seated = async {
                    let _permit = permits.acquire().await?;
                    tokio::time::timeout(STALL * 4, setup)
                        .await
                        .context("setting up the match timed out")?
                };
                let table = match seated.await {
                    Ok(table) => table,
                    Err(err) => {
                        report_error(&errors, index, &err);
                        let _ = ready.send(None).await;
                        return Tally {
                            failed: true,
                            ..Tally::default()
                        };
                    }
                };
                let _ = ready.send(Some(table.redirects())).await;
                drop(ready);
                let schedule = interval.zip(offset);
                play(table, phase, schedule, idle, index, &errors).await
            })
        })
        .collect();
    drop(ready_tx);
    let (mut seated, mut redirects) = (0, 0);
    // Each task reports once and then lets go of its sender, so this ends when all have.
    while let Some(outcome) = ready.recv().await {
        if let Some(followed) = outcome {
            seated += 1;
            redirects += followed;
        }
    }
    let own = Path::new("/proc/self");
    let _ = phase_tx.send(Phase::Warmup);
    tokio::time::sleep(args.warmup).await;
    let started = Instant::now();
    let load_start = Usage::read(own).ok();
    let relay_start = relay.read();
    let nats_start = nats.read();
    let _ = phase_tx.send(Phase::Measure);
    tokio::time::sleep(args.seconds).await;
    let _ = phase_tx.send(Phase::Stop);
    let elapsed = started.elapsed();
    let load_end = Usage::read(own).ok();
    let relay_end = relay.read();
    let nats_end = nats.read();
    let mut tallies = Vec::with_capacity(tasks.len());
    let deadline = tokio::time::Instant::now() + WIND_DOWN;
    for (index, task) in tasks.into_iter().enumerate() {
        let abort = task.abort_handle();
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(tally)) => tallies.push(tally),
            Ok(Err(err)) => report_error(&errors, index, &anyhow::Error::new(err)),
            Err(_) => {
                abort.abort();
                report_error(&errors, index, &anyhow::anyhow!("did not stop in time"));
            }
        }
    }
    Ok(Report {
        matches: args.matches,
        seated,
        redirects,
        elapsed,
        tallies,
        errors: errors.load(Ordering::Relaxed),
        load_cpu: cpu_percent(load_start, load_end, elapsed),
        relay_cpu: cpu_percent(relay_start, relay_end, elapsed),
        nats_cpu: cpu_percent(nats_start, nats_end, elapsed),
        relay_rss_before: relay_before.map(|usage| usage.rss_bytes),
        relay_rss: relay_end.map(|usage| usage.rss_bytes),
    })
}

/// One match's life after setup: moves until the time is up (on a schedule if `schedule`
/// gives its interval and first offset), or idles, then closes.
async fn play<T: Table>(
    mut table: T,
    mut phase: watch::Receiver<Phase>,
    schedule: Option<(Duration, Duration)>,
    idle: bool,
    index: usize,
    errors: &AtomicUsize,
) -> Tally {
    let mut tally = Tally::default();
    if phase.wait_for(|&p| p != Phase::Setup).await.is_err() {
        return tally;
    }
    if idle {
        let _ = phase.wait_for(|&p| p == Phase::Stop).await;
        table.close().await;
        return tally;
    }
    let mut next = schedule.map(|(_, offset)| tokio::time::Instant::now() + offset);
    loop {
        if let (Some(at), Some((interval, _))) = (next.as_mut(), schedule) {
            // A match's next move may be further off than the wind-down lasts (a low rate
            // spread over many matches): the end of the time does not wait for it.
            tokio::select! {
                () = tokio::time::sleep_until(*at) => {}
                _ = phase.wait_for(|&p| p == Phase::Stop) => break,
            }
            // A match that fell behind its schedule starts afresh rather than bursting.
            *at = (*at + interval).max(tokio::time::Instant::now());
        }
        let current = *phase.borrow();
        if current == Phase::Stop {
            break;
        }
        let step = tokio::time::timeout(STALL, table.step()).await;
        match step.context("the relay went silent").and_then(|step| step) {
            Ok(ply) if current == Phase::Measure && *phase.borrow() == Phase::Measure => {
                let micros = ply.latency.as_micros();
                tally
                    .latencies
                    .push(u32::try_from(micros).unwrap_or(u32::MAX));
                tally.games += u64::from(ply.game_over);
            }
            Ok(_) => {}
            Err(err) => {
                report_error(errors, index, &err);
                tally.failed = true;
                break;
            }
        }
    }
    table.close().await;
    tally
}

fn report_error(errors: &AtomicUsize, index: usize, err: &anyhow::Error) {
    if errors.fetch_add(1, Ordering::Relaxed) < ERRORS_SHOWN {
        eprintln!("match {index}: {err:#}");
    }
}
