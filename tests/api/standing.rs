//! Players' standing: public profiles, rating histories, leaderboards and the "my games"
//! result filter. Privacy first: a private game never shows, a deleted account has no
//! profile, a blocked caller sees the same public profile.
//!
//! The rating worker (helper A's) is not part of this branch yet: the tests here write the
//! rating tables themselves, through `seed_rated_game` and `seed_rating` below (clearly test
//! fixtures, standing in for the worker), over games really played to their end.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use uuid::Uuid;

/// A three-player Steel Driver game, public or private, played to its end by bots.
async fn finished_game(app: &TestApp, table: &[User], visibility: &str, seed: u64) -> Uuid {
    let created = app
        .post("/games")
        .as_user(&table[0])
        .json(&json!({"kind": "steel-driver", "seats": table.len(),
                      "options": {"map": "usa"}, "visibility": visibility}))
        .send()
        .await;
    let game: Uuid = created.assert_ok()["id"].as_str().unwrap().parse().unwrap();
    for player in &table[1..] {
        if visibility == "private" {
            app.post(&format!("/games/{game}/invitations"))
                .as_user(&table[0])
                .json(&json!({"username": player.name}))
                .send()
                .await
                .assert_ok();
        }
        app.post(&format!("/games/{game}/join"))
            .as_user(player)
            .json(&json!({}))
            .send()
            .await
            .assert_ok();
    }
    bots::play_to_end(app, game, table, bots::steel_driver, seed).await;
    game
}

/// TEST FIXTURE standing in for the rating worker: records `game` as judged and rated, with
/// each seat's (μ, σ) before and after, and sets each player's current rating to the
/// "after" values (with `games` rated games). Ranks are read from the game's outcome.
async fn seed_rated_game(app: &TestApp, game: Uuid, updates: &[(f64, f64, f64, f64)], games: i32) {
    let (kind, finished_at, outcome): (String, chrono::DateTime<chrono::Utc>, Value) =
        sqlx::query_as("SELECT kind, finished_at, outcome FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    sqlx::query(
        "INSERT INTO rating_games (game_id, kind, rated, reason, finished_at, judged_at,
                                   judge_version)
         VALUES ($1, $2, true, NULL, $3, now(), $4)",
    )
    .bind(game)
    .bind(&kind)
    .bind(finished_at)
    .bind(kontor::service::competition::ratings::JUDGE_VERSION)
    .execute(&app.pool)
    .await
    .unwrap();
    let seats: Vec<(i16, Uuid)> =
        sqlx::query_as("SELECT seat, user_id FROM game_seats WHERE game_id = $1 ORDER BY seat")
            .bind(game)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    for ((seat, user), &(mu_b, sigma_b, mu_a, sigma_a)) in seats.into_iter().zip(updates) {
        let rank = outcome["ranks"][seat as usize].as_i64().unwrap() as i16;
        sqlx::query(
            "INSERT INTO rating_updates (game_id, seat, user_id, kind, rank, mu_before,
                                         sigma_before, mu_after, sigma_after)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(game)
        .bind(seat)
        .bind(user)
        .bind(&kind)
        .bind(rank)
        .bind(mu_b)
        .bind(sigma_b)
        .bind(mu_a)
        .bind(sigma_a)
        .execute(&app.pool)
        .await
        .unwrap();
        seed_rating(app, user, &kind, mu_a, sigma_a, games).await;
    }
}

/// TEST FIXTURE standing in for the rating worker: sets a player's current rating.
async fn seed_rating(app: &TestApp, user: Uuid, kind: &str, mu: f64, sigma: f64, games: i32) {
    let rating = kontor::service::competition::ratings::display(
        kontor::service::competition::ratings::Rating { mu, sigma },
    );
    sqlx::query(
        "INSERT INTO ratings (user_id, kind, mu, sigma, games, rating, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (user_id, kind) DO UPDATE
            SET mu = $3, sigma = $4, games = $5, rating = $6, updated_at = now()",
    )
    .bind(user)
    .bind(kind)
    .bind(mu)
    .bind(sigma)
    .bind(games)
    .bind(rating)
    .execute(&app.pool)
    .await
    .unwrap();
}

async fn profile(app: &TestApp, of: &str, by: &User) -> Reply {
    app.get(&format!("/players/{of}")).as_user(by).send().await
}

