//! Real nats-server processes for tests (in progress).
