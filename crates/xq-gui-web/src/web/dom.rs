//! The page around the app: the clock, the location, `localStorage`, files to download and
//! the canvas's attributes. Nothing here panics: a browser that refuses (no storage in a
//! private window, say) costs the feature, not the page.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Element, HtmlAnchorElement, Storage, Url, Window};
use xq_protocol::{ResumeToken, RoomCode};
use xq_session::Timestamp;

use super::Wake;
use crate::{Entry, Hooks, Route, parse_token, token_key, token_text};

/// What the browser refused, in its own words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WebError(String);

impl From<JsValue> for WebError {
    fn from(value: JsValue) -> Self {
        let text = value
            .dyn_ref::<js_sys::Error>()
            .map(|error| String::from(error.message()))
            .or_else(|| value.as_string())
            .unwrap_or_else(|| format!("{value:?}"));
        Self(text)
    }
}

/// The window, when there is one (there is none in a worker).
fn window() -> Result<Window, WebError> {
    web_sys::window().ok_or_else(|| WebError("no window".to_owned()))
}

/// The time on the page's monotonic clock (`performance.now()`), in whole milliseconds.
pub(crate) fn now() -> Timestamp {
    let millis = window()
        .ok()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.now());
    // A non-negative count of milliseconds since the page loaded, far below u64::MAX.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Timestamp::from_millis(millis.max(0.0) as u64)
}

/// The page's location: `(protocol, host, origin, hash)`, empty where the browser says
/// nothing.
pub(crate) struct Place {
    pub(crate) protocol: String,
    pub(crate) host: String,
    pub(crate) origin: String,
    pub(crate) hash: String,
}

/// Where the page is.
pub(crate) fn place() -> Place {
    let location = window().ok().map(|window| window.location());
    let read = |part: fn(&web_sys::Location) -> Result<String, JsValue>| {
        location
            .as_ref()
            .and_then(|location| part(location).ok())
            .unwrap_or_default()
    };
    Place {
        protocol: read(web_sys::Location::protocol),
        host: read(web_sys::Location::host),
        origin: read(web_sys::Location::origin),
        hash: read(web_sys::Location::hash),
    }
}

/// Makes `entry` the location's hash without a new history entry (going back must not
/// create another room) and without a `hashchange`.
pub(crate) fn replace_hash(entry: Entry) {
    let hash = Route::Enter(entry).to_hash();
    let replaced = window()
        .and_then(|window| window.history().map_err(WebError::from))
        .and_then(|history| {
            history
                .replace_state_with_url(&JsValue::NULL, "", Some(&hash))
                .map_err(WebError::from)
        });
    if let Err(error) = replaced {
        tracing::warn!(%error, "cannot set the location's hash");
    }
}

fn storage() -> Option<Storage> {
    window().ok()?.local_storage().ok().flatten()
}

/// The resume token this browser keeps for its seat in room `code`, if a valid one is kept
/// (an invalid one is removed).
pub(crate) fn load_token(code: RoomCode) -> Option<ResumeToken> {
    let storage = storage()?;
    let key = token_key(code);
    let text = storage.get_item(&key).ok().flatten()?;
    match parse_token(&text) {
        Ok(token) => Some(token),
        Err(error) => {
            tracing::warn!(%error, key, "removing a stored value that is no resume token");
            let _ = storage.remove_item(&key);
            None
        }
    }
}

/// Keeps `token` for the seat in room `code`.
pub(crate) fn save_token(code: RoomCode, token: ResumeToken) {
    let saved = storage().map(|storage| storage.set_item(&token_key(code), &token_text(token)));
    if !matches!(saved, Some(Ok(()))) {
        tracing::warn!("cannot keep the resume token: a reload will not take the seat back");
    }
}

/// Forgets the token for room `code`.
pub(crate) fn forget_token(code: RoomCode) {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(&token_key(code));
    }
}

/// A callback on the window, removed when this is dropped.
pub(crate) struct Listener {
    event: &'static str,
    callback: Closure<dyn FnMut()>,
}

/// Calls `wake` on every `event` of the window; `None` if the browser refuses.
pub(crate) fn listen(event: &'static str, wake: Wake) -> Option<Listener> {
    let callback = Closure::<dyn FnMut()>::new(move || wake());
    window()
        .ok()?
        .add_event_listener_with_callback(event, callback.as_ref().unchecked_ref())
        .ok()?;
    Some(Listener { event, callback })
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Ok(window) = window() {
            let _ = window.remove_event_listener_with_callback(
                self.event,
                self.callback.as_ref().unchecked_ref(),
            );
        }
    }
}

/// Saves `text` as a file named `name` in the browser's downloads: a Blob, and a click on a
/// link to it.
///
/// # Errors
///
/// What the browser refused.
pub fn download(name: &str, text: &str) -> Result<(), WebError> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type("application/vnd.chess-pgn;charset=utf-8");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let window = window()?;
    let document = window
        .document()
        .ok_or_else(|| WebError("no document".to_owned()))?;
    let link: HtmlAnchorElement = document
        .create_element("a")?
        .dyn_into()
        .map_err(|_| WebError("not a link".to_owned()))?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // The download has started from the URL; it is freed once this turn of the event loop
    // is over.
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    window.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 0)?;
    Ok(())
}

/// The data hooks on the canvas element, each attribute written only when its value
/// changes.
pub struct CanvasHooks {
    canvas: Element,
    hooks: Hooks,
}

impl CanvasHooks {
    /// Hooks written on `canvas`.
    #[must_use]
    pub fn new(canvas: Element) -> Self {
        Self {
            canvas,
            hooks: Hooks::new(),
        }
    }

    /// Sets attribute `name` to `value`, if that changes it.
    pub fn set(&mut self, name: &'static str, value: &str) {
        if self.hooks.update(name, value)
            && let Err(error) = self.canvas.set_attribute(name, value)
        {
            tracing::warn!(name, error = %WebError::from(error), "cannot write a hook");
        }
    }
}
