//! The embedded default database: a private PostgreSQL cluster that Kontor creates, starts and
//! stops itself with the operating system's PostgreSQL binaries.
//!
//! * The cluster lives in `<data>/postgres`. PostgreSQL refuses to run as root, so when Kontor
//!   runs as root the cluster is owned by and run as the `postgres` user; if that user cannot
//!   reach the data folder (a checkout under `/root`, mode 0700), the cluster goes to
//!   `/var/lib/kontor/clusters/<hash of the data folder>` instead, and a note in the data
//!   folder says where.
//! * It listens only on a Unix socket in a private folder (no TCP), with local trust auth.
//! * Kontor connects as the role `kontor`, which is not a superuser and owns the database.
//! * Several Kontor processes may share the cluster (a server and `kontor replay --check`, a
//!   second server that fails to bind). Only the cluster's *owner* ever stops it, and not
//!   while another Kontor process still uses it: each one holds a shared lock on
//!   `<cluster>/kontor-users.lock` for as long as it uses the cluster, and the owner stops
//!   the cluster only if it can take that lock exclusively.
//! * The owner is the process that holds `<cluster>/kontor-owner.lock` exclusively: the one
//!   that started the cluster, or one that found it running with no owner (its starter was
//!   killed, say with `kill -9`, and the kernel let go of its locks). Such an orphaned
//!   cluster is adopted by the next Kontor process, which stops it when it is done, so a
//!   killed server's cluster does not run on for good.

use crate::store;
use anyhow::{Context, bail};
use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

/// How durable commits are. Tests trade durability for speed; the server never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    Durable,
    /// `fsync=off`, `synchronous_commit=off`: for throwaway test clusters only.
    Fast,
}

const PORT: u16 = 5432;
const APP_ROLE: &str = "kontor";
const SUPERUSER: &str = "postgres";

/// A running private cluster. Stopped by [`EmbeddedPostgres::stop`] or on drop, but only if
/// this value owns it (see the module documentation).
pub struct EmbeddedPostgres {
    bin_dir: PathBuf,
    cluster_dir: PathBuf,
    socket_dir: PathBuf,
    run_as: Option<String>,
    stopped: AtomicBool,
    /// How durable commits are: a restart (see [`EmbeddedPostgres::restart_if_down`]) starts
    /// the server as it was first started.
    durability: Durability,
    /// Whether this value started the server (`pg_ctl start`), rather than finding it running.
    started_here: bool,
    /// Holds a shared `flock` while this value uses the cluster; closing it releases the lock.
    users_lock: Option<File>,
    /// Holds the exclusive owner's `flock` while this value owns the cluster (see the module
    /// documentation); `None` when another live process owns it.
    owner_lock: Option<File>,
}

/// Whether [`EmbeddedPostgres::open`] may create a cluster that does not exist yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfMissing {
    Create,
    /// Fail instead (for the backup and restore commands: a new, empty cluster is never what
    /// they should dump or restore into unnoticed).
    Fail,
}

impl EmbeddedPostgres {
    /// Creates (on first use) and starts the cluster for this data folder.
    pub fn start(data_dir: &Path, durability: Durability) -> anyhow::Result<Self> {
        Self::open(data_dir, durability, IfMissing::Create)
    }

