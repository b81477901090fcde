//! Tests of the mirror against a real match and of the client against a scripted relay. (The
//! client against a real relay is the workspace's `tests/` crate's.)

mod client;
mod failover;
mod mirror;
mod support;
