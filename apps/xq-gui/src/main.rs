//! `xq-gui`: the xq client. Play Xiangqi with two players at one screen or over a relay (or,
//! on the desktop, one hosted in this process), save and replay game records.
//!
//! On the desktop, `xq-gui --local [--moves h2e2,h9g7] [--flip] --screenshot out.png` starts
//! a local game, plays the moves, draws one frame, writes it to a PNG and exits: for scripts
//! and docs. `xq-gui --connect URL --create|--join CODE|--quick|--spectate CODE` and
//! `xq-gui --host` start network play as the connect panel's buttons would.
//!
//! In the browser (`wasm32-unknown-unknown`, built by `cargo xtask web`), the same app draws
//! on the page's canvas `#xq` and plays on the relay that served the page, over its
//! WebSocket; the page's links (`#create`, `#join/CODE`, `#watch/CODE`, `#quick`) enter rooms
//! as the web lobby's buttons would.

mod app;
mod board;
// The connect panel: the desktop's (relay URLs, hosting) or the browser's web lobby.
#[cfg_attr(target_arch = "wasm32", path = "web_lobby.rs")]
mod connect;
#[cfg(not(target_arch = "wasm32"))]
mod desktop;
mod fonts;
mod hits;
mod record;
#[cfg(not(target_arch = "wasm32"))]
mod screenshot;
mod sound;
// The engine on a worker thread; in the browser, `xq-gui-web`'s Web Worker.
#[cfg(not(target_arch = "wasm32"))]
mod thinker;
#[cfg(target_arch = "wasm32")]
mod web;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> anyhow::Result<()> {
    desktop::main()
}

/// Starts the app on the page's canvas; the browser runs it from then on.
#[cfg(target_arch = "wasm32")]
fn main() {
    web::start();
}
