//! Asynchronous play: turn mail, time controls, reminders, timeouts, absent players, vacations.

use crate::bots;
use crate::smtp::SmtpSink;
use crate::support::*;
use futures_util::future::join;
use serde_json::{Value, json};
use std::time::Duration;
use uuid::Uuid;

/// A server with a real SMTP receiver and its notifier to deliver mail on demand. Its clocks
/// are production's (a minute per move at the least): the tests move the server's clock on
/// (`w.app.clock.advance`) rather than wait.
type World = MailedApp;

async fn world() -> World {
    spawn_mailed_app(&[]).await
}

async fn players(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut players = Vec::new();
    for name in names {
        players.push(app.register(name).await);
    }
    players
}

/// Creates a game with a time control and seats everyone (it starts).
async fn timed_game(app: &TestApp, kind: &str, time_control: Value, players: &[User]) -> Uuid {
    app.start_game_with(json!({"kind": kind, "time_control": time_control}), players)
        .await
}

async fn detail(app: &TestApp, game: Uuid, user: &User) -> Value {
    app.get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

/// The player who must act first.
/// Time per move in these tests: the shortest a game may have.
const MOVE_SECS: u64 = 60;

/// Moves the server's clock on by `secs` seconds.
fn advance(w: &World, secs: u64) {
    w.app.clock.advance(Duration::from_secs(secs));
}

/// A three-player Steel Driver game with a minute per move, `abandon_after: 1` and
/// `on_abandon`, whose first player to act has just timed out: the players, the game and that
/// player.
async fn timed_out_once(w: &World, on_abandon: &str) -> (Vec<User>, Uuid, User) {
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let control =
        json!({"seconds_per_move": MOVE_SECS, "abandon_after": 1, "on_abandon": on_abandon});
    let game = timed_game(&w.app, "steel-driver", control, &table).await;
    let gone = first_to_act(&w.app, game, &table).await.clone();
    advance(w, MOVE_SECS + 1);
    assert_eq!(w.app.run_deadlines().await.timeouts, 1);
    (table, game, gone)
}

async fn first_to_act<'a>(app: &TestApp, game: Uuid, players: &'a [User]) -> &'a User {
    let seat = detail(app, game, &players[0]).await["pending"][0]
        .as_u64()
        .unwrap();
    &players[seat as usize]
}

