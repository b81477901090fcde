//! Clients against a real relay on `mem://`: resuming a seat from a new client, and life in a
//! room.

mod docs;
mod resume;
mod room;
mod support;
