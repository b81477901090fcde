//! The web lobby's logic: the links the page follows, the seat's resume token in
//! `localStorage`, and the game handed over once the page is in its room.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use xq_client::{ClientOptions, Room};
use xq_gui_model::{ComputerSetup, RelayGame};
use xq_protocol::{ResumeToken, RoomCode};

use super::driver::{Driver, Wake, WebLink};
use super::{WebGame, dom};
use crate::{Entry, EntryError, Route, Session, relay_url, share_link};

/// What the web lobby panel does, without the panel: it follows the location hash (a link
/// opened, or typed in the address bar), enters rooms on the relay that served the page,
/// reports progress and errors in words, and hands over each game once it exists
/// ([`poll`](Self::poll), every frame).
///
/// Once seated, the hash becomes `#join/CODE` and the seat's resume token is kept under
/// `xq.token.CODE` (again whenever the relay hands out a new one, at a rematch), so a reload
/// or the same link opened later takes the seat back. A token the relay refuses is removed,
/// and the error says the seat is gone.
pub struct WebLobby {
    /// The session entering a room, until it is in or has failed.
    entering: Option<Rc<RefCell<Driver>>>,
    /// The session of the game handed over, for what the page shows about it; it lives as
    /// long as the game does.
    game: Weak<RefCell<Driver>>,
    /// The hash the page last saw or set, `None` before the first look.
    hash: Option<String>,
    /// The token last kept, and for which room.
    kept: Option<(RoomCode, ResumeToken)>,
    status: Option<String>,
    error: Option<String>,
    /// The game against the computer a `#computer` link asked for, until the app takes it.
    computer: Option<ComputerSetup>,
    wake: Wake,
    /// Wakes the app when the hash changes, so a link typed in the address bar is followed
    /// at once rather than at the next frame.
    _hash_changes: Option<dom::Listener>,
}

impl WebLobby {
    /// A lobby that calls `wake` when a game has news. It follows the page's hash from the
    /// first [`poll`](Self::poll) on.
    #[must_use]
    pub fn new(wake: Wake) -> Self {
        Self {
            entering: None,
            game: Weak::new(),
            hash: None,
            kept: None,
            status: None,
            error: None,
            computer: None,
            _hash_changes: dom::listen("hashchange", Rc::clone(&wake)),
            wake,
        }
    }

    /// Enters a room as `entry` says, taking this browser's seat back when it joins a room
    /// whose token it keeps. The game arrives through [`poll`](Self::poll).
    pub fn enter(&mut self, entry: Entry) {
        self.error = None;
        let place = dom::place();
        let token = entry.code().and_then(dom::load_token);
        let options = ClientOptions {
            name: concat!("xq-web/", env!("CARGO_PKG_VERSION")).to_owned(),
            ..ClientOptions::default()
        };
        let session = Session::new(entry, token, options);
        self.status = Some(match (entry, session.is_resume()) {
            (Entry::Join(code), true) => format!("Taking your seat in room {code} back…"),
            (Entry::Join(code), false) => format!("Joining room {code}…"),
            (Entry::Watch(code), _) => format!("Watching room {code}…"),
            (Entry::Create, _) => "Creating a room…".to_owned(),
            (Entry::Quick, _) => "Looking for an opponent…".to_owned(),
        });
        let url = relay_url(&place.protocol, &place.host);
        self.entering = Some(Driver::start(session, url, Rc::clone(&self.wake)));
        self.set_hash(entry);
    }

    /// Joins (or with `watch`, watches) the room whose code was typed in `text`.
    pub fn enter_typed(&mut self, text: &str, watch: bool) {
        match text.trim().parse::<RoomCode>() {
            Ok(code) if watch => self.enter(Entry::Watch(code)),
            Ok(code) => self.enter(Entry::Join(code)),
            Err(error) => self.fail(error.to_string()),
        }
    }

    /// Follows the hash if it changed, keeps the seat's token, and takes in the entry's
    /// outcome: the new game, once there is one.
    pub fn poll(&mut self) -> Option<WebGame> {
        self.follow_hash();
        self.keep_token();
        let entered = self
            .entering
            .as_ref()?
            .try_borrow_mut()
            .ok()?
            .session_mut()
            .poll_entered()?;
        let driver = self.entering.take()?;
        match entered {
            Ok(room) => self.game_in(room, driver),
            Err(error) => {
                if let EntryError::SeatGone { code, .. } = &error {
                    dom::forget_token(*code);
                }
                self.fail(error.to_string());
                None
            }
        }
    }