    /// Starts the cluster of this data folder (unless it runs), creating it first only if
    /// `if_missing` says so.
    pub fn open(
        data_dir: &Path,
        durability: Durability,
        if_missing: IfMissing,
    ) -> anyhow::Result<Self> {
        let bin_dir = find_binaries()?;
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("creating the data folder {}", data_dir.display()))?;
        let data_dir = data_dir
            .canonicalize()
            .with_context(|| format!("resolving {}", data_dir.display()))?;
        let run_as = cluster_user().map(str::to_string);
        let cluster_dir = cluster_dir_of(&data_dir, run_as.as_deref());
        // Nothing is made for a command that needs a cluster and finds none.
        if if_missing == IfMissing::Fail && !cluster_dir.join("data/PG_VERSION").exists() {
            bail!(
                "there is no embedded PostgreSQL cluster in {} (run `kontor migrate` with this \
                 KONTOR_DATA_DIR first: it creates one), or set KONTOR_DATABASE_URL",
                cluster_dir.display()
            );
        }
        prepare_cluster_dir(&data_dir, &cluster_dir, run_as.as_deref())?;
        let socket_dir = cluster_dir.join("socket");
        let mut pg = Self {
            bin_dir,
            cluster_dir,
            socket_dir,
            run_as,
            stopped: AtomicBool::new(true),
            durability,
            started_here: false,
            users_lock: None,
            owner_lock: None,
        };
        pg.init_if_needed()?;
        // Take the shared lock before looking whether the server runs: a starter that is
        // stopping it holds the lock exclusively, so this waits until it is down and then
        // starts it anew instead of finding a server that is about to go away.
        pg.users_lock = Some(lock_shared(&pg.cluster_dir.join("kontor-users.lock"))?);
        pg.started_here = pg.start_server(durability)?;
        pg.owner_lock = try_lock_exclusive_file(&pg.cluster_dir.join("kontor-owner.lock"))?;
        if pg.owner_lock.is_some() && !pg.started_here {
            tracing::info!(
                cluster = %pg.data_dir().display(),
                "the running embedded PostgreSQL has no owner (the process that started it is \
                 gone): this process owns it now and stops it when done"
            );
        }
        pg.stopped.store(false, Ordering::SeqCst);
        Ok(pg)
    }

    /// Whether this value started the server, rather than finding it already running.
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// Whether this value owns the cluster (it started it or adopted an orphaned one), and so
    /// stops it when done, unless another Kontor process still uses it then.
    pub fn owns(&self) -> bool {
        self.owner_lock.is_some()
    }

    /// The cluster's PostgreSQL data folder (what `pg_ctl -D` takes).
    pub fn data_dir(&self) -> PathBuf {
        self.cluster_dir.join("data")
    }

    /// Connection options for a database of this cluster as the application role.
    pub fn connect_options(&self, database: &str) -> PgConnectOptions {
        PgConnectOptions::new()
            .socket(&self.socket_dir)
            .port(PORT)
            .username(APP_ROLE)
            .database(database)
    }

    /// Connection options as the cluster's superuser (for creating databases in tests).
    pub fn superuser_options(&self, database: &str) -> PgConnectOptions {
        PgConnectOptions::new()
            .socket(&self.socket_dir)
            .port(PORT)
            .username(SUPERUSER)
            .database(database)
    }

    /// A `postgres://` URL for `database` (usable by psql, pgbench and `KONTOR_DATABASE_URL`).
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{APP_ROLE}@localhost:{PORT}/{database}?host={}",
            self.socket_dir.display()
        )
    }

    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    /// Makes sure the application role and `database` exist (owned by the role).
    pub async fn ensure_database(&self, database: &str) -> anyhow::Result<()> {
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(self.superuser_options("postgres"))
            .await
            .context("connecting to the embedded PostgreSQL as its superuser")?;
        store::cluster::ensure_role(&admin, APP_ROLE).await?;
        store::cluster::ensure_database(&admin, database, APP_ROLE).await?;
        admin.close().await;
        Ok(())
    }

    /// Whether the cluster's postmaster runs: the process named in `postmaster.pid` exists and
    /// is not a zombie. (A killed postmaster's parent is the init process, and a container's
    /// init may never reap it: `pg_ctl status` then calls the dead server running.) Cheap, for
    /// a watchdog that asks every second; a pid reused by another process after a crash
    /// reads as running.
    pub fn postmaster_alive(&self) -> bool {
        let Ok(text) = std::fs::read_to_string(self.data_dir().join("postmaster.pid")) else {
            return false;
        };
        let Some(pid) = text
            .lines()
            .next()
            .and_then(|line| line.trim().parse::<libc::pid_t>().ok())
            .filter(|pid| *pid > 0)
        else {
            return false;
        };
        process_alive(pid)
    }

    /// Starts the server again if its postmaster is gone (killed, crashed) and this value has
    /// not been stopped: `Ok(true)` when this call started it, `Ok(false)` when it runs (or
    /// another process started it first, or a stop has begun).
    pub fn restart_if_down(&self) -> anyhow::Result<bool> {
        if self.stopped.load(Ordering::SeqCst) || self.postmaster_alive() {
            return Ok(false);
        }
        self.start_server(self.durability)
    }

    /// Stops the cluster (fast shutdown: open transactions roll back) if this value owns it
    /// and no other Kontor process uses it; otherwise leaves it running. Stopping a server
    /// that another process owns would pull the database from under it (a running
    /// `kontor serve` would answer every request with an error).
    pub fn stop(&self) -> anyhow::Result<()> {
        if self.stopped.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        if !self.owns() {
            tracing::debug!("leaving the embedded PostgreSQL running: another process owns it");
            self.unlock();
            return Ok(());
        }
        if let Some(lock) = &self.users_lock
            && !try_lock_exclusive(lock)
        {
            tracing::warn!(
                cluster = %self.data_dir().display(),
                "another Kontor process still uses the embedded PostgreSQL; leaving it running"
            );
            self.unlock();
            return Ok(());
        }
        if !self.postmaster_alive() {
            // Killed or crashed while this process ran: nothing to stop, nothing went wrong
            // in stopping.
            tracing::info!(
                cluster = %self.data_dir().display(),
                "the embedded PostgreSQL was already stopped (its postmaster is gone)"
            );
            self.unlock();
            return Ok(());
        }
        let dir = self.cluster_dir.join("data");
        let output = self.pg_tool(
            "pg_ctl",
            &["-D", path_str(&dir)?, "-m", "fast", "-w", "stop"],
        );
        // Let a process waiting to use the cluster go on now (it will start it anew).
        self.unlock();
        let output = output?;
        if !output.status.success() && !self.postmaster_alive() {
            // It went away between the look and the stop.
            tracing::info!("the embedded PostgreSQL was already stopped");
            return Ok(());
        }
        check(&output, "pg_ctl stop")
    }

    /// Gives up this value's locks on the cluster: it no longer uses nor owns it (a cluster
    /// left running is then adopted by the next process to use it).
    fn unlock(&self) {
        for lock in [&self.users_lock, &self.owner_lock].into_iter().flatten() {
            let _ = lock.unlock();
        }
    }

    fn init_if_needed(&self) -> anyhow::Result<()> {
        let data = self.cluster_dir.join("data");
        if data.join("PG_VERSION").exists() {
            return Ok(());
        }
        // initdb into a side folder and rename it when complete, so that an interrupted
        // first start never leaves a half-made cluster behind.
        let partial = self.cluster_dir.join("data.partial");
        if partial.exists() {
            std::fs::remove_dir_all(&partial)
                .with_context(|| format!("removing {}", partial.display()))?;
        }
        tracing::info!(cluster = %data.display(), "creating the embedded PostgreSQL cluster");
        self.make_private_dir(&partial)?;
        let output = self.pg_tool(
            "initdb",
            &[
                "-D",
                path_str(&partial)?,
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-instructions",
            ],
        )?;
        check(&output, "initdb")?;
        if data.exists() {
            std::fs::remove_dir_all(&data)?;
        }
        std::fs::rename(&partial, &data)
            .with_context(|| format!("moving the new cluster to {}", data.display()))
    }

    /// Starts the server unless it is running; true if this call started it.
    fn start_server(&self, durability: Durability) -> anyhow::Result<bool> {
        self.make_private_dir(&self.socket_dir)?;
        let data = self.cluster_dir.join("data");
        let log = self.cluster_dir.join("server.log");
        if self.postmaster_alive() {
            tracing::info!(
                "the embedded PostgreSQL is already running; using it (and leaving it running)"
            );
            return Ok(false);
        }
        let mut settings = format!(
            "-c listen_addresses='' -c unix_socket_directories='{}' -c unix_socket_permissions=0700 -p {PORT} -c max_connections=200",
            self.socket_dir.display()
        );
        if durability == Durability::Fast {
            settings.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        }
        let output = self.pg_tool(
            "pg_ctl",
            &[
                "-D",
                path_str(&data)?,
                "-l",
                path_str(&log)?,
                "-o",
                &settings,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )?;
        if let Err(error) = check(&output, "pg_ctl start") {
            // Another process may have started it between our look and our start.
            if self.postmaster_alive() {
                tracing::info!("the embedded PostgreSQL was started by another process; using it");
                return Ok(false);
            }
            return Err(error.context(format!(
                "the embedded PostgreSQL did not start; its log is {}",
                log.display()
            )));
        }
        tracing::info!(socket = %self.socket_dir.display(), "embedded PostgreSQL started");
        Ok(true)
    }

    /// Creates a folder only the cluster's user can enter.
    fn make_private_dir(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        if let Some(user) = &self.run_as {
            chown_to(dir, user)?;
        }
        Ok(())
    }

    fn pg_tool(&self, tool: &str, args: &[&str]) -> anyhow::Result<Output> {
        let program = self.bin_dir.join(tool);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        // The cluster's user may not be allowed into the caller's working directory.
        command.args(args).current_dir(&self.cluster_dir);
        command
            .output()
            .with_context(|| format!("running {}", program.display()))
    }
}

