//! Forced moves and standing orders (issue 37) through the real server and PostgreSQL: forced
//! moves played at once in both games and marked for everyone, verifying, replaying and
//! importing; standing orders listed, set, edited and cancelled without moving the game's
//! version or ETag, played as their seat's command and marked for its player alone, told on
//! that player's stream only; undo of a move an order played; an order and a click racing;
//! the turn mail saying what the server played.

use crate::bots;
use crate::live::Stream;
use crate::support::*;
use crate::undo::{detail, table, user_at};
use kontor::games::flying_dutchman::FlyingDutchman;
use kontor::games::steel_driver::SteelDriver;
use kontor::games::{Actor, Rules};
use serde_json::{Value, json};
use std::time::Duration;
use uuid::Uuid;

async fn orders(app: &TestApp, game: Uuid, user: &User) -> Reply {
    app.get(&format!("/games/{game}/orders"))
        .as_user(user)
        .send()
        .await
}

async fn set(app: &TestApp, game: Uuid, user: &User, order: Value) -> Reply {
    app.post(&format!("/games/{game}/orders"))
        .as_user(user)
        .json(&json!({"order": order}))
        .send()
        .await
}

async fn events(app: &TestApp, game: Uuid, user: &User) -> Vec<Value> {
    app.get(&format!("/games/{game}/events?limit=1000"))
        .as_user(user)
        .send()
        .await
        .assert_ok()["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// The lines of a game's export (header first).
fn lines(export: &str) -> Vec<Value> {
    export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks a finished game's complete export: it verifies; every move the server played on
/// its own is marked on its event for everyone, with its reason; and no player ever played
/// by hand a move the rules forced (no wait without a choice). Returns how many forced moves
/// the server played.
fn check_forced<R: Rules>(export: &str) -> usize {
    let lines = lines(export);
    let (header, events) = kontor::audit::parse_ndjson(export).unwrap();
    let verification = kontor::audit::verify::verify_export(&header, &events);
    assert!(verification.verified, "{:?}", verification.failure);
    let mut state = R::State::default();
    let mut forced = 0;
    for line in &lines[1..] {
        if let Some(command) = line.get("command") {
            let actor: Actor = serde_json::from_value(command["actor"].clone()).unwrap();
            if let Actor::Seat(seat) = actor {
                match command["auto"].as_str() {
                    Some("forced") => {
                        forced += 1;
                        let rules = R::forced(&state, seat).expect("a forced move");
                        assert_eq!(
                            serde_json::to_value(&rules.command).unwrap(),
                            command["action"]
                        );
                        assert_eq!(line["auto"], "forced");
                        assert_eq!(line["reason"]["code"], rules.reason.code.as_str());
                    }
                    Some(other) => panic!("no orders were set, yet a move was played by {other}"),
                    None => assert!(
                        R::forced(&state, seat).is_none(),
                        "seat {seat} was left to play a forced move by hand: {line}"
                    ),
                }
            }
        }
        let kind = line["type"].as_str().unwrap();
        if !kind.starts_with("kontor.") {
            let event: R::Event = serde_json::from_value(line["data"].clone()).unwrap();
            R::evolve(&mut state, &event);
        }
    }
    forced
}

#[tokio::test]
async fn forced_moves_are_played_at_once_for_all_to_see_and_verify_in_both_games() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo", "dora"]).await;
    let spectator = app.register("eve").await;
    let steel = app
        .start_game("steel-driver", json!({}), &players[..3])
        .await;
    // Part of the game: a spectator's log shows the forced moves as such, with the reason.
    bots::play(&app, steel, &players[..3], bots::steel_driver, 5, 60).await;
    let seen = events(&app, steel, &spectator).await;
    let forced: Vec<&Value> = seen.iter().filter(|e| e["auto"] == "forced").collect();
    assert!(!forced.is_empty(), "sixty moves without a forced pass");
    for event in &forced {
        assert!(event["reason"]["code"].is_string(), "{event}");
        assert!(event["actor"].is_i64());
    }
    assert!(seen.iter().all(|e| e["auto"] != "order"));
    bots::play_to_end(&app, steel, &players[..3], bots::steel_driver, 6).await;
    let export = app.export(steel, &players[0]).await;
    assert!(check_forced::<SteelDriver>(&export) > 0);
    app.get(&format!("/games/{steel}/verification"))
        .as_user(&spectator)
        .send()
        .await
        .assert_ok();

    let dutchman = app.start_game("flying-dutchman", json!({}), &players).await;
    bots::play_to_end(&app, dutchman, &players, bots::flying_dutchman, 9).await;
    let export = app.export(dutchman, &players[1]).await;
    check_forced::<FlyingDutchman>(&export);
    app.assert_verified(dutchman, &players[0]).await;
    // The state caches replay exactly, forced moves and all.
    let mismatches = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(mismatches.is_empty(), "{mismatches:?}");
    // An import re-derives the markers: its own export carries them, and verifies.
    let imported = app
        .client
        .post(app.url("/games/import"))
        .bearer_auth(&spectator.token)
        .header("content-type", "application/x-ndjson")
        .body(app.export(steel, &players[0]).await)
        .send()
        .await
        .unwrap();
    let imported = read(imported).await;
    let sandbox: Uuid = imported.assert_ok()["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let again = app.export(sandbox, &spectator).await;
    assert!(check_forced::<SteelDriver>(&again) > 0);
}

/// A started three-seat Steel Driver game (undo `own`), the seat to act, and the next two
/// seats in the order the pawn goes round.
async fn steel_table(app: &TestApp, players: &[User]) -> (Uuid, i64, Vec<i64>) {
    let game = app
        .start_game("steel-driver", json!({"undo": "own"}), players)
        .await;
    let d = detail(app, game, &players[0]).await;
    let holder = d["pending"][0].as_i64().unwrap();
    (game, holder, vec![(holder + 1) % 3, (holder + 2) % 3])
}

#[tokio::test]
async fn orders_are_listed_set_edited_and_cancelled_without_moving_the_game() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let spectator = app.register("eve").await;
    let (game, holder, next) = steel_table(&app, &players).await;
    let d = detail(&app, game, &players[0]).await;
    let round = d["view"]["round"].clone();
    let version = d["version"].as_i64().unwrap();
    let etag = app
        .get(&format!("/games/{game}"))
        .as_user(&spectator)
        .send()
        .await
        .headers["etag"]
        .to_str()
        .unwrap()
        .to_string();
    let waiting = user_at(&players, &d, next[1]);

    // Nothing set yet; the seat not to act may answer the round's auctions ahead.
    let listed = orders(&app, game, waiting).await;
    let listed = listed.assert_ok();
    assert_eq!(listed["orders"], json!([]));
    assert_eq!(listed["seat"], next[1]);
    assert_eq!(listed["kind"], "steel-driver");
    assert_eq!(listed["version"], version);
    assert!(listed["occasion"].as_str().unwrap().starts_with("round/"));

    // Set, edit, cancel: the game's version and ETag stay.
    // A company up for auction, from the legal moves of the seat to act (players[0] may not be it).
    let acting = detail(&app, game, user_at(&players, &d, holder)).await;
    let company = acting["legal"]["companies"][0].clone();
    assert!(company.is_string(), "{}", acting["legal"]);
    let set_reply = set(
        &app,
        game,
        waiting,
        json!({"type": "pass_pawn", "round": round}),
    )
    .await;
    let body = set_reply.assert_ok();
    assert_eq!(
        set_reply.headers["cache-control"].to_str().unwrap(),
        "private, no-store"
    );
    assert_eq!(body["orders"][0]["order"]["type"], "pass_pawn");
    assert_eq!(body["version"], version);
    let id = body["orders"][0]["id"].as_u64().unwrap();
    let edited = app
        .put(&format!("/games/{game}/orders/{id}"))
        .as_user(waiting)
        .json(&json!({"order": {"type": "pass_auction", "round": round, "company": company}}))
        .send()
        .await;
    let edited = edited.assert_ok();
    assert_eq!(
        edited["orders"][0]["id"], id,
        "an edit keeps the order's id"
    );
    assert_eq!(edited["orders"][0]["order"]["type"], "pass_auction");
    // The same decision again replaces the order rather than adding one.
    let again = set(
        &app,
        game,
        waiting,
        json!({"type": "proxy_bid", "round": round, "company": company, "limit": 3}),
    )
    .await;
    let again = again.assert_ok();
    assert_eq!(again["orders"].as_array().unwrap().len(), 1, "{again}");
    let id = again["orders"][0]["id"].as_u64().unwrap();
    let unchanged = app
        .get(&format!("/games/{game}"))
        .as_user(&spectator)
        .header("If-None-Match", &etag)
        .send()
        .await;
    assert_eq!(
        unchanged.status.as_u16(),
        304,
        "an order moved the game's ETag"
    );
    for user in &players {
        assert_eq!(detail(&app, game, user).await["version"], version);
    }
    // Another player sees their own orders only, a spectator none at all.
    let other = user_at(&players, &d, next[0]);
    assert_eq!(
        orders(&app, game, other).await.assert_ok()["orders"],
        json!([])
    );
    orders(&app, game, &spectator)
        .await
        .assert_problem(403, "not_a_player");
    set(
        &app,
        game,
        &spectator,
        json!({"type": "pass_pawn", "round": round}),
    )
    .await
    .assert_problem(403, "not_a_player");
    // Refusals change nothing.
    set(&app, game, waiting, json!({"type": "nonsense"}))
        .await
        .assert_problem(422, "unknown_order");
    set(
        &app,
        game,
        waiting,
        json!({"type": "pass_pawn", "round": round, "extra": 1}),
    )
    .await
    .assert_problem(422, "unknown_order");
    set(
        &app,
        game,
        waiting,
        json!({"type": "pass_pawn", "round": 5}),
    )
    .await
    .assert_problem(422, "order_not_now");
    app.post(&format!("/games/{game}/orders"))
        .as_user(waiting)
        .json(&json!({"orders": []}))
        .send()
        .await
        .assert_problem(400, "invalid_body");
    app.delete(&format!("/games/{game}/orders/{}", id + 100))
        .as_user(waiting)
        .send()
        .await
        .assert_problem(404, "order_not_found");
    app.get(&format!("/games/{}/orders", Uuid::new_v4()))
        .as_user(waiting)
        .send()
        .await
        .assert_problem(404, "game_not_found");
    let cancelled = app
        .delete(&format!("/games/{game}/orders/{id}"))
        .as_user(waiting)
        .send()
        .await;
    assert_eq!(cancelled.assert_ok()["orders"], json!([]));
    app.delete(&format!("/games/{game}/orders/{id}"))
        .as_user(waiting)
        .send()
        .await
        .assert_problem(404, "order_not_found");
    assert_eq!(detail(&app, game, &players[0]).await["version"], version);
    let _ = holder;
}

#[tokio::test]
async fn an_order_plays_as_its_seats_move_marked_for_that_seat_alone() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let spectator = app.register("eve").await;
    let (game, holder, next) = steel_table(&app, &players).await;
    let d = detail(&app, game, &players[0]).await;
    let round = d["view"]["round"].clone();
    let holder_user = user_at(&players, &d, holder);
    let owner = user_at(&players, &d, next[0]);
    let bystander = user_at(&players, &d, next[1]);
    // Streams of every reader, to see who is told of the orders.
    let mut streams = Vec::new();
    for reader in [holder_user, owner, bystander, &spectator] {
        streams.push(
            Stream::open(
                &app.address,
                &format!("/games/{game}/stream"),
                &reader.token,
                None,
            )
            .await,
        );
    }
    set(
        &app,
        game,
        owner,
        json!({"type": "pass_pawn", "round": round}),
    )
    .await
    .assert_ok();
    // The holder passes the pawn by hand; the next seat's order passes it on at once.
    let version = d["version"].as_i64().unwrap();
    let reply = app
        .act(holder_user, game)
        .version(version)
        .send(&json!({"type": "pass_pawn"}))
        .await;
    let reply = reply.assert_ok().clone();
    let after = detail(&app, game, &players[0]).await;
    assert_eq!(after["pending"], json!([next[1]]), "{after}");
    // The answer to the click holds the order's move as a click would show it.
    let played: Vec<&Value> = reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == next[0])
        .collect();
    assert!(!played.is_empty(), "{reply}");
    assert!(played.iter().all(|e| e.get("auto").is_none()));
    let seq = played[0]["seq"].clone();
    let marked = |events: Vec<Value>| {
        events
            .into_iter()
            .find(|e| e["seq"] == seq)
            .unwrap()
            .get("auto")
            .cloned()
    };
    assert_eq!(
        marked(events(&app, game, owner).await),
        Some(json!("order"))
    );
    assert_eq!(marked(events(&app, game, bystander).await), None);
    assert_eq!(marked(events(&app, game, holder_user).await), None);
    assert_eq!(marked(events(&app, game, &spectator).await), None);
    // Its owner is told what it played.
    let news = orders(&app, game, owner).await;
    let news = news.assert_ok()["news"].as_array().unwrap().clone();
    assert!(news.iter().any(|n| n["kind"] == "played"
        && n["command"]["type"] == "pass_pawn"
        && n["order"]["type"] == "pass_pawn"));
    // Only the owner's stream was told of its orders.
    let mut told = Vec::new();
    for stream in &mut streams {
        let got = stream.drain(Duration::from_millis(300)).await;
        told.push(got.iter().filter(|e| e.event == "orders").count());
    }
    assert_eq!(told[0], 0);
    assert!(told[1] >= 2, "the owner's stream: {told:?}");
    assert_eq!((told[2], told[3]), (0, 0), "{told:?}");
    // No stream but the owner's carried the marker.
    let _ = streams;

    // Undo: the owner takes back the move its order played (its own move); its orders go
    // (`undone`), and it decides by hand.
    let owner_view = detail(&app, game, owner).await;
    let undone = app
        .post(&format!("/games/{game}/undo"))
        .as_user(owner)
        .json(&json!({"at_version": owner_view["version"]}))
        .send()
        .await;
    assert_eq!(undone.assert_ok()["status"], "rewound", "{}", undone.text);
    let back = detail(&app, game, owner).await;
    assert_eq!(back["pending"], json!([next[0]]));
    let mine = orders(&app, game, owner).await;
    let mine = mine.assert_ok();
    assert_eq!(mine["orders"], json!([]));
    assert!(
        mine["news"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == "dropped" && n["reason"]["code"] == "undone"),
        "{mine}"
    );
}

