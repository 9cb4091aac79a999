//! Correspondence tournaments: an organiser opens one, players enter during the entry window,
//! and the server runs it: it seats each round's tables and creates their games itself, ends a
//! round when every game of it is over (or adjudicates at the round's deadline), seats the
//! next from the standings, and finishes with the final standings.
//!
//! The pure core decides everything from recorded facts: [`standings`] (points, tie-breaks),
//! [`pairing`] (table sizes, Swiss, round-robin groups) and [`derive`] (the whole tournament
//! from its settings, seed, entrants, withdrawals and results). This module reads and writes
//! the facts (`store::tournaments`) and creates the games.

mod announce;
pub mod derive;
pub mod pairing;
pub mod standings;

use crate::config::Organisers;
use crate::games::GameKind;
use crate::service::play::clock::TimeControlRequest;
use crate::service::play::error::Error;
use crate::service::play::lobby;
use crate::store::blocks;
use crate::store::games;
use crate::store::tournaments::{self as store, PlayerRow, TableRow, TournamentRow};
use crate::store::users;
use crate::time::Clock;
use crate::with_rules;
use chrono::{DateTime, Utc};
use derive::{Facts, Format, Settings};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::Digest;
use sqlx::{PgConnection, PgPool};
use standings::TableResult;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// Longest tournament name, in characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Round length when the request gives none: 14 days.
pub const DEFAULT_ROUND_HOURS: u32 = 14 * 24;
/// A page of the tournament list when the request names no `limit`.
pub const DEFAULT_PAGE: u32 = 20;
/// The largest page of the tournament list (as every list of the API).
pub const MAX_PAGE: i64 = 100;

/// A new tournament.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "Winter cup", "kind": "steel-driver", "format": "swiss", "seats_per_table": 3,
    "rounds": 3, "rated": false, "time_control": {"days_per_move": 2},
    "entry_closes_at": "2026-12-20T12:00:00Z", "max_players": 30
}))]
pub struct CreateTournamentRequest {
    /// 1–80 characters.
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// A registered game kind.
    pub kind: String,
    /// `swiss` or `round_robin`.
    #[schema(pattern = "^(swiss|round_robin)$")]
    pub format: String,
    /// Seats per table, 3–6 (and within the kind's seats).
    #[schema(minimum = 3, maximum = 6)]
    pub seats_per_table: u8,
    /// Number of rounds, 1–20.
    #[schema(minimum = 1, maximum = 20)]
    pub rounds: u16,
    /// Whether the games are rated (the `rated` table setting).
    #[serde(default)]
    pub rated: bool,
    /// The games' time control; absent = none.
    pub time_control: Option<TimeControlRequest>,
    /// Hours a round may last before its unfinished games are adjudicated (1–8760, default 336).
    #[schema(minimum = 1, maximum = 8760)]
    pub round_hours: Option<u32>,
    /// When entry closes and the tournament starts (in the future).
    pub entry_closes_at: DateTime<Utc>,
    /// The most entrants, 3–1000 (at least one table).
    #[schema(minimum = 3, maximum = 1000)]
    pub max_players: u32,
    /// The games' options (as for a game; `rated` comes from the field above).
    #[serde(default = "no_options")]
    #[schema(value_type = Object)]
    pub options: Value,
}

fn no_options() -> Value {
    json!({})
}

/// A tournament in a list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    pub id: Uuid,
    pub name: String,
    pub kind: String,
    /// `swiss` or `round_robin`.
    pub format: String,
    pub seats_per_table: i16,
    pub rounds: i16,
    pub rated: bool,
    /// `entry`, `running`, `finished` or `cancelled`.
    pub status: String,
    pub entry_closes_at: DateTime<Utc>,
    pub max_players: i32,
    /// How many have entered.
    pub player_count: i64,
    /// The organiser's username.
    pub organiser: String,
}

/// An entrant.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentPlayer {
    pub username: String,
    pub withdrawn: bool,
}

/// A line of the standings.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StandingLine {
    /// 1-based; every line has its own (the tie-breaks end with the seeded order).
    pub position: usize,
    pub username: String,
    pub points: u32,
    /// First tie-break: the points of everyone the player sat with.
    pub opponents_points: u32,
    /// Second tie-break: first places.
    pub wins: u32,
    pub withdrawn: bool,
}