impl Drop for EmbeddedPostgres {
    /// Stops the cluster only if this value owns it (see [`EmbeddedPostgres::stop`]).
    fn drop(&mut self) {
        if let Err(error) = self.stop() {
            tracing::warn!(%error, "stopping the embedded PostgreSQL failed");
        }
    }
}

/// The newest PostgreSQL server binaries installed: `/usr/lib/postgresql/<v>/bin`, or a
/// folder given by `KONTOR_PG_BIN`, or `pg_config --bindir`.
pub fn find_binaries() -> anyhow::Result<PathBuf> {
    if let Ok(dir) = std::env::var("KONTOR_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output()
        && output.status.success()
    {
        let bin = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if bin.join("initdb").exists() {
            return Ok(bin);
        }
    }
    bail!(
        "PostgreSQL server binaries were not found. Install them with `deploy/setup.sh` \
         (apt-get install postgresql), set KONTOR_PG_BIN to their folder, or point \
         KONTOR_DATABASE_URL at an existing server"
    )
}

/// Whether the process `pid` runs: it exists (signal 0) and, where `/proc` tells, is not a
/// zombie (dead, waiting for its parent to reap it).
fn process_alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only asks whether the process exists; it sends nothing.
    let sent = unsafe { libc::kill(pid, 0) };
    if sent != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EPERM) {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "pid (command) state …": the state follows the command's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_none_or(|state| state != 'Z' && state != 'X'),
        Err(_) => true,
    }
}