#[tokio::test]
async fn an_order_that_fits_when_set_plays_at_once() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let (game, holder, _) = steel_table(&app, &players).await;
    let d = detail(&app, game, &players[0]).await;
    let holder_user = user_at(&players, &d, holder);
    let version = d["version"].as_i64().unwrap();
    let reply = set(
        &app,
        game,
        holder_user,
        json!({"type": "pass_pawn", "round": d["view"]["round"]}),
    )
    .await;
    let body = reply.assert_ok();
    assert!(body["version"].as_i64().unwrap() > version, "{body}");
    let after = detail(&app, game, holder_user).await;
    assert_eq!(after["version"], body["version"]);
    assert_ne!(after["pending"], json!([holder]));
    let log = events(&app, game, holder_user).await;
    let first = log.iter().find(|e| e["seq"] == version + 1).unwrap();
    assert_eq!(
        (&first["actor"], &first["auto"]),
        (&json!(holder), &json!("order"))
    );
    // The export after the end checks the order played exactly this (see the forced-move
    // test for a whole game); the command is recorded as the seat's with its order.
    let recorded: Option<Value> =
        sqlx::query_scalar("SELECT auto FROM game_commands WHERE game_id = $1 AND first_seq = $2")
            .bind(game)
            .bind(version + 1)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let recorded = recorded.expect("marked");
    assert_eq!(recorded["kind"], "order");
    assert_eq!(recorded["order"]["type"], "pass_pawn");
}

