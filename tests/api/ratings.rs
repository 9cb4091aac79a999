//! Ratings (issue 24) through the real server and PostgreSQL: the `rated` table setting; the
//! update against Weng and Lin's formulas computed here independently; rated games played to
//! their end judged exactly once (a crash rolled back, two appliers at once); the rebuild
//! reproducing the stored values exactly, and finding and repairing a difference.

use crate::bots;
use crate::support::*;
use kontor::service::competition::ratings::{self, Rating};
use serde_json::json;
use uuid::Uuid;

#[tokio::test]
async fn a_table_is_unrated_unless_created_rated_and_never_rated_with_consent_undo() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    let create = |options: serde_json::Value| json!({"kind": "steel-driver", "seats": 3, "options": options});

    // Default: unrated, stored explicitly.
    let plain = app
        .post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa"})))
        .send()
        .await;
    assert_eq!(plain.assert_ok()["options"]["rated"], false);
    let id = plain.body["id"].as_str().unwrap().to_string();
    let detail = app.get(&format!("/games/{id}")).as_user(&ann).send().await;
    assert_eq!(detail.assert_ok()["options"]["rated"], false);

    let rated = app
        .post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa", "rated": true, "undo": "own"})))
        .send()
        .await;
    assert_eq!(rated.assert_ok()["options"]["rated"], true);
    assert_eq!(rated.body["options"]["undo"], "own");

    // Consent undo on a rated table: refused (422 like every invalid option), nothing created.
    let before = app.fingerprint().await;
    let refused = app
        .post("/games")
        .as_user(&ann)
        .json(&create(
            json!({"map": "usa", "rated": true, "undo": "consent"}),
        ))
        .send()
        .await;
    let problem = refused.assert_problem(422, "invalid_options");
    assert_eq!(problem["field"], "rated");
    assert!(problem["detail"].as_str().unwrap().contains("consent"));
    // Not a boolean: refused too.
    app.post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa", "rated": "yes"})))
        .send()
        .await
        .assert_problem(422, "invalid_options");
    assert_eq!(app.fingerprint().await, before);

    // Unrated with consent is fine.
    let consent = app
        .post("/games")
        .as_user(&ann)
        .json(&create(
            json!({"map": "usa", "rated": false, "undo": "consent"}),
        ))
        .send()
        .await;
    assert_eq!(consent.assert_ok()["options"]["rated"], false);
}

/// Weng and Lin (JMLR 2011), Algorithm 1 (the Bradley–Terry model, full pairing), each seat a
/// team of one, written here from the paper rather than the crate: for each seat i and every
/// other q, c = sqrt(σ_i² + σ_q² + 2β²), p = e^{μ_i/c} / (e^{μ_i/c} + e^{μ_q/c}), s = 1 if i
/// ranks above q, 1/2 on a tie, 0 below; Ω_i += σ_i²/c·(s − p); Δ_i += γ·σ_i²/c²·p(1 − p)
/// with γ = σ_i/c; then μ_i += Ω_i and σ_i² ·= max(1 − Δ_i, κ). β = 25/6, κ = 1e-6.
fn paper(before: &[Rating], ranks: &[u16]) -> Vec<Rating> {
    let beta: f64 = 25.0 / 6.0;
    let kappa = 1e-6;
    (0..before.len())
        .map(|i| {
            let (mu, sigma) = (before[i].mu, before[i].sigma);
            let (mut omega, mut delta) = (0.0, 0.0);
            for q in (0..before.len()).filter(|&q| q != i) {
                let c =
                    (sigma * sigma + before[q].sigma * before[q].sigma + 2.0 * beta * beta).sqrt();
                let (ei, eq) = ((mu / c).exp(), (before[q].mu / c).exp());
                let p = ei / (ei + eq);
                let s = match ranks[i].cmp(&ranks[q]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                omega += sigma * sigma / c * (s - p);
                let gamma = sigma / c;
                delta += gamma * sigma * sigma / (c * c) * p * (1.0 - p);
            }
            Rating {
                mu: mu + omega,
                sigma: (sigma * sigma * (1.0 - delta).max(kappa)).sqrt(),
            }
        })
        .collect()
}

fn assert_close(got: &[Rating], want: &[Rating]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g.mu - w.mu).abs() < 1e-9 && (g.sigma - w.sigma).abs() < 1e-9,
            "{got:?} != {want:?}"
        );
    }
}

