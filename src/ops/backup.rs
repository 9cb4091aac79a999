//! `kontor backup <folder>` and `kontor restore <folder>`: the database as a `pg_dump`
//! archive and the data folder's JWT secret, read from the same configuration as the server
//! (`KONTOR_CONFIG` and the environment, see [`crate::config`]), so a systemd-style file whose
//! values a shell could not source (`KONTOR_MAIL_FROM=Kontor <kontor@example.org>`) serves
//! them as it serves `kontor serve`.
//!
//! The database is `KONTOR_DATABASE_URL` (or `KONTOR_SESSION_DATABASE_URL` when set: the
//! database itself, not a transaction pooler, which a dump's one long transaction needs), or
//! else the embedded cluster of the data folder, running or not: it is used like any Kontor
//! process uses it (see [`crate::embedded_pg`]), so a server never loses it under a dump, and
//! a cluster started for the dump is stopped again when no one else uses it.

use crate::config::{Config, Database};
use crate::embedded_pg::{self, Durability, EmbeddedPostgres, IfMissing};
use anyhow::{Context, bail};
use std::path::{Path, PathBuf};

/// The dump's file name in a backup folder.
const DUMP: &str = "kontor.dump";
/// The JWT secret's file name, in the data folder and in a backup folder alike.
const SECRET: &str = "jwt-secret";
/// The embedded cluster's database.
const EMBEDDED_DATABASE: &str = "kontor";

/// The database to dump or restore into, and the embedded cluster behind it if any (held for
/// as long as this value lives).
struct Target {
    url: String,
    embedded: Option<EmbeddedPostgres>,
}

impl Target {
    fn of(config: &Config) -> anyhow::Result<Self> {
        Ok(match &config.database {
            Database::Url(url) if Database::addresses(url).len() > 1 => anyhow::bail!(
                "KONTOR_DATABASE_URL lists several servers: give this command the primary's URL \
                 alone (KONTOR_DATABASE_URL=postgres://…)"
            ),
            Database::Url(url) => Self {
                url: config.session_database_url.clone().unwrap_or(url.clone()),
                embedded: None,
            },
            Database::Embedded => {
                let pg =
                    EmbeddedPostgres::open(&config.data_dir, Durability::Durable, IfMissing::Fail)?;
                Self {
                    url: pg.url(EMBEDDED_DATABASE),
                    embedded: Some(pg),
                }
            }
        })
    }

    async fn pool(&self) -> anyhow::Result<sqlx::PgPool> {
        let options: sqlx::postgres::PgConnectOptions = self.url.parse()?;
        crate::store::connect(options, 1)
            .await
            .context("connecting to the database")
    }
}

/// A PostgreSQL client program (`pg_dump`, `pg_restore`): beside the server binaries the
/// embedded cluster uses (`KONTOR_PG_BIN`, else the newest installed).
fn client_program(name: &str) -> anyhow::Result<PathBuf> {
    let program = embedded_pg::find_binaries()?.join(name);
    anyhow::ensure!(
        program.exists(),
        "{} not found: install PostgreSQL's client programs or set KONTOR_PG_BIN",
        program.display()
    );
    Ok(program)
}

/// Runs a client program; an error with its own words if it fails.
async fn run(program: &Path, args: &[&std::ffi::OsStr]) -> anyhow::Result<String> {
    let output = tokio::process::Command::new(program)
        .args(args)
        .output()
        .await
        .with_context(|| format!("running {}", program.display()))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}): {}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Copies a secret file with mode 0600, whatever the umask.
fn copy_secret(from: &Path, to: &Path) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let secret = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(to)
        .with_context(|| format!("writing {}", to.display()))?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(&secret)?;
    Ok(())
}

