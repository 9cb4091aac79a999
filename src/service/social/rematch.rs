//! Rematch: after a game ends, any player may offer to play again; the others accept or
//! decline before a deadline (`KONTOR_REMATCH_DEADLINE_HOURS`). When every seat that must
//! answer has accepted, a new game with the same kind, options, visibility and time control
//! starts with the seats rotated (seat i of the old game is seat i+1 mod n of the new one).
//!
//! Offers and answers are platform records beside the finished game (`store::rematch`), not
//! events of its log, which stays closed. Decisions where the issue is silent:
//! - Who takes part: the seats their players played at the end. A seat the bot played at the
//!   end (abandoned or forfeited) stays a bot: it need not answer, and in the rematch the bot
//!   plays it from the start (its player may take it back as after any abandonment).
//! - One "no" ends the offer; answers are final. A new offer may follow once one has ended
//!   (declined, expired, cancelled); a game has at most one rematch.
//! - A block between any two players of the table, or a deleted account among them, means no
//!   rematch: the offer is refused (`rematch_not_possible`, without saying who blocked whom),
//!   and an offer that meets either before its last answer ends as `cancelled`.
//! - Offers past their deadline count as expired at once; the deadline worker records them.

use crate::games::GameKind;
use crate::live::Note;
use crate::service::notices::{self, Notice};
use crate::service::play::error::Error;
use crate::service::play::lobby;
use crate::store::games::{self, GameHead, SeatRow, Status};
use crate::store::rematch::{self as store, AnswerRow, OfferRow, OfferStatus};
use crate::time::Clock;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use utoipa::ToSchema;
use uuid::Uuid;

/// One seat's answer to an offer.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RematchAnswer {
    pub seat: i16,
    pub user_id: Uuid,
    pub accept: bool,
    pub answered_at: DateTime<Utc>,
}

/// A rematch offer and its answers.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": 7, "game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "offered_by": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3e", "offered_by_seat": 1,
    "created_at": "2026-11-29T12:00:00Z", "expires_at": "2026-12-02T12:00:00Z",
    "status": "open",
    "answers": [{"seat": 1, "user_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3e", "accept": true, "answered_at": "2026-11-29T12:00:00Z"}],
    "waiting_for": [0, 2], "new_game_id": null
}))]
pub struct RematchOffer {
    pub id: i64,
    /// The finished game.
    pub game_id: Uuid,
    pub offered_by: Uuid,
    pub offered_by_seat: i16,
    pub created_at: DateTime<Utc>,
    /// Answers are taken until then.
    pub expires_at: DateTime<Utc>,
    pub status: OfferStatus,
    /// The answers given, in seat order (the offering seat's acceptance among them).
    pub answers: Vec<RematchAnswer>,
    /// While open: the seats that have still to answer.
    pub waiting_for: Vec<i16>,
    /// The rematch, once everyone accepted.
    pub new_game_id: Option<Uuid>,
}

/// A game's rematch links and its latest offer.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RematchState {
    pub game_id: Uuid,
    /// The game this one is the rematch of.
    pub rematch_of: Option<Uuid>,
    /// This game's rematch, once started.
    pub rematch: Option<Uuid>,
    /// The latest offer (`null`: none was made).
    pub offer: Option<RematchOffer>,
    /// The seats that take part in a rematch (played by their players at the end); the
    /// others stay bots.
    pub players: Vec<i16>,
}

/// An answer to an offer.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"accept": true}))]
pub struct RematchAnswerRequest {
    /// `true`: play again; `false`: decline (which ends the offer).
    pub accept: bool,
}

/// The seats whose players take part (those played by their players at the end).
fn players(seats: &[SeatRow]) -> Vec<i16> {
    seats
        .iter()
        .filter(|s| !s.state.played_by_bot())
        .map(|s| s.seat)
        .collect()
}

fn lapsed(offer: &OfferRow, now: DateTime<Utc>) -> bool {
    offer.status == "open" && offer.expires_at <= now
}

fn offer_view(
    offer: &OfferRow,
    answers: &[AnswerRow],
    seats: &[SeatRow],
    now: DateTime<Utc>,
) -> RematchOffer {
    let status = if lapsed(offer, now) {
        OfferStatus::Expired
    } else {
        OfferStatus::parse(&offer.status)
    };
    let waiting_for = if status == OfferStatus::Open {
        players(seats)
            .into_iter()
            .filter(|seat| !answers.iter().any(|a| a.seat == *seat))
            .collect()
    } else {
        Vec::new()
    };
    RematchOffer {
        id: offer.id,
        game_id: offer.game_id,
        offered_by: offer.offered_by,
        offered_by_seat: offer.offer_seat,
        created_at: offer.created_at,
        expires_at: offer.expires_at,
        status,
        answers: answers
            .iter()
            .map(|a| RematchAnswer {
                seat: a.seat,
                user_id: a.user_id,
                accept: a.accept,
                answered_at: a.answered_at,
            })
            .collect(),
        waiting_for,
        new_game_id: offer.new_game_id,
    }
}

