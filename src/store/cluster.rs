//! Setting up a PostgreSQL cluster for Kontor, as its superuser: the application role and
//! its database (see `embedded_pg`, and the tests' private clusters). Each step does nothing
//! when its object exists already, so it runs at every start.

use sqlx::PgPool;

/// An SQL identifier in double quotes (quotes inside doubled), for the statements that
/// cannot take one as a parameter.
fn quoted(identifier: &str) -> String {
    format!("\"{}\"", identifier.replace('"', "\"\""))
}

/// Creates the login role `role` (no superuser) unless it exists.
pub async fn ensure_role(superuser: &PgPool, role: &str) -> Result<(), sqlx::Error> {
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)")
            .bind(role)
            .fetch_one(superuser)
            .await?;
    if !exists {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE ROLE {} LOGIN NOSUPERUSER",
            quoted(role)
        )))
        .execute(superuser)
        .await?;
    }
    Ok(())
}

/// Creates `database` (UTF-8, owned by `owner`) unless it exists.
pub async fn ensure_database(
    superuser: &PgPool,
    database: &str,
    owner: &str,
) -> Result<(), sqlx::Error> {
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(database)
            .fetch_one(superuser)
            .await?;
    if !exists {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE {} OWNER {} ENCODING 'UTF8' TEMPLATE template0",
            quoted(database),
            quoted(owner)
        )))
        .execute(superuser)
        .await?;
    }
    Ok(())
}

/// Drops `database` if it exists, ending the sessions still connected to it (for a
/// restore into the embedded cluster: its database is made anew from the dump).
pub async fn drop_database(superuser: &PgPool, database: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
        quoted(database)
    )))
    .execute(superuser)
    .await?;
    Ok(())
}

/// How many games a Kontor database holds; 0 when it has no schema yet.
pub async fn count_games(pool: &PgPool) -> Result<i64, sqlx::Error> {
    let has_games: bool = sqlx::query_scalar("SELECT to_regclass('public.games') IS NOT NULL")
        .fetch_one(pool)
        .await?;
    if !has_games {
        return Ok(0);
    }
    sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(pool)
        .await
}

/// How many tables the database's `public` schema has (a restore wants none).
pub async fn count_tables(pool: &PgPool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        .fetch_one(pool)
        .await
}

#[cfg(test)]
mod tests {
    #[test]
    fn identifiers_are_quoted_with_inner_quotes_doubled() {
        assert_eq!(super::quoted("kontor"), "\"kontor\"");
        assert_eq!(super::quoted("a\"b"), "\"a\"\"b\"");
    }
}
