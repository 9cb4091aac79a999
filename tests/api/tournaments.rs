//! Tournaments through the API: entry, the organiser's start, the worker's rounds, Swiss and
//! round-robin played out by bots, withdrawal, the deadline's adjudication, the organiser
//! setting, bad input, and re-deriving a finished tournament from its games' logs.

use crate::bots;
use crate::live::Stream;
use crate::smtp::Received;
use crate::support::{
    AppOptions, MailedApp, TestApp, User, spawn_app, spawn_app_with, spawn_mailed_app,
};
use kontor::service::competition::tournaments::derive::{self, Facts, Format, Settings};
use kontor::service::competition::tournaments::standings::TableResult;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

fn in_a_day(app: &TestApp) -> String {
    (app.config.clock.now() + chrono::Duration::days(1)).to_rfc3339()
}

fn body(app: &TestApp, format: &str, rounds: u32) -> Value {
    json!({
        "name": "Winter cup", "kind": "steel-driver", "format": format, "seats_per_table": 3,
        "rounds": rounds, "entry_closes_at": in_a_day(app), "max_players": 12,
    })
}

async fn create(app: &TestApp, organiser: &User, body: &Value) -> Value {
    app.post("/tournaments")
        .as_user(organiser)
        .json(body)
        .send()
        .await
        .assert_ok()
        .clone()
}

async fn players(app: &TestApp, count: usize) -> Vec<User> {
    let mut users = Vec::new();
    for i in 0..count {
        users.push(app.register(&format!("entrant{i}")).await);
    }
    users
}

async fn enter_all(app: &TestApp, id: &str, users: &[User]) {
    for user in users {
        app.post(&format!("/tournaments/{id}/join"))
            .as_user(user)
            .send()
            .await
            .assert_ok();
    }
}

#[tokio::test]
async fn tournament_entry_leave_and_the_organisers_early_start() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 4).await;
    let created = create(&app, &organiser, &body(&app, "swiss", 2)).await;
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["status"], "entry");
    assert_eq!(created["organiser"], "organiser");
    assert_eq!(created["current_round"], 0);
    let listed = app
        .get("/tournaments?status=entry")
        .as_user(&users[0])
        .send()
        .await;
    assert_eq!(listed.assert_ok()["items"][0]["id"], created["id"]);
    // Too few to start.
    enter_all(&app, &id, &users[..2]).await;
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(409, "tournament_too_few_players");
    enter_all(&app, &id, &users[2..]).await;
    // Entering twice changes nothing; leaving takes the entry back; leaving twice is refused.
    enter_all(&app, &id, &users[..1]).await;
    let left = app
        .delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await;
    assert_eq!(left.assert_ok()["players"].as_array().unwrap().len(), 3);
    app.delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await
        .assert_problem(409, "tournament_not_entered");
    // Only the organiser starts it.
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&users[0])
        .send()
        .await
        .assert_problem(403, "not_the_organiser");
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await;
    let started = started.assert_ok();
    assert_eq!(started["status"], "running");
    assert_eq!(started["current_round"], 1);
    let tables = started["rounds_played"][0]["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 1);
    let game = tables[0]["game_id"].as_str().unwrap();
    let seen = app
        .get(&format!("/games/{game}"))
        .as_user(&users[0])
        .send()
        .await;
    assert_eq!(seen.assert_ok()["status"], "active");
    // Entry is closed now.
    app.post(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await
        .assert_problem(409, "tournament_wrong_status");
    app.delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[0])
        .send()
        .await
        .assert_problem(409, "tournament_wrong_status");
}

#[tokio::test]
async fn tournament_creation_refuses_bad_input_with_stable_codes() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let past = (app.config.clock.now() - chrono::Duration::hours(1)).to_rfc3339();
    for (change, status, code, field) in [
        (json!({"name": ""}), 422, "invalid_field", Some("name")),
        (
            json!({"name": "x".repeat(81)}),
            422,
            "invalid_field",
            Some("name"),
        ),
        (
            json!({"format": "knockout"}),
            422,
            "invalid_field",
            Some("format"),
        ),
        (
            json!({"seats_per_table": 2}),
            422,
            "invalid_field",
            Some("seats_per_table"),
        ),
        (
            json!({"seats_per_table": 7}),
            422,
            "invalid_field",
            Some("seats_per_table"),
        ),
        (json!({"rounds": 0}), 422, "invalid_field", Some("rounds")),
        (json!({"rounds": 21}), 422, "invalid_field", Some("rounds")),
        (
            json!({"max_players": 2}),
            422,
            "invalid_field",
            Some("max_players"),
        ),
        (
            json!({"max_players": 1001}),
            422,
            "invalid_field",
            Some("max_players"),
        ),
        (
            json!({"round_hours": 0}),
            422,
            "invalid_field",
            Some("round_hours"),
        ),
        (
            json!({"entry_closes_at": past}),
            422,
            "invalid_field",
            Some("entry_closes_at"),
        ),
        (json!({"kind": "chess"}), 422, "unknown_game_kind", None),
        (
            json!({"options": {"colour": "red"}}),
            422,
            "invalid_options",
            None,
        ),
        (
            json!({"options": {"rated": true}}),
            422,
            "invalid_options",
            Some("rated"),
        ),
        (
            json!({"time_control": {"days_per_move": 99}}),
            422,
            "invalid_field",
            Some("time_control.days_per_move"),
        ),
        (
            json!({"seats_per_table": "three"}),
            400,
            "invalid_body",
            None,
        ),
        (json!({"surprise": 1}), 400, "invalid_body", None),
    ] {
        let mut request = body(&app, "swiss", 3);
        for (key, value) in change.as_object().unwrap() {
            request[key] = value.clone();
        }
        let reply = app
            .post("/tournaments")
            .as_user(&organiser)
            .json(&request)
            .send()
            .await;
        let problem = reply.assert_problem(status, code);
        if let Some(field) = field {
            assert_eq!(problem["field"], field, "{change}: {problem}");
        }
    }
    let listed = app.get("/tournaments").as_user(&organiser).send().await;
    assert_eq!(
        listed.assert_ok()["items"],
        json!([]),
        "nothing was created"
    );
    app.get("/tournaments?status=later")
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    app.get(&format!("/tournaments/{}", Uuid::now_v7()))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(404, "tournament_not_found");
    app.get("/tournaments/not-an-id")
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
}