/// The rematch links and latest offer of a game the caller may read.
pub async fn state(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
) -> Result<RematchState, Error> {
    let mut conn = pool.acquire().await?;
    crate::service::play::table::readable_head(&mut conn, game_id, caller).await?;
    state_on(&mut conn, game_id, time.now()).await
}

async fn state_on(
    conn: &mut PgConnection,
    game_id: Uuid,
    now: DateTime<Utc>,
) -> Result<RematchState, Error> {
    let seats = games::seats(&mut *conn, game_id).await?;
    let offer = match store::latest(&mut *conn, game_id).await? {
        Some(offer) => {
            let answers = store::answers(&mut *conn, offer.id).await?;
            Some(offer_view(&offer, &answers, &seats, now))
        }
        None => None,
    };
    Ok(RematchState {
        game_id,
        rematch_of: store::rematch_of(&mut *conn, game_id).await?,
        rematch: store::rematch(&mut *conn, game_id).await?,
        offer,
        players: players(&seats),
    })
}

/// The finished game, locked, and the caller's seat among its players.
async fn lock_for_player(
    conn: &mut PgConnection,
    caller: Uuid,
    game_id: Uuid,
) -> Result<(GameHead, Vec<SeatRow>, i16), Error> {
    let head = games::lock_head(conn, game_id)
        .await?
        .filter(|head| crate::service::play::log::readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    let seats = games::seats(&mut *conn, game_id).await?;
    let seat = seats
        .iter()
        .find(|s| s.user_id == caller)
        .ok_or(Error::NotAPlayer)?;
    if head.status() != Status::Finished {
        return Err(Error::RematchNotFinished {
            status: head.status(),
        });
    }
    if seat.state.played_by_bot() {
        return Err(Error::RematchBotSeat);
    }
    Ok((head, seats.clone(), seat.seat))
}

/// Why the table cannot meet again, if it cannot.
async fn unable(conn: &mut PgConnection, seats: &[SeatRow]) -> Result<Option<&'static str>, Error> {
    let users: Vec<Uuid> = seats.iter().map(|s| s.user_id).collect();
    if store::any_deleted(conn, &users).await? {
        return Ok(Some("a player of this game has deleted their account"));
    }
    if store::any_block_among(conn, &users).await? {
        return Ok(Some("these players cannot be seated together again"));
    }
    Ok(None)
}

fn note(game_id: Uuid, offer_id: i64, seats: &[SeatRow]) -> Note {
    Note::rematch(game_id, offer_id, seats.iter().map(|s| s.user_id).collect())
}

/// Offers a rematch of a finished game. Returns the state and whether the offer is new (a
/// repeat by the same player while their offer is open returns it unchanged).
pub async fn offer(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
    deadline: Duration,
) -> Result<(RematchState, bool), Error> {
    let now = time.now();
    let mut tx = pool.begin().await?;
    let (head, seats, seat) = lock_for_player(&mut tx, caller, game_id).await?;
    if let Some(latest) = store::latest(&mut *tx, game_id).await? {
        match latest.status.as_str() {
            "accepted" => {
                return Err(Error::RematchExists {
                    game: latest.new_game_id.unwrap_or_default(),
                });
            }
            "open" if lapsed(&latest, now) => {
                store::close(&mut tx, latest.id, "expired", None, now).await?;
                crate::live::announce(&mut tx, &note(game_id, latest.id, &seats)).await?;
            }
            "open" if latest.offered_by == caller => {
                let state = state_on(&mut tx, game_id, now).await?;
                tx.commit().await?;
                return Ok((state, false));
            }
            "open" => return Err(Error::RematchOfferOpen { offer: latest.id }),
            _ => {}
        }
    }
    if let Some(why) = unable(&mut tx, &seats).await? {
        tx.commit().await?;
        return Err(Error::RematchNotPossible(why));
    }
    let expires_at = now
        + chrono::Duration::from_std(deadline).map_err(|e| Error::internal(anyhow::anyhow!(e)))?;
    let offer_id = store::insert(&mut tx, game_id, caller, seat, now, expires_at).await?;
    let others: Vec<&SeatRow> = seats
        .iter()
        .filter(|s| s.seat != seat && !s.state.played_by_bot())
        .collect();
    if others.is_empty() {
        // Nobody else to ask (the others are bots): the rematch starts at once.
        let offer = store::lock(&mut tx, game_id, offer_id)
            .await?
            .ok_or_else(|| Error::internal(anyhow::anyhow!("the new offer vanished")))?;
        start_rematch(&mut tx, time, &head, &seats, &offer).await?;
    } else {
        let offerer = seats[seats.iter().position(|s| s.seat == seat).unwrap_or(0)].clone();
        let by = crate::words::player_name(&offerer.username, offerer.display_name.as_deref());
        let notices: Vec<Notice> = others
            .iter()
            .map(|s| {
                Notice::rematch_offered(
                    s.user_id,
                    game_id,
                    offer_id,
                    json!({"offered_by": by, "expires_at": expires_at}),
                )
            })
            .collect();
        notices::enqueue(&mut tx, &notices).await?;
    }
    crate::live::announce(&mut tx, &note(game_id, offer_id, &seats)).await?;
    let state = state_on(&mut tx, game_id, now).await?;
    tx.commit().await?;
    Ok((state, true))
}

