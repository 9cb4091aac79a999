//! The lobby: creating, listing, joining, leaving, starting and cancelling games.

use super::clock::{SeatClock, TimeControl, TimeControlRequest};
use super::error::Error;
use super::log::readable_by;
use super::step;
use super::table;
use crate::auth::throttle;
use crate::config::VolumeLimits;
use crate::games::rng::commitment;
use crate::games::{GameKind, Rules};
use crate::live::Note;
use crate::service::notices::{self, Notice};
use crate::store::append;
use crate::store::events;
use crate::store::games::{
    self, GameHead, ListFilter, Listing, NewGame, SeatRow, Status, TournamentGames,
};
use crate::store::seats::{self, SeatState};
use crate::store::{blocks, invitations, users};
use crate::time::Clock;
use crate::with_rules;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::Digest;
use sqlx::{PgConnection, PgPool};
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// A seat as listed in the lobby.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatSummary {
    pub seat: i16,
    pub user_id: Uuid,
    pub username: String,
    /// The player's display name, shown beside the username; `null` if none.
    pub display_name: Option<String>,
    /// `active`; `abandoned` after too many timeouts (the bot plays it until the player
    /// returns); `forfeited` (the bot plays it out, it ranks last).
    pub state: SeatState,
    /// While the seat is to move under a time control: when its time runs out (the time for
    /// the move, its time bank and any vacation counted in) and the game's policy plays for
    /// it. `null` otherwise.
    pub deadline: Option<DateTime<Utc>>,
}

/// A game as listed in the lobby and at the top of a game's page.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "kind": "flying-dutchman", "rules_version": 1,
    "status": "active", "visibility": "public", "seat_count": 4,
    "options": {"edition": "2016", "value_track": "without_one", "board": "standard", "negotiation_deadline_secs": 86400},
    "seats": [{"seat": 0, "user_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "username": "anna", "state": "active"}],
    "created_by": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "created_at": "2026-11-29T12:00:00Z",
    "started_at": "2026-11-29T12:05:00Z", "finished_at": null, "version": 12, "pending": [2],
    "turn_started_at": "2026-11-29T12:30:00Z", "your_seat": 0, "your_turn": false,
    "seed_commitment": "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
    "outcome": null, "sandbox": false, "chat_unread": 0
}))]
pub struct GameSummary {
    pub id: Uuid,
    pub kind: String,
    pub rules_version: i32,
    /// `open` (waiting for players), `active`, `finished` or `cancelled`.
    pub status: String,
    /// `public` (listed, anyone may join) or `private` (invited players only).
    pub visibility: String,
    pub seat_count: i16,
    /// The options with every default filled in.
    #[schema(schema_with = super::game_schemas::options)]
    pub options: Value,
    pub seats: Vec<SeatSummary>,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Sequence number of the last event; send it with your next action.
    pub version: i64,
    /// Seats that must act now.
    pub pending: Vec<i16>,
    pub turn_started_at: Option<DateTime<Utc>>,
    /// The caller's seat, if they play.
    pub your_seat: Option<i16>,
    /// Whether the caller must act now.
    pub your_turn: bool,
    /// SHA-256 of the secret seed, published before the game starts.
    pub seed_commitment: String,
    #[schema(schema_with = super::game_schemas::outcome)]
    pub outcome: Option<Value>,
    /// An imported copy for analysis, not a rated game.
    pub sandbox: bool,
    /// For a sandbox: the game its log was exported from.
    pub imported_from: Option<Uuid>,
    /// The time control; `null` = no time limit.
    #[schema(value_type = Option<TimeControl>)]
    pub time_control: Option<Value>,
    /// The caller's unread chat messages in the game, over the channels they may read (for
    /// one who holds no seat: those they opened); 0 without chat.
    pub chat_unread: i64,
    /// The tournament the game was seated for, with its round; `null` for a game of no
    /// tournament.
    pub tournament: Option<GameTournament>,
}

