//! The data folder is private: mode 0700, and the files Kontor keeps in it 0600 (the JWT
//! secret, the `.eml` files with live verification and reset links when no SMTP server is
//! configured, the note on where the cluster lives). `kontor` sets the umask 077 at its
//! start, so what it creates is private from the start; [`make_private`] brings an existing
//! folder (made by an older release, or by hand, or a container's volume) into that state at
//! every server start. Only Kontor's own entries are changed: a data folder pointed at a
//! folder holding other things (`KONTOR_DATA_DIR=.`) must not have those made unusable.
//!
//! One exception: run as root, the embedded cluster runs as the user `postgres`, and lives in
//! `<data>/postgres` (its own folder, owned by that user, which PostgreSQL keeps private
//! itself). That user must pass through the data folder to reach it, so the folder is then
//! `root:postgres` mode 0710: the group may enter, not list or read; the other files stay
//! root's, 0600.

use anyhow::Context;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What Kontor keeps in the data folder besides the cluster's own folder.
const KONTOR_ENTRIES: &[&str] = &["jwt-secret", "mail", "postgres-location.txt"];
const PRIVATE_DIR: u32 = 0o700;
const PRIVATE_FILE: u32 = 0o600;
/// The data folder when the cluster's user must pass through it (see the module's text).
const PASSABLE_DIR: u32 = 0o710;

/// Makes `data_dir` (created if missing) and Kontor's entries in it private, leaving the
/// embedded cluster's own folder `<data>/postgres` as PostgreSQL keeps it. `cluster_user` is the user
/// the embedded cluster runs as when it is not this process's (see
/// [`crate::embedded_pg::cluster_user`]): it is let through the folder. Returns how many
/// modes were changed.
pub fn make_private(data_dir: &Path, cluster_user: Option<&str>) -> anyhow::Result<usize> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("creating the data folder {}", data_dir.display()))?;
    let mut changed = 0;
    match cluster_user {
        None => changed += set_mode(data_dir, PRIVATE_DIR)?,
        Some(user) => {
            let gid = group_of(user)?;
            std::os::unix::fs::chown(data_dir, None, Some(gid))
                .with_context(|| format!("giving {} to the group of {user}", data_dir.display()))?;
            changed += set_mode(data_dir, PASSABLE_DIR)?;
        }
    }
    for entry in KONTOR_ENTRIES {
        let path = data_dir.join(entry);
        if std::fs::symlink_metadata(&path).is_ok() {
            changed += make_tree_private(&path)?;
        }
    }
    if changed > 0 {
        tracing::info!(folder = %data_dir.display(), changed, "made the data folder private");
    }
    Ok(changed)
}

/// Folders 0700 and files 0600, all the way down; symbolic links are left alone (their
/// mode means nothing, and what they point to is not the data folder's).
fn make_tree_private(path: &Path) -> anyhow::Result<usize> {
    let kind = std::fs::symlink_metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .file_type();
    if kind.is_symlink() {
        return Ok(0);
    }
    if !kind.is_dir() {
        return set_mode(path, PRIVATE_FILE);
    }
    let mut changed = set_mode(path, PRIVATE_DIR)?;
    for entry in read_dir(path)? {
        changed += make_tree_private(&entry?.path())?;
    }
    Ok(changed)
}

fn read_dir(dir: &Path) -> anyhow::Result<std::fs::ReadDir> {
    std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))
}

/// Sets the permission bits to `mode` unless they are that already; 1 if it changed them.
fn set_mode(path: &Path, mode: u32) -> anyhow::Result<usize> {
    let current = std::fs::symlink_metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .permissions()
        .mode()
        & 0o7777;
    if current == mode {
        return Ok(0);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("making {} private", path.display()))?;
    Ok(1)
}

/// The primary group of a user, from the user database.
fn group_of(user: &str) -> anyhow::Result<u32> {
    let name = std::ffi::CString::new(user)?;
    // SAFETY: getpwnam takes a NUL-terminated name and returns a pointer into static storage
    // (or NULL); the group id is copied out before anything else could overwrite it.
    let entry = unsafe { libc::getpwnam(name.as_ptr()) };
    anyhow::ensure!(!entry.is_null(), "there is no user {user}");
    // SAFETY: entry is not NULL, so it points to a valid passwd record.
    Ok(unsafe { (*entry).pw_gid })
}

/// Makes what this process creates private from the start (mode 0600 files, 0700 folders):
/// mails written as files, the generated secret, backups.
pub fn private_umask() {
    // SAFETY: umask has no preconditions and cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn an_open_folder_becomes_private_but_the_clusters_folder_and_others_are_left_alone() {
        let dir = std::env::temp_dir().join(format!("kontor-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("mail")).unwrap();
        std::fs::create_dir_all(dir.join("postgres")).unwrap();
        for file in [
            "jwt-secret",
            "mail/1-verify_email.eml",
            "postgres/server.log",
            "notes.txt",
        ] {
            std::fs::write(dir.join(file), "secret").unwrap();
            std::fs::set_permissions(dir.join(file), std::fs::Permissions::from_mode(0o644))
                .unwrap();
        }
        for folder in [&dir, &dir.join("mail"), &dir.join("postgres")] {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(make_private(&dir, None).unwrap(), 4);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("mail")), 0o700);
        assert_eq!(mode(&dir.join("jwt-secret")), 0o600);
        assert_eq!(mode(&dir.join("mail/1-verify_email.eml")), 0o600);
        assert_eq!(mode(&dir.join("postgres")), 0o755, "PostgreSQL's own");
        assert_eq!(
            mode(&dir.join("postgres/server.log")),
            0o644,
            "PostgreSQL's own"
        );
        assert_eq!(mode(&dir.join("notes.txt")), 0o644, "not Kontor's");
        assert_eq!(
            make_private(&dir, None).unwrap(),
            0,
            "nothing left to change"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