#[tokio::test]
async fn tournament_list_pages_with_limit_and_cursor_newest_first() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let mut created = Vec::new();
    for i in 0..5 {
        let mut request = body(&app, "swiss", 2);
        request["name"] = json!(format!("Cup {i}"));
        created.push(create(&app, &organiser, &request).await["id"].clone());
    }
    created.reverse();
    // Pages of two, newest first, until `next_cursor` is null.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..3 {
        let path = match &cursor {
            None => "/tournaments?status=entry&limit=2".to_string(),
            Some(c) => format!("/tournaments?status=entry&limit=2&cursor={c}"),
        };
        let page = app.get(&path).as_user(&organiser).send().await;
        let page = page.assert_ok();
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 2, "{page}");
        seen.extend(items.iter().map(|t| t["id"].clone()));
        cursor = page["next_cursor"].as_str().map(str::to_string);
    }
    assert_eq!(seen, created, "every tournament once, newest first");
    assert_eq!(cursor, None, "the third page is the last");
    // Without a limit a page holds 20: all five here, and no next page.
    let all = app.get("/tournaments").as_user(&organiser).send().await;
    let all = all.assert_ok();
    assert_eq!(all["items"].as_array().unwrap().len(), 5);
    assert_eq!(all["next_cursor"], Value::Null);
    for bad in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=many",
        "cursor=not-a-cursor",
        "cursor=MTIzfG5vdC1hbi1pZA",
    ] {
        app.get(&format!("/tournaments?{bad}"))
            .as_user(&organiser)
            .send()
            .await
            .assert_problem(400, "invalid_parameter");
    }
}

#[tokio::test]
async fn tournament_organisers_are_verified_players_or_admins_as_the_setting_says() {
    let app = spawn_app().await;
    let unverified = app.register_unverified("newcomer").await;
    let request = body(&app, "swiss", 1);
    app.post("/tournaments")
        .as_user(&unverified)
        .json(&request)
        .send()
        .await
        .assert_problem(403, "organiser_not_allowed");
    let verified = app.register("regular").await;
    create(&app, &verified, &request).await;

    let admins_only = spawn_app_with(AppOptions {
        settings: HashMap::from([(
            "KONTOR_TOURNAMENT_ORGANISERS".to_string(),
            "admins".to_string(),
        )]),
    })
    .await;
    let regular = admins_only.register("regular").await;
    let request = body(&admins_only, "swiss", 1);
    admins_only
        .post("/tournaments")
        .as_user(&regular)
        .json(&request)
        .send()
        .await
        .assert_problem(403, "organiser_not_allowed");
    let admin = admins_only.register("boss").await;
    sqlx::query("UPDATE users SET is_admin = true WHERE id = $1")
        .bind(admin.id)
        .execute(&admins_only.pool)
        .await
        .unwrap();
    create(&admins_only, &admin, &request).await;
}

