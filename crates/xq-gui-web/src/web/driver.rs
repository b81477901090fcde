//! The browser's driver of a [`Session`]: a `WebSocket` for each connection the core asks
//! for, a `setTimeout` for its deadline, `performance.now()` for its clock. It makes no
//! decision of its own.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};
use xq_gui_model::{BackendError, RelayLink, RelayNews};
use xq_session::Action;

use super::dom;
use crate::Session;

/// Wakes the page's app when news arrives, so it draws a frame and polls without a timer of
/// its own.
pub type Wake = Rc<dyn Fn()>;

/// A session and the socket, timer and clock around it. The browser calls its callbacks one
/// at a time between frames, so each takes the driver, feeds the session, and pumps.
pub(crate) struct Driver {
    session: Session,
    /// The page's own relay.
    home: String,
    /// Where the current connection goes: home, or the node a redirect named.
    url: String,
    socket: Option<Socket>,
    /// Tells this driver's sockets apart, so a late callback of an old one is ignored.
    sockets: u32,
    /// The pending `setTimeout`, if any.
    timer: Option<i32>,
    /// What the timer calls.
    tick: Closure<dyn FnMut()>,
    this: Weak<RefCell<Self>>,
    wake: Wake,
}

/// One connection: the socket and its callbacks, which live as long as it does.
struct Socket {
    id: u32,
    ws: WebSocket,
    /// Whether it opened: until then the session has not been told of it.
    opened: bool,
    _open: Closure<dyn FnMut()>,
    _message: Closure<dyn FnMut(MessageEvent)>,
    _close: Closure<dyn FnMut(CloseEvent)>,
}

/// The link from a [`super::WebGame`] to its session: requests go in and are sent at once,
/// news is taken off the session's queue. Dropping it leaves the room and closes the
/// connection.
pub struct WebLink {
    driver: Rc<RefCell<Driver>>,
}

impl Driver {
    /// Starts driving `session` against the relay's WebSocket at `url`: opens the first
    /// connection.
    pub(crate) fn start(session: Session, url: String, wake: Wake) -> Rc<RefCell<Self>> {
        let driver = Rc::new_cyclic(|this: &Weak<RefCell<Self>>| {
            let timer = this.clone();
            RefCell::new(Self {
                session,
                home: url.clone(),
                url,
                socket: None,
                sockets: 0,
                timer: None,
                tick: Closure::new(move || {
                    with(&timer, |driver| {
                        driver.timer = None;
                        driver.session.handle_timeout(dom::now());
                    });
                }),
                this: this.clone(),
                wake,
            })
        });
        if let Ok(mut started) = driver.try_borrow_mut() {
            started.open();
            started.pump();
        }
        driver
    }

    /// The session.
    pub(crate) const fn session(&self) -> &Session {
        &self.session
    }

    /// The session, for what needs no sending (taking its outcome off).
    pub(crate) const fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Does what the session asks after an input: drops a connection it gave up on, opens
    /// the one it asks for, sends its frames, re-arms the timer, and wakes the app.
    fn pump(&mut self) {
        loop {
            // A connection the core gave up on is dead: nothing on it counts any more.
            if self.session.core().is_reconnecting()
                && self.socket.as_ref().is_some_and(|socket| socket.opened)
            {
                self.socket = None;
            }
            if self.session.take_connect() {
                // After an outage the page goes home first, which sends it on to wherever
                // the room is by then.
                self.url = self
                    .session
                    .take_redirect()
                    .unwrap_or_else(|| self.home.clone());
                self.open();
            }
            if self.send_all() {
                break;
            }
            self.socket = None;
            self.session.handle_disconnected(dom::now());
        }
        if self.session.core().is_closed() {
            // After its last frames (a leave): the socket sends them before it closes.
            self.socket = None;
        }
        self.arm();
        (self.wake)();
    }

    /// Sends every frame the session has; `false` if the socket refused one. With no open
    /// socket the frames are dropped: they went with the connection that failed, as the
    /// session knows.
    fn send_all(&mut self) -> bool {
        let Some(socket) = self.socket.as_ref().filter(|socket| socket.opened) else {
            while self.session.poll_transmit().is_some() {}
            return true;
        };
        while let Some(frame) = self.session.poll_transmit() {
            if socket.ws.send_with_u8_array(&frame).is_err() {
                return false;
            }
        }
        true
    }

    /// Opens a new connection, replacing any other.
    fn open(&mut self) {
        self.sockets = self.sockets.wrapping_add(1);
        match Socket::open(&self.url, self.sockets, &self.this) {
            Ok(socket) => self.socket = Some(socket),
            Err(error) => {
                tracing::warn!(%error, url = self.url, "cannot open the relay's socket");
                self.socket = None;
                self.session.handle_disconnected(dom::now());
            }
        }
    }

