//! The desktop's thinker: the engine on a worker thread of its own, so the window keeps
//! drawing while it searches.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::Instant;

use xq_engine::{Engine, Options};
use xq_gui_model::{Answer, ThinkError, ThinkRequest, Thinker};

/// Called on the worker thread when an answer is ready: the app asks for a frame.
pub(crate) type Wake = Arc<dyn Fn() + Send + Sync>;

/// A [`Thinker`] whose engine searches on a thread of its own. Jobs go over a channel, one
/// at a time; each carries its own stop flag, so cancelling one never stops the next. The
/// thread ends when this is dropped.
pub(crate) struct WorkerThinker {
    /// `None` if the thread could not be started: requests are then answered with the
    /// reason at once.
    jobs: Option<Sender<Job>>,
    answers: Receiver<Answer>,
    /// The stop flag of the job being worked on.
    current: Option<Arc<AtomicBool>>,
    /// Answers made here, not on the thread: the failures.
    failed: VecDeque<Answer>,
    /// Why the thread could not be started.
    broken: Option<String>,
}

struct Job {
    request: ThinkRequest,
    stop: Arc<AtomicBool>,
}

impl WorkerThinker {
    /// Starts the thread, which calls `wake` after each answer.
    pub(crate) fn spawn(wake: Wake) -> Self {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (outbox, answers) = mpsc::channel();
        let worker = thread::Builder::new()
            .name("xq-engine".to_owned())
            .spawn(move || {
                let mut engine = Engine::new(Options::default());
                for job in inbox {
                    if job.stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let began = Instant::now();
                    let clock = || began.elapsed();
                    let answer = job.request.answer(&mut engine, &clock, &job.stop);
                    if outbox.send(answer).is_err() {
                        break;
                    }
                    wake();
                }
            });
        let (jobs, broken) = match worker {
            Ok(_) => (Some(jobs), None),
            Err(error) => (None, Some(format!("no thread for the engine: {error}"))),
        };
        Self {
            jobs,
            answers,
            current: None,
            failed: VecDeque::new(),
            broken,
        }
    }
}

impl Thinker for WorkerThinker {
    fn start(&mut self, request: ThinkRequest) {
        self.cancel();
        let stop = Arc::new(AtomicBool::new(false));
        let id = request.id;
        let sent = self.jobs.as_ref().is_some_and(|jobs| {
            jobs.send(Job {
                request,
                stop: Arc::clone(&stop),
            })
            .is_ok()
        });
        if sent {
            self.current = Some(stop);
        } else {
            let why = self
                .broken
                .clone()
                .unwrap_or_else(|| "the engine's thread has stopped".to_owned());
            self.failed.push_back(Answer {
                id,
                thought: Err(ThinkError::Failed(why)),
            });
        }
    }

    fn poll(&mut self) -> Option<Answer> {
        self.failed
            .pop_front()
            .or_else(|| self.answers.try_recv().ok())
    }

    fn cancel(&mut self) {
        if let Some(stop) = self.current.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for WorkerThinker {
    fn drop(&mut self) {
        // The search stops at its next check, and the thread with it once the channel closes.
        self.cancel();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use xq_engine::Limits;
    use xq_gui_model::{Goal, RequestId};
    use xq_rules::Position;

    use super::*;

    fn request(id: u64, goal: Goal) -> ThinkRequest {
        ThinkRequest {
            id: RequestId(id),
            start: Position::startpos(),
            moves: Vec::new(),
            goal,
        }
    }

    /// Polls until an answer comes, or fails after `limit`.
    fn wait(thinker: &mut WorkerThinker, limit: Duration) -> Answer {
        let began = Instant::now();
        loop {
            if let Some(answer) = thinker.poll() {
                return answer;
            }
            assert!(began.elapsed() < limit, "no answer in {limit:?}");
            thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn answers_come_from_the_thread_without_blocking_and_wake_the_app() {
        let woken = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&woken);
        let mut thinker = WorkerThinker::spawn(Arc::new(move || {
            counter.fetch_add(1, Ordering::Relaxed);
        }));
        // Unbounded but for the stop flag: only being replaced ends it.
        thinker.start(request(1, Goal::Analyse(Limits::default())));
        assert_eq!(thinker.poll(), None, "the search is not done at once");
        thinker.start(request(2, Goal::Analyse(Limits::nodes(2_000))));
        let answer = loop {
            let answer = wait(&mut thinker, Duration::from_secs(10));
            if answer.id == RequestId(2) {
                break answer;
            }
        };
        let best = answer.thought.map(|thought| thought.best);
        assert!(best.is_ok_and(|mv| Position::startpos().is_legal(mv)));
        assert!(woken.load(Ordering::Relaxed) >= 1);
    }
}