/// Event types after `version`.
async fn types_after(app: &TestApp, game: Uuid, version: i64) -> Vec<String> {
    sqlx::query_scalar("SELECT type FROM game_events WHERE game_id = $1 AND seq > $2 ORDER BY seq")
        .bind(game)
        .bind(version)
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

/// (recipient, subject) of every mail received so far.
fn mails(sink: &SmtpSink) -> Vec<(String, String)> {
    sink.received()
        .iter()
        .map(|r| {
            let mail = r.mail();
            (
                r.to[0].clone(),
                mail.header("Subject").unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn turn_mails_to(sink: &SmtpSink, user: &User) -> usize {
    mails(sink)
        .iter()
        .filter(|(to, subject)| {
            to.starts_with(&format!("{}@", user.name))
                && subject.to_lowercase().contains("your turn")
        })
        .count()
}

#[tokio::test]
async fn one_mail_per_turn_to_the_right_player_with_a_working_unsubscribe_link() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let game = w.app.start_game("flying-dutchman", json!({}), &table).await;
    w.notifier.deliver_due(50).await.unwrap();
    let first = first_to_act(&w.app, game, &table).await;
    // The start: "game started" to all three, "your turn" to the first player only.
    let started: Vec<(String, String)> = mails(&w.sink);
    assert_eq!(started.len(), 4, "{started:?}");
    for player in &table {
        assert_eq!(
            turn_mails_to(&w.sink, player),
            usize::from(player.id == first.id),
            "{started:?}"
        );
    }

    // The first player acts (a retry too): the next player gets one mail, nobody else.
    let version = detail(&w.app, game, first).await["version"]
        .as_i64()
        .unwrap();
    for _ in 0..2 {
        w.app
            .act(first, game)
            .key("move-1")
            .version(version)
            .send(&json!({"type": "use_smith"}))
            .await
            .assert_ok();
    }
    w.notifier.deliver_due(50).await.unwrap();
    let next = first_to_act(&w.app, game, &table).await;
    assert_ne!(next.id, first.id);
    assert_eq!(turn_mails_to(&w.sink, next), 1);
    assert_eq!(
        turn_mails_to(&w.sink, first),
        1,
        "no mail to the player who moved"
    );
    assert_eq!(mails(&w.sink).len(), 5);

    // The unsubscribe link of that mail works without logging in.
    let received = w.sink.received();
    let mail = received.last().unwrap().mail();
    let header = mail.header("List-Unsubscribe").unwrap();
    let link = header.trim_start_matches('<').trim_end_matches('>');
    assert_eq!(
        mail.header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );
    let reply = w
        .app
        .client
        .post(link)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert!(
        reply.status().is_success(),
        "{}",
        reply.text().await.unwrap()
    );
    let prefs = w.app.get("/me/notifications").as_user(next).send().await;
    assert_eq!(prefs.assert_ok()["your_turn"], "off", "{}", prefs.text);
}

#[tokio::test]
async fn a_timeout_plays_for_the_seat_by_policy_and_notifies_the_next_player() {
    let w = world().await;
    // Flying Dutchman: a first player with nine horseshoes may not pass, so the bot moves.
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let game = timed_game(
        &w.app,
        "flying-dutchman",
        json!({"seconds_per_move": MOVE_SECS}),
        &table,
    )
    .await;
    let late = first_to_act(&w.app, game, &table).await.clone();
    let before = detail(&w.app, game, &late).await;
    let version = before["version"].as_i64().unwrap();
    advance(&w, MOVE_SECS - 1);
    assert_eq!(w.app.run_deadlines().await.timeouts, 0, "not due yet");
    advance(&w, 2);
    let pass = w.app.run_deadlines().await;
    assert_eq!(pass.timeouts, 1, "{pass:?}");
    let types = types_after(&w.app, game, version).await;
    assert_eq!(types[0], "kontor.turn_timed_out", "{types:?}");
    let (payload,): (Value,) =
        sqlx::query_as("SELECT payload FROM game_events WHERE game_id = $1 AND seq = $2")
            .bind(game)
            .bind(version + 1)
            .fetch_one(&w.app.pool)
            .await
            .unwrap();
    assert_eq!(payload["played"], "bot");
    assert_eq!(payload["consecutive"], 1);
    assert!(types.len() >= 2, "the bot's move follows: {types:?}");
    let after = detail(&w.app, game, &late).await;
    assert!(after["version"].as_i64().unwrap() > version);
    assert_ne!(after["pending"], before["pending"]);
    // The next player is told; the game log verifies later with the bot's recorded command.
    w.notifier.deliver_due(50).await.unwrap();
    let next = first_to_act(&w.app, game, &table).await;
    assert_eq!(turn_mails_to(&w.sink, next), 1);

    // Steel Driver: the pawn holder may pass, so the policy passes.
    let table = players(&w.app, &["dora", "emil", "fritz"]).await;
    let game = timed_game(
        &w.app,
        "steel-driver",
        json!({"seconds_per_move": MOVE_SECS}),
        &table,
    )
    .await;
    let version = detail(&w.app, game, &table[0]).await["version"]
        .as_i64()
        .unwrap();
    advance(&w, MOVE_SECS + 1);
    // (The Flying Dutchman game above may time out again meanwhile.)
    assert!(w.app.run_deadlines().await.timeouts >= 1);
    let types = types_after(&w.app, game, version).await;
    assert_eq!(types, ["kontor.turn_timed_out", "pawn_passed"]);
}

#[tokio::test]
async fn a_reminder_goes_out_when_four_fifths_of_the_time_are_used() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let game = timed_game(
        &w.app,
        "steel-driver",
        json!({"seconds_per_move": MOVE_SECS}),
        &table,
    )
    .await;
    let first = first_to_act(&w.app, game, &table).await;
    w.notifier.deliver_due(50).await.unwrap();
    assert_eq!(w.app.run_deadlines().await.reminders, 0);
    // Four fifths of a minute are 48 seconds.
    advance(&w, 47);
    assert_eq!(w.app.run_deadlines().await.reminders, 0, "not before");
    advance(&w, 2);
    let pass = w.app.run_deadlines().await;
    assert_eq!((pass.reminders, pass.timeouts), (1, 0), "{pass:?}");
    assert_eq!(w.app.run_deadlines().await.reminders, 0, "once per turn");
    w.notifier.deliver_due(50).await.unwrap();
    let reminders: Vec<(String, String)> = mails(&w.sink)
        .into_iter()
        .filter(|(_, subject)| {
            subject.to_lowercase().contains("remind") || subject.to_lowercase().contains("left")
        })
        .collect();
    assert_eq!(reminders.len(), 1, "{:?}", mails(&w.sink));
    assert!(reminders[0].0.starts_with(&format!("{}@", first.name)));
}

#[tokio::test]
async fn an_abandoned_seat_is_played_by_the_bot_until_its_player_returns() {
    let w = world().await;
    let (table, game, gone) = timed_out_once(&w, "bot").await;
    let now = detail(&w.app, game, &gone).await;
    let seat = now["your_seat"].as_u64().unwrap() as usize;
    assert_eq!(now["seats"][seat]["state"], "abandoned");
    let types = types_after(&w.app, game, 0).await;
    assert!(
        types.contains(&"kontor.seat_abandoned".to_string()),
        "{types:?}"
    );

    // While abandoned, the player cannot act, and the bot plays the seat's turns at once.
    let mut bot_moves = 0;
    for _ in 0..200 {
        let state = detail(&w.app, game, &table[0]).await;
        let pending = state["pending"][0].as_u64().unwrap() as usize;
        if pending == seat {
            let version = state["version"].as_i64().unwrap();
            w.app
                .act(&gone, game)
                .version(version)
                .send(&json!({"type": "pass_pawn"}))
                .await
                .assert_problem(409, "seat_abandoned");
            bot_moves += w.app.run_deadlines().await.bot_moves;
            if bot_moves >= 2 {
                break;
            }
        } else {
            bots::play(
                &w.app,
                game,
                &table,
                bots::steel_driver,
                bot_moves as u64,
                1,
            )
            .await;
        }
    }
    assert!(bot_moves >= 2, "the bot played the abandoned seat");

    // The player returns: the seat is theirs again, with their own clock.
    let back = w
        .app
        .post(&format!("/games/{game}/return"))
        .as_user(&gone)
        .json(&json!({}))
        .send()
        .await;
    back.assert_ok();
    let now = detail(&w.app, game, &gone).await;
    assert_eq!(now["seats"][seat]["state"], "active");
    let types = types_after(&w.app, game, 0).await;
    assert_eq!(types.last().unwrap(), "kontor.seat_returned");
    w.app
        .post(&format!("/games/{game}/return"))
        .as_user(&gone)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "seat_not_abandoned");

    // Played to the end, the game verifies with its timeout, abandonment, the bot's moves and
    // the return, and so its export imports.
    bots::play_to_end(&w.app, game, &table, bots::steel_driver, 7).await;
    w.app.assert_verified(game, &table[0]).await;
    let export = w.app.export(game, &table[0]).await;
    assert!(export.contains("kontor.seat_returned"));
    let response = w
        .app
        .client
        .post(w.app.url("/games/import"))
        .bearer_auth(&table[0].token)
        .header("content-type", "application/x-ndjson")
        .body(export)
        .send()
        .await
        .unwrap();
    let imported = read(response).await;
    assert_eq!(imported.status, 201, "{}", imported.text);
}

#[tokio::test]
async fn a_timeout_racing_a_move_never_applies_both() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let mut outcomes = (0, 0);
    for round in 0..8 {
        let game = timed_game(
            &w.app,
            "steel-driver",
            json!({"seconds_per_move": MOVE_SECS}),
            &table,
        )
        .await;
        let mover = first_to_act(&w.app, game, &table).await;
        let version = detail(&w.app, game, mover).await["version"]
            .as_i64()
            .unwrap();
        // The clock is due: move and time out at the same moment. In every other round the
        // move waits until the worker has taken the clock (or already played), so that the
        // timeout gets to be first as often as the move.
        advance(&w, MOVE_SECS + 1);
        let worker_started = || async {
            let taken: bool = sqlx::query_scalar(
                "SELECT (SELECT version FROM games WHERE id = $1) > $2
                     OR EXISTS (SELECT 1 FROM deadlines
                                 WHERE game_id = $1 AND leased_until IS NOT NULL)",
            )
            .bind(game)
            .bind(version)
            .fetch_one(&w.app.pool)
            .await
            .unwrap();
            taken
        };
        let (reply, pass) = join(
            async {
                if round % 2 == 1 {
                    // A bounded wait for the worker's lease, not a timing assumption.
                    for _ in 0..500 {
                        if worker_started().await {
                            break;
                        }
                        tokio::task::yield_now().await;
                    }
                }
                w.app
                    .act(mover, game)
                    .version(version)
                    .send(&json!({"type": "pass_pawn"}))
                    .await
            },
            w.app.run_deadlines(),
        )
        .await;
        let types = types_after(&w.app, game, version).await;
        let timed_out = types.first().is_some_and(|t| t == "kontor.turn_timed_out");
        if reply.status == 200 {
            assert!(
                !timed_out,
                "the move won, the timeout must not apply too: {types:?}"
            );
            assert_eq!(types, ["pawn_passed"]);
            outcomes.0 += 1;
        } else {
            reply.assert_problem(409, "version_conflict");
            assert!(timed_out, "{types:?}");
            assert_eq!(pass.timeouts, 1);
            assert_eq!(types, ["kontor.turn_timed_out", "pawn_passed"]);
            outcomes.1 += 1;
        }
        let seqs: Vec<i64> =
            sqlx::query_scalar("SELECT seq FROM game_events WHERE game_id = $1 ORDER BY seq")
                .bind(game)
                .fetch_all(&w.app.pool)
                .await
                .unwrap();
        assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
        // Done with this game: its next clock must not time out in the rounds after, when
        // the clock is moved on for their games.
        sqlx::query("DELETE FROM deadlines WHERE game_id = $1")
            .bind(game)
            .execute(&w.app.pool)
            .await
            .unwrap();
    }
    assert_eq!(outcomes.0 + outcomes.1, 8);
}

#[tokio::test]
async fn a_vacation_stops_the_clocks_within_the_yearly_allowance() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let game = timed_game(&w.app, "steel-driver", json!({"days_per_move": 1}), &table).await;
    let away = first_to_act(&w.app, game, &table).await;
    let due = || async {
        let due: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
            "SELECT due_at FROM deadlines d JOIN game_seats s ON s.game_id = d.game_id AND s.seat = d.seat
              WHERE d.game_id = $1 AND s.user_id = $2",
        )
        .bind(game)
        .bind(away.id)
        .fetch_one(&w.app.pool)
        .await
        .unwrap();
        due
    };
    let before = due().await;
    let vacation = w
        .app
        .post("/me/vacation")
        .as_user(away)
        .json(&json!({"days": 2}))
        .send()
        .await;
    let vacation = vacation.assert_ok().clone();
    assert_eq!(vacation["on_vacation"], true);
    assert!(
        (vacation["days_left"].as_f64().unwrap() - 28.0).abs() < 0.01,
        "{vacation}"
    );
    let during = due().await;
    assert_eq!((during - before).num_hours(), 48);
    w.app
        .post("/me/vacation")
        .as_user(away)
        .json(&json!({"days": 1}))
        .send()
        .await
        .assert_problem(409, "already_on_vacation");
    // Ending early gives the unused days back and restarts the clock.
    let back = w.app.delete("/me/vacation").as_user(away).send().await;
    assert!(back.assert_ok()["days_left"].as_f64().unwrap() > 29.9);
    assert!((due().await - before).num_seconds().abs() < 5);
    w.app
        .post("/me/vacation")
        .as_user(away)
        .json(&json!({"days": 31}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
    w.app
        .delete("/me/vacation")
        .as_user(away)
        .send()
        .await
        .assert_problem(409, "not_on_vacation");

    // A turn that comes to a player on vacation starts when the vacation ends.
    let other = table.iter().find(|p| p.id != away.id).unwrap();
    w.app
        .post("/me/vacation")
        .as_user(other)
        .json(&json!({"days": 3}))
        .send()
        .await
        .assert_ok();
    let until: chrono::DateTime<chrono::Utc> =
        w.app.get("/me/vacation").as_user(other).send().await.body["until"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
    for _ in 0..20 {
        let state = detail(&w.app, game, &table[0]).await;
        let pending = state["pending"][0].as_u64().unwrap() as usize;
        if table[pending].id == other.id {
            break;
        }
        bots::play(&w.app, game, &table, bots::steel_driver, 1, 1).await;
    }
    let started: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
        "SELECT turn_started_at FROM deadlines d JOIN game_seats s ON s.game_id = d.game_id AND s.seat = d.seat
          WHERE d.game_id = $1 AND s.user_id = $2",
    )
    .bind(game)
    .bind(other.id)
    .fetch_one(&w.app.pool)
    .await
    .unwrap();
    assert!(
        (started - until).num_seconds().abs() < 2,
        "{started} vs {until}"
    );
}

#[tokio::test]
async fn a_forfeited_seat_is_played_out_by_the_bot_and_ranks_last() {
    let w = world().await;
    let (table, game, gone) = timed_out_once(&w, "forfeit").await;
    let seat = detail(&w.app, game, &gone).await["your_seat"]
        .as_u64()
        .unwrap() as usize;
    w.app
        .post(&format!("/games/{game}/return"))
        .as_user(&gone)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "seat_forfeited");
    // Everyone else plays on (through the API); the bot plays the forfeited seat.
    for step in 0..5000 {
        let state = detail(&w.app, game, &table[0]).await;
        if state["status"] == "finished" {
            break;
        }
        let pending = state["pending"][0].as_u64().unwrap() as usize;
        if pending == seat {
            w.app.run_deadlines().await;
        } else {
            bots::play(&w.app, game, &table, bots::steel_driver, step, 1).await;
        }
    }
    let end = detail(&w.app, game, &table[0]).await;
    assert_eq!(end["status"], "finished");
    let ranks = end["outcome"]["ranks"].as_array().unwrap();
    let worst = ranks.iter().map(|r| r.as_u64().unwrap()).max().unwrap();
    assert_eq!(ranks[seat].as_u64().unwrap(), worst);
    assert!(
        !end["outcome"]["winners"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_u64() == Some(seat as u64))
    );
    // And the game still verifies, bot moves and forfeit included.
    w.app.assert_verified(game, &table[0]).await;
}

