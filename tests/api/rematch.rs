//! Rematch (issue 23): offers and answers beside a finished game, the rematch started with
//! the seats rotated when everyone accepts, declines, expiry, and the refusals.

use crate::bots;
use crate::support::*;
use kontor::games::GameRng;
use serde_json::{Value, json};
use std::time::Duration;
use uuid::Uuid;

async fn players(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut users = Vec::new();
    for name in names {
        users.push(app.register(name).await);
    }
    users
}

/// A three-player Steel Driver game with a time control, played to its end.
async fn finished_game(app: &TestApp, table: &[User]) -> Uuid {
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "options": {"map": "usa"},
                   "time_control": {"seconds_per_move": 86_400}}),
            table,
        )
        .await;
    bots::play_to_end(app, game, table, bots::steel_driver, 5).await;
    game
}

async fn rematch_state(app: &TestApp, game: Uuid, user: &User) -> Value {
    app.get(&format!("/games/{game}/rematch"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

async fn offer(app: &TestApp, game: Uuid, user: &User) -> Reply {
    app.post(&format!("/games/{game}/rematch"))
        .as_user(user)
        .send()
        .await
}

async fn answer(app: &TestApp, game: Uuid, offer: i64, user: &User, accept: bool) -> Reply {
    app.post(&format!("/games/{game}/rematch/{offer}/answer"))
        .as_user(user)
        .json(&json!({"accept": accept}))
        .send()
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

#[tokio::test]
async fn all_accept_starts_one_rematch_with_rotated_seats_and_linked_games() {
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let outsider = app.register("dora").await;
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "options": {"map": "usa"},
                   "time_control": {"seconds_per_move": 86_400}}),
            &table,
        )
        .await;
    // Not before the end.
    offer(&app, game, &table[0])
        .await
        .assert_problem(409, "rematch_not_finished");
    bots::play_to_end(&app, game, &table, bots::steel_driver, 5).await;
    let old = detail(&app, game, &table[0]).await;
    assert_eq!(old["status"], "finished");
    assert_eq!(old["rematch"], Value::Null);

    // Someone without a seat may neither offer nor answer.
    offer(&app, game, &outsider)
        .await
        .assert_problem(403, "not_a_player");

    // bert offers; his offer counts as his acceptance; a repeat returns the same offer.
    let made = offer(&app, game, &table[1]).await;
    assert_eq!(made.status.as_u16(), 201, "{}", made.text);
    let offer_id = made.body["offer"]["id"].as_i64().unwrap();
    assert_eq!(made.body["offer"]["status"], "open");
    assert_eq!(made.body["offer"]["offered_by_seat"], 1);
    assert_eq!(made.body["offer"]["waiting_for"], json!([0, 2]));
    let again = offer(&app, game, &table[1]).await;
    assert_eq!(again.status.as_u16(), 200, "{}", again.text);
    assert_eq!(again.body["offer"]["id"], offer_id);
    // Another player's offer while bert's is open is refused, naming bert's.
    let other = offer(&app, game, &table[0]).await;
    assert_eq!(
        other.assert_problem(409, "rematch_offer_open")["offer_id"],
        offer_id
    );
    answer(&app, game, offer_id, &outsider, true)
        .await
        .assert_problem(403, "not_a_player");
    answer(&app, game, offer_id + 1000, &table[0], true)
        .await
        .assert_problem(404, "rematch_offer_not_found");
    // The two others were mailed (per their preferences: immediately by default).
    let mailed: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM mail_outbox WHERE game_id = $1 AND kind = 'rematch_offered'",
    )
    .bind(game)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(mailed, 2);

    // anna and cleo accept at the same moment: exactly one rematch starts.
    let (a, c) = tokio::join!(
        answer(&app, game, offer_id, &table[0], true),
        answer(&app, game, offer_id, &table[2], true)
    );
    a.assert_ok();
    c.assert_ok();
    let state = rematch_state(&app, game, &outsider).await;
    assert_eq!(state["offer"]["status"], "accepted");
    let new_game: Uuid = state["rematch"].as_str().unwrap().parse().unwrap();
    assert_eq!(state["offer"]["new_game_id"], json!(new_game));
    let rematches: i64 =
        sqlx::query_scalar("SELECT count(*) FROM rematch_offers WHERE new_game_id IS NOT NULL")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(rematches, 1);
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(games, 2, "the old game and one rematch");

    // The rematch: same kind, options and time control, running, seats rotated by one.
    let new = detail(&app, new_game, &table[0]).await;
    assert_eq!(new["status"], "active");
    assert_eq!(new["kind"], old["kind"]);
    assert_eq!(new["options"], old["options"]);
    assert_eq!(new["time_control"], old["time_control"]);
    assert_ne!(new["seed_commitment"], old["seed_commitment"]);
    for (old_seat, player) in table.iter().enumerate() {
        let seat = new["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["user_id"] == json!(player.id))
            .unwrap();
        assert_eq!(seat["seat"], json!((old_seat + 1) % 3), "{}", player.name);
        assert_eq!(seat["state"], "active");
    }
    // Both games link to each other.
    assert_eq!(new["rematch_of"], json!(game));
    assert_eq!(
        detail(&app, game, &table[0]).await["rematch"],
        json!(new_game)
    );
    assert_eq!(
        rematch_state(&app, new_game, &table[2]).await["rematch_of"],
        json!(game)
    );
    // The finished game's log is untouched.
    assert_eq!(
        detail(&app, game, &table[0]).await["version"],
        old["version"]
    );

    // Answers are idempotent and final; a second rematch of the same game is refused.
    answer(&app, game, offer_id, &table[0], true)
        .await
        .assert_ok();
    let flip = answer(&app, game, offer_id, &table[0], false).await;
    assert_eq!(
        flip.assert_problem(409, "rematch_already_answered")["accept"],
        true
    );
    let twice = offer(&app, game, &table[2]).await;
    assert_eq!(
        twice.assert_problem(409, "rematch_exists")["rematch"],
        json!(new_game)
    );
    // The running rematch cannot be offered again.
    offer(&app, new_game, &table[0])
        .await
        .assert_problem(409, "rematch_not_finished");
}

#[tokio::test]
async fn one_decline_ends_the_offer_and_offers_expire() {
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let game = finished_game(&app, &table).await;

    // anna offers, bert declines: the offer ends, cleo's late acceptance is refused.
    let first = offer(&app, game, &table[0]).await;
    let first_id = first.assert_ok()["offer"]["id"].as_i64().unwrap();
    let declined = answer(&app, game, first_id, &table[1], false).await;
    assert_eq!(declined.assert_ok()["offer"]["status"], "declined");
    assert_eq!(declined.body["offer"]["waiting_for"], json!([]));
    let late = answer(&app, game, first_id, &table[2], true).await;
    assert_eq!(
        late.assert_problem(409, "rematch_offer_closed")["offer_status"],
        "declined"
    );
    // The same decline again changes nothing.
    answer(&app, game, first_id, &table[1], false)
        .await
        .assert_ok();

    // A new offer may follow; unanswered past the deadline (72 hours by default) it expires,
    // and the deadline worker records it.
    let second = offer(&app, game, &table[1]).await;
    assert_eq!(second.status.as_u16(), 201, "{}", second.text);
    let second_id = second.body["offer"]["id"].as_i64().unwrap();
    assert_ne!(second_id, first_id);
    app.clock.advance(Duration::from_secs(71 * 3600));
    assert_eq!(app.run_deadlines().await.rematch_offers_expired, 0);
    app.clock.advance(Duration::from_secs(3601));
    assert_eq!(app.run_deadlines().await.rematch_offers_expired, 1);
    let state = rematch_state(&app, game, &table[0]).await;
    assert_eq!(state["offer"]["status"], "expired");
    assert_eq!(state["rematch"], Value::Null);
    answer(&app, game, second_id, &table[0], true)
        .await
        .assert_problem(409, "rematch_offer_closed");

    // An offer answered after its deadline, before the worker looked, is expired too.
    let third = offer(&app, game, &table[2]).await;
    let third_id = third.assert_ok()["offer"]["id"].as_i64().unwrap();
    app.clock.advance(Duration::from_secs(73 * 3600));
    answer(&app, game, third_id, &table[0], true)
        .await
        .assert_problem(409, "rematch_offer_expired");
    assert_eq!(
        rematch_state(&app, game, &table[0]).await["offer"]["status"],
        "expired"
    );
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(games, 1, "no rematch was started");
}

#[tokio::test]
async fn a_block_at_the_table_means_no_rematch() {
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let game = finished_game(&app, &table).await;
    app.put("/me/blocks/cleo")
        .as_user(&table[1])
        .send()
        .await
        .assert_ok();
    // Refused for anyone at the table, without saying who blocked whom.
    let refused = offer(&app, game, &table[0]).await;
    let body = refused.assert_problem(409, "rematch_not_possible");
    assert!(!body["detail"].as_str().unwrap().contains("bert"));
    assert_eq!(
        rematch_state(&app, game, &table[0]).await["offer"],
        Value::Null
    );
}

/// Plays a started game to its end: the bot plays the abandoned seats (the deadline worker,
/// run by hand), the players the others.
async fn play_with_bots(app: &TestApp, game: Uuid, table: &[User]) {
    let mut rng = GameRng::from_u64(3);
    for _ in 0..20_000 {
        app.run_deadlines().await;
        let now = detail(app, game, &table[0]).await;
        if now["status"] == "finished" {
            return;
        }
        let pending: Vec<usize> = now["pending"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .filter(|s| now["seats"][*s]["state"] == "active")
            .collect();
        if pending.is_empty() {
            continue;
        }
        let seat = pending[rng.index(pending.len())];
        // Seats are looked up by user: in a rematch they moved round.
        let player = table
            .iter()
            .find(|u| now["seats"][seat]["user_id"] == json!(u.id))
            .unwrap();
        let mine = detail(app, game, player).await;
        let action = bots::steel_driver(&mine["legal"], &mine, &mut rng);
        let version = mine["version"].as_i64().unwrap();
        let reply = app.act(player, game).version(version).send(&action).await;
        assert!(
            matches!(reply.status.as_u16(), 200 | 409),
            "{action}: {}",
            reply.text
        );
    }
    panic!("the game did not end");
}

#[tokio::test]
async fn a_seat_the_bot_played_stays_a_bot_and_need_not_answer() {
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver",
                   "time_control": {"seconds_per_move": 60, "abandon_after": 1, "on_abandon": "bot"}}),
            &table,
        )
        .await;
    // The first to act lets their time run out: the bot plays their seat from then on.
    let gone = detail(&app, game, &table[0]).await["pending"][0]
        .as_u64()
        .unwrap() as usize;
    app.clock.advance(Duration::from_secs(61));
    app.run_deadlines().await;
    assert_eq!(
        detail(&app, game, &table[0]).await["seats"][gone]["state"],
        "abandoned"
    );
    play_with_bots(&app, game, &table).await;

    // Its player takes no part in the rematch...
    offer(&app, game, &table[gone])
        .await
        .assert_problem(403, "not_a_player");
    let others: Vec<usize> = (0..3).filter(|s| *s != gone).collect();
    let made = offer(&app, game, &table[others[0]]).await;
    assert_eq!(made.status.as_u16(), 201, "{}", made.text);
    assert_eq!(made.body["players"], json!(others));
    assert_eq!(made.body["offer"]["waiting_for"], json!([others[1]]));
    let offer_id = made.body["offer"]["id"].as_i64().unwrap();
    answer(&app, game, offer_id, &table[gone], true)
        .await
        .assert_problem(403, "not_a_player");
    // ...and the last of the others to accept starts the rematch, where the bot plays the
    // seat from the start (its player may take it back).
    let done = answer(&app, game, offer_id, &table[others[1]], true).await;
    let new_game: Uuid = done.assert_ok()["rematch"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let new = detail(&app, new_game, &table[0]).await;
    let rotated = (gone + 1) % 3;
    assert_eq!(new["seats"][rotated]["user_id"], json!(table[gone].id));
    assert_eq!(new["seats"][rotated]["state"], "abandoned");
    for seat in &others {
        assert_eq!(new["seats"][(seat + 1) % 3]["state"], "active");
    }
    // The start event says so, and the bot moves for the seat when it is to act.
    let export = app.export(new_game, &table[gone]).await;
    assert!(export.contains("\"bot\":true"), "{export}");
    app.run_deadlines().await;
    app.post(&format!("/games/{new_game}/return"))
        .as_user(&table[gone])
        .send()
        .await
        .assert_ok();
    // Played to its end, the rematch verifies (the bot's seat from the start, its return).
    play_with_bots(&app, new_game, &table).await;
    app.assert_verified(new_game, &table[0]).await;
}