#[test]
fn updates_for_three_to_six_seats_with_ties_follow_the_papers_formulas() {
    let varied = |n: usize| -> Vec<Rating> {
        (0..n)
            .map(|i| Rating {
                mu: 18.0 + 3.7 * i as f64,
                sigma: 8.0 - 0.9 * i as f64,
            })
            .collect()
    };
    let cases: Vec<Vec<u16>> = vec![
        vec![1, 2, 3],
        vec![1, 1, 3],
        vec![2, 1, 2, 4],
        vec![1, 2, 2, 2],
        vec![3, 1, 5, 1, 3],
        vec![1, 1, 1, 4, 5],
        vec![6, 5, 4, 3, 2, 1],
        vec![2, 2, 1, 4, 4, 4],
    ];
    for ranks in cases {
        for before in [vec![Rating::initial(); ranks.len()], varied(ranks.len())] {
            let got = ratings::update(&before, &ranks);
            assert_close(&got, &paper(&before, &ranks));
            // The numbers move: a winner alone on top gains, the last alone loses.
            let best = ranks.iter().position(|&r| r == 1).unwrap();
            if ranks.iter().filter(|&&r| r == 1).count() == 1 {
                assert!(got[best].mu > before[best].mu, "{ranks:?}");
            }
        }
    }
}

/// Registered players `names`.
async fn players(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut users = Vec::new();
    for name in names {
        users.push(app.register(name).await);
    }
    users
}

/// A rated three-seat Steel Driver game played to its end by the API bots.
async fn rated_game(app: &TestApp, table: &[User], seed: u64) -> Uuid {
    let game = app
        .start_game("steel-driver", json!({"rated": true}), table)
        .await;
    bots::play_to_end(app, game, table, bots::steel_driver, seed).await;
    game
}

/// The stored updates of a game: (user, rank, μ before, σ before, μ after, σ after) by seat.
async fn updates(app: &TestApp, game: Uuid) -> Vec<(Uuid, i16, Rating, Rating)> {
    let rows: Vec<(Uuid, i16, f64, f64, f64, f64)> = sqlx::query_as(
        "SELECT user_id, rank, mu_before, sigma_before, mu_after, sigma_after
           FROM rating_updates WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(u, r, mb, sb, ma, sa)| {
            (
                u,
                r,
                Rating { mu: mb, sigma: sb },
                Rating { mu: ma, sigma: sa },
            )
        })
        .collect()
}

