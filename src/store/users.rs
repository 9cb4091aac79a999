//! Accounts: inserting them, finding them by username or email address, the identity keys
//! they are compared by (see `auth::identity`), whether a user still exists, how an account
//! is shown, and the admin role (granted and revoked only through `kontor admin`).

use crate::text::identity::{self, KEYS_VERSION};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor, PgPool};
use std::collections::HashMap;
use uuid::Uuid;

/// A new account, its identities already checked and in display form.
pub struct NewUser<'a> {
    pub id: Uuid,
    pub username: &'a str,
    pub email: &'a str,
    pub password_hash: &'a str,
    /// `en` or `ja`.
    pub language: &'a str,
}

/// Why an account could not be created.
#[derive(Debug)]
pub enum InsertError {
    UsernameTaken,
    EmailTaken,
    Database(sqlx::Error),
}

/// Creates an account (its address not verified yet); returns its creation time.
pub async fn insert<'e>(
    executor: impl PgExecutor<'e>,
    user: &NewUser<'_>,
) -> Result<DateTime<Utc>, InsertError> {
    let result = sqlx::query_scalar(
        "INSERT INTO users
           (id, username, username_key, username_skeleton, email, email_key, password_hash,
            identity_keys_version, language)
         VALUES ($1, $2, $3, $9, $4, $5, $6, $7, $8) RETURNING created_at",
    )
    .bind(user.id)
    .bind(user.username)
    .bind(identity::key(user.username))
    .bind(user.email)
    .bind(identity::key(user.email))
    .bind(user.password_hash)
    .bind(KEYS_VERSION)
    .bind(user.language)
    .bind(identity::skeleton(user.username))
    .fetch_one(executor)
    .await;
    match result {
        Ok(created_at) => Ok(created_at),
        // The same name, or one that looks like it.
        Err(sqlx::Error::Database(e))
            if matches!(
                e.constraint(),
                Some("users_username_key_key" | "users_username_skeleton_key")
            ) =>
        {
            Err(InsertError::UsernameTaken)
        }
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("users_email_key_key") => {
            Err(InsertError::EmailTaken)
        }
        Err(e) => Err(InsertError::Database(e)),
    }
}

/// The account a login names, by username or email address in any case or normal form:
/// its id and password hash.
pub async fn find_for_login(
    pool: &PgPool,
    identifier: &str,
) -> Result<Option<(Uuid, String)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, password_hash FROM users
          WHERE (username_key = $1 OR email_key = $1) AND password_hash IS NOT NULL
          ORDER BY created_at, id LIMIT 1",
    )
    .bind(identity::key(identifier))
    .fetch_optional(pool)
    .await
}

/// The account with this username (in any case or normal form): its id and username.
pub async fn find_by_username<'e>(
    executor: impl PgExecutor<'e>,
    name: &str,
) -> Result<Option<(Uuid, String)>, sqlx::Error> {
    sqlx::query_as("SELECT id, username FROM users WHERE username_key = $1 AND deleted_at IS NULL")
        .bind(identity::key(name))
        .fetch_optional(executor)
        .await
}

/// What [`backfill_identity_keys`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Backfill {
    /// Accounts whose keys were recomputed.
    pub updated: usize,
    /// Identities that now equal an older account's (`username` or `email`, the younger
    /// account, the older one). The younger keeps a key no one can type: it cannot log in by
    /// that identity until an operator changes it.
    pub conflicts: Vec<(&'static str, Uuid, Uuid)>,
}

/// The key given to an identity that collides with an older account's: unique, and never
/// equal to a real key (those hold no control characters).
fn unreachable_key(id: Uuid, kind: &str) -> String {
    format!("\u{1}{kind}-conflict:{id}")
}