fn ids(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_profile_shows_public_games_and_ratings_and_nothing_of_a_private_game() {
    let app = spawn_app().await;
    let table = [
        app.register("anna").await,
        app.register("ben").await,
        app.register("cleo").await,
    ];
    let dave = app.register("dave").await;
    let public = finished_game(&app, &table, "public", 7).await;
    let private = finished_game(&app, &table, "private", 8).await;
    // A running private game: not in the counts either.
    let running = app
        .post("/games")
        .as_user(&table[0])
        .json(&json!({"kind": "steel-driver", "seats": 3, "visibility": "private"}))
        .send()
        .await;
    let running = running.assert_ok()["id"].as_str().unwrap().to_string();
    // Both finished games rated: the private one last, so it moved the current rating.
    let start = (25.0, 25.0 / 3.0);
    seed_rated_game(
        &app,
        public,
        &[
            (start.0, start.1, 27.0, 7.5),
            (start.0, start.1, 25.0, 7.5),
            (start.0, start.1, 23.0, 7.5),
        ],
        1,
    )
    .await;
    seed_rated_game(
        &app,
        private,
        &[
            (27.0, 7.5, 28.0, 7.0),
            (25.0, 7.5, 25.0, 7.0),
            (23.0, 7.5, 22.0, 7.0),
        ],
        2,
    )
    .await;

    let shown = profile(&app, "ANNA", &dave).await;
    let shown = shown.assert_ok();
    assert_eq!(shown["username"], "anna");
    assert_eq!(shown["display_name"], Value::Null);
    let joined = shown["joined_at"].as_str().unwrap();
    assert_eq!(joined.len(), 10, "a date only: {joined}");
    assert_eq!(shown["games_played"], 1);
    assert_eq!(shown["games_finished"], 1);
    let recent = shown["recent"].as_array().unwrap();
    assert_eq!(recent.len(), 1, "{recent:?}");
    assert_eq!(recent[0]["id"], public.to_string());
    assert_eq!(recent[0]["kind"], "steel-driver");
    let seats = recent[0]["seats"].as_array().unwrap();
    assert_eq!(
        seats
            .iter()
            .map(|s| s["username"].clone())
            .collect::<Vec<_>>(),
        [json!("anna"), json!("ben"), json!("cleo")]
    );
    let outcome = app
        .get(&format!("/games/{public}"))
        .as_user(&dave)
        .send()
        .await;
    let ranks = outcome.assert_ok()["outcome"]["ranks"].clone();
    for (seat, shown) in seats.iter().enumerate() {
        assert_eq!(shown["rank"], ranks[seat]);
    }
    assert_eq!(
        recent[0]["rating_change"],
        json!({"before": 1000, "after": 1180})
    );
    // The rating is the current one: the private game moved it and counts in `games`.
    assert_eq!(
        shown["ratings"],
        json!([{"kind": "steel-driver", "rating": 1000 + 40 * 7, "mu": 28.0, "sigma": 7.0,
                "games": 2, "provisional": true}])
    );
    let text = shown.to_string();
    for hidden in [private.to_string(), running] {
        assert!(!text.contains(&hidden), "{hidden} leaked: {text}");
    }

    // The history: the public game only, its before and after.
    let history = app
        .get("/players/anna/ratings/steel-driver")
        .as_user(&dave)
        .send()
        .await;
    let history = history.assert_ok();
    assert_eq!(history["items"].as_array().unwrap().len(), 1, "{history}");
    let entry = &history["items"][0];
    assert_eq!(entry["game_id"], public.to_string());
    assert_eq!(entry["rating_before"], 1000);
    assert_eq!(entry["rating_after"], 1180);
    assert_eq!(entry["mu_after"], 27.0);
    assert_eq!(entry["seats"].as_array().unwrap().len(), 3);
    assert_eq!(history["next_cursor"], Value::Null);
    assert!(!history.to_string().contains(&private.to_string()));
    // No rating in a kind: an empty history.
    let none = app
        .get("/players/anna/ratings/flying-dutchman")
        .as_user(&dave)
        .send()
        .await;
    assert_eq!(none.assert_ok()["items"], json!([]));

    // A blocked caller sees exactly what anyone sees.
    let blocked = app.put("/me/blocks/dave").as_user(&table[0]).send().await;
    assert!(blocked.status.is_success(), "{}", blocked.text);
    let blocked_view = profile(&app, "anna", &dave).await;
    let other_view = profile(&app, "anna", &table[1]).await;
    assert_eq!(blocked_view.assert_ok(), other_view.assert_ok());

    // A deleted account has no profile, exactly as a name no one has.
    let deleted = app
        .post("/me/delete")
        .as_user(&table[2])
        .json(&json!({"password": password_of("cleo")}))
        .send()
        .await
        .status;
    assert_eq!(deleted, 204);
    profile(&app, "cleo", &dave)
        .await
        .assert_problem(404, "player_not_found");
    profile(&app, "nobody", &dave)
        .await
        .assert_problem(404, "player_not_found");
    app.get("/players/cleo/ratings/steel-driver")
        .as_user(&dave)
        .send()
        .await
        .assert_problem(404, "player_not_found");
    // Public: a visitor signed out sees the same profile, history and leaderboard as anyone;
    // a token sent must be good (a bad one is no visitor).
    for path in [
        "/players/anna",
        "/players/anna/ratings/steel-driver",
        "/leaderboards/steel-driver",
    ] {
        let anonymous = app.get(path).send().await;
        let signed_in = app.get(path).as_user(&dave).send().await;
        assert_eq!(anonymous.status, 200, "{path}: {}", anonymous.text);
        assert_eq!(anonymous.body, signed_in.body, "{path}");
        app.get(path)
            .header("authorization", "Bearer not-a-token")
            .send()
            .await
            .assert_problem(401, "invalid_token");
    }
    app.get("/players/nobody")
        .send()
        .await
        .assert_problem(404, "player_not_found");
}

#[tokio::test]
async fn the_leaderboard_ranks_settled_live_players_and_pages() {
    let app = spawn_app().await;
    let kind = "flying-dutchman";
    let mut players = Vec::new();
    for name in ["ulla", "vera", "walt", "xena", "yuri", "zack", "omar"] {
        players.push(app.register(name).await);
    }
    // (player, μ, σ, games): vera and walt tie; xena is provisional by games, yuri by σ;
    // omar's account is deleted.
    let seeds = [
        (0, 30.0, 4.0, 9),
        (1, 28.0, 4.0, 6),
        (2, 28.0, 4.0, 5),
        (3, 40.0, 2.0, 4),
        (4, 40.0, 5.5, 30),
        (5, 22.0, 3.0, 12),
        (6, 45.0, 1.0, 50),
    ];
    for (player, mu, sigma, games) in seeds {
        seed_rating(&app, players[player].id, kind, mu, sigma, games).await;
    }
    let deleted = app
        .post("/me/delete")
        .as_user(&players[6])
        .json(&json!({"password": password_of("omar")}))
        .send()
        .await
        .status;
    assert_eq!(deleted, 204);
    let reader = &players[0];
    let board = app
        .get(&format!("/leaderboards/{kind}"))
        .as_user(reader)
        .send()
        .await;
    let board = board.assert_ok();
    assert_eq!(
        board["items"],
        json!([
            {"position": 1, "username": "ulla", "display_name": null, "rating": 1720, "games": 9},
            {"position": 2, "username": "vera", "display_name": null, "rating": 1640, "games": 6},
            {"position": 3, "username": "walt", "display_name": null, "rating": 1640, "games": 5},
            {"position": 4, "username": "zack", "display_name": null, "rating": 1520, "games": 12},
        ])
    );
    assert_eq!(board["next_cursor"], Value::Null);

    // Pages of one: the same order, positions continue.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            None => format!("/leaderboards/{kind}?limit=1"),
            Some(c) => format!("/leaderboards/{kind}?limit=1&cursor={c}"),
        };
        let page = app.get(&path).as_user(reader).send().await;
        let page = page.assert_ok().clone();
        let items = page["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "{page}");
        seen.push((
            items[0]["position"].as_i64().unwrap(),
            items[0]["username"].as_str().unwrap().to_string(),
        ));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(
        seen,
        [(1, "ulla"), (2, "vera"), (3, "walt"), (4, "zack")].map(|(p, n)| (p, n.to_string()))
    );

    // The other kind has no one yet.
    let empty = app
        .get("/leaderboards/steel-driver")
        .as_user(reader)
        .send()
        .await;
    assert_eq!(empty.assert_ok()["items"], json!([]));
}

#[tokio::test]
async fn standing_reads_refuse_bad_parameters_with_a_code() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    for path in [
        "/leaderboards/steel-driver?limit=0",
        "/leaderboards/steel-driver?limit=101",
        "/leaderboards/steel-driver?limit=ten",
        "/leaderboards/steel-driver?cursor=not-ours",
        "/leaderboards/steel-driver?cursor=MTIzNA",
        "/leaderboards/steel-driver?sort=rating",
        "/players/anna/ratings/steel-driver?limit=0",
        "/players/anna/ratings/steel-driver?cursor=eA",
        "/games?view=open&result=won",
        "/games?view=mine&result=won&status=active",
        "/games?view=mine&result=lost",
    ] {
        let reply = app.get(path).as_user(&anna).send().await;
        let code = reply.body["code"].clone();
        assert_eq!(reply.status, 400, "{path}: {}", reply.text);
        assert!(code == "invalid_parameter", "{path}: {code} {}", reply.text);
        assert!(!reply.body["detail"].as_str().unwrap().is_empty());
    }
    for path in ["/leaderboards/chess", "/players/anna/ratings/chess"] {
        app.get(path)
            .as_user(&anna)
            .send()
            .await
            .assert_problem(422, "unknown_game_kind");
    }
    app.get("/players/a%00b")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "player_not_found");
    let long = "x".repeat(300);
    app.get(&format!("/players/{long}"))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "player_not_found");
}

