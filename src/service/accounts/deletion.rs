//! Deleting an account: what happens to the games of a player who leaves for good.
//!
//! The account row stays (seats, commands and the log refer to it by id), under a placeholder
//! username (`deleted-player-17`) and without address, password or anything else personal; its
//! tokens, preferences, vacations, mail, invitations, presence, blocks and private notes on
//! games are deleted. The games stay whole: open games the user created are cancelled and
//! their seats in other open games given up, as `cancel` and `leave` do; in each running game
//! the seat goes to the game's abandonment policy for good, recorded as `kontor.seat_left`,
//! and the other players are told (a `player_left` mail, and the event on the game's stream).

use crate::live::Note;
use crate::service::notices::digest::DigestData;
use crate::service::notices::digest::rename_in_digest;
use crate::service::notices::{self, Notice};
use crate::service::play::clock::{self, AbandonPolicy};
use crate::service::play::error::Error;
use crate::service::play::events::PlatformEvent;
use crate::service::play::lobby::seat_clocks;
use crate::service::play::step;
use crate::store::games::{self, Status};
use crate::store::seats::{self, SeatState};
use crate::store::{append, calendar as calendar_feeds, events, outbox, users};
use crate::time::Clock;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// The prefix of the placeholder names of deleted accounts.
pub const DELETED_PREFIX: &str = "deleted-player-";

/// What a deletion did.
#[derive(Debug, Default)]
pub struct Deletion {
    /// The placeholder the account is now shown as.
    pub placeholder: String,
    /// Running games whose seat went to the abandonment policy.
    pub games_left: Vec<Uuid>,
    /// Open games cancelled (created by the user) or whose seat was given up.
    pub games_cancelled: Vec<Uuid>,
    pub games_unseated: Vec<Uuid>,
}

/// Deletes the account `user` (the caller has checked the password), all in one transaction.
/// `Ok(None)`: there is no such live account (deleted already).
pub async fn delete_account(
    pool: &PgPool,
    time: &Clock,
    user: Uuid,
) -> Result<Option<Deletion>, Error> {
    let mut tx = pool.begin().await?;
    let Some((old_username, display_name)) = users::lock_live(&mut tx, user).await? else {
        return Ok(None);
    };
    let placeholder = placeholder(&mut tx).await?;
    let mut deletion = Deletion {
        placeholder: placeholder.clone(),
        ..Deletion::default()
    };
    for game_id in seats::games_to_settle(&mut tx, user).await? {
        settle_game(&mut tx, time, user, game_id, &placeholder, &mut deletion).await?;
    }
    let erased = users::erase(&mut tx, user, &old_username, &placeholder, time.now()).await?;
    calendar_feeds::revoke(&mut *tx, user).await?;
    crate::store::push::delete_all(&mut *tx, user).await?;
    // Other players' digests queued before now name the player as they were shown then.
    let mut names = Vec::new();
    if let Some(display) = display_name.as_deref() {
        names.push(crate::words::player_name(&old_username, Some(display)));
    }
    names.push(old_username.clone());
    for (id, data) in outbox::unsent_digests_holding(&mut tx, &old_username).await? {
        let Ok(mut digest) = serde_json::from_value::<DigestData>(data) else {
            continue;
        };
        rename_in_digest(&mut digest, &names, &placeholder);
        outbox::set_data(&mut tx, id, &serde_json::to_value(&digest)?).await?;
    }
    tx.commit().await?;
    tracing::info!(
        account = %user, %placeholder, games_left = deletion.games_left.len(),
        refresh_tokens = erased.refresh_tokens, api_tokens = erased.api_tokens,
        mails = erased.mails, "an account was deleted"
    );
    Ok(Some(deletion))
}

/// A placeholder name no account holds: `deleted-player-<n>`, the number from a sequence
/// (skipping any that someone registered as a name before).
async fn placeholder(conn: &mut PgConnection) -> Result<String, Error> {
    loop {
        let n = users::next_deleted_number(conn).await?;
        let name = format!("{DELETED_PREFIX}{n}");
        if !users::username_taken(conn, &name).await? {
            return Ok(name);
        }
    }
}