/// Recomputes the identity keys of every account made by an older version of the folding
/// (before migration 0007 PostgreSQL's `lower()` made them). Runs after each migration; does
/// nothing when every account is current.
///
/// Accounts that the exact folding makes equal (`Ünal@x` and `ünal@x` could both be
/// registered before) cannot both keep the key: the older account keeps it, the younger
/// gets an unreachable key for that identity, and each such case is logged.
pub async fn backfill_identity_keys(pool: &PgPool) -> Result<Backfill, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let pending: Vec<(Uuid, String, String)> = sqlx::query_as(
        "SELECT id, username, email FROM users WHERE identity_keys_version < $1
          ORDER BY created_at, id FOR UPDATE",
    )
    .bind(KEYS_VERSION)
    .fetch_all(&mut *tx)
    .await?;
    let mut report = Backfill::default();
    if pending.is_empty() {
        return Ok(report);
    }
    let username_keys: Vec<String> = pending.iter().map(|(_, u, _)| identity::key(u)).collect();
    let email_keys: Vec<String> = pending.iter().map(|(_, _, e)| identity::key(e)).collect();
    // Who holds each key once this is done: current accounts keep theirs; among the pending
    // ones, the oldest wins.
    let mut owners: [HashMap<String, Uuid>; 2] = Default::default();
    let current: Vec<(Uuid, String, String)> = sqlx::query_as(
        "SELECT id, username_key, email_key FROM users
          WHERE identity_keys_version >= $1
            AND (username_key = ANY($2) OR email_key = ANY($3))",
    )
    .bind(KEYS_VERSION)
    .bind(&username_keys)
    .bind(&email_keys)
    .fetch_all(&mut *tx)
    .await?;
    for (id, username_key, email_key) in current {
        owners[0].insert(username_key, id);
        owners[1].insert(email_key, id);
    }
    let mut finals = Vec::with_capacity(pending.len());
    for (index, (id, _, _)) in pending.iter().enumerate() {
        let mut keys = [username_keys[index].clone(), email_keys[index].clone()];
        for (slot, kind) in [(0, "username"), (1, "email")] {
            let owner = *owners[slot].entry(keys[slot].clone()).or_insert(*id);
            if owner != *id {
                tracing::warn!(
                    account = %id, older_account = %owner, identity = kind,
                    "two accounts' {kind}s differ only in letter case or Unicode form; the older account keeps it, the younger cannot log in by its {kind} until it is changed"
                );
                report.conflicts.push((kind, *id, owner));
                keys[slot] = unreachable_key(*id, kind);
            }
        }
        finals.push((*id, keys));
    }
    // Park the pending keys first, so that no update meets a key another pending row is about
    // to give up.
    let ids: Vec<Uuid> = pending.iter().map(|(id, _, _)| *id).collect();
    sqlx::query(
        "UPDATE users SET username_key = chr(1) || 'pending-u:' || id::text,
                          email_key = chr(1) || 'pending-e:' || id::text
          WHERE id = ANY($1)",
    )
    .bind(&ids)
    .execute(&mut *tx)
    .await?;
    let new_usernames: Vec<&str> = finals.iter().map(|(_, k)| k[0].as_str()).collect();
    let new_emails: Vec<&str> = finals.iter().map(|(_, k)| k[1].as_str()).collect();
    sqlx::query(
        "UPDATE users u SET username_key = k.username_key, email_key = k.email_key,
                            identity_keys_version = $4
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS k(id, username_key, email_key)
          WHERE u.id = k.id",
    )
    .bind(&ids)
    .bind(&new_usernames)
    .bind(&new_emails)
    .bind(KEYS_VERSION)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    report.updated = pending.len();
    Ok(report)
}

/// Gives every account without a confusable skeleton (those made before migration 0011)
/// its skeleton (see `auth::identity::skeleton`); runs after each migration and does nothing
/// when every account has one. Where accounts already look alike, the oldest keeps the
/// skeleton and the younger get one no name has (they keep their names and logins; only new
/// names are compared with it); each such case is logged. Returns the accounts updated and
/// those pairs (younger, older).
pub async fn backfill_username_skeletons(
    pool: &PgPool,
) -> Result<(usize, Vec<(Uuid, Uuid)>), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let pending: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, username FROM users WHERE username_skeleton IS NULL
          ORDER BY created_at, id FOR UPDATE",
    )
    .fetch_all(&mut *tx)
    .await?;
    if pending.is_empty() {
        return Ok((0, Vec::new()));
    }
    let skeletons: Vec<String> = pending.iter().map(|(_, u)| identity::skeleton(u)).collect();
    let mut owners: HashMap<String, Uuid> = sqlx::query_as::<_, (String, Uuid)>(
        "SELECT username_skeleton, id FROM users WHERE username_skeleton = ANY($1)",
    )
    .bind(&skeletons)
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .collect();
    let mut conflicts = Vec::new();
    let mut finals = Vec::with_capacity(pending.len());
    for ((id, _), skeleton) in pending.iter().zip(skeletons) {
        let owner = *owners.entry(skeleton.clone()).or_insert(*id);
        if owner == *id {
            finals.push(skeleton);
        } else {
            tracing::warn!(
                account = %id, older_account = %owner,
                "two accounts' usernames look alike; the older keeps the name's look, the younger keeps its name"
            );
            conflicts.push((*id, owner));
            finals.push(unreachable_key(*id, "skeleton"));
        }
    }
    let ids: Vec<Uuid> = pending.iter().map(|(id, _)| *id).collect();
    sqlx::query(
        "UPDATE users u SET username_skeleton = k.skeleton
           FROM unnest($1::uuid[], $2::text[]) AS k(id, skeleton)
          WHERE u.id = k.id",
    )
    .bind(&ids)
    .bind(&finals)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((pending.len(), conflicts))
}

