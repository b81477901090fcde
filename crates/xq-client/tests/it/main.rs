//! Tests of the mirror against a real match, and of the client against a scripted relay.

mod client;
mod mirror;
mod support;
