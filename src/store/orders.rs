//! Standing orders (`migrations/0029_standing_orders.sql`, `service::play::orders`): one row
//! per game and seat with the seat's orders and what the server did with them (`news`).
//! Read by the command path (all seats of a game, with the head: [`orders_sql`]) and by the
//! seat's owner; written by the owner's changes (under the game's row lock, moving
//! `games.orders_revision` on) and by appends (`store::append`), never read for anyone else.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// How many entries of news a seat keeps at most (the latest), not yet told in a notice.
pub const NEWS_KEPT: i64 = 100;
/// How many entries of news a seat keeps once a notice told them (the latest).
pub const NEWS_TOLD_KEPT: usize = 10;

/// One seat's row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, sqlx::FromRow)]
pub struct OrderRow {
    pub seat: i16,
    pub user_id: Uuid,
    /// `[{"id": n, "order": {...}}, ...]`.
    pub orders: Value,
    pub next_id: i64,
    pub news: Value,
    pub mailed_through: i64,
}

/// The SQL of a JSON array of the order rows of game `game` (an SQL expression), in seat
/// order: read with the head by `games::read_for_command`.
pub(super) fn orders_sql(game: &str) -> String {
    format!(
        "(SELECT coalesce(json_agg(json_build_object(
                    'seat', o.seat, 'user_id', o.user_id, 'orders', o.orders,
                    'next_id', o.next_id, 'news', o.news, 'mailed_through', o.mailed_through)
                  ORDER BY o.seat), '[]')
            FROM game_orders o WHERE o.game_id = {game})"
    )
}

/// The order rows of a game, in seat order.
pub async fn of_game<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> sqlx::Result<Vec<OrderRow>> {
    sqlx::query_as(
        "SELECT seat, user_id, orders, next_id, news, mailed_through FROM game_orders
          WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// A game's orders revision (see the migration).
pub async fn revision<'e>(executor: impl PgExecutor<'e>, game_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT orders_revision FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_one(executor)
        .await
}

/// Writes the rows of a game's seats whose orders changed (the caller holds the game's row
/// lock) and moves the game's orders revision on.
pub async fn save(
    conn: &mut PgConnection,
    game_id: Uuid,
    rows: &[OrderRow],
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    if !rows.is_empty() {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO game_orders AS o (game_id, seat, user_id, orders, next_id, news,
                                           mailed_through, updated_at)
             SELECT $1, x.seat, x.user_id, x.orders, x.next_id, x.news, x.mailed_through, $8
               FROM unnest($2::smallint[], $3::uuid[], $4::jsonb[], $5::bigint[], $6::jsonb[],
                           $7::bigint[])
                    AS x(seat, user_id, orders, next_id, news, mailed_through)
             {UPSERT}"
        )))
        .bind(game_id)
        .bind(rows.iter().map(|r| r.seat).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.user_id).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| &r.orders).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.next_id).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| &r.news).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.mailed_through).collect::<Vec<_>>())
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    bump_revision(conn, game_id).await
}

/// Moves a game's orders revision on (the caller holds the game's row lock).
pub async fn bump_revision(conn: &mut PgConnection, game_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("UPDATE games SET orders_revision = orders_revision + 1 WHERE id = $1")
        .bind(game_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// What an upsert of rows `x` (as [`save`] and the append name them) does to a stored row:
/// the new orders, ids, news (as `service::play::auto` trims them) and mail mark replace the old.
pub(super) const UPSERT: &str = "ON CONFLICT (game_id, seat) DO UPDATE
        SET user_id = EXCLUDED.user_id, orders = EXCLUDED.orders, next_id = EXCLUDED.next_id,
            news = EXCLUDED.news, mailed_through = EXCLUDED.mailed_through,
            updated_at = EXCLUDED.updated_at";

/// Every order row of `user` (the my-data export), the games' most recent first.
pub async fn of_user<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<Vec<(Uuid, OrderRow, DateTime<Utc>)>> {
    let rows: Vec<UserOrderRow> = sqlx::query_as(
        "SELECT game_id, seat, user_id, orders, next_id, news, mailed_through, updated_at
           FROM game_orders WHERE user_id = $1 ORDER BY updated_at DESC, game_id",
    )
    .bind(user)
    .fetch_all(executor)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.game_id, r.row, r.updated_at))
        .collect())
}

#[derive(sqlx::FromRow)]
struct UserOrderRow {
    game_id: Uuid,
    #[sqlx(flatten)]
    row: OrderRow,
    updated_at: DateTime<Utc>,
}

/// Deletes the orders of a seat left for good (the caller holds the game's row lock).
pub async fn delete_seat(conn: &mut PgConnection, game_id: Uuid, seat: i16) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM game_orders WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat)
        .execute(&mut *conn)
        .await?;
    bump_revision(conn, game_id).await
}