async fn get(app: &TestApp, id: &str, user: &User) -> Value {
    app.get(&format!("/tournaments/{id}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

/// The worker's pass, as the supervisor runs it.
async fn run_worker(app: &TestApp) -> usize {
    kontor::service::competition::tournaments::process_due(&app.pool, &app.config.clock, 10)
        .await
        .unwrap()
}

fn users_at(table: &Value, users: &[User]) -> Vec<User> {
    table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            let name = seat["username"].as_str().unwrap();
            let user = users.iter().find(|u| u.name == name).unwrap();
            User {
                id: user.id,
                name: user.name.clone(),
                token: user.token.clone(),
                refresh: user.refresh.clone(),
            }
        })
        .collect()
}

/// Plays every game of the running round to its end with the bots.
async fn play_round(app: &TestApp, tournament: &Value, users: &[User], seed: u64) {
    let round = tournament["current_round"].as_i64().unwrap() as usize;
    let tables = tournament["rounds_played"][round - 1]["tables"]
        .as_array()
        .unwrap();
    for (index, table) in tables.iter().enumerate() {
        let game: Uuid = table["game_id"].as_str().unwrap().parse().unwrap();
        let players = users_at(table, users);
        bots::play_to_end(app, game, &players, bots::steel_driver, seed + index as u64).await;
    }
}

/// The ranks per seat of a finished game, read from its log's `kontor.game_ended`.
async fn ranks_from_log(app: &TestApp, game: Uuid, viewer: &User) -> Vec<u16> {
    let export = app.export(game, viewer).await;
    let ended = export
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["type"] == "kontor.game_ended")
        .expect("the game ended");
    ended["data"]["outcome"]["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap() as u16)
        .collect()
}

/// Re-derives the whole tournament from its recorded facts (settings, seed, entrants,
/// withdrawals) and its games' logs, and compares with what the API shows.
async fn rederive(app: &TestApp, tournament: &Value, users: &[User], withdrawn: &[(&User, u16)]) {
    rederive_apart(app, tournament, users, withdrawn, &[]).await;
}

/// [`rederive`] with `apart`: the blocks (blocker, blocked) that stood when every round was
/// seated.
async fn rederive_apart(
    app: &TestApp,
    tournament: &Value,
    users: &[User],
    withdrawn: &[(&User, u16)],
    apart: &[(&User, &User)],
) {
    let id_of = |name: &str| users.iter().find(|u| u.name == name).unwrap().id;
    let name_of = |id: Uuid| users.iter().find(|u| u.id == id).unwrap().name.clone();
    let settings = Settings {
        format: Format::parse(tournament["format"].as_str().unwrap()).unwrap(),
        seats_per_table: tournament["seats_per_table"].as_u64().unwrap() as usize,
        rounds: tournament["rounds"].as_u64().unwrap() as u16,
        min_seats: 3,
        max_seats: 6,
    };
    let mut rounds = Vec::new();
    for round in tournament["rounds_played"].as_array().unwrap() {
        let mut tables = Vec::new();
        for table in round["tables"].as_array().unwrap() {
            let seats: Vec<Uuid> = table["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| id_of(s["username"].as_str().unwrap()))
                .collect();
            let game: Uuid = table["game_id"].as_str().unwrap().parse().unwrap();
            let ranks = if table["adjudicated"] == true {
                None
            } else {
                Some(ranks_from_log(app, game, &users[0]).await)
            };
            tables.push(TableResult { seats, ranks });
        }
        rounds.push(tables);
    }
    let facts = Facts {
        seed: hex::decode(tournament["seed"].as_str().unwrap()).unwrap(),
        players: tournament["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| id_of(p["username"].as_str().unwrap()))
            .collect(),
        withdrawn: withdrawn.iter().map(|(u, r)| (u.id, *r)).collect(),
        rounds: rounds.clone(),
        apart: vec![apart.iter().map(|(a, b)| (a.id, b.id)).collect(); rounds.len()],
    };
    let derived = derive::derive(&settings, &facts, rounds.len());
    let seated: Vec<Vec<Vec<Uuid>>> = rounds
        .iter()
        .map(|r| r.iter().map(|t| t.seats.clone()).collect())
        .collect();
    assert_eq!(
        derived.tables[..seated.len()],
        seated[..],
        "the seating re-derives"
    );
    let shown: Vec<(String, u64)> = tournament["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["username"].as_str().unwrap().to_string(),
                s["points"].as_u64().unwrap(),
            )
        })
        .collect();
    let again: Vec<(String, u64)> = derived
        .standings
        .iter()
        .map(|s| (name_of(s.user), u64::from(s.points)))
        .collect();
    assert_eq!(shown, again, "the standings re-derive");
}

fn pairs_of(round: &Value) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for table in round["tables"].as_array().unwrap() {
        let names: Vec<String> = table["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["username"].as_str().unwrap().to_string())
            .collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                pairs.push(if a < b {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                });
            }
        }
    }
    pairs
}

