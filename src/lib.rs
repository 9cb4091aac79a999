//! Kontor: an open-source server for playing board games asynchronously over the web.

pub mod app;
pub mod audit;
pub mod auth;
pub mod config;
pub mod embedded_pg;
pub mod games;
pub mod http;
pub mod live;
pub mod ops;
pub mod redact;
pub mod service;
pub mod store;
pub mod telemetry;
pub mod text;
pub mod time;
pub mod words;