#[tokio::test]
async fn my_games_filter_by_result() {
    let app = spawn_app().await;
    let table = [
        app.register("anna").await,
        app.register("ben").await,
        app.register("cleo").await,
    ];
    let game = finished_game(&app, &table, "public", 11).await;
    // Another game of theirs, still open: never in a result list.
    let open = app.open_game(&table[0]).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&table[0])
        .send()
        .await;
    let ranks = detail.assert_ok()["outcome"]["ranks"].clone();
    for (seat, player) in table.iter().enumerate() {
        let won = ranks[seat] == 1;
        let mine = |result: &'static str| {
            app.get(&format!("/games?view=mine&result={result}"))
                .as_user(player)
                .send()
        };
        let (with, without) = if won {
            (mine("won").await, mine("not_won").await)
        } else {
            (mine("not_won").await, mine("won").await)
        };
        assert_eq!(ids(with.assert_ok()), [game.to_string()], "{}", player.name);
        assert!(ids(without.assert_ok()).is_empty(), "{}", player.name);
        // With status=finished and a kind, the same.
        let narrowed = app
            .get("/games?view=mine&status=finished&kind=steel-driver&result=won")
            .as_user(player)
            .send()
            .await;
        assert_eq!(ids(narrowed.assert_ok()).len(), usize::from(won));
    }
    let all = app.get("/games?view=mine").as_user(&table[0]).send().await;
    assert!(ids(all.assert_ok()).contains(&open));
}