/// The mail of an offer, through the real SMTP receiver: to the other seats only, each in
/// their language, with the offerer, the game, the link and the deadline.
#[tokio::test]
async fn an_offer_is_mailed_to_the_others_in_their_language() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let table = players(app, &["anna", "bert", "cleo"]).await;
    app.put("/me/profile")
        .as_user(&table[2])
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    let game = finished_game(app, &table).await;
    // The game's own mails (start, turns, result) are not what this test reads.
    sqlx::query("DELETE FROM mail_outbox WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await
        .unwrap();
    offer(app, game, &table[0]).await.assert_ok();
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (2, 2), "{report:?}");
    let received = f.sink.received();
    let to = |user: &User| {
        let address = format!("{}@example.org", user.name);
        received
            .iter()
            .filter(|r| r.to.iter().any(|t| t.contains(&address)))
            .map(|r| r.mail())
            .collect::<Vec<_>>()
    };
    assert!(to(&table[0]).is_empty(), "the offerer is not mailed");

    let en = &to(&table[1])[0];
    assert_eq!(
        en.header("Subject"),
        Some("anna offers a rematch of Steel Driver")
    );
    let text = en.text();
    assert!(text.starts_with("Hello bert,"), "{text}");
    assert!(text.contains(&format!("/games/{game}")), "{text}");
    assert!(text.contains("answers are taken until"), "{text}");
    assert!(text.contains("the seats moved round by one"), "{text}");

    let ja = &to(&table[2])[0];
    let text = ja.text();
    assert!(text.starts_with("cleoさん"), "{text}");
    assert!(text.contains("再戦を申し込みました"), "{text}");
    assert!(text.contains("回答の期限"), "{text}");
    assert!(text.contains("Asia/Tokyo"), "{text}");
}