/// A seat of a tournament table.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TableSeat {
    pub username: String,
    /// The final rank, once the game ended (and counted).
    pub rank: Option<i16>,
    /// The points scored, once the round ended.
    pub points: Option<u32>,
}

/// A table of a round: its game and seats (in seat order).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentTable {
    pub game_id: Uuid,
    /// The game's status now (`active`, `finished`).
    pub game_status: String,
    /// The game was still running at the round's deadline: it goes on but does not count.
    pub adjudicated: bool,
    pub seats: Vec<TableSeat>,
}

/// A round.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentRound {
    pub number: i16,
    /// `running` or `finished`.
    pub status: String,
    pub started_at: DateTime<Utc>,
    /// When unfinished games are adjudicated.
    pub deadline: DateTime<Utc>,
    pub tables: Vec<TournamentTable>,
}

/// A tournament with its entrants, standings and rounds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Tournament {
    pub id: Uuid,
    pub name: String,
    pub kind: String,
    pub format: String,
    pub seats_per_table: i16,
    pub rounds: i16,
    pub rated: bool,
    /// The games' time control, if any.
    #[schema(value_type = Option<Object>)]
    pub time_control: Option<Value>,
    /// The games' options.
    #[schema(value_type = Object)]
    pub options: Value,
    pub round_hours: i32,
    /// `entry`, `running`, `finished` or `cancelled`.
    pub status: String,
    pub entry_closes_at: DateTime<Utc>,
    pub max_players: i32,
    pub organiser: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// The recorded seed (hex), once entry has closed (`null` before): the seeded order that
    /// ends every tie-break, and round 1's, derives from it. While entry is open only its
    /// commitment is shown, so that nobody can foresee the seating and enter (or not) for it.
    pub seed: Option<String>,
    /// SHA-256 of the seed (hex), shown from the start: once the seed is revealed, anyone can
    /// check that it is the one the tournament was created with.
    pub seed_commitment: String,
    /// Entrants in join order.
    pub players: Vec<TournamentPlayer>,
    /// The round being played (0 before the start).
    pub current_round: i16,
    /// After the ended rounds.
    pub standings: Vec<StandingLine>,
    pub rounds_played: Vec<TournamentRound>,
}

fn summary(row: &TournamentRow) -> TournamentSummary {
    TournamentSummary {
        id: row.id,
        name: row.name.clone(),
        kind: row.kind.clone(),
        format: row.format.clone(),
        seats_per_table: row.seats_per_table,
        rounds: row.rounds,
        rated: row.rated,
        status: row.status.clone(),
        entry_closes_at: row.entry_closes_at,
        max_players: row.max_players,
        player_count: row.player_count,
        organiser: row.organiser_name.clone(),
    }
}

fn kind_of(row: &TournamentRow) -> Result<GameKind, Error> {
    GameKind::parse(&row.kind)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("unregistered kind {}", row.kind)))
}

fn settings_of(row: &TournamentRow) -> Result<Settings, Error> {
    let kind = kind_of(row)?;
    let (min, max) = with_rules!(kind, R => (R::MIN_SEATS, R::MAX_SEATS));
    Ok(Settings {
        format: Format::parse(&row.format).unwrap_or(Format::Swiss),
        seats_per_table: row.seats_per_table as usize,
        rounds: row.rounds as u16,
        min_seats: usize::from(min),
        max_seats: usize::from(max),
    })
}

/// The facts of a tournament as stored: its rounds' results so far (ranks of ended rounds;
/// an unended round's tables without ranks).
/// The facts of the stored rows; `apart` as the rounds recorded it (empty where only the
/// standings are wanted: they do not depend on it).
fn facts_of(
    row: &TournamentRow,
    players: &[PlayerRow],
    tables: &[TableRow],
    apart: Vec<Vec<(Uuid, Uuid)>>,
) -> Facts {
    let mut rounds: Vec<Vec<TableResult>> = Vec::new();
    for table in tables {
        let index = (table.round - 1) as usize;
        while rounds.len() <= index {
            rounds.push(Vec::new());
        }
        rounds[index].push(TableResult {
            seats: table.seats.clone(),
            ranks: table
                .ranks
                .as_ref()
                .map(|r| r.iter().map(|x| *x as u16).collect()),
        });
    }
    Facts {
        seed: row.seed.clone(),
        players: players.iter().map(|p| p.user_id).collect(),
        withdrawn: players
            .iter()
            .filter_map(|p| p.withdrawn_round.map(|r| (p.user_id, r as u16)))
            .collect(),
        rounds,
        apart,
    }
}