/// The tournament a game belongs to, as game lists and pages name it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "01938a1e-9f3c-7d2a-8b1e-5f0c2d4e6a7b", "name": "Winter Swiss", "round": 2}))]
pub struct GameTournament {
    /// See `GET /tournaments/{id}`.
    pub id: Uuid,
    pub name: String,
    /// The round it was seated in (from 1).
    pub round: i16,
}

/// Fills `tournament` of each summary (one statement for all of them).
pub async fn attach_tournaments<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    items: &mut [GameSummary],
) -> Result<(), Error> {
    if items.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = items.iter().map(|i| i.id).collect();
    let rows = crate::store::tournaments::of_games(executor, &ids).await?;
    for item in items.iter_mut() {
        item.tournament = rows
            .iter()
            .find(|r| r.game_id == item.id)
            .map(|r| GameTournament {
                id: r.tournament_id,
                name: r.name.clone(),
                round: r.round,
            });
    }
    Ok(())
}

impl GameSummary {
    pub fn new(head: &GameHead, seats: &[SeatRow], caller: Uuid) -> Self {
        let your_seat = seats.iter().find(|s| s.user_id == caller).map(|s| s.seat);
        Self {
            id: head.id,
            kind: head.kind.clone(),
            rules_version: head.rules_version,
            status: head.status().as_str().to_string(),
            visibility: head.visibility.clone(),
            seat_count: head.seat_count,
            options: head.options.clone(),
            seats: seats
                .iter()
                .map(|s| SeatSummary {
                    seat: s.seat,
                    user_id: s.user_id,
                    username: s.username.clone(),
                    display_name: s.display_name.clone(),
                    state: s.state,
                    // Only while the game runs (a finished game's last clocks are history).
                    deadline: s.deadline.filter(|_| head.status() == Status::Active),
                })
                .collect(),
            created_by: head.created_by,
            created_at: head.created_at,
            started_at: head.started_at,
            finished_at: head.finished_at,
            version: head.version,
            pending: head.pending_seats.clone(),
            turn_started_at: head.turn_started_at,
            your_seat,
            your_turn: your_seat.is_some_and(|s| head.pending_seats.contains(&s)),
            seed_commitment: head.seed_commitment.clone(),
            outcome: head.outcome.clone(),
            sandbox: head.sandbox,
            imported_from: head.imported_from,
            time_control: head.time_control.clone(),
            chat_unread: 0,
            tournament: None,
        }
    }
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "flying-dutchman", "seats": 4, "options": {"edition": "2016"}, "visibility": "public"}))]
pub struct CreateGameRequest {
    /// A registered game kind: `flying-dutchman` or `steel-driver`.
    pub kind: String,
    /// Number of seats (Flying Dutchman and Steel Driver: 3–6). The creator takes seat 0.
    pub seats: u8,
    /// The game's options; absent ones take their defaults. Unknown options are refused.
    #[serde(default)]
    #[schema(schema_with = super::game_schemas::requested_options)]
    pub options: Value,
    /// `public` (default) or `private`.
    pub visibility: Option<String>,
    /// The creator's contribution to the game's randomness; random if absent.
    #[schema(min_length = 1, max_length = 64, pattern = "^[ -~]+$")]
    pub nonce: Option<String>,
    /// A time control; absent = no time limit.
    pub time_control: Option<TimeControlRequest>,
}

fn validate_nonce(nonce: Option<String>) -> Result<String, Error> {
    match nonce {
        None => Ok(hex::encode(rand::rng().random::<[u8; 16]>())),
        Some(n)
            if (1..=64).contains(&n.len())
                && n.chars().all(|c| c == ' ' || c.is_ascii_graphic()) =>
        {
            Ok(n)
        }
        Some(_) => Err(Error::invalid_field(
            "nonce",
            "a nonce has 1 to 64 printable ASCII characters",
        )),
    }
}

fn parse_kind(kind: &str) -> Result<GameKind, Error> {
    GameKind::parse(kind).ok_or_else(|| Error::UnknownGameKind {
        kind: kind.to_string(),
    })
}

