//! What the command line does besides serving: the data folder's permissions, backups and
//! restores, and the health check.

pub mod backup;
pub mod data_dir;
pub mod health;