/// The stored options of a table of `seats` (see [`lobby::table_options`]).
fn game_options(kind: GameKind, raw: &Value, seats: u8) -> Result<Value, Error> {
    Ok(lobby::table_options(kind, raw, seats)?.0)
}

/// The options as given plus `rated` (a platform setting the game's creation judges).
fn options_with_rated(options: &Value, rated: bool) -> Result<Value, Error> {
    let mut options = options.clone();
    let Some(fields) = options.as_object_mut() else {
        return Err(Error::InvalidOptions {
            field: "options".to_string(),
            detail: "options is a JSON object".to_string(),
        });
    };
    if fields.contains_key("rated") {
        return Err(Error::InvalidOptions {
            field: "rated".to_string(),
            detail: "give rated as the tournament's own field, not among the options".to_string(),
        });
    }
    if rated {
        fields.insert("rated".to_string(), Value::Bool(true));
    }
    Ok(options)
}

/// The `Retry-After` of a refused creation (too many tournaments): none frees a place by
/// itself soon, and the answer says what does.
pub const TOURNAMENTS_RETRY_AFTER_SECS: u64 = 3600;

/// Opens a tournament organised by `caller`, unless `caller` organises `max_open` that are
/// open for entry or running already (`KONTOR_TOURNAMENTS_PER_ORGANISER`).
#[allow(clippy::too_many_arguments)]
pub async fn create(
    pool: &PgPool,
    time: &Clock,
    organisers: Organisers,
    min_seconds_per_move: i64,
    max_open: u32,
    caller: Uuid,
    request: CreateTournamentRequest,
) -> Result<Tournament, Error> {
    let allowed = match organisers {
        Organisers::Verified => users::is_verified(pool, caller).await?,
        Organisers::Admins => users::is_admin(pool, caller).await?,
    };
    if !allowed {
        return Err(Error::OrganiserNotAllowed(match organisers {
            Organisers::Verified => {
                "only players with a verified email address may organise tournaments; verify yours first"
            }
            Organisers::Admins => "on this server only administrators may organise tournaments",
        }));
    }
    let now = time.now();
    // One line of visible text, by the policy every name follows (no bidirectional controls
    // or invisible characters, not blank).
    let name = crate::text::line("name", &request.name, 1..=MAX_NAME_CHARS)
        .map_err(|refused| Error::invalid_field("name", refused.detail))?;
    let kind = GameKind::parse(&request.kind).ok_or_else(|| Error::UnknownGameKind {
        kind: request.kind.clone(),
    })?;
    let format = Format::parse(&request.format).ok_or_else(|| {
        Error::invalid_field(
            "format",
            format!("format is swiss or round_robin, not {:?}", request.format),
        )
    })?;
    let (min, max) = with_rules!(kind, R => (R::MIN_SEATS, R::MAX_SEATS));
    let seats = request.seats_per_table;
    if !(3..=6).contains(&seats) || !(min..=max).contains(&seats) {
        return Err(Error::invalid_field(
            "seats_per_table",
            format!(
                "seats_per_table is 3 to 6, and {} is played by {min} to {max}",
                kind.as_str()
            ),
        ));
    }
    if !(1..=20).contains(&request.rounds) {
        return Err(Error::invalid_field("rounds", "rounds is 1 to 20"));
    }
    if !(u32::from(min).max(3)..=1000).contains(&request.max_players) {
        return Err(Error::invalid_field(
            "max_players",
            format!("max_players is {} to 1000 (at least one table)", min.max(3)),
        ));
    }
    let round_hours = request.round_hours.unwrap_or(DEFAULT_ROUND_HOURS);
    if !(1..=8760).contains(&round_hours) {
        return Err(Error::invalid_field(
            "round_hours",
            "round_hours is 1 to 8760",
        ));
    }
    if request.entry_closes_at <= now || request.entry_closes_at > now + chrono::Duration::days(365)
    {
        return Err(Error::invalid_field(
            "entry_closes_at",
            "entry_closes_at is in the future, within a year",
        ));
    }
    let options = options_with_rated(&request.options, request.rated)?;
    // Tables may be one seat smaller or larger than asked when the count does not divide.
    for size in seats.saturating_sub(1).max(min)..=(seats + 1).min(max) {
        game_options(kind, &options, size)?;
    }
    let time_control = request
        .time_control
        .map(|tc| tc.validate(min_seconds_per_move))
        .transpose()?
        .as_ref()
        .map(serde_json::to_value)
        .transpose()?;
    let id = Uuid::now_v7();
    let seed: [u8; 32] = rand::rng().random();
    let mut tx = pool.begin().await?;
    let open = store::lock_and_count_open(&mut tx, caller).await?;
    if open >= i64::from(max_open) {
        return Err(Error::TooManyTournaments { open });
    }
    store::insert(
        &mut tx,
        &store::NewTournament {
            id,
            name,
            kind: kind.as_str(),
            format: format.as_str(),
            seats_per_table: i16::from(seats),
            rounds: request.rounds as i16,
            rated: request.rated,
            options: &options,
            time_control,
            round_hours: round_hours as i32,
            entry_closes_at: request.entry_closes_at,
            max_players: request.max_players as i32,
            organiser: caller,
            seed: seed.as_slice(),
            created_at: now,
        },
    )
    .await?;
    tx.commit().await?;
    get(pool, id).await
}