/// The options of `R` for `seats`, validated and completed.
fn options_for<R: Rules>(raw: &Value, seats: u8) -> Result<Value, Error> {
    if !(R::MIN_SEATS..=R::MAX_SEATS).contains(&seats) {
        return Err(Error::InvalidOptions {
            field: "seats".to_string(),
            detail: format!(
                "{} is for {} to {} players, not {seats}",
                R::KIND,
                R::MIN_SEATS,
                R::MAX_SEATS
            ),
        });
    }
    let raw = if raw.is_null() {
        &Value::Object(Default::default())
    } else {
        raw
    };
    let options = R::parse_options(raw, seats).map_err(|e| Error::InvalidOptions {
        field: e.field,
        detail: e.message,
    })?;
    Ok(serde_json::to_value(options).expect("options serialise"))
}

/// A table's stored options for `seats` seats of `kind`, with its rules version: the
/// platform's settings among `raw` (who may watch, chat, undo, rated) split off and judged,
/// the rest validated and completed by the rules, all stored explicitly. The lobby and the
/// tournaments create games through this one function.
pub fn table_options(kind: GameKind, raw: &Value, seats: u8) -> Result<(Value, i32), Error> {
    let (spectators, rules_options) = table::split_options(raw)?;
    let (chat, rules_options) = table::split_chat(kind.as_str(), &rules_options)?;
    let (undo, rules_options) = table::split_undo(&rules_options)?;
    let (rated, rules_options) = table::split_rated(&rules_options, undo)?;
    let (options, rules_version) = with_rules!(kind, R => {
        (options_for::<R>(&rules_options, seats)?, R::RULES_VERSION as i32)
    });
    let options = table::with_rated(
        table::with_undo(
            table::with_chat(table::with_setting(options, spectators), chat),
            undo,
        ),
        rated,
    );
    Ok((options, rules_version))
}

/// A table the server seats itself (a rematch, a tournament's game): created and started at
/// once, with fresh randomness and seat nonces.
pub struct StartedTable<'a> {
    pub kind: GameKind,
    /// Stored options (see [`table_options`]).
    pub options: &'a Value,
    pub visibility: &'a str,
    pub created_by: Uuid,
    pub time_control: Option<Value>,
    /// Each seat's player in seat order, and whether the bot plays it from the start.
    pub seats: &'a [(Uuid, bool)],
    /// Whether the players get the usual "game started" notice: a tournament's own notice
    /// ("your next round is seated") names the game instead, so one event is one mail.
    pub announce_start: bool,
}

/// Creates and starts `table` within the caller's transaction; returns the new game's id.
pub async fn create_started(
    conn: &mut PgConnection,
    time: &Clock,
    table: &StartedTable<'_>,
) -> Result<Uuid, Error> {
    let rules_version = with_rules!(table.kind, R => R::RULES_VERSION as i32);
    let seed: [u8; 32] = rand::rng().random();
    let id = Uuid::now_v7();
    games::insert(
        conn,
        &NewGame {
            id,
            kind: table.kind.as_str(),
            rules_version,
            options: table.options,
            seat_count: table.seats.len() as i16,
            visibility: table.visibility,
            created_by: table.created_by,
            seed: seed.as_slice(),
            seed_commitment: &commitment(&seed),
            time_control: table.time_control.clone(),
            create_key: None,
        },
    )
    .await?;
    for (seat, &(user, bot)) in table.seats.iter().enumerate() {
        let nonce = hex::encode(rand::rng().random::<[u8; 16]>());
        seats::take(conn, id, seat as i16, user, &nonce).await?;
        if bot {
            seats::set_state(conn, id, seat as i16, SeatState::Abandoned).await?;
        }
    }
    let head = games::lock_head(conn, id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("the new game {id} vanished")))?;
    start_locked(conn, &head, time, table.announce_start).await?;
    Ok(id)
}

/// The `Retry-After` of a refused creation (too many open games): no time frees one by
/// itself, but players may fill one meanwhile, so a client may look again after a minute.
pub const OPEN_GAMES_RETRY_AFTER_SECS: u64 = 60;

/// How a creation was answered.
pub enum Creation {
    /// A new game.
    Created(GameSummary),
    /// The game an earlier request with the same `Idempotency-Key` created (a retry).
    Replayed(GameSummary),
}

