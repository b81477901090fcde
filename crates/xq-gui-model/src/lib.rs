//! The view-model of the xq GUI: everything the window shows and every input it forwards, as
//! plain data, with no GUI toolkit.
//!
//! The egui app only draws what [`ViewModel`] says and calls it on input, so all behaviour is
//! tested here without a window or a real clock:
//!
//! - [`BoardLayout`] and [`Orientation`]: where each square is drawn, the player's own side at
//!   the bottom, and which square a click hits.
//! - [`Selection`]: picking up a piece, its legal targets (from `xq-rules`), and what a click
//!   does ([`Click`]).
//! - [`Action`], [`Buttons`] and [`Dialog`]: the game buttons, when they are enabled, and the
//!   opponent's undo or draw requests waiting for an answer.
//! - [`MoveRow`] and [`Notation`]: the move list, in Chinese, WXF or ICCS notation; PGN save
//!   and open, and stepping through a record ([`Step`]).
//! - [`Cue`]: the sound each move played or received makes (the app plays it).
//! - [`GameBackend`]: where commands go and events come from. [`LocalGame`] is two players
//!   at one screen, driving an `xq_session::Match`; a game on a relay tells who is connected
//!   as a [`Presence`]. [`ComputerGame`] is a game against the computer, whose moves a
//!   [`Thinker`] finds (a worker thread, a Web Worker) with `xq-engine`.
//! - Hints and the engine's [`Evaluation`]: in a game at this screen, the best move for the
//!   side to move, marked on the board, and the last search's score in words.
//! - [`RelayGame`]: a game on a relay as a [`GameBackend`], read off the client's mirror
//!   (`xq_client::Mirror`), over any [`RelayLink`] that carries its requests and news.
//!
//! The view-model does no IO: no sockets, no threads, no async runtime, and it reads no clock
//! (the app passes in the time as an `xq_session::Timestamp`); of `xq-client` it uses the
//! sans-IO part only. Network play is `xq-gui-net` on the desktop: its `RemoteGame` is a
//! [`RelayGame`] over `xq-client`'s tokio client, run on a thread of its own, and its `Lobby`
//! connects to relays or hosts one in the process; and `xq-gui-web` in the browser, a
//! [`RelayGame`] over the client core and a WebSocket.
//!
//! # Examples
//!
//! ```
//! use xq_gui_model::{Click, Cue, LocalGame, ViewModel};
//! use xq_rules::{Color, Move, Square};
//! use xq_session::{Command, MatchConfig, Timestamp};
//!
//! let now = Timestamp::from_millis(0);
//! let mut view = ViewModel::new();
//! view.start(now, Box::new(LocalGame::new(MatchConfig::default(), now)));
//!
//! // Pick up the cannon on h2: its legal targets light up.
//! assert_eq!(view.click(now, Some(Square::H2))?, Click::Selected(Square::H2));
//! assert!(view.selection().targets().any(|to| to == Square::E2));
//!
//! // Click a target: the move is played.
//! let mv = Move::new(Square::H2, Square::E2);
//! assert_eq!(view.click(now, Some(Square::E2))?, Click::Move(mv));
//! assert_eq!(view.last_move(), Some(mv));
//! assert_eq!(view.status_line(), "Black to move");
//! // The app plays a tone for it.
//! assert_eq!(view.poll_cue(), Some(Cue::Move));
//! # Ok::<_, xq_gui_model::ActionError>(())
//! ```
//!
//! # Feature flags
//!
//! None.

#![warn(missing_docs)]

mod action;
mod backend;
mod computer;
mod cue;
mod dialog;
mod evaluation;
mod layout;
mod line;
mod local;
mod move_list;
mod notation;
mod orientation;
mod relay;
mod selection;
mod text;
mod thinker;
mod view_model;

pub use action::{Action, Buttons};
pub use backend::{BackendError, GameBackend, Presence, Update};
pub use computer::{ComputerGame, ComputerSetup};
pub use cue::Cue;
pub use dialog::Dialog;
pub use evaluation::Evaluation;
pub use layout::{BoardLayout, Point};
pub use line::ParseLineError;
pub use local::LocalGame;
pub use move_list::{MoveEntry, MoveRow};
pub use notation::Notation;
pub use orientation::{Cell, Orientation};
pub use relay::{RelayGame, RelayLink, RelayNews};
pub use selection::{Click, Selection};
pub use thinker::{Answer, Goal, RequestId, ThinkError, ThinkRequest, Thinker};
pub use view_model::{ActionError, Step, ViewModel};
