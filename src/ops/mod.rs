//! What the command line does besides serving: the data folder's permissions, backups and
//! restores, the health check, and the metrics as scraped.

pub mod backup;
pub mod data_dir;
pub mod health;
pub mod metrics;