/// The fingerprint of a create request, kept with its `Idempotency-Key`: a retry must ask for
/// the same game.
fn request_fingerprint(request: &CreateGameRequest) -> Result<Vec<u8>, Error> {
    let body = serde_json::to_vec(request).map_err(anyhow::Error::from)?;
    Ok(sha2::Sha256::digest(&body).to_vec())
}

/// Opens a game for `caller`, who takes seat 0, unless `caller` has `max_open` open games
/// already. A rated one only if `may_play_rated` (see `security::may_play_rated`). With an
/// `Idempotency-Key` (`key`), a retry of the same request is answered with the game the first
/// created (whatever became of it since), and the key with another request is refused
/// (`idempotency_key_reused`): a client that lost the answer may ask again without making a
/// second game.
pub async fn create(
    pool: &PgPool,
    caller: Uuid,
    request: CreateGameRequest,
    min_seconds_per_move: i64,
    max_open: u32,
    may_play_rated: bool,
    key: Option<&str>,
) -> Result<Creation, Error> {
    let fingerprint = request_fingerprint(&request)?;
    let time_control = request
        .time_control
        .clone()
        .map(|tc| tc.validate(min_seconds_per_move))
        .transpose()?;
    let kind = parse_kind(&request.kind)?;
    let (options, rules_version) = table_options(kind, &request.options, request.seats)?;
    if table::is_rated(&options) && !may_play_rated {
        return Err(Error::RatedNeedsVerified);
    }
    let visibility = match request.visibility.as_deref().unwrap_or("public") {
        v @ ("public" | "private") => v.to_string(),
        other => {
            return Err(Error::invalid_field(
                "visibility",
                format!("visibility is public or private, not {other:?}"),
            ));
        }
    };
    let nonce = validate_nonce(request.nonce)?;
    let seed: [u8; 32] = rand::rng().random();
    let id = Uuid::now_v7();
    let time_control = time_control
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(anyhow::Error::from)?;
    let mut tx = pool.begin().await?;
    // One user's open games would fill everyone's open list. The lock on the creator also
    // orders two requests with one key: the second finds the first's game.
    let open = games::lock_and_count_open_created_by(&mut tx, caller).await?;
    if let Some(key) = key
        && let Some((game, stored)) = games::created_with_key(&mut *tx, caller, key).await?
    {
        tx.rollback().await?;
        if stored != fingerprint {
            return Err(Error::IdempotencyKeyReused);
        }
        return Ok(Creation::Replayed(summary(pool, game, caller).await?));
    }
    if open >= i64::from(max_open) {
        return Err(Error::TooManyOpenGames { open });
    }
    games::insert(
        &mut tx,
        &NewGame {
            id,
            kind: kind.as_str(),
            rules_version,
            options: &options,
            seat_count: i16::from(request.seats),
            visibility: &visibility,
            created_by: caller,
            seed: seed.as_slice(),
            seed_commitment: &commitment(&seed),
            time_control,
            create_key: key.map(|key| (key, fingerprint.as_slice())),
        },
    )
    .await?;
    seats::take(&mut tx, id, 0, caller, &nonce).await?;
    crate::live::announce(&mut tx, &Note::opened(id)).await?;
    tx.commit().await?;
    Ok(Creation::Created(summary(pool, id, caller).await?))
}

/// The summary of one game for `caller`.
pub async fn summary(pool: &PgPool, game_id: Uuid, caller: Uuid) -> Result<GameSummary, Error> {
    let head = games::head(pool, game_id)
        .await?
        .ok_or(Error::GameNotFound)?;
    let seats = games::seats(pool, game_id).await?;
    let mut summary = GameSummary::new(&head, &seats, caller);
    summary.chat_unread =
        crate::service::play::channels::unread_in(pool, caller, &head, summary.your_seat).await?;
    attach_tournaments(pool, std::slice::from_mut(&mut summary)).await?;
    Ok(summary)
}

