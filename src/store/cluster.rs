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

#[cfg(test)]
mod tests {
    #[test]
    fn identifiers_are_quoted_with_inner_quotes_doubled() {
        assert_eq!(super::quoted("kontor"), "\"kontor\"");
        assert_eq!(super::quoted("a\"b"), "\"a\"\"b\"");
    }
}