/// Opens (creating it) the users' lock file and takes a shared lock on it, waiting while a
/// starter holds it exclusively to stop the cluster.
fn lock_shared(path: &Path) -> anyhow::Result<File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.lock_shared()
        .with_context(|| format!("locking {}", path.display()))?;
    Ok(file)
}

/// Turns the shared lock into an exclusive one if no other process holds it; true on success.
fn try_lock_exclusive(file: &File) -> bool {
    file.try_lock().is_ok()
}

/// Opens (creating it) a lock file and locks it exclusively if no other process holds it:
/// the locked file, or `None` if another process holds the lock.
fn try_lock_exclusive_file(path: &Path) -> anyhow::Result<Option<File>> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    Ok(try_lock_exclusive(&file).then_some(file))
}

/// The user the embedded cluster runs as when that is not this process's user: `postgres`
/// when Kontor runs as root (PostgreSQL refuses to run as root), else `None`.
pub fn cluster_user() -> Option<&'static str> {
    running_as_root().then_some(SUPERUSER)
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `<data>/postgres` when the cluster's user can reach it, else a folder under /var/lib.
fn cluster_dir_of(data_dir: &Path, run_as: Option<&str>) -> PathBuf {
    match run_as {
        Some(user) if !user_can_enter(user, data_dir) => {
            let hash = hex::encode(&Sha256::digest(data_dir.as_os_str().as_encoded_bytes())[..8]);
            PathBuf::from("/var/lib/kontor/clusters").join(hash)
        }
        _ => data_dir.join("postgres"),
    }
}

/// Makes the cluster's folder (see [`cluster_dir_of`]) for the cluster's user, and, when it
/// lives outside the data folder, leaves a note in the data folder saying where.
fn prepare_cluster_dir(
    data_dir: &Path,
    cluster_dir: &Path,
    run_as: Option<&str>,
) -> anyhow::Result<()> {
    let Some(user) = run_as else {
        return Ok(());
    };
    std::fs::create_dir_all(cluster_dir)?;
    chown_to(cluster_dir, user)?;
    if cluster_dir.starts_with(data_dir) {
        return Ok(());
    }
    let note = data_dir.join("postgres-location.txt");
    std::fs::write(
        &note,
        format!(
            "The user {user} cannot enter {}, so the embedded PostgreSQL cluster of this data \
             folder lives in {}\n",
            data_dir.display(),
            cluster_dir.display()
        ),
    )?;
    tracing::info!(cluster = %cluster_dir.display(), "the data folder is private to root; the cluster lives elsewhere");
    Ok(())
}

fn user_can_enter(user: &str, dir: &Path) -> bool {
    Command::new("runuser")
        .args(["-u", user, "--", "test", "-x"])
        .arg(dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn chown_to(dir: &Path, user: &str) -> anyhow::Result<()> {
    let status = Command::new("chown")
        .arg(format!("{user}:"))
        .arg(dir)
        .status()
        .context("running chown")?;
    if !status.success() {
        bail!("could not give {} to the user {user}", dir.display());
    }
    Ok(())
}

fn path_str(path: &Path) -> anyhow::Result<&str> {
    path.to_str()
        .with_context(|| format!("the path {} is not UTF-8", path.display()))
}

fn check(output: &Output, what: &str) -> anyhow::Result<()> {
    if output.status.success() {
        return Ok(());
    }
    bail!(
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim(),
        String::from_utf8_lossy(&output.stdout).trim()
    )
}

#[cfg(test)]
mod tests {
    use super::process_alive;
    use std::process::Command;

    #[test]
    fn a_zombie_is_no_live_process() {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id() as libc::pid_t;
        // Not reaped yet: it exits and stays a zombie until `wait`.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while process_alive(pid) {
            assert!(
                std::time::Instant::now() < deadline,
                "the zombie counts as alive"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "still a zombie"
        );
        child.wait().unwrap();
        assert!(!process_alive(pid));
        assert!(process_alive(std::process::id() as libc::pid_t));
    }
}