fn wrong_status(head: &GameHead, action: &'static str) -> Error {
    Error::WrongStatus {
        action,
        status: head.status(),
    }
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seat": 2, "nonce": "my lucky nonce"}))]
pub struct JoinRequest {
    /// The seat to take; the first free one if absent.
    pub seat: Option<i16>,
    /// Your contribution to the game's randomness; random if absent.
    #[schema(min_length = 1, max_length = 64, pattern = "^[ -~]+$")]
    pub nonce: Option<String>,
}

/// Takes a seat. When the last seat is taken, the game starts.
pub async fn join(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
    request: JoinRequest,
    may_play_rated: bool,
) -> Result<GameSummary, Error> {
    let nonce = validate_nonce(request.nonce)?;
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    if head.status() != Status::Open {
        return Err(wrong_status(&head, "join"));
    }
    let seats = games::seats(&mut *tx, game_id).await?;
    if seats.iter().any(|s| s.user_id == caller) {
        return Err(Error::AlreadySeated);
    }
    if table::is_rated(&head.options) && !may_play_rated {
        return Err(Error::RatedNeedsVerified);
    }
    if head.visibility == "private"
        && head.created_by != caller
        && !invitations::is_invited(&mut tx, game_id, caller).await?
    {
        return Err(Error::NotInvited);
    }
    // Nobody sits at a table with someone who blocked them, or whom they blocked.
    if blocks::with_seated(&mut tx, game_id, caller).await? {
        return Err(Error::CannotJoin);
    }
    let taken: Vec<i16> = seats.iter().map(|s| s.seat).collect();
    let seat = match request.seat {
        Some(seat) if !(0..head.seat_count).contains(&seat) => {
            return Err(Error::invalid_field(
                "seat",
                format!("seats are numbered 0 to {}", head.seat_count - 1),
            ));
        }
        Some(seat) if taken.contains(&seat) => {
            return Err(Error::SeatTaken(seat));
        }
        Some(seat) => seat,
        None => (0..head.seat_count)
            .find(|s| !taken.contains(s))
            .ok_or(Error::GameFull)?,
    };
    seats::take(&mut tx, game_id, seat, caller, &nonce).await?;
    if taken.len() + 1 == head.seat_count as usize {
        start_locked(&mut tx, &head, time, true).await?;
    } else {
        crate::live::announce(&mut tx, &Note::seats_changed(game_id)).await?;
    }
    tx.commit().await?;
    summary(pool, game_id, caller).await
}

/// Gives up a seat before the start.
pub async fn leave(pool: &PgPool, caller: Uuid, game_id: Uuid) -> Result<GameSummary, Error> {
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    if head.status() != Status::Open {
        return Err(wrong_status(&head, "leave"));
    }
    if !seats::leave(&mut tx, game_id, caller).await? {
        return Err(Error::NotAPlayer);
    }
    crate::live::announce(&mut tx, &Note::seats_changed(game_id)).await?;
    tx.commit().await?;
    summary(pool, game_id, caller).await
}

/// Locks an open game for its creator, who wants to `what` it.
async fn lock_own_open_game(
    conn: &mut PgConnection,
    caller: Uuid,
    game_id: Uuid,
    what: &'static str,
) -> Result<GameHead, Error> {
    let head = games::lock_head(conn, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    if head.created_by != caller {
        return Err(Error::NotTheCreator { action: what });
    }
    if head.status() != Status::Open {
        return Err(wrong_status(&head, what));
    }
    Ok(head)
}

/// Starts the game with the seats taken so far (creator only).
pub async fn start(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
) -> Result<GameSummary, Error> {
    let mut tx = pool.begin().await?;
    let head = lock_own_open_game(&mut tx, caller, game_id, "start").await?;
    start_locked(&mut tx, &head, time, true).await?;
    tx.commit().await?;
    summary(pool, game_id, caller).await
}

/// Cancels an open game (creator only). Nothing was played, so nothing is lost.
pub async fn cancel(pool: &PgPool, caller: Uuid, game_id: Uuid) -> Result<GameSummary, Error> {
    let mut tx = pool.begin().await?;
    lock_own_open_game(&mut tx, caller, game_id, "cancel").await?;
    games::cancel(&mut tx, game_id).await?;
    crate::live::announce(&mut tx, &Note::cancelled(game_id)).await?;
    tx.commit().await?;
    summary(pool, game_id, caller).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "bert"}))]
