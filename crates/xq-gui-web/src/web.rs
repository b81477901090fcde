//! The browser's side (`wasm32` only): the socket, the timers and the clock around a
//! [`crate::Session`], the page's hash and storage, and the hooks on the canvas.

mod dom;
mod driver;
mod lobby;
mod thinker;

use xq_gui_model::RelayGame;

pub use self::dom::{CanvasHooks, WebError, download};
pub use self::driver::{Wake, WebLink};
pub use self::lobby::WebLobby;
pub use self::thinker::WebThinker;

/// A game on the relay that served the page, played (or watched) in this browser: the
/// model's [`RelayGame`], the same as the desktop's, over a [`WebLink`].
pub type WebGame = RelayGame<WebLink>;