/// One page of tournaments by status, newest first: `limit` (1–100, default 20) of them
/// after the page that `cursor` ended, and the cursor of the next page if there is one.
pub async fn list(
    pool: &PgPool,
    status: Option<&str>,
    limit: Option<u32>,
    cursor: Option<&str>,
) -> Result<(Vec<TournamentSummary>, Option<String>), Error> {
    if let Some(status) = status
        && !["entry", "running", "finished", "cancelled"].contains(&status)
    {
        return Err(Error::InvalidParameter(format!(
            "status is entry, running, finished or cancelled, not {status:?}"
        )));
    }
    let limit = i64::from(limit.unwrap_or(DEFAULT_PAGE));
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::InvalidParameter(format!(
            "limit is between 1 and {MAX_PAGE}"
        )));
    }
    let before = cursor.map(lobby::decode_cursor).transpose()?;
    // One more than a page: whether there is a next page.
    let mut rows = store::list(pool, status, before, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = more
        .then(|| {
            rows.last()
                .map(|r| lobby::encode_cursor(r.created_at, r.id))
        })
        .flatten();
    Ok((rows.iter().map(summary).collect(), next_cursor))
}

/// One tournament with its standings and rounds.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Tournament, Error> {
    let mut conn = pool.acquire().await?;
    view(&mut conn, id).await
}