async fn user_id(app: &TestApp, name: &str) -> Uuid {
    sqlx::query_scalar("SELECT id FROM users WHERE username = $1")
        .bind(name)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn count(app: &TestApp, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.unwrap()
}

#[tokio::test]
async fn rated_games_move_ratings_exactly_once_and_the_rebuild_reproduces_them() {
    let app = spawn_app().await;
    let table = players(&app, &["ann", "bob", "cyd", "dee"]).await;
    let first = rated_game(&app, &table[..3], 11).await;
    let second_table = [table[0].clone(), table[1].clone(), table[3].clone()];
    let second = rated_game(&app, &second_table, 12).await;
    // An unrated table, played to its end too: judged, moves nothing.
    let unrated = app.start_game("steel-driver", json!({}), &table[1..]).await;
    bots::play_to_end(&app, unrated, &table[1..], bots::steel_driver, 13).await;
    assert_eq!(count(&app, "SELECT count(*) FROM rating_pending").await, 3);

    // A crash between the game's end and its rating: the judgement rolled back.
    let mut tx = app.pool.begin().await.unwrap();
    assert!(
        ratings::judge_next(&mut tx, chrono::Utc::now())
            .await
            .unwrap()
    );
    tx.rollback().await.unwrap();
    assert_eq!(count(&app, "SELECT count(*) FROM rating_games").await, 0);
    assert_eq!(count(&app, "SELECT count(*) FROM ratings").await, 0);

    // Two appliers at once (two instances): every game judged once, in all.
    let (a, b) = tokio::join!(
        ratings::process_due(&app.pool, chrono::Utc::now()),
        ratings::process_due(&app.pool, chrono::Utc::now())
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    // The one that lost the lock may have judged nothing or taken over after the other.
    let rest = ratings::process_due(&app.pool, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(a + b + rest, 3, "{a} + {b} + {rest}");
    assert_eq!(
        ratings::process_due(&app.pool, chrono::Utc::now())
            .await
            .unwrap(),
        0
    );
    assert_eq!(count(&app, "SELECT count(*) FROM rating_games").await, 3);
    assert_eq!(count(&app, "SELECT count(*) FROM rating_pending").await, 0);
    assert_eq!(count(&app, "SELECT count(*) FROM rating_updates").await, 6);
    let reason: Option<String> =
        sqlx::query_scalar("SELECT reason FROM rating_games WHERE game_id = $1")
            .bind(unrated)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(reason.as_deref(), Some("not_rated_table"));
    // Judged in the order the games ended.
    let order: Vec<Uuid> = sqlx::query_scalar("SELECT game_id FROM rating_games ORDER BY seq")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(order, vec![first, second, unrated]);

    // The first game: everyone new, ranked as the engine ranked them.
    let detail = app
        .get(&format!("/games/{first}"))
        .as_user(&table[0])
        .send()
        .await;
    let engine_ranks: Vec<u16> = detail.assert_ok()["outcome"]["ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap() as u16)
        .collect();
    let first_updates = updates(&app, first).await;
    let ranks: Vec<u16> = first_updates.iter().map(|u| u.1 as u16).collect();
    assert_eq!(ranks, engine_ranks);
    let want = paper(&[Rating::initial(); 3], &ranks);
    let got: Vec<Rating> = first_updates.iter().map(|u| u.3).collect();
    assert_close(&got, &want);
    // The second game starts from ann's and bob's ratings after the first.
    let second_updates = updates(&app, second).await;
    let before: Vec<Rating> = second_updates.iter().map(|u| u.2).collect();
    assert_eq!(before[0], first_updates[0].3);
    assert_eq!(before[1], first_updates[1].3);
    assert_eq!(before[2], Rating::initial());
    let ranks: Vec<u16> = second_updates.iter().map(|u| u.1 as u16).collect();
    assert_close(
        &second_updates.iter().map(|u| u.3).collect::<Vec<_>>(),
        &paper(&before, &ranks),
    );
    // The current rating: the last update, two games, the displayed value.
    let ann = user_id(&app, "ann").await;
    let (mu, sigma, games, shown): (f64, f64, i32, i32) = sqlx::query_as(
        "SELECT mu, sigma, games, rating FROM ratings WHERE user_id = $1 AND kind = 'steel-driver'",
    )
    .bind(ann)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        (mu, sigma, games),
        (second_updates[0].3.mu, second_updates[0].3.sigma, 2)
    );
    assert_eq!(shown, (1000.0 + 40.0 * (mu - 3.0 * sigma)).round() as i32);
    // What the worker stored is what ann's public profile and rating history show.
    let profile = app.get("/players/ann").as_user(&table[1]).send().await;
    let rating = &profile.assert_ok()["ratings"][0];
    assert_eq!(rating["kind"], "steel-driver");
    assert_eq!(rating["rating"], shown);
    assert_eq!(rating["games"], 2);
    assert_eq!(rating["provisional"], true, "two games are too few");
    let history = app
        .get("/players/ann/ratings/steel-driver")
        .as_user(&table[1])
        .send()
        .await;
    let history = history.assert_ok()["items"].as_array().unwrap().clone();
    let games: Vec<_> = history.iter().map(|h| h["game_id"].clone()).collect();
    assert_eq!(games, vec![json!(second), json!(first)], "newest first");
    assert_eq!(history[0]["rating_after"], shown);
    assert_eq!(history[0]["rating_before"], history[1]["rating_after"]);
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM ratings WHERE kind = 'steel-driver'"
        )
        .await,
        4
    );

    // The rebuild finds exactly what is stored.
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(ok, "{out}");
    assert!(
        out.contains("3 judged game(s); 0 game(s) and 0 current rating(s) differed"),
        "{out}"
    );
    // A tampered rating is found, and the rebuild restores it from the logs.
    sqlx::query("UPDATE ratings SET mu = mu + 1 WHERE user_id = $1")
        .bind(ann)
        .execute(&app.pool)
        .await
        .unwrap();
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(!ok, "{out}");
    let (ok, out) = app.kontor(&["ratings", "rebuild"]).await;
    assert!(ok && out.contains("1 current rating(s) differed"), "{out}");
    let mu_after: f64 = sqlx::query_scalar("SELECT mu FROM ratings WHERE user_id = $1")
        .bind(ann)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(mu_after, mu);
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(ok, "{out}");
    // A tampered update (the audit trail) likewise.
    sqlx::query("UPDATE rating_updates SET mu_after = 99 WHERE game_id = $1 AND seat = 1")
        .bind(second)
        .execute(&app.pool)
        .await
        .unwrap();
    let (ok, out) = app.kontor(&["ratings", "rebuild"]).await;
    assert!(
        ok && out.contains("1 game(s) and 0 current rating(s) differed"),
        "{out}"
    );
    assert_eq!(updates(&app, second).await, second_updates);
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(ok, "{out}");
}

#[tokio::test]
async fn a_rated_game_abandoned_in_its_first_round_moves_nothing() {
    let w = spawn_mailed_app(&[]).await;
    let app = &w.app;
    let table = players(app, &["ann", "bob", "cyd"]).await;
    let control = json!({"seconds_per_move": 60, "abandon_after": 1, "on_abandon": "forfeit"});
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "options": {"rated": true}, "time_control": control}),
            &table,
        )
        .await;
    // The first seat to act lets its time run out: abandoned before anyone else moved.
    let first = app
        .get(&format!("/games/{game}"))
        .as_user(&table[0])
        .send()
        .await
        .assert_ok()["pending"][0]
        .as_u64()
        .unwrap() as usize;
    app.clock.advance(std::time::Duration::from_secs(61));
    assert_eq!(app.run_deadlines().await.timeouts, 1);
    // The others play on; the bot plays the forfeited seat.
    for step in 0..5000 {
        let state = app
            .get(&format!("/games/{game}"))
            .as_user(&table[0])
            .send()
            .await
            .assert_ok()
            .clone();
        if state["status"] == "finished" {
            break;
        }
        if state["pending"][0].as_u64().unwrap() as usize == first {
            app.run_deadlines().await;
        } else {
            bots::play(app, game, &table, bots::steel_driver, step, 1).await;
        }
    }
    assert_eq!(
        ratings::process_due(&app.pool, chrono::Utc::now())
            .await
            .unwrap(),
        1
    );
    let (rated, reason): (bool, Option<String>) =
        sqlx::query_as("SELECT rated, reason FROM rating_games WHERE game_id = $1")
            .bind(game)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(!rated);
    assert_eq!(reason.as_deref(), Some("first_round"));
    assert_eq!(count(app, "SELECT count(*) FROM rating_updates").await, 0);
    assert_eq!(count(app, "SELECT count(*) FROM ratings").await, 0);
}

