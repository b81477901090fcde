//! Tests of the mirror against a real match, of the client against a scripted relay, and of
//! resuming a seat from a new client against a real relay.

mod client;
mod mirror;
mod resume;
mod support;