/// Whether the account holds the admin role; `false` for an account that does not exist.
pub async fn is_admin(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    let admin: Option<bool> = sqlx::query_scalar("SELECT is_admin FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(admin == Some(true))
}

/// [`is_admin`] on a connection (inside a transaction).
pub async fn is_admin_conn(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<bool> {
    let admin: Option<bool> = sqlx::query_scalar("SELECT is_admin FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(admin == Some(true))
}

/// The outcome of granting or revoking the admin role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleChange {
    /// The account's username as registered.
    pub username: String,
    /// Whether it held the role before the change.
    pub was_admin: bool,
}

/// Grants (`admin = true`) or revokes the admin role of the account named `username` (in any
/// letter case or normal form). `None` if there is no such account.
pub async fn set_admin(
    pool: &PgPool,
    username: &str,
    admin: bool,
) -> sqlx::Result<Option<RoleChange>> {
    // The old value is read in the same statement (the sub-select sees the row before the
    // update), so the report says truthfully whether anything changed.
    let row: Option<(String, bool)> = sqlx::query_as(
        "UPDATE users u SET is_admin = $2
           FROM (SELECT id, is_admin FROM users WHERE username_key = $1 FOR UPDATE) old
          WHERE u.id = old.id
        RETURNING u.username, old.is_admin",
    )
    .bind(identity::key(username.trim()))
    .bind(admin)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(username, was_admin)| RoleChange {
        username,
        was_admin,
    }))
}

/// An account as it is shown: to itself (`GET /me`) and in the list of admins.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Account {
    pub id: Uuid,
    pub username: String,
    /// Empty for a deleted account (which keeps no address).
    pub email: String,
    pub created_at: DateTime<Utc>,
    /// When the current address was verified; `None`: not yet.
    pub email_verified_at: Option<DateTime<Utc>>,
    pub display_name: Option<String>,
    /// `en` or `ja`.
    pub language: String,
    /// An IANA time zone name.
    pub time_zone: String,
    /// Whether the account has the admin role.
    pub is_admin: bool,
}

/// The columns of an [`Account`].
const ACCOUNT_COLUMNS: &str = "id, username, coalesce(email, '') AS email, created_at, \
                               email_verified_at, display_name, language, time_zone, is_admin";

/// The account with this id, if it exists and is not deleted.
pub async fn account<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Option<Account>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ACCOUNT_COLUMNS} FROM users WHERE id = $1 AND deleted_at IS NULL"
    )))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Every admin, by username.
pub async fn admins(pool: &PgPool) -> sqlx::Result<Vec<Account>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ACCOUNT_COLUMNS} FROM users WHERE is_admin ORDER BY username_key"
    )))
    .fetch_all(pool)
    .await
}

/// The name of the user with this id, if the account exists (and is not deleted).
pub async fn find_username<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT username FROM users WHERE id = $1 AND deleted_at IS NULL")
        .bind(user_id)
        .fetch_optional(executor)
        .await
}

/// The name of an existing user (`RowNotFound` if there is no such account).
pub async fn username<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<String, sqlx::Error> {
    find_username(executor, user_id)
        .await?
        .ok_or(sqlx::Error::RowNotFound)
}