#[tokio::test]
async fn a_finished_rated_game_wakes_the_rating_worker() {
    // The worker's safety-net poll is an hour: only being woken by the game's end can judge
    // the game while the test waits.
    let app = spawn_app_with(AppOptions {
        settings: std::collections::HashMap::from([
            ("KONTOR_WORKERS".to_string(), "true".to_string()),
            ("KONTOR_RATINGS_POLL".to_string(), "3600".to_string()),
        ]),
    })
    .await;
    let table = players(&app, &["ann", "bob", "cyd"]).await;
    let game = rated_game(&app, &table, 21).await;
    let mut judged = 0;
    for _ in 0..300 {
        judged = count(&app, "SELECT count(*) FROM rating_games").await;
        if judged == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(judged, 1, "the worker was not woken by the game's end");
    assert_eq!(updates(&app, game).await.len(), 3);
    assert_eq!(count(&app, "SELECT count(*) FROM ratings").await, 3);
    assert_eq!(count(&app, "SELECT count(*) FROM rating_pending").await, 0);
}

/// Plays `game` to its end: `players[0]` by the API bot; the other seats each make one move of
/// their own and then let their time run out, so that the bot plays them (abandoned, never
/// returned), as throwaway accounts farming a rating would.
async fn farmed_game(app: &TestApp, players: &[User], seed: u64) -> Uuid {
    let control = json!({"seconds_per_move": 60, "abandon_after": 1, "on_abandon": "bot"});
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "options": {"rated": true}, "time_control": control}),
            players,
        )
        .await;
    let mut rng = kontor::games::GameRng::from_u64(seed);
    let mut moved = vec![false; players.len()];
    moved[0] = true;
    for _ in 0..20_000 {
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        let detail = detail.assert_ok().clone();
        if detail["status"] == "finished" {
            return game;
        }
        let seat = detail["pending"][0].as_u64().unwrap() as usize;
        if seat == 0 || !moved[seat] {
            let mine = app
                .get(&format!("/games/{game}"))
                .as_user(&players[seat])
                .send()
                .await;
            let mine = mine.assert_ok().clone();
            let action = bots::steel_driver(&mine["legal"], &mine, &mut rng);
            let reply = app
                .act(&players[seat], game)
                .version(mine["version"].as_i64().unwrap())
                .send(&action)
                .await;
            assert_eq!(reply.status, 200, "{}", reply.text);
            moved[seat] = true;
        } else {
            // A throwaway seat's turn: its time runs out, and the bot plays it from then on.
            app.clock.advance(std::time::Duration::from_secs(61));
            app.run_deadlines().await;
        }
    }
    panic!("the farmed game did not end");
}

