//! The integration tests: the real HTTP server against a real PostgreSQL.

mod accounts;
mod admin;
mod audit;
mod bad_input;
mod bots;
mod clocks;
mod committer;
mod contract;
mod exact;
mod fuzz;
mod games;
mod golden;
mod hardening;
mod health;
mod housekeeping;
mod http;
mod live;
mod lobby;
mod notify;
mod operations;
mod play;
mod secrets;
mod smtp;
mod supervision;
mod support;
mod web;