#[tokio::test]
async fn an_order_and_a_click_racing_never_leave_an_order_unplayed_or_a_game_torn() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    for trial in 0..6 {
        let (game, holder, next) = steel_table(&app, &players).await;
        let d = detail(&app, game, &players[0]).await;
        let round = d["view"]["round"].clone();
        let holder_user = user_at(&players, &d, holder);
        let owner = user_at(&players, &d, next[0]);
        let version = d["version"].as_i64().unwrap();
        let pass = json!({"type": "pass_pawn"});
        let click = app.act(holder_user, game).version(version).send(&pass);
        let order = set(
            &app,
            game,
            owner,
            json!({"type": "pass_pawn", "round": round}),
        );
        let (click, order) = tokio::join!(click, order);
        click.assert_ok();
        // The order may come too late for its round only if the pawn left the seat first.
        assert!(order.status.is_success(), "trial {trial}: {}", order.text);
        // Whichever came first, the order played: the seat is not left waiting on it.
        let after = detail(&app, game, &players[0]).await;
        assert_eq!(after["pending"], json!([next[1]]), "trial {trial}: {after}");
        let log = events(&app, game, owner).await;
        assert!(
            log.iter()
                .any(|e| e["actor"] == next[0] && e["auto"] == "order"),
            "trial {trial}"
        );
        // Nothing torn: the log folds to the state served.
        let mismatches = kontor::audit::replay::check(&app.pool, |_, _| {})
            .await
            .unwrap();
        assert!(mismatches.is_empty(), "trial {trial}: {mismatches:?}");
    }
}