pub struct InviteRequest {
    #[schema(min_length = 1, max_length = 254)]
    pub username: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Invitation {
    pub game_id: Uuid,
    pub user_id: Uuid,
    pub username: String,
}

/// Invites a user to an open game (any seated player may invite). Returns whether the
/// invitation is new. A new one counts against the inviter's invitations a day (beyond them
/// it is refused) and the invitee's invitation mails a day (beyond them it stands, but is not
/// mailed: the invitee still finds it in the open list and on the live stream).
pub async fn invite(
    pool: &PgPool,
    caller: Uuid,
    game_id: Uuid,
    request: InviteRequest,
    limits: &VolumeLimits,
) -> Result<(Invitation, bool), Error> {
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    if games::seat_of(&mut *tx, game_id, caller).await?.is_none() {
        return Err(Error::OnlyPlayersInvite);
    }
    if head.status() != Status::Open {
        return Err(wrong_status(&head, "invite"));
    }
    let name = crate::text::line("username", &request.username, 1..=254)?;
    let user = users::find_by_username(&mut *tx, name).await?;
    let (user_id, username) = user.ok_or_else(|| Error::UserNotFound(request.username.clone()))?;
    if blocks::between(&mut tx, caller, user_id).await? {
        return Err(Error::CannotInvite);
    }
    let inserted = invitations::invite(&mut tx, game_id, user_id, caller).await?;
    if inserted {
        let per_inviter = [daily_limit(
            format!("mail:invite:{caller}"),
            limits.invitations_per_user_day,
        )];
        if let Err(wait) = throttle::take(&mut tx, &per_inviter).await? {
            let limit = limits.invitations_per_user_day;
            return Err(Error::TooManyInvitations { limit, wait });
        }
        let per_invitee = [daily_limit(
            format!("mail:invited:{user_id}"),
            limits.invitation_mails_per_invitee_day,
        )];
        let inviter = users::username(&mut *tx, caller).await?;
        if throttle::take(&mut tx, &per_invitee).await?.is_ok() {
            let notice = Notice::invited(user_id, game_id, json!({"inviter": inviter}));
            notices::enqueue(&mut tx, &[notice]).await?;
        }
        crate::live::announce(&mut tx, &Note::invited(game_id, user_id, inviter)).await?;
    }
    tx.commit().await?;
    Ok((
        Invitation {
            game_id,
            user_id,
            username,
        },
        inserted,
    ))
}

/// At most `limit` uses of `subject` a day (a `mail:` subject: housekeeping forgets it after
/// a day).
fn daily_limit(subject: String, limit: u32) -> throttle::Limit {
    throttle::Limit {
        subject,
        limit,
        window: throttle::LONGEST_MAIL_WINDOW,
    }
}

/// Starts a locked open game: seats are renumbered 0.. in seat order, every time bank is
/// filled, and what `step::start` decides is written: the start event and the rules
/// engine's setup, the first state, the clocks, the notices and the note. Without
/// `announce_start` the "game started" notices are left out (the caller sends its own).
pub(super) async fn start_locked(
    conn: &mut PgConnection,
    head: &GameHead,
    time: &Clock,
    announce_start: bool,
) -> Result<(), Error> {
    let kind = parse_kind(&head.kind)?;
    let count = games::seats(&mut *conn, head.id).await?.len();
    let (kind_name, min_seats) = with_rules!(kind, R => (R::KIND, R::MIN_SEATS));
    if count < usize::from(min_seats) {
        return Err(Error::NotEnoughPlayers {
            kind: kind_name,
            min: min_seats,
            joined: count,
        });
    }
    // Renumber the seats 0..count without gaps, keeping their order.
    seats::renumber(&mut *conn, head.id).await?;
    // Clocks: every seat starts with the whole time bank; the first seats to act get theirs.
    if let Some(control) = step::time_control(head)
        && control.bank_seconds > 0
    {
        seats::fill_banks(&mut *conn, head.id, control.bank_seconds).await?;
    }
    let seats = games::seats(&mut *conn, head.id).await?;
    let clocks = seat_clocks(&mut *conn, head.id).await?;
    let start = with_rules!(kind, R => step::start::<R>(head, &seats, &clocks, time.now())?);
    events::append(&mut *conn, head.id, 1, None, &start.events).await?;
    events::save_snapshot(
        &mut *conn,
        head.id,
        start.version,
        head.rules_version,
        &start.state.to_string(),
    )
    .await?;
    games::mark_started(
        &mut *conn,
        head.id,
        start.version,
        count as i16,
        &start.nonces,
        &start.pending,
    )
    .await?;
    append::arm(&mut *conn, head.id, start.plan.clocks()).await?;
    let mut notices = start.notices;
    if !announce_start {
        notices.retain(|notice| notice.kind != notices::NoticeKind::GameStarted);
    }
    notices::enqueue(&mut *conn, &notices).await?;
    crate::live::announce(&mut *conn, &start.note).await?;
    Ok(())
}

/// The seats of a game as the clock sees them (state, bank, vacation, running turn).
pub async fn seat_clocks(
    conn: &mut PgConnection,
    game_id: Uuid,
) -> Result<Vec<SeatClock>, sqlx::Error> {
    seats::clocks(conn, game_id).await
}

/// Which games to list.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ListView {
    /// Games waiting for players that the caller may join (public ones, and private ones
    /// the caller is invited to), newest first.
    #[default]
    Open,
    /// The caller's games (not cancelled ones), newest first; narrow with `status`.
    Mine,
    /// Active games where the caller must act, the most urgent first: the nearest deadline,
    /// then (games without a time limit) the longest-waiting.
    MyTurn,
    /// Finished games (public ones and the caller's), most recently finished first.
    Finished,
}

