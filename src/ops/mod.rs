//! What the command line does besides serving: the data folder's permissions, backups and
//! restores, the health check, the metrics as scraped, and restarting the embedded database.

pub mod backup;
pub mod data_dir;
pub mod health;
pub mod metrics;
pub mod recovery;