/// The private values of each seat of a running Flying Dutchman game, as each seat's own view
/// shows them: `"shares":[…]` and `"horseshoes":[…]`, serialized as the API writes them.
async fn secrets_of(app: &TestApp, game: Uuid, seats: &[User]) -> Vec<String> {
    let mut secrets = Vec::new();
    for (seat, user) in seats.iter().enumerate() {
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(user)
            .send()
            .await;
        let mine = &detail.assert_ok()["view"]["players"][seat];
        for field in ["shares", "horseshoes"] {
            let value = &mine[field];
            assert!(value.is_array(), "seat {seat} sees its own {field}: {mine}");
            secrets.push(format!("\"{field}\":{value}"));
        }
    }
    secrets
}

/// Every standing read `reader` can make: each player's profile and rating history, the
/// leaderboard, the tournament list (every status), the tournament (its standings and rounds),
/// the reader's games history and the public finished list, and the reader's calendar feed.
async fn read_standing(app: &TestApp, reader: &User, names: &[&str], tournament: &str) -> String {
    let mut paths = vec![
        "/leaderboards/flying-dutchman".to_string(),
        "/tournaments".to_string(),
        "/tournaments?status=running".to_string(),
        "/tournaments?status=finished".to_string(),
        format!("/tournaments/{tournament}"),
        "/games?view=mine".to_string(),
        "/games?view=mine&status=active".to_string(),
        "/games?view=mine&status=finished".to_string(),
        "/games?view=finished".to_string(),
    ];
    for name in names {
        paths.push(format!("/players/{name}"));
        paths.push(format!("/players/{name}/ratings/flying-dutchman"));
        paths.push(format!("/players/{name}/ratings/steel-driver"));
    }
    let mut bodies = String::new();
    for path in paths {
        let reply = app.get(&path).as_user(reader).send().await;
        assert!(reply.status.is_success(), "{path}: {}", reply.text);
        bodies.push_str(&reply.text);
    }
    let feed = app.post("/me/calendar").as_user(reader).send().await;
    let url = feed.assert_ok()["url"].as_str().unwrap().to_string();
    let path = &url[url.find("/api/v1").unwrap() + "/api/v1".len()..];
    let calendar = app.get(path).send().await;
    assert_eq!(calendar.status.as_u16(), 200, "{}", calendar.text);
    bodies.push_str(&calendar.text);
    bodies
}

