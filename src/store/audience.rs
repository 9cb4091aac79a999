//! Who besides its players may see a game: the lobby's lists and every read of a game ask
//! the same questions (blocks with the seated players, invitations, the spectators setting).

use super::games::{GameHead, HEAD_COLUMNS};
use sqlx::PgExecutor;
use uuid::Uuid;

/// SQL that is true when the user `user` and a player seated in the game `game` (both SQL
/// expressions) blocked one another, either way.
pub fn blocked_with_seated(game: &str, user: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM game_seats bs JOIN user_blocks b
                    ON (b.blocker_id = bs.user_id AND b.blocked_id = {user})
                    OR (b.blocker_id = {user} AND b.blocked_id = bs.user_id)
                 WHERE bs.game_id = {game})"
    )
}

/// SQL that is true when the game `g` (its head row) allows only its players to watch.
pub const PLAYERS_ONLY: &str = "coalesce(g.options->>'spectators', 'anyone') = 'players'";

/// Where a user stands towards a game they may want to read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Standing {
    /// They hold a seat.
    pub seated: bool,
    /// They and a seated player blocked one another (either way).
    pub blocked: bool,
    /// They are invited (to an open private game).
    pub invited: bool,
}

/// Where `user` stands towards the game, in one statement.
pub async fn standing<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    user: Uuid,
) -> Result<Standing, sqlx::Error> {
    let blocked = blocked_with_seated("$1", "$2");
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT EXISTS (SELECT 1 FROM game_seats WHERE game_id = $1 AND user_id = $2) AS seated,
                {blocked} AS blocked,
                EXISTS (SELECT 1 FROM game_invitations WHERE game_id = $1 AND user_id = $2) AS invited"
    )))
    .bind(game_id)
    .bind(user)
    .fetch_one(executor)
    .await
}

/// A game's head row with where a user stands towards it, their seat and whether they are an
/// admin: everything a live stream decides on when it looks at the game (who may read it,
/// which events and chat channels they see), in one statement.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct HeadFor {
    #[sqlx(flatten)]
    pub head: GameHead,
    #[sqlx(flatten)]
    pub standing: Standing,
    /// The user's seat, if they hold one.
    pub seat: Option<i16>,
    pub admin: bool,
}

/// The game `game_id` (none if there is no such game) as `user` stands towards it.
pub async fn head_for<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    user: Uuid,
) -> Result<Option<HeadFor>, sqlx::Error> {
    let blocked = blocked_with_seated("g.id", "$2");
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS},
                EXISTS (SELECT 1 FROM game_seats WHERE game_id = g.id AND user_id = $2) AS seated,
                {blocked} AS blocked,
                EXISTS (SELECT 1 FROM game_invitations WHERE game_id = g.id AND user_id = $2) AS invited,
                (SELECT seat FROM game_seats WHERE game_id = g.id AND user_id = $2) AS seat,
                coalesce((SELECT is_admin FROM users WHERE id = $2), false) AS admin
           FROM games g WHERE g.id = $1"
    )))
    .bind(game_id)
    .bind(user)
    .fetch_optional(executor)
    .await
}