    /// The game against the computer a `#computer` link asked for since the last call: the
    /// app starts it (with a thinker of its own).
    pub fn poll_computer(&mut self) -> Option<ComputerSetup> {
        self.follow_hash();
        self.computer.take()
    }

    /// Whether a room is being entered: the buttons wait.
    #[must_use]
    pub const fn is_busy(&self) -> bool {
        self.entering.is_some()
    }

    /// What is being done, in words.
    #[must_use]
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// Why the last attempt failed, in words.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The room of the game handed over, and this browser's seat in it, while the game
    /// lasts.
    #[must_use]
    pub fn room(&self) -> Option<Room> {
        self.with_game(|driver| driver.session().core().room())
            .flatten()
    }

    /// Whether the game's connection is up and in step with the relay.
    #[must_use]
    pub fn is_connected(&self) -> bool {
        self.with_game(|driver| driver.session().core().is_connected())
            .unwrap_or(false)
    }

    /// The link that brings an opponent into this browser's room, while it is seated.
    #[must_use]
    pub fn share_link(&self) -> Option<String> {
        let room = self.room().filter(|room| room.seat.is_some())?;
        Some(share_link(&dom::place().origin, room.code))
    }

    /// Hands the game over once the session is in `room`.
    fn game_in(&mut self, room: Room, driver: Rc<RefCell<Driver>>) -> Option<WebGame> {
        self.status = None;
        let mirror = driver.try_borrow().ok()?.session().core().mirror().cloned();
        let Some(mirror) = mirror else {
            self.fail("the relay sent no game".to_owned());
            return None;
        };
        self.set_hash(match room.seat {
            Some(_) => Entry::Join(room.code),
            None => Entry::Watch(room.code),
        });
        self.game = Rc::downgrade(&driver);
        self.kept = None;
        self.keep_token();
        Some(RelayGame::new(mirror, room.seat, WebLink::new(driver)))
    }

    /// Starts what a hash changed since the last look asks for.
    fn follow_hash(&mut self) {
        let hash = dom::place().hash;
        if self.hash.as_deref() == Some(hash.as_str()) {
            return;
        }
        self.hash = Some(hash.clone());
        match Route::from_hash(&hash) {
            Ok(Route::Lobby) => {}
            // The link of the game being played is where the page is already.
            Ok(Route::Enter(entry)) if self.is_current(entry) => {}
            Ok(Route::Enter(entry)) => self.enter(entry),
            Ok(Route::Computer(setup)) => {
                self.error = None;
                self.computer = Some(setup);
            }
            Err(error) => self.fail(error.to_string()),
        }
    }

    /// Whether `entry` names the room of the game being played, as its link.
    fn is_current(&self, entry: Entry) -> bool {
        self.room().is_some_and(|room| {
            entry
                == match room.seat {
                    Some(_) => Entry::Join(room.code),
                    None => Entry::Watch(room.code),
                }
        })
    }

    /// Keeps the game's resume token whenever the relay hands out a new one, and forgets it
    /// once the relay refused it.
    fn keep_token(&mut self) {
        let seat = self.with_game(|driver| {
            let session = driver.session();
            let room = session.core().room()?;
            Some((
                room.code,
                session.core().resume_token(),
                session.seat_lost(),
            ))
        });
        let Some(Some((code, token, lost))) = seat else {
            return;
        };
        if lost {
            if self.kept.take().is_some() {
                dom::forget_token(code);
                self.fail(format!(
                    "your seat in room {code} is gone: the relay no longer holds it"
                ));
            }
            return;
        }
        if let Some(token) = token
            && self.kept != Some((code, token))
        {
            dom::save_token(code, token);
            self.kept = Some((code, token));
        }
    }

    fn with_game<T>(&self, read: impl FnOnce(&Driver) -> T) -> Option<T> {
        let driver = self.game.upgrade()?;
        let driver = driver.try_borrow().ok()?;
        Some(read(&driver))
    }

    /// Makes `entry` the page's hash, as the page's own doing.
    fn set_hash(&mut self, entry: Entry) {
        dom::replace_hash(entry);
        self.hash = Some(Route::Enter(entry).to_hash());
    }

    fn fail(&mut self, error: String) {
        self.status = None;
        self.error = Some(error);
    }
}