/// A player's data export lists the offers they made and their answers to others'.
#[tokio::test]
async fn offers_and_answers_are_in_the_players_export() {
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let game = finished_game(&app, &table).await;
    let made = offer(&app, game, &table[0]).await;
    let offer_id = made.assert_ok()["offer"]["id"].as_i64().unwrap();
    answer(&app, game, offer_id, &table[1], false)
        .await
        .assert_ok();

    let export = |user: &User| {
        let app = &app;
        let user = user.clone();
        async move {
            app.get("/me/export")
                .as_user(&user)
                .send()
                .await
                .assert_ok()["rematch_answers"]
                .clone()
        }
    };
    let anna = export(&table[0]).await;
    assert_eq!(anna.as_array().unwrap().len(), 1, "{anna}");
    assert_eq!(anna[0]["offer_id"], offer_id);
    assert_eq!(anna[0]["game_id"], game.to_string());
    assert_eq!(anna[0]["offered"], true);
    assert_eq!(anna[0]["accept"], true);
    assert_eq!(anna[0]["status"], "declined");
    let bert = export(&table[1]).await;
    assert_eq!(bert[0]["offered"], false);
    assert_eq!(bert[0]["accept"], false);
    // cleo never answered.
    assert_eq!(export(&table[2]).await, json!([]));
}