/// The account a password reset names, by username or email address (as a login does): its
/// id and current address.
pub async fn find_for_reset<'e>(
    executor: impl PgExecutor<'e>,
    identifier: &str,
) -> Result<Option<(Uuid, String)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, email FROM users
          WHERE (username_key = $1 OR email_key = $1) AND deleted_at IS NULL
          ORDER BY created_at, id LIMIT 1",
    )
    .bind(identity::key(identifier))
    .fetch_optional(executor)
    .await
}

/// Sets an account's password hash.
pub async fn set_password<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    password_hash: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE users SET password_hash = $2 WHERE id = $1")
        .bind(id)
        .bind(password_hash)
        .execute(executor)
        .await?;
    Ok(())
}

/// Whether the account's current address is verified (`false` for no such account).
pub async fn is_verified<'e>(executor: impl PgExecutor<'e>, id: Uuid) -> sqlx::Result<bool> {
    let verified: Option<bool> =
        sqlx::query_scalar("SELECT email_verified_at IS NOT NULL FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(executor)
            .await?;
    Ok(verified == Some(true))
}

/// Whether an account other than `except` has this address (in any case or normal form).
pub async fn email_taken<'e>(
    executor: impl PgExecutor<'e>,
    email: &str,
    except: Uuid,
) -> sqlx::Result<bool> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM users WHERE email_key = $1 AND id <> $2)")
        .bind(identity::key(email))
        .bind(except)
        .fetch_one(executor)
        .await
}

/// What verifying an address did.
#[derive(Debug, PartialEq, Eq)]
pub enum Verified {
    /// The address was the account's own and is verified now (or was already).
    Address,
    /// The account's address is now this one, verified.
    Changed,
    /// Another account has the address meanwhile; nothing changed.
    EmailTaken,
}

/// Makes `email` the account's verified address at `now`: marks it verified if it is the
/// account's address already, else changes the address to it (unless another account has
/// taken it since the link was sent).
pub async fn verify_email<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    email: &str,
    now: DateTime<Utc>,
) -> Result<Verified, sqlx::Error> {
    let result = sqlx::query_scalar(
        "UPDATE users u SET email = CASE WHEN u.email_key = $3 THEN u.email ELSE $2 END,
                            email_key = $3,
                            email_verified_at = CASE WHEN u.email_key = $3
                                                     THEN coalesce(u.email_verified_at, $4)
                                                     ELSE $4 END
           FROM (SELECT email_key FROM users WHERE id = $1) old
          WHERE u.id = $1
        RETURNING old.email_key = $3",
    )
    .bind(id)
    .bind(email)
    .bind(identity::key(email))
    .bind(now)
    .fetch_one(executor)
    .await;
    match result {
        Ok(true) => Ok(Verified::Address),
        Ok(false) => Ok(Verified::Changed),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("users_email_key_key") => {
            Ok(Verified::EmailTaken)
        }
        Err(e) => Err(e),
    }
}

/// A change of profile; `None` leaves a field as it is (`Some(None)`: no display name).
#[derive(Debug, Default)]
pub struct ProfileChange<'a> {
    pub display_name: Option<Option<&'a str>>,
    pub language: Option<&'a str>,
    pub time_zone: Option<&'a str>,
}

/// Changes the profile of a (not deleted) account; returns whether there was one.
pub async fn update_profile<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    change: &ProfileChange<'_>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE users
            SET display_name = CASE WHEN $2 THEN $3 ELSE display_name END,
                language = coalesce($4, language),
                time_zone = coalesce($5, time_zone)
          WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(id)
    .bind(change.display_name.is_some())
    .bind(change.display_name.flatten())
    .bind(change.language)
    .bind(change.time_zone)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(done == 1)
}

/// Locks a live (not deleted) account for its deletion: its username and display name.
pub async fn lock_live(
    conn: &mut PgConnection,
    id: Uuid,
) -> sqlx::Result<Option<(String, Option<String>)>> {
    sqlx::query_as(
        "SELECT username, display_name FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// The next number for a deleted account's placeholder name.
pub async fn next_deleted_number(conn: &mut PgConnection) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT nextval('deleted_player_numbers')")
        .fetch_one(conn)
        .await
}

/// Whether some account holds this username (in any case or normal form).
pub async fn username_taken(conn: &mut PgConnection, name: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM users WHERE username_key = $1 OR username_skeleton = $2)",
    )
    .bind(identity::key(name))
    .bind(identity::skeleton(name))
    .fetch_one(conn)
    .await
}