async fn view(conn: &mut PgConnection, id: Uuid) -> Result<Tournament, Error> {
    let row = store::get(&mut *conn, id)
        .await?
        .ok_or(Error::TournamentNotFound)?;
    let players = store::players(&mut *conn, id).await?;
    let tables = store::tables(&mut *conn, id).await?;
    let rounds = store::rounds(&mut *conn, id).await?;
    let names: HashMap<Uuid, String> = players
        .iter()
        .map(|p| (p.user_id, p.username.clone()))
        .collect();
    let name = |user: &Uuid| names.get(user).cloned().unwrap_or_default();
    let facts = facts_of(&row, &players, &tables, Vec::new());
    let ended = rounds.iter().filter(|r| r.status == "finished").count();
    let standings = standings::standings(
        &facts.seed,
        &facts.players,
        &facts.withdrawn,
        &facts.rounds[..ended.min(facts.rounds.len())],
    );
    let rounds_played = rounds
        .iter()
        .map(|round| {
            let ended = round.status == "finished";
            let tables = tables
                .iter()
                .filter(|t| t.round == round.number)
                .map(|t| {
                    let result = TableResult {
                        seats: t.seats.clone(),
                        ranks: t
                            .ranks
                            .as_ref()
                            .map(|r| r.iter().map(|x| *x as u16).collect()),
                    };
                    let points =
                        standings::table_points(&result, round.number as u16, &facts.withdrawn);
                    TournamentTable {
                        game_id: t.game_id,
                        game_status: t.game_status.clone(),
                        adjudicated: t.adjudicated,
                        seats: t
                            .seats
                            .iter()
                            .enumerate()
                            .map(|(seat, user)| TableSeat {
                                username: name(user),
                                rank: t.ranks.as_ref().map(|r| r[seat]),
                                points: ended.then(|| points[seat]),
                            })
                            .collect(),
                    }
                })
                .collect();
            TournamentRound {
                number: round.number,
                status: round.status.clone(),
                started_at: round.started_at,
                deadline: round.deadline,
                tables,
            }
        })
        .collect();
    Ok(Tournament {
        id: row.id,
        name: row.name.clone(),
        kind: row.kind.clone(),
        format: row.format.clone(),
        seats_per_table: row.seats_per_table,
        rounds: row.rounds,
        rated: row.rated,
        time_control: row.time_control.clone(),
        options: row.options.clone(),
        round_hours: row.round_hours,
        status: row.status.clone(),
        entry_closes_at: row.entry_closes_at,
        max_players: row.max_players,
        organiser: row.organiser_name.clone(),
        created_at: row.created_at,
        started_at: row.started_at,
        ended_at: row.ended_at,
        seed: (row.status != "entry").then(|| hex::encode(&row.seed)),
        seed_commitment: hex::encode(sha2::Sha256::digest(&row.seed)),
        players: players
            .iter()
            .map(|p| TournamentPlayer {
                username: p.username.clone(),
                withdrawn: p.withdrawn_round.is_some(),
            })
            .collect(),
        current_round: rounds
            .iter()
            .rev()
            .find(|r| r.status == "running")
            .map_or(0, |r| r.number),
        standings: standings
            .iter()
            .enumerate()
            .map(|(index, s)| StandingLine {
                position: index + 1,
                username: name(&s.user),
                points: s.points,
                opponents_points: s.opponents_points,
                wins: s.wins,
                withdrawn: s.withdrawn,
            })
            .collect(),
        rounds_played,
    })
}

async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<TournamentRow, Error> {
    store::lock(conn, id)
        .await?
        .ok_or(Error::TournamentNotFound)
}

fn require_status(row: &TournamentRow, status: &str, action: &'static str) -> Result<(), Error> {
    if row.status == status {
        Ok(())
    } else {
        Err(Error::TournamentWrongStatus {
            action,
            status: row.status.clone(),
        })
    }
}

/// Enters `caller` during the entry window. Entering again changes nothing.
pub async fn join(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    id: Uuid,
    may_play_rated: bool,
) -> Result<Tournament, Error> {
    let mut tx = pool.begin().await?;
    let row = lock(&mut tx, id).await?;
    require_status(&row, "entry", "join")?;
    if row.rated && !may_play_rated {
        return Err(Error::RatedNeedsVerified);
    }
    let players = store::players(&mut *tx, id).await?;
    if !players.iter().any(|p| p.user_id == caller) {
        if players.len() >= row.max_players as usize {
            return Err(Error::TournamentFull {
                max: row.max_players,
            });
        }
        store::join(&mut tx, id, caller, time.now()).await?;
        announce::entrants_changed(&mut tx, id, row.organiser, caller).await?;
    }
    let view = view(&mut tx, id).await?;
    tx.commit().await?;
    Ok(view)
}

/// Takes `caller`'s entry back before the start.
pub async fn leave(pool: &PgPool, caller: Uuid, id: Uuid) -> Result<Tournament, Error> {
    let mut tx = pool.begin().await?;
    let row = lock(&mut tx, id).await?;
    require_status(&row, "entry", "leave")?;
    if !store::leave(&mut tx, id, caller).await? {
        return Err(Error::TournamentNotEntered);
    }
    announce::entrants_changed(&mut tx, id, row.organiser, caller).await?;
    let view = view(&mut tx, id).await?;
    tx.commit().await?;
    Ok(view)
}

/// The organiser starts the tournament before entry closes (enough players for a table).
pub async fn start(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    id: Uuid,
) -> Result<Tournament, Error> {
    let mut tx = pool.begin().await?;
    let row = lock(&mut tx, id).await?;
    if row.organiser != caller {
        return Err(Error::NotTheOrganiser);
    }
    require_status(&row, "entry", "start")?;
    let settings = settings_of(&row)?;
    let players = store::players(&mut *tx, id).await?;
    if players.len() < settings.min_seats {
        return Err(Error::TournamentTooFewPlayers {
            min: settings.min_seats,
            joined: players.len(),
        });
    }
    begin(&mut tx, time, &row).await?;
    let view = view(&mut tx, id).await?;
    tx.commit().await?;
    Ok(view)
}