/// Settles one game of a user who deletes the account.
async fn settle_game(
    conn: &mut PgConnection,
    time: &Clock,
    user: Uuid,
    game_id: Uuid,
    placeholder: &str,
    deletion: &mut Deletion,
) -> Result<(), Error> {
    let Some(head) = games::lock_head(conn, game_id).await? else {
        return Ok(());
    };
    match head.status() {
        Status::Open if head.created_by == user => {
            games::cancel(conn, game_id).await?;
            deletion.games_cancelled.push(game_id);
        }
        Status::Open => {
            seats::leave(conn, game_id, user).await?;
            // As for a leave: the game's watchers get a new snapshot (no event says so).
            crate::live::announce(conn, &Note::seats_changed(game_id)).await?;
            deletion.games_unseated.push(game_id);
        }
        Status::Active => {
            if leave_running_game(conn, time, &head, user, placeholder).await? {
                deletion.games_left.push(game_id);
            }
        }
        Status::Finished | Status::Cancelled => {}
    }
    Ok(())
}

/// `user` leaves the running game `head` (locked) for good, as a deleted account's player
/// does and a withdrawn tournament player does: their seat goes to the game's abandonment
/// policy (the bot plays it, or it is forfeited; without a time control, the bot), written
/// as `kontor.seat_left`; the other players are told, `placeholder` naming who left. Returns
/// whether the seat was left (`false`: no seat of theirs, or forfeited already).
pub async fn leave_running_game(
    conn: &mut PgConnection,
    time: &Clock,
    head: &games::GameHead,
    user: Uuid,
    placeholder: &str,
) -> Result<bool, Error> {
    let game_id = head.id;
    let Some((seat, state)) = seats::seat_and_state_of(conn, game_id, user).await? else {
        return Ok(false);
    };
    // A forfeited seat is the bot's to the end already.
    if state == SeatState::Forfeited {
        return Ok(false);
    }
    // Without a time control there is no policy chosen: the bot plays the seat, as
    // the time control's default would have it.
    let policy = step::time_control(head)
        .map(|c| c.on_abandon)
        .unwrap_or(AbandonPolicy::Bot);
    let (seat_state, policy) = match policy {
        AbandonPolicy::Bot => (SeatState::Abandoned, "bot"),
        AbandonPolicy::Forfeit => (SeatState::Forfeited, "forfeit"),
    };
    seats::set_state(conn, game_id, seat, seat_state).await?;
    // The seat is left for good: its standing orders go with its player (`seat_left`).
    crate::store::orders::delete_seat(conn, game_id, seat).await?;
    let version =
        crate::service::play::undo_lapses::lapse_before_seat_change(&mut *conn, head).await? + 1;
    let event = PlatformEvent::SeatLeft {
        seat: seat as u8,
        policy: policy.to_string(),
    }
    .to_new_event();
    events::append(conn, game_id, version, None, &[event]).await?;
    games::set_version(conn, game_id, version).await?;
    // If the seat must act now, the bot's clock replaces the player's.
    if head.pending_seats.contains(&seat) {
        let control = step::time_control(head);
        let clocks = seat_clocks(conn, game_id).await?;
        let plan = clock::plan(
            control.as_ref(),
            &clocks,
            &[],
            &[seat],
            None,
            None,
            None,
            time.now(),
        );
        append::arm(conn, game_id, plan.clocks()).await?;
    }
    let others: Vec<Uuid> = games::seats(&mut *conn, game_id)
        .await?
        .into_iter()
        .filter(|s| s.user_id != user)
        .map(|s| s.user_id)
        .collect();
    let notices: Vec<Notice> = others
        .iter()
        .map(|&other| {
            Notice::player_left(
                other,
                game_id,
                seat,
                json!({"seat": seat, "player": placeholder, "policy": policy}),
            )
        })
        .collect();
    notices::enqueue(conn, &notices).await?;
    crate::live::announce(conn, &Note::left(game_id, version, seat, others)).await?;
    Ok(true)
}
