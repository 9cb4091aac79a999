//! The integration tests: the real HTTP server against a real PostgreSQL.

mod accounts;
mod audit;
mod bad_input;
mod bots;
mod clocks;
mod committer;
mod contract;
mod games;
mod golden;
mod hardening;
mod live;
mod lobby;
mod notify;
mod play;
mod smtp;
mod support;