    /// Arms the timer for the session's next deadline.
    fn arm(&mut self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        if let Some(handle) = self.timer.take() {
            window.clear_timeout_with_handle(handle);
        }
        let Some(at) = self.session.poll_timeout() else {
            return;
        };
        let delay = at.saturating_duration_since(dom::now()).as_millis();
        let delay = i32::try_from(delay).unwrap_or(i32::MAX);
        self.timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                self.tick.as_ref().unchecked_ref(),
                delay,
            )
            .ok();
    }

    /// Whether `id` is the current socket's.
    fn is_current(&self, id: u32) -> bool {
        self.socket.as_ref().is_some_and(|socket| socket.id == id)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let (Some(window), Some(handle)) = (web_sys::window(), self.timer.take()) {
            window.clear_timeout_with_handle(handle);
        }
    }
}

/// Feeds the driver behind `driver`, if it still exists, and pumps.
fn with(driver: &Weak<RefCell<Driver>>, input: impl FnOnce(&mut Driver)) {
    let Some(driver) = driver.upgrade() else {
        return;
    };
    // The browser calls back between frames, never while the driver is borrowed.
    let Ok(mut driver) = driver.try_borrow_mut() else {
        return;
    };
    input(&mut driver);
    driver.pump();
}

impl Socket {
    /// Opens a binary WebSocket to `url`, whose callbacks feed `driver` while this is its
    /// current socket `id`.
    fn open(url: &str, id: u32, driver: &Weak<RefCell<Driver>>) -> Result<Self, super::WebError> {
        let ws = WebSocket::new(url)?;
        ws.set_binary_type(BinaryType::Arraybuffer);
        let weak = driver.clone();
        let open = Closure::<dyn FnMut()>::new(move || {
            with(&weak, |driver| {
                if let Some(socket) = driver.socket.as_mut().filter(|socket| socket.id == id) {
                    socket.opened = true;
                    driver.session.handle_connected(dom::now());
                }
            });
        });
        let weak = driver.clone();
        let message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            with(&weak, |driver| {
                if !driver.is_current(id) {
                    return;
                }
                // One protocol frame per binary message; a text message is none, and the
                // session fails the connection on it as on any frame that does not decode.
                let frame = event
                    .data()
                    .dyn_into::<ArrayBuffer>()
                    .map(|buffer| Uint8Array::new(&buffer).to_vec())
                    .unwrap_or_default();
                driver.session.handle_frame(dom::now(), &frame);
            });
        });
        let weak = driver.clone();
        let close = Closure::<dyn FnMut(CloseEvent)>::new(move |_: CloseEvent| {
            with(&weak, |driver| {
                if driver.is_current(id) {
                    driver.socket = None;
                    driver.session.handle_disconnected(dom::now());
                }
            });
        });
        ws.set_onopen(Some(open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(message.as_ref().unchecked_ref()));
        // An error is always followed by a close, which is where the session hears of it.
        ws.set_onclose(Some(close.as_ref().unchecked_ref()));
        Ok(Self {
            id,
            ws,
            opened: false,
            _open: open,
            _message: message,
            _close: close,
        })
    }
}

impl Drop for Socket {
    /// Silences the socket, then closes it: nothing it says any more counts.
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}

impl WebLink {
    /// The link to the session `driver` drives, once it is in its room.
    pub(crate) const fn new(driver: Rc<RefCell<Driver>>) -> Self {
        Self { driver }
    }

    /// Makes a request of the session and sends it.
    fn request(
        &self,
        request: impl FnOnce(&mut Session) -> Result<(), BackendError>,
    ) -> Result<(), BackendError> {
        let mut driver = self
            .driver
            .try_borrow_mut()
            .map_err(|_| BackendError::Offline)?;
        let sent = request(&mut driver.session);
        driver.pump();
        sent
    }
}

impl RelayLink for WebLink {
    fn act(&mut self, action: Action) -> Result<(), BackendError> {
        self.request(|session| session.act(action))
    }

    fn rematch(&mut self) -> Result<(), BackendError> {
        self.request(Session::rematch)
    }

    fn poll(&mut self) -> Option<RelayNews> {
        self.driver.try_borrow_mut().ok()?.session.poll_news()
    }
}

impl Drop for WebLink {
    /// Leaves the room: the relay holds the seat for its grace period, so a reload of the
    /// page (with the token kept) takes it back.
    fn drop(&mut self) {
        if let Ok(mut driver) = self.driver.try_borrow_mut() {
            driver.session.close();
            driver.pump();
        }
    }
}
