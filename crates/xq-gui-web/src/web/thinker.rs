//! The browser's thinker: the engine in a Web Worker (`xq-engine-web`), so the page keeps
//! drawing while it searches.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};
use xq_gui_model::{Answer, RequestId, ThinkError, ThinkRequest, Thinker};

use super::Wake;
use super::dom::WebError;

/// The page's `<meta>` that names the worker's script; the relay points it at the bundle's
/// versioned path, as it does every file the page loads.
const WORKER_META: &str = "xq-engine-worker";

/// A [`Thinker`] whose engine runs in a module Web Worker, started at the first request.
/// Requests and answers cross as lines of text (`ThinkRequest::to_line`,
/// `Answer::from_line`). A worker cannot be interrupted mid-search, so cancelling one
/// terminates it, and the next request starts a fresh one (the browser keeps the compiled
/// wasm).
pub struct WebThinker {
    worker: Option<Running>,
    /// Answers that came, or failures known here, oldest first.
    answers: Rc<RefCell<VecDeque<Answer>>>,
    wake: Wake,
}

/// A worker and the callbacks it calls, which live as long as it does.
struct Running {
    worker: Worker,
    /// The request it works on, for the answer an error in the worker becomes.
    busy: Rc<RefCell<Option<RequestId>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl WebThinker {
    /// A thinker that calls `wake` when an answer comes.
    #[must_use]
    pub fn new(wake: Wake) -> Self {
        Self {
            worker: None,
            answers: Rc::default(),
            wake,
        }
    }

    /// The worker, started if it is not running.
    fn worker(&mut self) -> Result<&Running, WebError> {
        if self.worker.is_none() {
            self.worker = Some(self.spawn()?);
        }
        self.worker
            .as_ref()
            .ok_or_else(|| WebError::from(wasm_bindgen::JsValue::from_str("no worker")))
    }

    fn spawn(&self) -> Result<Running, WebError> {
        let url = worker_url()?;
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(&url, &options)?;
        let busy: Rc<RefCell<Option<RequestId>>> = Rc::default();
        let on_message = {
            let (answers, wake, busy) = (
                Rc::clone(&self.answers),
                Rc::clone(&self.wake),
                Rc::clone(&busy),
            );
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let line = event.data().as_string().unwrap_or_default();
                match Answer::from_line(&line) {
                    Ok(answer) => {
                        busy.borrow_mut().take();
                        answers.borrow_mut().push_back(answer);
                        wake();
                    }
                    Err(error) => {
                        tracing::warn!(%error, line, "the engine's worker answered nonsense")
                    }
                }
            })
        };
        let on_error = {
            let (answers, wake, busy) = (
                Rc::clone(&self.answers),
                Rc::clone(&self.wake),
                Rc::clone(&busy),
            );
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
                if let Some(id) = busy.borrow_mut().take() {
                    answers.borrow_mut().push_back(Answer {
                        id,
                        thought: Err(ThinkError::Failed(
                            "the engine's worker failed to load or run".to_owned(),
                        )),
                    });
                    wake();
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Running {
            worker,
            busy,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

impl Thinker for WebThinker {
    fn start(&mut self, request: ThinkRequest) {
        self.cancel();
        let id = request.id;
        let line = request.to_line();
        let posted = self.worker().and_then(|running| {
            running
                .worker
                .post_message(&wasm_bindgen::JsValue::from_str(&line))
                .map_err(WebError::from)?;
            *running.busy.borrow_mut() = Some(id);
            Ok(())
        });
        if let Err(error) = posted {
            self.answers.borrow_mut().push_back(Answer {
                id,
                thought: Err(ThinkError::Failed(error.to_string())),
            });
        }
    }

    fn poll(&mut self) -> Option<Answer> {
        self.answers.borrow_mut().pop_front()
    }

    fn cancel(&mut self) {
        let working = self
            .worker
            .as_ref()
            .is_some_and(|running| running.busy.borrow().is_some());
        if working && let Some(running) = self.worker.take() {
            running.worker.terminate();
        }
    }
}

impl Drop for WebThinker {
    fn drop(&mut self) {
        if let Some(running) = self.worker.take() {
            running.worker.terminate();
        }
    }
}

/// Where the worker's script is, as the page's `<meta name="xq-engine-worker">` says.
fn worker_url() -> Result<String, WebError> {
    let missing = || {
        WebError::from(wasm_bindgen::JsValue::from_str(
            "the page names no engine worker",
        ))
    };
    let meta = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| {
            document
                .query_selector(&format!("meta[name=\"{WORKER_META}\"]"))
                .ok()
                .flatten()
        })
        .and_then(|element| element.dyn_into::<web_sys::HtmlMetaElement>().ok())
        .ok_or_else(missing)?;
    let url = meta.content();
    if url.is_empty() {
        Err(missing())
    } else {
        Ok(url)
    }
}
