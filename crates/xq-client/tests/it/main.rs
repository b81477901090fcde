//! Tests of the mirror against a real match, of the client against a scripted relay, and of
//! clients against a real relay: resuming a seat from a new client, and life in a room.

mod client;
mod mirror;
mod resume;
mod room;
mod support;