#[tokio::test]
async fn the_turn_mail_says_what_the_server_played_while_the_player_was_away() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let (game, holder, next) = steel_table(&app, &players).await;
    let d = detail(&app, game, &players[0]).await;
    let round = d["view"]["round"].clone();
    let holder_user = user_at(&players, &d, holder);
    let owner = user_at(&players, &d, next[0]);
    // The next seat passes the pawn by order while its player is away...
    set(
        &app,
        game,
        owner,
        json!({"type": "pass_pawn", "round": round}),
    )
    .await
    .assert_ok();
    app.act(holder_user, game)
        .version(d["version"].as_i64().unwrap())
        .send(&json!({"type": "pass_pawn"}))
        .await
        .assert_ok();
    // ...and the others play on by hand until its turn comes.
    let mut rng = kontor::games::GameRng::from_u64(3);
    for _ in 0..50 {
        let now = detail(&app, game, &players[0]).await;
        let seat = now["pending"][0].as_i64().unwrap();
        if seat == next[0] {
            break;
        }
        let user = user_at(&players, &now, seat);
        let mine = detail(&app, game, user).await;
        let action = bots::steel_driver(&mine["legal"], &mine, &mut rng);
        app.act(user, game)
            .version(mine["version"].as_i64().unwrap())
            .send(&action)
            .await
            .assert_ok();
    }
    let mails: Vec<(Uuid, Value)> = sqlx::query_as(
        "SELECT user_id, data FROM mail_outbox WHERE game_id = $1 AND kind = 'your_turn'
          ORDER BY created_at, id",
    )
    .bind(game)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    // Its turn mail says what its order played.
    let data = mails
        .iter()
        .filter(|(u, _)| *u == owner.id)
        .map(|(_, d)| d)
        .next_back()
        .expect("a turn mail for the seat");
    assert!(data["auto"]["count"].as_i64().unwrap() >= 1, "{data}");
    let news = data["auto"]["news"].as_array().unwrap();
    assert!(
        news.iter()
            .any(|n| n["kind"] == "played" && n["command"]["type"] == "pass_pawn"),
        "{data}"
    );
    // Nobody else's mail tells of an order: they had none.
    for (user, data) in &mails {
        if *user != owner.id {
            for news in data["auto"]["news"].as_array().into_iter().flatten() {
                assert_ne!(news["kind"], "played", "{data}");
            }
        }
    }
}