/// Withdraws `caller` from a running tournament: they score nothing from the running round
/// on and are never seated again; their seats in the tournament's running games go to each
/// game's abandonment policy, as a deleted account's do (`kontor.seat_left`).
pub async fn withdraw(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    id: Uuid,
) -> Result<Tournament, Error> {
    let mut tx = pool.begin().await?;
    let row = lock(&mut tx, id).await?;
    require_status(&row, "running", "withdraw")?;
    let players = store::players(&mut *tx, id).await?;
    let Some(me) = players.iter().find(|p| p.user_id == caller) else {
        return Err(Error::TournamentNotEntered);
    };
    if me.withdrawn_round.is_some() {
        return Err(Error::TournamentAlreadyWithdrawn);
    }
    let rounds = store::rounds(&mut *tx, id).await?;
    let current = rounds.last().map_or(1, |r| r.number);
    store::withdraw(&mut tx, id, caller, current, time.now()).await?;
    let name = users::username(&mut *tx, caller).await?;
    for table in store::tables(&mut *tx, id).await? {
        if table.game_status != "active" || !table.seats.contains(&caller) {
            continue;
        }
        if let Some(head) = games::lock_head(&mut tx, table.game_id).await? {
            crate::service::accounts::deletion::leave_running_game(
                &mut tx, time, &head, caller, &name,
            )
            .await?;
        }
    }
    let view = view(&mut tx, id).await?;
    tx.commit().await?;
    Ok(view)
}

/// Starts a locked tournament in entry: round 1 is seated, or the tournament is cancelled
/// when too few entered to fill a table.
async fn begin(conn: &mut PgConnection, time: &Clock, row: &TournamentRow) -> Result<(), Error> {
    let now = time.now();
    store::set_status(conn, row.id, "running", now).await?;
    if seat_next_round(conn, time, row, 1).await? {
        announce::round_seated(conn, row.id, 1).await?;
    } else {
        store::set_status(conn, row.id, "cancelled", now).await?;
        announce::cancelled(conn, row.id, row.organiser).await?;
    }
    Ok(())
}

/// Seats round `round` from the facts so far and creates its games; `false` when nobody could
/// be seated.
async fn seat_next_round(
    conn: &mut PgConnection,
    time: &Clock,
    row: &TournamentRow,
    round: u16,
) -> Result<bool, Error> {
    let settings = settings_of(row)?;
    let players = store::players(&mut *conn, row.id).await?;
    let tables = store::tables(&mut *conn, row.id).await?;
    // The earlier rounds' pairs kept apart as recorded, and this round's from the blocks now
    // among the entrants (recorded with the round, so re-deriving it needs no later state).
    let mut apart: Vec<Vec<(Uuid, Uuid)>> = store::apart(&mut *conn, row.id)
        .await?
        .iter()
        .map(|flat| flat.chunks_exact(2).map(|p| (p[0], p[1])).collect())
        .collect();
    let entrants: Vec<Uuid> = players.iter().map(|p| p.user_id).collect();
    let now_apart = blocks::among(conn, &entrants).await?;
    apart.truncate(usize::from(round - 1));
    apart.push(now_apart.clone());
    let facts = facts_of(row, &players, &tables, apart);
    let seating = derive::seat_round(&settings, &facts, round);
    if seating.is_empty() {
        return Ok(false);
    }
    let now = time.now();
    let deadline = now + chrono::Duration::hours(i64::from(row.round_hours));
    let flat: Vec<Uuid> = now_apart.iter().flat_map(|&(a, b)| [a, b]).collect();
    store::insert_round(conn, row.id, round as i16, now, deadline, &flat).await?;
    for (index, table) in seating.iter().enumerate() {
        let game_id = create_game(conn, time, row, table).await?;
        store::insert_table(conn, row.id, round as i16, index as i16, game_id, table).await?;
    }
    Ok(true)
}

