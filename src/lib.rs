//! Kontor: an open-source server for playing board games asynchronously over the web.

pub mod config;
pub mod embedded_pg;
pub mod games;
pub mod store;