/// The caller's result in a finished game, as `view=mine` filters by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    /// The caller's seat ranked first (a shared first place counts).
    Won,
    /// Any other rank.
    NotWon,
}

/// Which games of tournaments a list holds (`tournament_games`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentGamesFilter {
    /// Every one the view holds (the default).
    #[default]
    All,
    /// Only those where the caller holds a seat: others' tournament games are left out
    /// (they are listed on their tournament's page).
    Mine,
    /// No game of a tournament.
    None,
}

#[derive(Clone, Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `open` (default), `mine`, `my_turn` or `finished`.
    pub view: Option<ListView>,
    /// Only games of this kind.
    pub kind: Option<String>,
    /// Only games in this status (with any view; e.g. `view=mine&status=active`).
    pub status: Option<String>,
    /// With `view=mine` only: the caller's finished games they `won` (their seat ranked 1,
    /// alone or tied) or did `not_won`. Implies `status=finished` (another status is
    /// refused).
    pub result: Option<GameResult>,
    /// Which games of tournaments to list: `all` (default), `mine` (only those where the
    /// caller holds a seat; the lobby's finished games use it) or `none`.
    pub tournament_games: Option<TournamentGamesFilter>,
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GamePage {
    pub items: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A list's paging cursor: where the last page ended (its last row's time and id). The lobby's
/// lists and the tournament list page with it.
pub fn encode_cursor(at: DateTime<Utc>, id: Uuid) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}|{id}", at.timestamp_micros()))
}

pub fn decode_cursor(cursor: &str) -> Result<(DateTime<Utc>, Uuid), Error> {
    let bad = || Error::InvalidParameter("the cursor is not one this server gave".to_string());
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (micros, id) = text.split_once('|').ok_or_else(bad)?;
    let at = DateTime::from_timestamp_micros(micros.parse().map_err(|_| bad())?).ok_or_else(bad)?;
    Ok((at, id.parse().map_err(|_| bad())?))
}

/// One page of a lobby list.
pub async fn list(pool: &PgPool, caller: Uuid, query: ListQuery) -> Result<GamePage, Error> {
    list_of(pool, caller, query, None).await
}

