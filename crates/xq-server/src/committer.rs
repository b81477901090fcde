//! The storage thread: commits one batch at a time, off the async runtime.

use std::io;
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use xq_store::{Committed, Persist, Storage, StoreError};

/// A storage engine on a thread of its own. The driver hands it a batch with
/// [`submit`](Self::submit) and learns from [`done`](Self::done) when it is committed; the
/// engine's blocking calls never hold up the runtime.
#[derive(Debug)]
pub(crate) struct Committer {
    batches: Option<std_mpsc::Sender<Vec<Persist>>>,
    results: mpsc::Receiver<Result<Commit, StoreError>>,
    thread: Option<JoinHandle<()>>,
}

/// A batch the storage committed.
#[derive(Debug)]
pub(crate) struct Commit {
    /// How long the commit took.
    pub(crate) elapsed: Duration,
    /// The rooms it refused.
    pub(crate) committed: Committed,
}

impl Committer {
    /// Starts the thread, which owns `storage` from now on.
    pub(crate) fn start(mut storage: Box<dyn Storage>) -> io::Result<Self> {
        let (batches, incoming) = std_mpsc::channel::<Vec<Persist>>();
        // The driver has at most one batch in flight, so one result waits at most.
        let (report, results) = mpsc::channel(1);
        let thread = std::thread::Builder::new()
            .name("xq-store".into())
            .spawn(move || {
                while let Ok(batch) = incoming.recv() {
                    let start = Instant::now();
                    let result = storage.commit(&batch);
                    let elapsed = start.elapsed();
                    tracing::trace!(changes = batch.len(), ?elapsed, "committed");
                    let result = result.map(|committed| Commit { elapsed, committed });
                    if report.blocking_send(result).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Self {
            batches: Some(batches),
            results,
            thread: Some(thread),
        })
    }

    /// Hands `batch` to the thread. Should the thread be gone, [`done`](Self::done) says so.
    pub(crate) fn submit(&self, batch: Vec<Persist>) {
        if let Some(batches) = &self.batches {
            // A send fails only when the thread has ended, which `done` reports.
            let _ = batches.send(batch);
        }
    }

    /// Waits until the batch in flight is committed, and says how it went, or why it failed.
    pub(crate) async fn done(&mut self) -> Result<Commit, StoreError> {
        self.results.recv().await.unwrap_or_else(|| {
            Err(StoreError::Engine(
                "the storage thread stopped (it panicked)".into(),
            ))
        })
    }
}

impl Drop for Committer {
    /// Stops the thread and waits for it: it finishes the commit it is in (a crashed relay's
    /// last commit lands or not, whole), and a restarted relay in the same process never
    /// shares the database with it.
    fn drop(&mut self) {
        drop(self.batches.take());
        if let Some(thread) = self.thread.take() {
            // A panic on that thread was reported through `done` already.
            let _ = thread.join();
        }
    }
}