/// Backs up into `folder`, which must not exist yet: `kontor.dump` (`pg_dump
/// --format=custom`: one consistent snapshot, taken while servers play on), the data
/// folder's `jwt-secret` if it has one, and a `MANIFEST`. Returns what was done, in words.
pub async fn backup(config: &Config, folder: &Path) -> anyhow::Result<String> {
    if folder.exists() {
        bail!("{} exists already: give a new folder", folder.display());
    }
    let pg_dump = client_program("pg_dump")?;
    let target = Target::of(config)?;
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    crate::ops::data_dir::make_private(folder, None)?;
    let dump = folder.join(DUMP);
    run(
        &pg_dump,
        &[
            "--format=custom".as_ref(),
            format!("--dbname={}", target.url).as_ref(),
            "--file".as_ref(),
            dump.as_os_str(),
        ],
    )
    .await?;
    let secret_file = config.data_dir.join(SECRET);
    let secret = if secret_file.exists() {
        copy_secret(&secret_file, &folder.join(SECRET))?;
        "the data folder's jwt-secret".to_string()
    } else {
        format!(
            "no jwt-secret in {} (KONTOR_JWT_SECRET is set, or no server ran yet): keep that \
             setting with the backup",
            config.data_dir.display()
        )
    };
    // The VAPID key goes with it: browsers' push subscriptions are bound to it.
    let vapid = config
        .data_dir
        .join(crate::service::delivery::push::vapid::KEY_FILE);
    if vapid.exists() {
        copy_secret(
            &vapid,
            &folder.join(crate::service::delivery::push::vapid::KEY_FILE),
        )?;
    }
    let version = run(&pg_dump, &["--version".as_ref()]).await?;
    std::fs::write(
        folder.join("MANIFEST"),
        format!(
            "Kontor {} backup of {}\npg_dump: {version}\nsecret: {secret}\n",
            env!("CARGO_PKG_VERSION"),
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ")
        ),
    )?;
    drop(target);
    let size = std::fs::metadata(&dump)?.len();
    Ok(format!(
        "backed up to {}: {DUMP} ({size} bytes), {secret}",
        folder.display()
    ))
}

/// Restores a backup folder into the configured database and data folder, so that tokens
/// issued before the backup stay valid. The embedded cluster's database is dropped and made
/// anew from the dump, refused if it holds any game unless `overwrite`; an external database
/// must be empty (its objects will belong to the URL's user). A data folder's different
/// `jwt-secret` is refused unless `overwrite`. Returns what was done, in words.
pub async fn restore(config: &Config, folder: &Path, overwrite: bool) -> anyhow::Result<String> {
    let dump = folder.join(DUMP);
    if !dump.is_file() {
        bail!(
            "{} not found: not a backup made by `kontor backup`",
            dump.display()
        );
    }
    // Refuse a secret that differs from the data folder's own before touching anything.
    let (theirs, ours) = (folder.join(SECRET), config.data_dir.join(SECRET));
    if theirs.exists() && ours.exists() && std::fs::read(&theirs)? != std::fs::read(&ours)? {
        anyhow::ensure!(
            overwrite,
            "{} differs from the backup's: remove it, or restore with --overwrite",
            ours.display()
        );
    }
    let pg_restore = client_program("pg_restore")?;
    let target = Target::of(config)?;
    let pool = target.pool().await?;
    match &target.embedded {
        Some(pg) => {
            let games = crate::store::cluster::count_games(&pool).await;
            pool.close().await;
            let games = games?;
            if games != 0 && !overwrite {
                bail!(
                    "the embedded database holds {games} games: refusing to replace it \
                     (--overwrite does)"
                );
            }
            let admin = crate::store::connect(pg.superuser_options("postgres"), 1).await?;
            let remade = async {
                crate::store::cluster::drop_database(&admin, EMBEDDED_DATABASE).await?;
                pg.ensure_database(EMBEDDED_DATABASE).await
            }
            .await;
            admin.close().await;
            remade?;
        }
        None => {
            let tables = crate::store::cluster::count_tables(&pool).await;
            pool.close().await;
            let tables = tables?;
            if tables != 0 {
                bail!(
                    "the target database is not empty ({tables} tables): restore into a new, \
                     empty database"
                );
            }
        }
    }
    // One transaction: a restore that fails leaves the target as it was. Owners and grants
    // of the old database are not carried over: everything belongs to the target's user.
    run(
        &pg_restore,
        &[
            "--no-owner".as_ref(),
            "--no-privileges".as_ref(),
            "--exit-on-error".as_ref(),
            "--single-transaction".as_ref(),
            format!("--dbname={}", target.url).as_ref(),
            dump.as_os_str(),
        ],
    )
    .await?;
    let secret = if theirs.exists() {
        std::fs::create_dir_all(&config.data_dir)?;
        copy_secret(&theirs, &ours)?;
        format!("jwt-secret restored into {}", config.data_dir.display())
    } else {
        "the backup has no jwt-secret: set the KONTOR_JWT_SECRET the old server had".to_string()
    };
    // The backup's VAPID key, if it has one: the subscriptions restored were made with it.
    let vapid = folder.join(crate::service::delivery::push::vapid::KEY_FILE);
    if vapid.exists() {
        std::fs::create_dir_all(&config.data_dir)?;
        copy_secret(
            &vapid,
            &config
                .data_dir
                .join(crate::service::delivery::push::vapid::KEY_FILE),
        )?;
    }
    let pool = target.pool().await?;
    let games = crate::store::cluster::count_games(&pool).await;
    pool.close().await;
    Ok(format!("restored {} games; {secret}", games?))
}