/// Answers an offer. The last acceptance starts the rematch in the same transaction, under
/// the finished game's row lock: two acceptances at once start exactly one game.
pub async fn answer(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
    offer_id: i64,
    accept: bool,
) -> Result<RematchState, Error> {
    let now = time.now();
    let mut tx = pool.begin().await?;
    let (head, seats, seat) = lock_for_player(&mut tx, caller, game_id).await?;
    let offer = store::lock(&mut tx, game_id, offer_id)
        .await?
        .ok_or(Error::RematchOfferNotFound)?;
    let answers = store::answers(&mut *tx, offer_id).await?;
    if let Some(given) = answers.iter().find(|a| a.seat == seat) {
        if given.accept == accept {
            // The same answer again: nothing changes.
            let state = state_on(&mut tx, game_id, now).await?;
            tx.commit().await?;
            return Ok(state);
        }
        return Err(Error::RematchAlreadyAnswered {
            accept: given.accept,
        });
    }
    if lapsed(&offer, now) {
        store::close(&mut tx, offer_id, "expired", None, now).await?;
        crate::live::announce(&mut tx, &note(game_id, offer_id, &seats)).await?;
        tx.commit().await?;
        return Err(Error::RematchOfferExpired {
            at: offer.expires_at,
        });
    }
    if offer.status != "open" {
        return Err(Error::RematchOfferClosed {
            status: OfferStatus::parse(&offer.status),
        });
    }
    store::answer(&mut tx, offer_id, seat, caller, accept, now).await?;
    if !accept {
        store::close(&mut tx, offer_id, "declined", None, now).await?;
    } else {
        let accepted: Vec<i16> = answers
            .iter()
            .filter(|a| a.accept)
            .map(|a| a.seat)
            .chain([seat])
            .collect();
        if players(&seats).iter().all(|s| accepted.contains(s)) {
            if unable(&mut tx, &seats).await?.is_some() {
                store::close(&mut tx, offer_id, "cancelled", None, now).await?;
            } else {
                start_rematch(&mut tx, time, &head, &seats, &offer).await?;
            }
        }
    }
    crate::live::announce(&mut tx, &note(game_id, offer_id, &seats)).await?;
    let state = state_on(&mut tx, game_id, now).await?;
    tx.commit().await?;
    Ok(state)
}

/// Creates and starts the rematch of `head` for `offer` (locked, open) and closes the offer
/// as accepted. Seats rotate by one; seats the bot played stay the bot's.
async fn start_rematch(
    conn: &mut PgConnection,
    time: &Clock,
    head: &GameHead,
    seats: &[SeatRow],
    offer: &OfferRow,
) -> Result<Uuid, Error> {
    let kind = GameKind::parse(&head.kind)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("unregistered kind {}", head.kind)))?;
    // Seat i + 1 (mod the count) takes the player of the earlier game's seat i.
    let count = seats.len();
    let rotated: Vec<(Uuid, bool)> = (0..count)
        .map(|seat| &seats[(seat + count - 1) % count])
        .map(|old| (old.user_id, old.state.played_by_bot()))
        .collect();
    let id = lobby::create_started(
        conn,
        time,
        &lobby::StartedTable {
            kind,
            options: &head.options,
            visibility: &head.visibility,
            created_by: offer.offered_by,
            time_control: head.time_control.clone(),
            seats: &rotated,
            announce_start: true,
        },
    )
    .await?;
    store::close(conn, offer.id, "accepted", Some(id), time.now()).await?;
    Ok(id)
}

/// Records offers whose deadline has passed as expired (at most `limit`), telling the
/// players' streams; returns how many.
pub async fn expire_lapsed(pool: &PgPool, now: DateTime<Utc>, limit: i64) -> Result<usize, Error> {
    let mut tx = pool.begin().await?;
    let lapsed = store::lock_lapsed(&mut tx, now, limit).await?;
    for (offer_id, game_id) in &lapsed {
        store::close(&mut tx, *offer_id, "expired", None, now).await?;
        let seats = games::seats(&mut *tx, *game_id).await?;
        crate::live::announce(&mut tx, &note(*game_id, *offer_id, &seats)).await?;
    }
    tx.commit().await?;
    Ok(lapsed.len())
}