/// The game's stream tells everyone watching the finished game, spectators too, that an offer
/// was made or answered.
#[tokio::test]
async fn the_games_stream_tells_its_watchers_of_offers() {
    use crate::live::Stream;
    let app = spawn_app().await;
    let table = players(&app, &["anna", "bert", "cleo"]).await;
    let watcher = app.register("dora").await;
    let game = finished_game(&app, &table).await;
    let path = format!("/games/{game}/stream");
    let mut stream = Stream::open(&app.address, &path, &watcher.token, None).await;
    let wait = Duration::from_secs(10);
    assert_eq!(stream.next(wait).await.unwrap().event, "snapshot");

    let made = offer(&app, game, &table[0]).await;
    let offer_id = made.assert_ok()["offer"]["id"].as_i64().unwrap();
    let told = stream.next(wait).await.expect("the offer is told");
    assert_eq!(told.event, "rematch");
    assert_eq!(told.data, json!({"game_id": game, "offer_id": offer_id}));
    assert_eq!(
        told.id, None,
        "no resume id: the offer is read, not replayed"
    );
    answer(&app, game, offer_id, &table[1], false)
        .await
        .assert_ok();
    assert_eq!(stream.next(wait).await.unwrap().event, "rematch");
    // And the watcher may read what changed.
    assert_eq!(
        rematch_state(&app, game, &watcher).await["offer"]["status"],
        "declined"
    );
}