/// The game as `caller`'s list `view` shows it, if that list holds it (the lobby's live
/// stream asks, so that it tells exactly what the list would).
pub async fn listed(
    pool: &PgPool,
    caller: Uuid,
    view: ListView,
    game_id: Uuid,
) -> Result<Option<GameSummary>, Error> {
    let query = ListQuery {
        view: Some(view),
        kind: None,
        status: None,
        result: None,
        tournament_games: None,
        limit: Some(1),
        cursor: None,
    };
    Ok(list_of(pool, caller, query, Some(game_id))
        .await?
        .items
        .pop())
}

/// A page of a lobby list, or (`only`) whether it holds one game.
async fn list_of(
    pool: &PgPool,
    caller: Uuid,
    query: ListQuery,
    only: Option<Uuid>,
) -> Result<GamePage, Error> {
    let view = query.view.unwrap_or_default();
    let limit = i64::from(query.limit.unwrap_or(20));
    if !(1..=100).contains(&limit) {
        return Err(Error::InvalidParameter(
            "limit is between 1 and 100".to_string(),
        ));
    }
    if let Some(kind) = &query.kind {
        parse_kind(kind)?;
    }
    // A status narrows any view (`view=finished&status=active` is simply empty).
    let status = match &query.status {
        None => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            Error::InvalidParameter("status is open, active, finished or cancelled".to_string())
        })?),
    };
    let won = match query.result {
        None => None,
        Some(_) if view != ListView::Mine => {
            return Err(Error::InvalidParameter(
                "result filters the caller's own games: use it with view=mine".to_string(),
            ));
        }
        Some(_) if status.is_some_and(|s| s != Status::Finished) => {
            return Err(Error::InvalidParameter(
                "result needs finished games: leave status out or send status=finished".to_string(),
            ));
        }
        Some(result) => Some(result == GameResult::Won),
    };
    let status = if won.is_some() {
        Some(Status::Finished)
    } else {
        status
    };
    let cursor = query.cursor.as_deref().map(decode_cursor).transpose()?;
    let rows = games::list(
        pool,
        &ListFilter {
            listing: match view {
                ListView::Open => Listing::Open,
                ListView::Mine => Listing::Mine,
                ListView::MyTurn => Listing::MyTurn,
                ListView::Finished => Listing::Finished,
            },
            caller,
            kind: query.kind.as_deref(),
            status,
            won,
            // One more than a page: whether there is a next page.
            limit: limit + 1,
            after: cursor,
            only,
            tournament_games: match query.tournament_games.unwrap_or_default() {
                TournamentGamesFilter::All => TournamentGames::All,
                TournamentGamesFilter::Mine => TournamentGames::Mine,
                TournamentGamesFilter::None => TournamentGames::None,
            },
        },
    )
    .await?;
    let more = rows.len() as i64 > limit;
    let rows = &rows[..rows.len().min(limit as usize)];
    let ids: Vec<Uuid> = rows.iter().map(|r| r.head.id).collect();
    let seat_rows = seats::seats_of_games(pool, &ids).await?;
    let mut seats_by_game: HashMap<Uuid, Vec<SeatRow>> = HashMap::new();
    for (game, seat) in seat_rows {
        seats_by_game.entry(game).or_default().push(seat);
    }
    let mut items: Vec<GameSummary> = rows
        .iter()
        .map(|r| {
            let seats = seats_by_game
                .get(&r.head.id)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            GameSummary::new(&r.head, seats, caller)
        })
        .collect();
    // The unread chat of the whole page in one statement.
    let heads: Vec<(&GameHead, Option<i16>)> = rows
        .iter()
        .zip(&items)
        .map(|(r, item)| (&r.head, item.your_seat))
        .collect();
    let unread = crate::service::play::channels::unread_of_games(pool, caller, &heads).await?;
    for item in &mut items {
        item.chat_unread = unread.get(&item.id).copied().unwrap_or(0);
    }
    attach_tournaments(pool, &mut items).await?;
    let next_cursor = more
        .then(|| rows.last().map(|r| encode_cursor(r.sort_at, r.head.id)))
        .flatten();
    Ok(GamePage { items, next_cursor })
}
