//! Telling the players: "the tournament has started" (with their first game), "your next
//! round is seated" (with their game and their place so far), "the final standings" and "the
//! tournament is cancelled" (its organiser too), by mail (their preferences decide) and on their own live stream. Written in the transaction
//! that seats the round or ends the tournament, so a rolled-back change tells nobody.

use super::{Tournament, view};
use crate::live::{Note, TournamentNote};
use crate::service::notices::{self, Notice};
use crate::service::play::error::Error;
use crate::store::tournaments::{self as store, PlayerRow};
use serde_json::{Value, json};
use sqlx::PgConnection;
use std::collections::HashMap;
use uuid::Uuid;

/// How many players one live note names at most: a note travels by `NOTIFY`, whose payload
/// is limited to 8,000 bytes.
const USERS_PER_NOTE: usize = 100;

/// Round `round` was seated (round 1: the tournament started): every seated player is told
/// their game.
pub(super) async fn round_seated(
    conn: &mut PgConnection,
    id: Uuid,
    round: i16,
) -> Result<(), Error> {
    let tournament = view(conn, id).await?;
    let players = store::players(&mut *conn, id).await?;
    let tables = store::tables(&mut *conn, id).await?;
    let places = places(&tournament, &players);
    let mut notices = Vec::new();
    for table in tables.iter().filter(|t| t.round == round) {
        for user in &table.seats {
            let mut data = common(&tournament);
            data["round"] = round.into();
            if let Some(deadline) = tournament
                .rounds_played
                .iter()
                .find(|r| r.number == round)
                .map(|r| r.deadline)
            {
                data["round_deadline"] = deadline.to_rfc3339().into();
            }
            let notice = if round == 1 {
                Notice::tournament_started(*user, id, table.game_id, data)
            } else {
                if let Some(&(position, points)) = places.get(user) {
                    data["position"] = position.into();
                    data["points"] = points.into();
                }
                Notice::tournament_round(*user, id, round, table.game_id, data)
            };
            notices.push(notice);
        }
        let event = TournamentNote {
            tournament_id: id,
            event: if round == 1 { "started" } else { "round" }.to_string(),
            round,
            game_id: Some(table.game_id),
        };
        crate::live::announce(conn, &Note::tournament(event, table.seats.clone())).await?;
    }
    notices::enqueue(conn, &notices).await?;
    Ok(())
}

/// The tournament finished: every entrant (withdrawn ones too) is told the final standings
/// and their own place.
pub(super) async fn finished(conn: &mut PgConnection, id: Uuid) -> Result<(), Error> {
    let tournament = view(conn, id).await?;
    let players = store::players(&mut *conn, id).await?;
    let podium: Vec<Value> = tournament
        .standings
        .iter()
        .take(3)
        .map(|line| json!({"name": line.username, "points": line.points}))
        .collect();
    let places = places(&tournament, &players);
    let mut notices = Vec::new();
    for player in &players {
        let mut data = common(&tournament);
        data["game_kind"] = tournament.kind.clone().into();
        data["podium"] = podium.clone().into();
        data["withdrawn"] = player.withdrawn_round.is_some().into();
        if let Some(&(position, points)) = places.get(&player.user_id) {
            data["position"] = position.into();
            data["points"] = points.into();
        }
        notices.push(Notice::tournament_finished(player.user_id, id, data));
    }
    let event = TournamentNote {
        tournament_id: id,
        event: "finished".to_string(),
        round: tournament.rounds_played.last().map_or(0, |r| r.number),
        game_id: None,
    };
    let users: Vec<Uuid> = players.iter().map(|p| p.user_id).collect();
    for chunk in users.chunks(USERS_PER_NOTE) {
        crate::live::announce(conn, &Note::tournament(event.clone(), chunk.to_vec())).await?;
    }
    notices::enqueue(conn, &notices).await?;
    Ok(())
}

/// The tournament was cancelled when entry closed (too few entered to fill a table): every
/// entrant and the organiser are told, the organiser once even if they entered too.
pub(super) async fn cancelled(
    conn: &mut PgConnection,
    id: Uuid,
    organiser: Uuid,
) -> Result<(), Error> {
    let tournament = view(conn, id).await?;
    let players = store::players(&mut *conn, id).await?;
    let mut users: Vec<Uuid> = players.iter().map(|p| p.user_id).collect();
    if !users.contains(&organiser) {
        users.push(organiser);
    }
    let notices: Vec<Notice> = users
        .iter()
        .map(|&user| {
            let mut data = common(&tournament);
            data["game_kind"] = tournament.kind.clone().into();
            data["seats_per_table"] = tournament.seats_per_table.into();
            data["organiser"] = (user == organiser).into();
            Notice::tournament_cancelled(user, id, data)
        })
        .collect();
    let event = TournamentNote {
        tournament_id: id,
        event: "cancelled".to_string(),
        round: 0,
        game_id: None,
    };
    for chunk in users.chunks(USERS_PER_NOTE) {
        crate::live::announce(conn, &Note::tournament(event.clone(), chunk.to_vec())).await?;
    }
    notices::enqueue(conn, &notices).await?;
    Ok(())
}

/// The entrants changed while entry is open (`user` entered or took their entry back): the
/// organiser and every entrant, `user` among them, see the list again on their pages (no
/// mail: a live note only).
pub(super) async fn entrants_changed(
    conn: &mut PgConnection,
    id: Uuid,
    organiser: Uuid,
    user: Uuid,
) -> Result<(), Error> {
    let players = store::players(&mut *conn, id).await?;
    let mut users: Vec<Uuid> = players.iter().map(|p| p.user_id).collect();
    for also in [organiser, user] {
        if !users.contains(&also) {
            users.push(also);
        }
    }
    let event = TournamentNote {
        tournament_id: id,
        event: "entrants".to_string(),
        round: 0,
        game_id: None,
    };
    for chunk in users.chunks(USERS_PER_NOTE) {
        crate::live::announce(conn, &Note::tournament(event.clone(), chunk.to_vec())).await?;
    }
    Ok(())
}

/// What every tournament notice says: its name, length and size.
fn common(tournament: &Tournament) -> Value {
    json!({
        "name": tournament.name,
        "rounds": tournament.rounds,
        "players": tournament.players.len(),
    })
}

/// Each player's place and points in the standings so far, by user id.
fn places(tournament: &Tournament, players: &[PlayerRow]) -> HashMap<Uuid, (usize, u32)> {
    let by_name: HashMap<&str, (usize, u32)> = tournament
        .standings
        .iter()
        .map(|line| (line.username.as_str(), (line.position, line.points)))
        .collect();
    players
        .iter()
        .filter_map(|p| Some((p.user_id, *by_name.get(p.username.as_str())?)))
        .collect()
}
