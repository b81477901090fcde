//! The xq GUI's network play in the browser: the IO behind `xq-gui-model`'s view-model on a
//! web page, as `xq-gui-net` is on the desktop.
//!
//! - [`Session`]: the page's conversation with the relay, a sans-IO `xq_client::ClientCore`
//!   that enters the room a link names ([`Entry`]) — taking this browser's seat back with its
//!   stored resume token when it has one — and then carries the game's requests and news.
//! - [`Route`]: the location hash, parsed strictly (`#create`, `#join/CODE`, `#watch/CODE`,
//!   `#quick`, `#computer/LEVEL/SIDE`, or none for the lobby), and [`share_link`], the link that brings the opponent
//!   in; [`token_key`], [`token_text`] and [`parse_token`]: how resume tokens are kept in
//!   `localStorage`; [`relay_url`]: where the relay's WebSocket is.
//! - [`Hooks`] and the `*_attr` functions: the data attributes written on the canvas for a
//!   browser test (the board's place, the named controls, the status, the room, the seat, the
//!   moves, the connection).
//!
//! On `wasm32` only, the browser's side: `WebGame`, the model's [`xq_gui_model::RelayGame`]
//! over a `WebLink` that drives a [`Session`] over `web_sys::WebSocket` (binary frames, one
//! protocol frame per message), its timers from `setTimeout` and its clock from
//! `performance.now()`; `WebLobby`, which follows the location hash, keeps resume tokens in
//! `localStorage` and hands over each game (and the game against the computer a `#computer`
//! link asks for); `WebThinker`, the computer's engine in a Web Worker (`xq-engine-web`);
//! `CanvasHooks`, which writes the hooks; and `download`, which saves a text as a file.
//!
//! Everything above the browser's side compiles and is tested on the host.
//!
//! # Examples
//!
//! ```
//! use xq_gui_web::{Entry, Route, relay_url};
//!
//! assert_eq!(Route::from_hash("#create")?, Route::Enter(Entry::Create));
//! assert_eq!(relay_url("https:", "xq.example:7880"), "wss://xq.example:7880/ws");
//! # Ok::<_, xq_gui_web::RouteError>(())
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

mod hooks;
mod route;
mod session;
mod token;
#[cfg(target_arch = "wasm32")]
mod web;

pub use hooks::{Hooks, board_attr, controls_attr, moves_attr, seat_attr};
pub use route::{Entry, Route, RouteError, relay_url, share_link};
pub use session::{EntryError, Session};
pub use token::{ParseTokenError, parse_token, token_key, token_text};
#[cfg(target_arch = "wasm32")]
pub use web::{CanvasHooks, Wake, WebError, WebGame, WebLink, WebLobby, WebThinker, download};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctest;
