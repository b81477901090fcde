//! The xq engine in a Web Worker: the browser's side of playing the computer.
//!
//! The page (`xq-gui-web`'s `WebThinker`) posts a request line to the worker, whose script
//! (`engine-worker.js`, written by `cargo xtask web` beside this crate's wasm) hands it to
//! `think` (in the browser's build) and posts the answer line back; the lines are `xq-gui-model`'s
//! (`ThinkRequest::to_line`, `Answer::from_line`). The search runs on the worker's thread,
//! so the page keeps drawing; the worker keeps one engine, whose tables serve the whole game.
//!
//! It does no IO of its own: the clock it searches by is `performance.now()` in the
//! browser, and whatever clock [`answer_line`] is given elsewhere.
//!
//! # Examples
//!
//! ```
//! use xq_engine::{Engine, Frozen, Options};
//! use xq_gui_model::{Answer, Goal, RequestId, ThinkRequest};
//! use xq_rules::Position;
//!
//! let request = ThinkRequest {
//!     id: RequestId(1),
//!     start: Position::startpos(),
//!     moves: Vec::new(),
//!     goal: Goal::Play { level: "1".parse()?, seed: 5 },
//! };
//! let mut engine = Engine::new(Options::default());
//! let line = xq_engine_web::answer_line(&request.to_line(), &mut engine, &Frozen);
//! let answer = Answer::from_line(&line)?;
//! assert_eq!(answer.id, RequestId(1));
//! assert!(answer.thought.is_ok_and(|t| Position::startpos().is_legal(t.best)));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

use std::sync::atomic::AtomicBool;

use xq_engine::{Clock, Engine};
use xq_gui_model::{Answer, RequestId, ThinkError, ThinkRequest};

/// Answers the request `line` with `engine`, timed by `clock`: the answer's line. A line
/// that is no request is answered with [`ThinkError::Failed`] under the id it starts with
/// (or 0, if even that is unreadable), so the page learns what went wrong.
#[must_use]
pub fn answer_line(line: &str, engine: &mut Engine, clock: &dyn Clock) -> String {
    match ThinkRequest::from_line(line) {
        Ok(request) => request
            .answer(engine, clock, &AtomicBool::new(false))
            .to_line(),
        Err(error) => {
            let id = line
                .split(';')
                .next()
                .and_then(|id| id.parse().ok())
                .unwrap_or(0);
            Answer {
                id: RequestId(id),
                thought: Err(ThinkError::Failed(format!("bad request: {error}"))),
            }
            .to_line()
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use worker::think;

/// The worker's entry, in the browser only.
#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;
    use std::time::Duration;

    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::wasm_bindgen;
    use xq_engine::{Engine, Options};

    thread_local! {
        /// The worker's one engine, kept for the game's next searches.
        static ENGINE: RefCell<Engine> = RefCell::new(Engine::new(Options::default()));
    }

    /// The worker's clock: `performance.now()`, in milliseconds.
    fn now() -> f64 {
        js_sys::global()
            .dyn_into::<web_sys::WorkerGlobalScope>()
            .ok()
            .and_then(|scope| scope.performance())
            .map_or(0.0, |performance| performance.now())
    }

    /// Answers one request line (see [`crate::answer_line`]); the worker's script calls it.
    #[wasm_bindgen]
    #[must_use]
    pub fn think(line: &str) -> String {
        let began = now();
        let clock = move || Duration::from_secs_f64(((now() - began) / 1000.0).max(0.0));
        ENGINE.with(|engine| match engine.try_borrow_mut() {
            Ok(mut engine) => crate::answer_line(line, &mut engine, &clock),
            // A worker runs one message at a time; this cannot happen, but says so if it does.
            Err(_) => String::from("0;failed;the engine is busy"),
        })
    }
}

#[cfg(test)]
mod tests {
    use xq_engine::{Frozen, Options};

    use super::*;

    #[test]
    fn a_line_that_is_no_request_is_answered_with_the_reason() {
        let mut engine = Engine::new(Options::default());
        let line = answer_line("17;not a position;;play 3 1", &mut engine, &Frozen);
        let answer = Answer::from_line(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(answer.id, RequestId(17));
        assert!(matches!(answer.thought, Err(ThinkError::Failed(_))));
        let line = answer_line("", &mut engine, &Frozen);
        assert!(Answer::from_line(&line).is_ok_and(|answer| answer.id == RequestId(0)));
    }
}