#[tokio::test]
async fn games_waiting_for_a_player_are_listed_most_urgent_first() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let mut ids = Vec::new();
    for control in [
        json!({"days_per_move": 3}),
        json!(null),
        json!({"days_per_move": 1}),
    ] {
        let game = if control.is_null() {
            w.app.start_game("steel-driver", json!({}), &table).await
        } else {
            timed_game(&w.app, "steel-driver", control, &table).await
        };
        // Play until it is anna's turn.
        for step in 0..30 {
            if first_to_act(&w.app, game, &table).await.id == table[0].id {
                break;
            }
            bots::play(&w.app, game, &table, bots::steel_driver, step, 1).await;
        }
        assert_eq!(first_to_act(&w.app, game, &table).await.id, table[0].id);
        ids.push(game.to_string());
    }
    let listed = w
        .app
        .get("/games?view=my_turn")
        .as_user(&table[0])
        .send()
        .await;
    let order: Vec<&str> = listed.assert_ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    // One day to go, then three days, then the game without a clock.
    assert_eq!(order, [ids[2].as_str(), ids[0].as_str(), ids[1].as_str()]);
}

#[tokio::test]
async fn nobody_times_out_on_vacation_even_when_a_turn_raced_the_vacation() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let game = timed_game(
        &w.app,
        "steel-driver",
        json!({"seconds_per_move": MOVE_SECS}),
        &table,
    )
    .await;
    let away = first_to_act(&w.app, game, &table).await;
    // A vacation that began as this turn was armed: its clock was not moved.
    sqlx::query("INSERT INTO vacations (user_id, starts_at, ends_at) VALUES ($1, now(), now() + interval '2 days')")
        .bind(away.id)
        .execute(&w.app.pool)
        .await
        .unwrap();
    advance(&w, MOVE_SECS + 1);
    let pass = w.app.run_deadlines().await;
    assert_eq!(pass.timeouts, 0, "{pass:?}");
    let types = types_after(&w.app, game, 0).await;
    assert!(
        !types.iter().any(|t| t == "kontor.turn_timed_out"),
        "{types:?}"
    );
    let (started, due): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) =
        sqlx::query_as(
            "SELECT turn_started_at, due_at FROM deadlines d JOIN game_seats s
             ON s.game_id = d.game_id AND s.seat = d.seat
          WHERE d.game_id = $1 AND s.user_id = $2",
        )
        .bind(game)
        .bind(away.id)
        .fetch_one(&w.app.pool)
        .await
        .unwrap();
    assert!(
        (started - chrono::Utc::now()).num_hours() >= 47,
        "the clock waits for the vacation's end"
    );
    assert_eq!((due - started).num_seconds(), MOVE_SECS as i64);
}