#[tokio::test]
async fn throwaway_accounts_that_let_the_bot_play_raise_no_ones_rating() {
    let app = spawn_app().await;
    let table = players(&app, &["main", "alt_one", "alt_two"]).await;
    let mut games = Vec::new();
    for seed in 0..3 {
        games.push(farmed_game(&app, &table, 40 + seed).await);
    }
    while ratings::process_due(&app.pool, chrono::Utc::now())
        .await
        .unwrap()
        > 0
    {}
    let main = user_id(&app, "main").await;
    for game in &games {
        let (rated, reason): (bool, Option<String>) =
            sqlx::query_as("SELECT rated, reason FROM rating_games WHERE game_id = $1")
                .bind(game)
                .fetch_one(&app.pool)
                .await
                .unwrap();
        assert!(rated, "{reason:?}");
        let rows = updates(&app, *game).await;
        // The abandoned seats lost, ranked last together; the one who stayed is not rated by
        // a game against the bot.
        assert_eq!(rows.len(), 2, "{rows:?}");
        for (user, rank, before, after) in rows {
            assert_ne!(user, main);
            assert_eq!(rank, 2);
            assert!(after.mu < before.mu, "{before:?} → {after:?}");
        }
    }
    assert_eq!(
        count(&app, "SELECT count(*) FROM ratings WHERE user_id = (SELECT id FROM users WHERE username = 'main')").await,
        0,
        "the main account's rating did not move"
    );
    let profile = app.get("/players/main").as_user(&table[1]).send().await;
    assert_eq!(profile.assert_ok()["ratings"], json!([]));
    let alt = app.get("/players/alt_one").as_user(&table[0]).send().await;
    let shown = alt.assert_ok()["ratings"][0]["rating"].as_i64().unwrap();
    assert!(shown < 1000, "the throwaway account lost: {shown}");
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(ok, "{out}");

    // Judgements an older judge made are rebuilt before anything new is judged: the ratings
    // become what the current judge makes of the whole history.
    sqlx::query("UPDATE rating_games SET judge_version = 1")
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE ratings SET mu = 40, rating = 1600")
        .execute(&app.pool)
        .await
        .unwrap();
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(!ok, "an older judge's work differs: {out}");
    let rebuilt = ratings::bring_up_to_date(&app.pool, chrono::Utc::now())
        .await
        .unwrap()
        .expect("rebuilt");
    assert_eq!(rebuilt.games, 3);
    let current: i16 = sqlx::query_scalar("SELECT min(judge_version) FROM rating_games")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(current, ratings::JUDGE_VERSION);
    let again = app.get("/players/alt_one").as_user(&table[0]).send().await;
    assert_eq!(again.assert_ok()["ratings"][0]["rating"], shown);
    let (ok, out) = app.kontor(&["ratings", "rebuild", "--check"]).await;
    assert!(ok, "{out}");
    assert!(
        ratings::bring_up_to_date(&app.pool, chrono::Utc::now())
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn rated_play_is_for_verified_accounts_unless_the_operator_says_otherwise() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    let fresh = app.register_unverified("fresh").await;
    let create =
        |rated: bool| json!({"kind": "steel-driver", "seats": 3, "options": {"rated": rated}});
    let before = app.fingerprint().await;
    let refused = app
        .post("/games")
        .as_user(&fresh)
        .json(&create(true))
        .send()
        .await;
    assert!(
        refused.assert_problem(403, "email_not_verified")["detail"]
            .as_str()
            .unwrap()
            .contains("rated"),
        "{}",
        refused.text
    );
    assert_eq!(app.fingerprint().await, before, "nothing was created");
    // Unrated play is open to it, as before.
    app.post("/games")
        .as_user(&fresh)
        .json(&create(false))
        .send()
        .await
        .assert_ok();
    // A verified account's rated table: the unverified one may not sit down.
    let rated = app
        .post("/games")
        .as_user(&ann)
        .json(&create(true))
        .send()
        .await;
    let game = rated.assert_ok()["id"].as_str().unwrap().to_string();
    app.post(&format!("/games/{game}/join"))
        .as_user(&fresh)
        .send()
        .await
        .assert_problem(403, "email_not_verified");
    // Nor enter a rated tournament.
    let tournament = app
        .post("/tournaments")
        .as_user(&ann)
        .json(&json!({
            "name": "Rated cup", "kind": "steel-driver", "format": "swiss", "seats_per_table": 3,
            "rounds": 1, "rated": true, "max_players": 12,
            "entry_closes_at": (app.config.clock.now() + chrono::Duration::days(1)).to_rfc3339(),
        }))
        .send()
        .await;
    let tournament = tournament.assert_ok()["id"].as_str().unwrap().to_string();
    app.post(&format!("/tournaments/{tournament}/join"))
        .as_user(&fresh)
        .send()
        .await
        .assert_problem(403, "email_not_verified");

    // KONTOR_UNVERIFIED_MAY_PLAY_RATED=true lets it.
    let open = spawn_app_with(AppOptions {
        settings: [(
            "KONTOR_UNVERIFIED_MAY_PLAY_RATED".to_string(),
            "true".to_string(),
        )]
        .into(),
    })
    .await;
    let fresh = open.register_unverified("fresh").await;
    open.post("/games")
        .as_user(&fresh)
        .json(&create(true))
        .send()
        .await
        .assert_ok();
}