/// What deleting an account removed, row counts per table (for the log).
#[derive(Debug, Default)]
pub struct Erased {
    pub refresh_tokens: u64,
    pub api_tokens: u64,
    pub mails: u64,
}

/// Erases what is stored about a user, in the caller's transaction: tokens, preferences,
/// vacations, every mail of theirs (sent or not), invitations to them, live presence, blocks
/// both ways, the failed-login count, their private notes and standing orders on games; then the account row keeps only its id, the
/// placeholder `placeholder` as its username, and its creation and deletion times. Other
/// users' mails naming `old_username` as their inviter name the placeholder instead.
pub async fn erase(
    conn: &mut PgConnection,
    id: Uuid,
    old_username: &str,
    placeholder: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<Erased> {
    let mut deleted = Vec::with_capacity(3);
    for statement in [
        "DELETE FROM refresh_tokens WHERE user_id = $1",
        "DELETE FROM api_tokens WHERE user_id = $1",
        // One statement: a digest row and the notices it summed up go together.
        "DELETE FROM mail_outbox WHERE user_id = $1",
    ] {
        let done = sqlx::query(statement).bind(id).execute(&mut *conn).await?;
        deleted.push(done.rows_affected());
    }
    let erased = Erased {
        refresh_tokens: deleted[0],
        api_tokens: deleted[1],
        mails: deleted[2],
    };
    for statement in [
        "DELETE FROM notification_prefs WHERE user_id = $1",
        "DELETE FROM notice_choices WHERE user_id = $1",
        "DELETE FROM vacations WHERE user_id = $1",
        "DELETE FROM game_invitations WHERE user_id = $1",
        "DELETE FROM live_presence WHERE user_id = $1",
        "DELETE FROM user_blocks WHERE blocker_id = $1 OR blocked_id = $1",
        "DELETE FROM login_failures WHERE subject = 'account:' || $1::text",
        // Mailed links and the mail limits counted for the account, and its logins.
        "DELETE FROM mail_tokens WHERE user_id = $1",
        "DELETE FROM login_failures WHERE subject LIKE 'mail:%:' || $1::text",
        "DELETE FROM login_sessions WHERE user_id = $1",
        // Private notes on games are the player's own, not the game's record.
        "DELETE FROM game_notes WHERE user_id = $1",
        // So are their standing orders (a seat they still held is left by now).
        "DELETE FROM game_orders WHERE user_id = $1",
        // Webhook endpoints (their secrets and delivery logs with them).
        "DELETE FROM webhook_endpoints WHERE user_id = $1",
    ] {
        sqlx::query(statement).bind(id).execute(&mut *conn).await?;
    }
    sqlx::query(
        "UPDATE mail_outbox SET data = data || jsonb_build_object('inviter', $2::text)
          WHERE data->>'inviter' = $1",
    )
    .bind(old_username)
    .bind(placeholder)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE users
            SET username = $2, username_key = $3, username_skeleton = $5, email = NULL,
                email_key = chr(1) || 'deleted-e:' || id::text, password_hash = NULL,
                display_name = NULL, language = 'en', time_zone = 'UTC', is_admin = false,
                deleted_at = $4
          WHERE id = $1",
    )
    .bind(id)
    .bind(placeholder)
    .bind(identity::key(placeholder))
    .bind(now)
    .bind(identity::skeleton(placeholder))
    .execute(&mut *conn)
    .await?;
    Ok(erased)
}

/// The password hash of a live account (`None` for a deleted or unknown one).
pub async fn password_hash<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> sqlx::Result<Option<String>> {
    let hash: Option<Option<String>> =
        sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1 AND deleted_at IS NULL")
            .bind(id)
            .fetch_optional(executor)
            .await?;
    Ok(hash.flatten())
}

/// How mail to a live account is written: its username, language and time zone name.
pub async fn mail_locale<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> sqlx::Result<Option<(String, String, String)>> {
    sqlx::query_as(
        "SELECT username, language, time_zone FROM users WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(id)
    .fetch_optional(executor)
    .await
}