#[tokio::test]
async fn tournament_swiss_of_nine_players_in_three_rounds_is_played_by_bots_to_its_final_standings()
{
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 9).await;
    let mut request = body(&app, "swiss", 3);
    request["max_players"] = json!(9);
    let created = create(&app, &organiser, &request).await;
    let id = created["id"].as_str().unwrap().to_string();
    enter_all(&app, &id, &users).await;
    app.post(&format!("/tournaments/{id}/join"))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(409, "tournament_full");
    // Nothing is due before entry closes; then the worker starts it.
    assert_eq!(run_worker(&app).await, 0);
    app.clock.advance(Duration::from_secs(24 * 3600 + 1));
    assert_eq!(run_worker(&app).await, 1);
    let mut seen_pairs: Vec<(String, String)> = Vec::new();
    for round in 1..=3 {
        let tournament = get(&app, &id, &organiser).await;
        assert_eq!(tournament["status"], "running");
        assert_eq!(tournament["current_round"], round);
        let played = &tournament["rounds_played"][round as usize - 1];
        let tables = played["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 3, "9 players at tables of 3");
        let mut seated: Vec<&str> = tables
            .iter()
            .flat_map(|t| {
                t["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["username"].as_str().unwrap())
            })
            .collect();
        seated.sort();
        seated.dedup();
        assert_eq!(seated.len(), 9, "everyone seated once");
        let pairs = pairs_of(played);
        let repeats = pairs.iter().filter(|p| seen_pairs.contains(p)).count();
        if round == 2 {
            assert_eq!(repeats, 0, "round 2 of 9 at tables of 3 needs no repeat");
        }
        seen_pairs.extend(pairs);
        play_round(&app, &tournament, &users, 100 * round as u64).await;
        // One pass ends the round and seats the next (or finishes); a second has nothing to do.
        assert_eq!(run_worker(&app).await, 1);
        assert_eq!(run_worker(&app).await, 0);
    }
    let finished = get(&app, &id, &users[0]).await;
    assert_eq!(finished["status"], "finished");
    assert_eq!(finished["current_round"], 0);
    let standings = finished["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 9);
    let total: u64 = standings
        .iter()
        .map(|s| s["points"].as_u64().unwrap())
        .sum();
    // Every table hands out 6 + 3 + 0 = 9 points, more when seats tie (at most 18).
    assert!((81..=162).contains(&total), "{total}");
    let points: Vec<u64> = standings
        .iter()
        .map(|s| s["points"].as_u64().unwrap())
        .collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "{points:?}");
    for round in finished["rounds_played"].as_array().unwrap() {
        assert_eq!(round["status"], "finished");
        for table in round["tables"].as_array().unwrap() {
            assert_eq!(table["game_status"], "finished");
            assert!(table["seats"][0]["points"].is_u64());
        }
    }
    rederive(&app, &finished, &users, &[]).await;
    let listed = app
        .get("/tournaments?status=finished")
        .as_user(&organiser)
        .send()
        .await;
    assert_eq!(listed.assert_ok()["items"][0]["id"], finished["id"]);
}

fn names(table: &Value) -> Vec<String> {
    table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn tournament_round_robin_with_a_withdrawal_and_an_adjudicated_deadline() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 6).await;
    let mut request = body(&app, "round_robin", 2);
    request["round_hours"] = json!(1);
    let id = create(&app, &organiser, &request).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(&app, &id, &users).await;
    // Withdrawing is for a running tournament; before the start one leaves.
    app.post(&format!("/tournaments/{id}/withdraw"))
        .as_user(&users[0])
        .send()
        .await
        .assert_problem(409, "tournament_wrong_status");
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok()
        .clone();
    let tables = started["rounds_played"][0]["tables"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(tables.len(), 2, "two groups of three");
    // Group A plays its game to the end; in group B a player withdraws.
    let game_a: Uuid = tables[0]["game_id"].as_str().unwrap().parse().unwrap();
    bots::play_to_end(
        &app,
        game_a,
        &users_at(&tables[0], &users),
        bots::steel_driver,
        7,
    )
    .await;
    let game_b: Uuid = tables[1]["game_id"].as_str().unwrap().parse().unwrap();
    let group_b = users_at(&tables[1], &users);
    let leaver = &group_b[1];
    let withdrawn = app
        .post(&format!("/tournaments/{id}/withdraw"))
        .as_user(leaver)
        .send()
        .await;
    let withdrawn = withdrawn.assert_ok();
    let entry = withdrawn["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["username"] == leaver.name.as_str())
        .unwrap();
    assert_eq!(entry["withdrawn"], true);
    app.post(&format!("/tournaments/{id}/withdraw"))
        .as_user(leaver)
        .send()
        .await
        .assert_problem(409, "tournament_already_withdrawn");
    app.post(&format!("/tournaments/{id}/withdraw"))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(409, "tournament_not_entered");
    // The leaver's seat went to the abandonment policy, as a deleted account's does.
    let export = app.export(game_b, &group_b[0]).await;
    assert!(export.contains("kontor.seat_left"), "{export}");
    // Group B's game is not over: the round waits for its deadline.
    assert_eq!(run_worker(&app).await, 0);
    app.clock.advance(Duration::from_secs(3601));
    assert_eq!(run_worker(&app).await, 1);
    let after = get(&app, &id, &organiser).await;
    let round1 = &after["rounds_played"][0];
    assert_eq!(round1["status"], "finished");
    let adjudicated = &round1["tables"][1];
    assert_eq!(adjudicated["adjudicated"], true);
    assert_eq!(adjudicated["game_status"], "active", "the game goes on");
    for (seat, name) in names(adjudicated).iter().enumerate() {
        // The average of 6/3/0, rounded down; nothing for the withdrawn player.
        let expected = if *name == leaver.name { 0 } else { 3 };
        assert_eq!(adjudicated["seats"][seat]["points"], expected, "{name}");
    }
    // Round 2: group A again, its seats rotated by one; group B has two players left, fewer
    // than a table needs, and sits out.
    let round2 = after["rounds_played"][1]["tables"].as_array().unwrap();
    assert_eq!(round2.len(), 1);
    let mut rotated = names(&tables[0]);
    rotated.rotate_left(1);
    assert_eq!(names(&round2[0]), rotated);
    assert_eq!(after["current_round"], 2);
    play_round(&app, &after, &users, 9).await;
    assert_eq!(run_worker(&app).await, 1);
    let finished = get(&app, &id, &organiser).await;
    assert_eq!(finished["status"], "finished");
    let line = finished["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == leaver.name.as_str())
        .unwrap();
    assert_eq!(
        (line["points"].as_u64(), line["withdrawn"].as_bool()),
        (Some(0), Some(true))
    );
    rederive(&app, &finished, &users, &[(leaver, 1)]).await;
}

#[tokio::test]
async fn tournament_with_too_few_entrants_is_cancelled_when_entry_closes() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 2).await;
    let id = create(&app, &organiser, &body(&app, "swiss", 1)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(&app, &id, &users).await;
    app.clock.advance(Duration::from_secs(24 * 3600 + 1));
    assert_eq!(run_worker(&app).await, 1);
    let cancelled = get(&app, &id, &organiser).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["rounds_played"], json!([]));
    assert_eq!(run_worker(&app).await, 0);
}

#[tokio::test]
async fn tournament_worker_passes_at_once_start_it_exactly_once() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 3).await;
    let id = create(&app, &organiser, &body(&app, "swiss", 2)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(&app, &id, &users).await;
    app.clock.advance(Duration::from_secs(24 * 3600 + 1));
    // Two workers (as on two instances) at the same moment: the tournament's row lock lets
    // one start it; the other finds it started and nothing due.
    let (one, two) = tokio::join!(run_worker(&app), run_worker(&app));
    assert_eq!(one + two, 1);
    let running = get(&app, &id, &organiser).await;
    assert_eq!(running["rounds_played"].as_array().unwrap().len(), 1);
    assert_eq!(
        running["rounds_played"][0]["tables"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(games, 1);
}

/// The subjects and texts (unwrapped) of the mails `user` received since `from` (an index
/// into the sink).
fn mails_to(received: &[Received], from: usize, user: &User) -> Vec<(String, String)> {
    let address = format!("{}@example.org", user.name);
    received[from..]
        .iter()
        .filter(|r| r.to.iter().any(|t| t.contains(&address)))
        .map(|r| {
            let mail = r.mail();
            (
                mail.subject(),
                // Lines joined: the text is wrapped.
                mail.text().split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect()
}

/// Delivers every due mail (a round's games leave many "your turn" mails behind).
async fn deliver_all(f: &MailedApp) {
    while f.notifier.deliver_due(100).await.unwrap().claimed > 0 {}
}

/// The tournament events a user stream carried within a quiet spell.
async fn tournament_events(stream: &mut Stream) -> Vec<Value> {
    stream
        .drain(Duration::from_millis(1500))
        .await
        .into_iter()
        .filter(|e| e.event.starts_with("tournament_"))
        .map(|e| json!({"event": e.event, "data": e.data}))
        .collect()
}

#[tokio::test]
async fn tournament_players_are_told_by_mail_and_stream_of_the_start_each_round_and_the_final_standings()
 {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let organiser = app.register("organiser").await;
    let users = players(app, 3).await;
    app.put("/me/profile")
        .as_user(&users[2])
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    let id = create(app, &organiser, &body(app, "swiss", 2)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(app, &id, &users).await;
    let mut stream = Stream::open(&app.address, "/me/stream", &users[0].token, None).await;
    assert_eq!(
        stream.next(Duration::from_secs(10)).await.unwrap().event,
        "snapshot"
    );
    let mut watcher = Stream::open(&app.address, "/me/stream", &organiser.token, None).await;
    watcher.next(Duration::from_secs(10)).await.unwrap();

    // The start: one mail each, "the tournament has started", naming their game and linking
    // it and the tournament's page; no second "game started" mail for the same game.
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok()
        .clone();
    let game = started["rounds_played"][0]["tables"][0]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    deliver_all(&f).await;
    let received = f.sink.received();
    let first = mails_to(&received, 0, &users[0]);
    let subjects: Vec<&str> = first.iter().map(|(s, _)| s.as_str()).collect();
    assert!(
        subjects.contains(&"The tournament \u{201c}Winter cup\u{201d} of Steel Driver has started"),
        "{subjects:?}"
    );
    assert!(
        !subjects
            .iter()
            .any(|s| s.contains("has started") && !s.contains("tournament")),
        "no generic game-started mail beside it: {subjects:?}"
    );
    let (_, text) = first
        .iter()
        .find(|(s, _)| s.contains("tournament"))
        .unwrap();
    assert!(
        text.contains("2 rounds of Steel Driver among 3 players"),
        "{text}"
    );
    assert!(text.contains(&format!("/games/{game}")), "{text}");
    assert!(text.contains(&format!("/tournaments/{id}")), "{text}");
    let japanese = mails_to(&received, 0, &users[2]);
    assert!(
        japanese
            .iter()
            .any(|(s, _)| s == "トーナメント「Winter cup」（スチールドライバー）が始まりました"),
        "{japanese:?}"
    );
    assert_eq!(
        tournament_events(&mut stream).await,
        [json!({"event": "tournament_started", "data": {
            "tournament_id": id, "event": "started", "round": 1, "game_id": game}})]
    );
    assert!(
        tournament_events(&mut watcher).await.is_empty(),
        "the organiser did not enter"
    );

    // Round 2 is seated when round 1's game is over: "your table is seated", with the
    // player's place so far.
    play_round(app, &get(app, &id, &organiser).await, &users, 21).await;
    assert_eq!(run_worker(app).await, 1);
    let seated = get(app, &id, &organiser).await;
    let game = seated["rounds_played"][1]["tables"][0]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let position = seated["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["username"] == users[0].name.as_str())
        .unwrap()["position"]
        .as_i64()
        .unwrap();
    let before = f.sink.received().len();
    deliver_all(&f).await;
    let received = f.sink.received();
    let round = mails_to(&received, before, &users[0]);
    let (subject, text) = round
        .iter()
        .find(|(s, _)| s.starts_with("Round 2"))
        .unwrap_or_else(|| panic!("{round:?}"));
    assert_eq!(
        subject,
        "Round 2 of \u{201c}Winter cup\u{201d}: your table of Steel Driver is seated"
    );
    assert!(text.contains("round 2 of 2 of"), "{text}");
    assert!(
        text.contains(&format!("After round 1 you stand {}", ordinal(position))),
        "{text}"
    );
    assert!(text.contains(&format!("/games/{game}")), "{text}");
    assert_eq!(
        tournament_events(&mut stream).await,
        [json!({"event": "tournament_round", "data": {
            "tournament_id": id, "event": "round", "round": 2, "game_id": game}})]
    );

    // The end: the final standings, the player's own place and the podium.
    play_round(app, &seated, &users, 22).await;
    assert_eq!(run_worker(app).await, 1);
    let finished = get(app, &id, &organiser).await;
    assert_eq!(finished["status"], "finished");
    let winner = finished["standings"][0]["username"]
        .as_str()
        .unwrap()
        .to_string();
    let before = f.sink.received().len();
    deliver_all(&f).await;
    let received = f.sink.received();
    for user in &users {
        let line = finished["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|line| line["username"] == user.name.as_str())
            .unwrap();
        let mails = mails_to(&received, before, user);
        let (subject, text) = mails
            .iter()
            .find(|(_, t)| t.contains("/tournaments/"))
            .unwrap_or_else(|| panic!("{mails:?}"));
        let position = line["position"].as_i64().unwrap();
        if user.name == users[2].name {
            assert!(
                subject.ends_with(&format!("3人中{position}位")),
                "{subject}"
            );
            assert!(text.contains(&format!("1. {winner} — ")), "{text}");
        } else {
            assert!(
                subject.ends_with(&format!("you placed {} of 3", ordinal(position))),
                "{subject}"
            );
            assert!(
                text.contains(&format!("with {} points", line["points"])),
                "{text}"
            );
            assert!(text.contains(&format!("1. {winner} — ")), "{text}");
        }
    }
    assert_eq!(
        tournament_events(&mut stream).await,
        [json!({"event": "tournament_finished", "data": {
            "tournament_id": id, "event": "finished", "round": 2}})]
    );
    // Each notice once: running the worker again tells nobody anything new.
    assert_eq!(run_worker(app).await, 0);
    let before = f.sink.received().len();
    deliver_all(&f).await;
    assert_eq!(f.sink.received().len(), before);
}

fn ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[tokio::test]
async fn tournament_cancelled_for_too_few_entrants_tells_its_entrants_and_organiser() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let organiser = app.register("organiser").await;
    let users = players(app, 2).await;
    let bystander = app.register("bystander").await;
    app.put("/me/profile")
        .as_user(&users[1])
        .json(&json!({"language": "ja"}))
        .send()
        .await
        .assert_ok();
    let id = create(app, &organiser, &body(app, "swiss", 2)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(app, &id, &users).await;
    let mut streams = Vec::new();
    for user in [&users[0], &organiser, &bystander] {
        let mut stream = Stream::open(&app.address, "/me/stream", &user.token, None).await;
        assert_eq!(
            stream.next(Duration::from_secs(10)).await.unwrap().event,
            "snapshot"
        );
        streams.push(stream);
    }
    let before = f.sink.received().len();
    app.clock.advance(Duration::from_secs(24 * 3600 + 1));
    assert_eq!(run_worker(app).await, 1);
    assert_eq!(get(app, &id, &organiser).await["status"], "cancelled");
    deliver_all(&f).await;
    let received = f.sink.received();

    let english = mails_to(&received, before, &users[0]);
    assert_eq!(english.len(), 1, "{english:?}");
    let (subject, text) = &english[0];
    assert_eq!(
        subject,
        "The tournament \u{201c}Winter cup\u{201d} of Steel Driver is cancelled: too few entered"
    );
    assert!(
        text.contains("when entry closed, 2 had entered, and a table needs 3"),
        "{text}"
    );
    assert!(text.contains(&format!("/tournaments/{id}")), "{text}");
    assert!(!text.contains("You organised it"), "{text}");
    let japanese = mails_to(&received, before, &users[1]);
    assert_eq!(japanese.len(), 1, "{japanese:?}");
    assert_eq!(
        japanese[0].0,
        "トーナメント「Winter cup」（スチールドライバー）は参加者が足りず中止になりました"
    );
    assert!(
        japanese[0].1.contains("2人が参加しました"),
        "{}",
        japanese[0].1
    );
    let organisers = mails_to(&received, before, &organiser);
    assert_eq!(
        organisers.len(),
        1,
        "the organiser, who did not enter: {organisers:?}"
    );
    assert!(
        organisers[0].1.contains("You organised it"),
        "{}",
        organisers[0].1
    );
    assert!(mails_to(&received, before, &bystander).is_empty());

    let cancelled = json!({"event": "tournament_cancelled", "data": {
        "tournament_id": id, "event": "cancelled", "round": 0}});
    assert_eq!(
        tournament_events(&mut streams[0]).await,
        std::slice::from_ref(&cancelled)
    );
    assert_eq!(tournament_events(&mut streams[1]).await, [cancelled]);
    assert!(tournament_events(&mut streams[2]).await.is_empty());

    // Told once: the worker has nothing more to do, and nothing more is mailed.
    assert_eq!(run_worker(app).await, 0);
    let before = f.sink.received().len();
    deliver_all(&f).await;
    assert_eq!(f.sink.received().len(), before);
}

#[tokio::test]
async fn tournament_cancelled_mails_follow_the_players_preference() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let organiser = app.register("organiser").await;
    let users = players(app, 2).await;
    let prefs = app
        .put("/me/notifications")
        .as_user(&users[0])
        .json(&json!({"tournament_cancelled": "off"}))
        .send()
        .await;
    assert_eq!(prefs.assert_ok()["tournament_cancelled"], "off");
    let id = create(app, &organiser, &body(app, "swiss", 2)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(app, &id, &users).await;
    let before = f.sink.received().len();
    app.clock.advance(Duration::from_secs(24 * 3600 + 1));
    assert_eq!(run_worker(app).await, 1);
    deliver_all(&f).await;
    let received = f.sink.received();
    assert!(mails_to(&received, before, &users[0]).is_empty());
    assert_eq!(mails_to(&received, before, &users[1]).len(), 1);
}

/// Each round's tables, as the usernames at them.
fn tables_of(tournament: &Value) -> Vec<Vec<Vec<String>>> {
    tournament["rounds_played"]
        .as_array()
        .unwrap()
        .iter()
        .map(|round| {
            round["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    t["seats"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s["username"].as_str().unwrap().to_string())
                        .collect()
                })
                .collect()
        })
        .collect()
}

async fn block(app: &TestApp, blocker: &User, blocked: &User) {
    app.put(&format!("/me/blocks/{}", blocked.name))
        .as_user(blocker)
        .send()
        .await
        .assert_ok();
}

#[tokio::test]
async fn tournament_seating_keeps_blocked_players_apart_where_the_tables_allow() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 6).await;
    let created = create(&app, &organiser, &body(&app, "swiss", 2)).await;
    let id = created["id"].as_str().unwrap().to_string();
    // Round 1 cuts the seeded order into two tables of three: block within each cut table,
    // one pair each way round, so that only the blocks can part them.
    // The seed is not shown while entry is open (only its commitment): the test reads it
    // where the server keeps it.
    assert_eq!(created["seed"], Value::Null);
    let seed: Vec<u8> = sqlx::query_scalar("SELECT seed FROM tournaments WHERE id = $1")
        .bind(Uuid::parse_str(&id).unwrap())
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let mut order: Vec<&User> = users.iter().collect();
    order.sort_by_key(|u| {
        kontor::service::competition::tournaments::standings::seeded_key(&seed, u.id)
    });
    let pairs = [(order[0], order[1]), (order[4], order[3])];
    for (blocker, blocked) in pairs {
        block(&app, blocker, blocked).await;
    }
    // A player the organiser blocked may still enter: the organiser has no seat.
    block(&app, &organiser, order[2]).await;
    enter_all(&app, &id, &users).await;
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok();
    let parted = |tournament: &Value| {
        for (round, tables) in tables_of(tournament).iter().enumerate() {
            for table in tables {
                for (a, b) in pairs {
                    assert!(
                        !(table.contains(&a.name) && table.contains(&b.name)),
                        "round {}: {} and {} share {table:?}",
                        round + 1,
                        a.name,
                        b.name
                    );
                }
            }
        }
    };
    parted(&get(&app, &id, &organiser).await);
    play_round(&app, &get(&app, &id, &organiser).await, &users, 31).await;
    assert_eq!(run_worker(&app).await, 1);
    let second = get(&app, &id, &organiser).await;
    assert_eq!(second["current_round"], 2);
    parted(&second);
    play_round(&app, &second, &users, 32).await;
    assert_eq!(run_worker(&app).await, 1);
    let finished = get(&app, &id, &organiser).await;
    assert_eq!(finished["status"], "finished");
    parted(&finished);
    // Blocks lifted afterwards change nothing: each round's pairs are recorded with it, and
    // the tournament re-derives from its facts.
    for (blocker, blocked) in pairs {
        app.delete(&format!("/me/blocks/{}", blocked.name))
            .as_user(blocker)
            .send()
            .await
            .assert_ok();
    }
    rederive_apart(&app, &finished, &users, &[], &pairs).await;

    // One table: the pair cannot be parted and plays together.
    let mut three = Vec::new();
    for name in ["solo0", "solo1", "solo2"] {
        three.push(app.register(name).await);
    }
    block(&app, &three[0], &three[1]).await;
    let small = create(&app, &organiser, &body(&app, "round_robin", 1)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    enter_all(&app, &small, &three).await;
    let started = app
        .post(&format!("/tournaments/{small}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok()
        .clone();
    assert_eq!(tables_of(&started)[0].len(), 1);
    assert_eq!(tables_of(&started)[0][0].len(), 3);
}

#[tokio::test]
async fn tournament_seed_is_committed_while_entry_is_open_and_revealed_at_the_start() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 3).await;
    let created = create(&app, &organiser, &body(&app, "swiss", 1)).await;
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["seed"], Value::Null, "no seating can be foreseen");
    let commitment = created["seed_commitment"].as_str().unwrap().to_string();
    assert_eq!(commitment.len(), 64);
    enter_all(&app, &id, &users).await;
    let entering = app
        .get(&format!("/tournaments/{id}"))
        .as_user(&users[0])
        .send()
        .await;
    assert_eq!(entering.assert_ok()["seed"], Value::Null);
    assert_eq!(entering.body["seed_commitment"], commitment.as_str());
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok();
    let started = app
        .get(&format!("/tournaments/{id}"))
        .as_user(&users[0])
        .send()
        .await;
    let seed = hex::decode(started.assert_ok()["seed"].as_str().unwrap()).unwrap();
    use sha2::Digest;
    assert_eq!(hex::encode(sha2::Sha256::digest(&seed)), commitment);
    assert_eq!(started.body["seed_commitment"], commitment.as_str());
}

#[tokio::test]
async fn an_organiser_runs_a_bounded_number_of_tournaments_at_once() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let mut request = body(&app, "swiss", 20);
        request["name"] = json!(format!("Cup {i}"));
        request["max_players"] = json!(1000);
        ids.push(
            create(&app, &organiser, &request).await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let before = app.fingerprint().await;
    let refused = app
        .post("/tournaments")
        .as_user(&organiser)
        .json(&body(&app, "swiss", 20))
        .send()
        .await;
    let problem = refused.assert_problem(429, "too_many_tournaments");
    assert_eq!(problem["open"], 5);
    assert!(refused.headers.get("retry-after").is_some());
    assert_eq!(app.fingerprint().await, before, "nothing was created");
    // Another organiser is not held back by it.
    let other = app.register("other_organiser").await;
    create(&app, &other, &body(&app, "swiss", 1)).await;
    // One ended (cancelled for too few entrants when entry closed) frees a place.
    app.clock.advance(Duration::from_secs(2 * 86_400));
    run_worker(&app).await;
    let first = get(&app, &ids[0], &organiser).await;
    assert_eq!(first["status"], "cancelled");
    create(&app, &organiser, &body(&app, "swiss", 1)).await;
}

#[tokio::test]
async fn the_organiser_hosts_the_spectators_channel_of_a_tournament_game_and_reads_no_seats_talk() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 3).await;
    let created = create(&app, &organiser, &body(&app, "swiss", 1)).await;
    let id = created["id"].as_str().unwrap().to_string();
    enter_all(&app, &id, &users).await;
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await;
    let game = started.assert_ok()["rounds_played"][0]["tables"][0]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Decided (issue 36): the organiser, the games' creator without a seat, may close and
    // reopen the onlookers' channel; a seated player may not.
    app.put(&format!("/games/{game}/chat/spectators"))
        .as_user(&users[0])
        .json(&json!({"open": false}))
        .send()
        .await
        .assert_problem(403, "not_the_creator");
    let closed = app
        .put(&format!("/games/{game}/chat/spectators"))
        .as_user(&organiser)
        .json(&json!({"open": false}))
        .send()
        .await;
    assert_eq!(closed.assert_ok()["spectators_open"], false);
    // It gives the organiser nothing of the seats': their channel is not theirs to read.
    app.get(&format!("/games/{game}/chat/table/messages"))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(404, "chat_channel_not_found");
    app.put(&format!("/games/{game}/chat/spectators"))
        .as_user(&organiser)
        .json(&json!({"open": true}))
        .send()
        .await
        .assert_ok();
}

/// The `tournament_entrants` events a user stream carried within a quiet spell.
async fn entrants_events(stream: &mut Stream) -> usize {
    stream
        .drain(Duration::from_millis(1500))
        .await
        .into_iter()
        .filter(|e| e.event == "tournament_entrants")
        .count()
}

#[tokio::test]
async fn tournament_entrants_are_told_live_and_its_games_name_it_and_lists_can_leave_them_out() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 4).await;
    let outsider = app.register("outsider").await;
    let created = create(&app, &organiser, &body(&app, "swiss", 1)).await;
    let id = created["id"].as_str().unwrap().to_string();
    let mut by_organiser = Stream::open(&app.address, "/me/stream", &organiser.token, None).await;
    let mut by_first = Stream::open(&app.address, "/me/stream", &users[0].token, None).await;
    let mut by_outsider = Stream::open(&app.address, "/me/stream", &outsider.token, None).await;
    for stream in [&mut by_organiser, &mut by_first, &mut by_outsider] {
        assert_eq!(
            stream.next(Duration::from_secs(10)).await.unwrap().event,
            "snapshot"
        );
    }
    // Each entry is told at once to the organiser and every entrant; never to others.
    enter_all(&app, &id, &users[..1]).await;
    assert_eq!(entrants_events(&mut by_organiser).await, 1);
    assert_eq!(entrants_events(&mut by_first).await, 1);
    enter_all(&app, &id, &users[1..2]).await;
    app.delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[1])
        .send()
        .await
        .assert_ok();
    assert_eq!(entrants_events(&mut by_organiser).await, 2);
    assert_eq!(entrants_events(&mut by_first).await, 2);
    // Entering again changes nothing, and tells nothing.
    enter_all(&app, &id, &users[..1]).await;
    assert_eq!(entrants_events(&mut by_organiser).await, 0);
    assert_eq!(entrants_events(&mut by_outsider).await, 0);

    // Its games name it, with their round, in the game and in every list.
    enter_all(&app, &id, &users[1..3]).await;
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_ok()
        .clone();
    let table = &started["rounds_played"][0]["tables"][0];
    let game = table["game_id"].as_str().unwrap().to_string();
    let named = json!({"id": id, "name": "Winter cup", "round": 1});
    let seated = users_at(table, &users);
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&seated[0])
        .send()
        .await;
    assert_eq!(detail.assert_ok()["tournament"], named);
    let mine = app.get("/games?view=mine").as_user(&seated[0]).send().await;
    assert_eq!(mine.assert_ok()["items"][0]["tournament"], named);

    // Finished, it is among everyone's finished games unless the list leaves out others'
    // tournament games (the lobby's), or all of them.
    play_round(&app, &started, &users, 7).await;
    let finished = |user: &User, filter: &str| {
        app.get(&format!("/games?view=finished{filter}"))
            .as_user(user)
            .send()
    };
    let ids = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = finished(&outsider, "").await;
    assert!(ids(all.assert_ok()).contains(&game));
    let listed = &all.assert_ok()["items"][0];
    assert_eq!(listed["tournament"], named);
    assert!(!listed["finished_at"].is_null());
    let others = finished(&outsider, "&tournament_games=mine").await;
    assert!(!ids(others.assert_ok()).contains(&game));
    let own = finished(&seated[0], "&tournament_games=mine").await;
    assert!(ids(own.assert_ok()).contains(&game));
    let none = finished(&seated[0], "&tournament_games=none").await;
    assert!(!ids(none.assert_ok()).contains(&game));
    finished(&seated[0], "&tournament_games=some")
        .await
        .assert_problem(400, "invalid_parameter");
}