/// Creates and starts a table's game: the tournament's kind, options and time control,
/// public, created by the organiser, `players` in seat order.
async fn create_game(
    conn: &mut PgConnection,
    time: &Clock,
    row: &TournamentRow,
    players: &[Uuid],
) -> Result<Uuid, Error> {
    let kind = kind_of(row)?;
    let options = game_options(kind, &row.options, players.len() as u8)?;
    let seats: Vec<(Uuid, bool)> = players.iter().map(|&user| (user, false)).collect();
    lobby::create_started(
        conn,
        time,
        &lobby::StartedTable {
            kind,
            options: &options,
            visibility: "public",
            created_by: row.organiser,
            time_control: row.time_control.clone(),
            seats: &seats,
            announce_start: false,
        },
    )
    .await
}

/// The ranks of a finished game's outcome, in seat order.
fn outcome_ranks(outcome: &Value) -> Option<Vec<i16>> {
    outcome["ranks"]
        .as_array()?
        .iter()
        .map(|r| r.as_i64().map(|r| r as i16))
        .collect()
}

/// Moves one tournament on if it is due: starts it at the end of entry, ends its round when
/// every game is over or the deadline passed, seats the next round or finishes it. Returns
/// whether anything changed. Runs under the tournament's row lock, so two workers (two
/// instances) never both act on it: the second sees the first's result.
pub async fn advance(pool: &PgPool, time: &Clock, id: Uuid) -> Result<bool, Error> {
    let mut tx = pool.begin().await?;
    let row = lock(&mut tx, id).await?;
    let now = time.now();
    let changed = match row.status.as_str() {
        "entry" if row.entry_closes_at <= now => {
            begin(&mut tx, time, &row).await?;
            true
        }
        "running" => advance_round(&mut tx, time, &row).await?,
        _ => false,
    };
    tx.commit().await?;
    Ok(changed)
}

async fn advance_round(
    conn: &mut PgConnection,
    time: &Clock,
    row: &TournamentRow,
) -> Result<bool, Error> {
    let now = time.now();
    let rounds = store::rounds(&mut *conn, row.id).await?;
    let Some(current) = rounds.last() else {
        return Ok(false);
    };
    if current.status != "running" {
        return Ok(false);
    }
    let tables: Vec<TableRow> = store::tables(&mut *conn, row.id)
        .await?
        .into_iter()
        .filter(|t| t.round == current.number)
        .collect();
    let all_over = tables.iter().all(|t| t.game_status == "finished");
    if !all_over && current.deadline > now {
        return Ok(false);
    }
    for table in &tables {
        let ranks = match (&table.outcome, table.game_status.as_str()) {
            (Some(outcome), "finished") => outcome_ranks(outcome),
            _ => None,
        };
        store::record_result(
            conn,
            row.id,
            current.number,
            table.table_no,
            ranks.as_deref(),
        )
        .await?;
    }
    store::end_round(conn, row.id, current.number, now).await?;
    let next = current.number as u16 + 1;
    if next <= row.rounds as u16 && seat_next_round(conn, time, row, next).await? {
        announce::round_seated(conn, row.id, next as i16).await?;
    } else {
        store::set_status(conn, row.id, "finished", now).await?;
        announce::finished(conn, row.id).await?;
    }
    Ok(true)
}

/// One pass of the tournament worker: every due tournament moved on (at most `limit`).
/// Returns how many changed.
pub async fn process_due(pool: &PgPool, time: &Clock, limit: i64) -> Result<usize, Error> {
    let mut changed = 0;
    for id in store::due(pool, time.now(), limit).await? {
        if advance(pool, time, id).await? {
            changed += 1;
        }
    }
    Ok(changed)
}

/// How many due tournaments one pass of the worker moves on at most.
const PASS_LIMIT: i64 = 100;

/// The worker: a pass now and then every `every`, until `stop`.
pub async fn run(
    pool: PgPool,
    database: std::sync::Arc<crate::store::monitor::DatabaseStatus>,
    clock: Clock,
    every: std::time::Duration,
    stop: tokio_util::sync::CancellationToken,
) {
    loop {
        if pool.is_closed() || stop.is_cancelled() {
            return;
        }
        match process_due(&pool, &clock, PASS_LIMIT).await {
            Ok(0) => {}
            Ok(changed) => tracing::info!(changed, "tournaments moved on"),
            Err(error) if pool.is_closed() => {
                tracing::debug!(%error, "the tournament worker stops with its pool");
                return;
            }
            Err(error) => crate::store::health::log_worker_failure(
                "tournaments",
                &anyhow::Error::from(error),
                &pool,
                &database,
            ),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.cancelled() => return,
        }
    }
}