#[tokio::test]
async fn standing_reads_carry_no_hidden_information_nor_a_private_game() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let table = [
        app.register("anna").await,
        app.register("ben").await,
        app.register("cleo").await,
    ];
    let outsider = app.register("dave").await;
    // A finished private game of the three: in no profile, history or list of anyone else.
    let private = finished_game(&app, &table, "private", 21).await;
    // A rated Flying Dutchman tournament of the three, its round-1 game running.
    let created = app
        .post("/tournaments")
        .as_user(&organiser)
        .json(&json!({
            "name": "Hidden cup", "kind": "flying-dutchman", "format": "swiss",
            "seats_per_table": 3, "rounds": 1, "rated": true, "max_players": 3,
            "entry_closes_at": (app.config.clock.now() + chrono::Duration::days(1)).to_rfc3339(),
        }))
        .send()
        .await;
    let tournament = created.assert_ok()["id"].as_str().unwrap().to_string();
    for user in &table {
        app.post(&format!("/tournaments/{tournament}/join"))
            .as_user(user)
            .send()
            .await
            .assert_ok();
    }
    let started = app
        .post(&format!("/tournaments/{tournament}/start"))
        .as_user(&organiser)
        .send()
        .await;
    let seated = &started.assert_ok()["rounds_played"][0]["tables"][0];
    let game: Uuid = seated["game_id"].as_str().unwrap().parse().unwrap();
    let seats: Vec<User> = seated["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["username"].as_str().unwrap();
            table.iter().find(|u| u.name == name).unwrap().clone()
        })
        .collect();
    let names = ["anna", "ben", "cleo", "dave", "organiser"];
    for moves in [0, 6] {
        bots::play(
            &app,
            game,
            &seats,
            bots::flying_dutchman,
            40 + moves,
            moves as usize,
        )
        .await;
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&seats[0])
            .send()
            .await;
        assert_eq!(detail.assert_ok()["status"], "active", "still running");
        let secrets = secrets_of(&app, game, &seats).await;
        for reader in table.iter().chain([&outsider, &organiser]) {
            let bodies = read_standing(&app, reader, &names, &tournament).await;
            for key in ["\"shares\"", "\"horseshoes\"", "\"hidden\""] {
                assert!(
                    !bodies.contains(key),
                    "{} was sent {key} by a standing read",
                    reader.name
                );
            }
            for secret in &secrets {
                assert!(
                    !bodies.contains(secret.as_str()),
                    "{}: {secret}",
                    reader.name
                );
            }
            if reader.name == "dave" || reader.name == "organiser" {
                assert!(
                    !bodies.contains(&private.to_string()),
                    "{} was shown the private game",
                    reader.name
                );
            }
        }
        // Every profile and rating history leaves the private game out, whoever reads it
        // (its own players too: a profile is public).
        for reader in table.iter().chain([&outsider, &organiser]) {
            for name in names {
                for path in [
                    format!("/players/{name}"),
                    format!("/players/{name}/ratings/steel-driver"),
                ] {
                    let seen = app.get(&path).as_user(reader).send().await;
                    assert!(
                        !seen.assert_ok().to_string().contains(&private.to_string()),
                        "{path} for {}: {}",
                        reader.name,
                        seen.text
                    );
                    // A visitor signed out reads exactly what any signed-in reader does.
                    let visitor = app.get(&path).send().await;
                    assert_eq!(visitor.assert_ok(), seen.assert_ok(), "{path}");
                }
            }
        }
    }
}