/// The page and the mail must agree on when a move is due: the seat to move carries its
/// deadline (the move's time and its bank), the one the deadline worker acts on.
#[tokio::test]
async fn the_seat_to_move_shows_the_deadline_its_clock_runs_to() {
    let w = world().await;
    let table = players(&w.app, &["anna", "bert", "cleo"]).await;
    let control = json!({"seconds_per_move": MOVE_SECS, "bank_seconds": 600});
    let game = timed_game(&w.app, "steel-driver", control, &table).await;
    let first = first_to_act(&w.app, game, &table).await;
    let seen = detail(&w.app, game, first).await;
    let due: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
        "SELECT due_at FROM deadlines WHERE game_id = $1 AND kind = 'turn' AND seat = $2",
    )
    .bind(game)
    .bind(seen["your_seat"].as_i64().unwrap() as i16)
    .fetch_one(&w.app.pool)
    .await
    .unwrap();
    let started = chrono::DateTime::parse_from_rfc3339(seen["turn_started_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    // The move's minute and the ten minutes of the bank.
    assert_eq!((due - started).num_seconds(), 660);
    for seat in seen["seats"].as_array().unwrap() {
        let to_move = seat["seat"] == seen["your_seat"];
        let shown = seat["deadline"]
            .as_str()
            .map(|d| chrono::DateTime::parse_from_rfc3339(d).unwrap());
        if to_move {
            assert_eq!(shown.unwrap(), due, "{seat}");
        } else {
            assert!(seat["deadline"].is_null(), "{seat}");
        }
    }
    // Others see the same, in the lobby too.
    let other = table.iter().find(|p| p.name != first.name).unwrap();
    let listed = w
        .app
        .get("/games?view=mine")
        .as_user(other)
        .send()
        .await
        .assert_ok()["items"][0]["seats"]
        .clone();
    let shown: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["deadline"].is_null())
        .collect();
    assert_eq!(shown.len(), 1, "{listed}");
}
