//! Undo (issue 23) through the real server and PostgreSQL: one's own misclick taken back at
//! once, the others' consent (accept, decline, withdraw, deadline, a move lapsing a request),
//! the refusals (barrier, stale, policy, non-seat), a race of an undo and a move, the mail to
//! the seats asked (English and Japanese), `/me/stream`, and a finished game with undos that
//! verifies and imports.
//!
//! The games are Steel Driver tables: opening an auction, bidding and passing are a player's
//! own moves until the auction is won (a payment: a barrier).

use crate::live::Stream;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;
use uuid::Uuid;

pub(crate) async fn table(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut users = Vec::new();
    for name in names {
        users.push(app.register(name).await);
    }
    users
}

/// A started three-seat Steel Driver game with the table's `undo` setting.
async fn steel(app: &TestApp, players: &[User], undo: &str) -> Uuid {
    app.start_game("steel-driver", json!({"map": "usa", "undo": undo}), players)
        .await
}

pub(crate) async fn detail(app: &TestApp, game: Uuid, user: &User) -> Value {
    app.get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

async fn detail_at(app: &TestApp, game: Uuid, user: &User, at: i64) -> Value {
    app.get(&format!("/games/{game}?at={at}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

/// The user of `seat`.
pub(crate) fn user_at<'a>(players: &'a [User], detail: &Value, seat: i64) -> &'a User {
    let id = detail["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seat"] == seat)
        .unwrap()["user_id"]
        .clone();
    players.iter().find(|u| json!(u.id) == id).unwrap()
}

/// The one seat to act now, and its player.
async fn to_act<'a>(app: &TestApp, game: Uuid, players: &'a [User]) -> (i64, &'a User) {
    let d = detail(app, game, &players[0]).await;
    let seat = d["pending"][0].as_i64().expect("someone is to act");
    (seat, user_at(players, &d, seat))
}

/// The player to act makes a move of the auction phase: `open` (an auction of the first
/// company at the lowest bid), `bid` (the lowest bid), `pass_bid` or `pass_pawn`.
async fn play(app: &TestApp, game: Uuid, players: &[User], what: &str) -> (i64, Value) {
    let (seat, user) = to_act(app, game, players).await;
    let mine = detail(app, game, user).await;
    let legal = &mine["legal"];
    let action = match what {
        "open" => {
            json!({"type": "open_auction", "company": legal["companies"][0], "bid": legal["min_bid"]})
        }
        "bid" => json!({"type": "bid", "bid": legal["min_bid"]}),
        other => json!({"type": other}),
    };
    let reply = app
        .act(user, game)
        .version(mine["version"].as_i64().unwrap())
        .send(&action)
        .await;
    (seat, reply.assert_ok().clone())
}

async fn undo(app: &TestApp, game: Uuid, user: &User, body: Value) -> Reply {
    app.post(&format!("/games/{game}/undo"))
        .as_user(user)
        .json(&body)
        .send()
        .await
}

async fn answer(app: &TestApp, game: Uuid, request: i64, user: &User, accept: bool) -> Reply {
    app.post(&format!("/games/{game}/undo/{request}/answer"))
        .as_user(user)
        .json(&json!({"accept": accept}))
        .send()
        .await
}

async fn version(app: &TestApp, game: Uuid, user: &User) -> i64 {
    detail(app, game, user).await["version"].as_i64().unwrap()
}

/// The types of the events after version `after`.
async fn types_after(app: &TestApp, game: Uuid, after: i64) -> Vec<String> {
    sqlx::query_scalar("SELECT type FROM game_events WHERE game_id = $1 AND seq > $2 ORDER BY seq")
        .bind(game)
        .bind(after)
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

/// Every seat's view now equals its view of the game at version `at`.
async fn same_as_at(app: &TestApp, game: Uuid, players: &[User], at: i64) {
    for user in players {
        let now = detail(app, game, user).await;
        let then = detail_at(app, game, user, at).await;
        assert_eq!(now["view"], then["view"], "{}'s view", user.name);
    }
}

#[tokio::test]
async fn a_misclick_is_taken_back_at_once_and_the_game_is_as_it_was() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let outsider = app.register("dora").await;
    let game = steel(&app, &players, "own").await;
    let start = version(&app, game, &players[0]).await;
    let (holder, holder_user) = to_act(&app, game, &players).await;
    let before: Vec<Value> = {
        let mut views = Vec::new();
        for user in &players {
            views.push(detail(&app, game, user).await);
        }
        views
    };
    // Nothing to take back yet; and the caller sees what it could take back.
    undo(&app, game, holder_user, json!({"at_version": start}))
        .await
        .assert_problem(409, "undo_nothing_to_undo");
    let d = detail(&app, game, holder_user).await;
    assert_eq!(d["undo"]["policy"], "own");
    assert_eq!(d["undo"]["can_undo_to"], Value::Null);

    play(&app, game, &players, "open").await;
    let after = version(&app, game, holder_user).await;
    let d = detail(&app, game, holder_user).await;
    assert_eq!(d["undo"]["can_undo_to"], start);
    assert_eq!(d["undo"]["needs"], json!([]));
    // Someone without a seat may not; a stale version is refused, naming the current one.
    undo(&app, game, &outsider, json!({"at_version": after}))
        .await
        .assert_problem(403, "not_a_player");
    let stale = undo(&app, game, holder_user, json!({"at_version": after - 1})).await;
    assert_eq!(
        stale.assert_problem(409, "undo_stale")["current_version"],
        after
    );
    // A target in the middle of a move, or out of range, is refused.
    if after - start > 1 {
        undo(
            &app,
            game,
            holder_user,
            json!({"at_version": after, "to_version": after - 1}),
        )
        .await
        .assert_problem(422, "invalid_undo");
    }
    undo(
        &app,
        game,
        holder_user,
        json!({"at_version": after, "to_version": after + 5}),
    )
    .await
    .assert_problem(422, "invalid_undo");
    undo(&app, game, holder_user, json!({"at_version": "x"}))
        .await
        .assert_problem(400, "invalid_body");

    let done = undo(&app, game, holder_user, json!({"at_version": after})).await;
    let done = done.assert_ok().clone();
    assert_eq!(done["status"], "rewound");
    assert_eq!(done["version"], after + 1);
    assert_eq!(done["request"], Value::Null);
    assert_eq!(types_after(&app, game, after).await, ["kontor.rewound"]);
    // A retry gets the same answer and takes nothing more back.
    let again = undo(&app, game, holder_user, json!({"at_version": after})).await;
    assert_eq!(again.assert_ok(), &done);
    assert_eq!(version(&app, game, holder_user).await, after + 1);

    // The game is exactly as it was at the start: every seat's view and legal actions, the
    // seat to act.
    for (user, was) in players.iter().zip(&before) {
        let now = detail(&app, game, user).await;
        assert_eq!(now["view"], was["view"], "{}", user.name);
        assert_eq!(now["legal"], was["legal"], "{}", user.name);
        assert_eq!(now["pending"], json!([holder]));
    }
    same_as_at(&app, game, &players, start).await;
    // The history still shows the undone move, marked as such.
    let log = app
        .get(&format!("/games/{game}/events"))
        .as_user(holder_user)
        .send()
        .await;
    let events = log.assert_ok()["items"].as_array().unwrap().clone();
    for event in &events {
        let seq = event["seq"].as_i64().unwrap();
        let undone = event["undone"].as_bool().unwrap_or(false);
        assert_eq!(undone, seq > start && seq <= after, "{event}");
    }
    // And the game goes on from there.
    play(&app, game, &players, "open").await;
}

#[tokio::test]
async fn own_refuses_once_another_seat_moved_and_none_refuses_everything() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let game = steel(&app, &players, "own").await;
    let (opener, _) = play(&app, game, &players, "open").await;
    let d = detail(&app, game, &players[0]).await;
    let opener_user = user_at(&players, &d, opener);
    let (bidder, _) = play(&app, game, &players, "bid").await;
    let bidder_user = user_at(&players, &d, bidder);
    let at = version(&app, game, opener_user).await;
    let refused = undo(&app, game, opener_user, json!({"at_version": at})).await;
    assert_eq!(
        refused.assert_problem(409, "undo_needs_consent")["seats"],
        json!([bidder])
    );
    assert_eq!(
        detail(&app, game, opener_user).await["undo"]["can_undo_to"],
        Value::Null
    );
    // The bidder's own bid is theirs alone: taken back at once.
    let done = undo(&app, game, bidder_user, json!({"at_version": at})).await;
    assert_eq!(done.assert_ok()["status"], "rewound");

    // A table without undo refuses it.
    let other = table(&app, &["erik", "fay", "gus"]).await;
    let game = steel(&app, &other, "none").await;
    let (seat, _) = play(&app, game, &other, "open").await;
    let d = detail(&app, game, &other[0]).await;
    let user = user_at(&other, &d, seat);
    assert_eq!(d["options"]["undo"], "none");
    assert_eq!(d["undo"]["policy"], "none");
    let at = version(&app, game, user).await;
    undo(&app, game, user, json!({"at_version": at}))
        .await
        .assert_problem(409, "undo_disabled");
    // A bad setting is refused at creation, and the default of a new table is `own`.
    let bad = app
        .post("/games")
        .as_user(&other[0])
        .json(&json!({"kind": "steel-driver", "seats": 3, "options": {"undo": "always"}}))
        .send()
        .await;
    assert_eq!(bad.assert_problem(422, "invalid_options")["field"], "undo");
    let created = app
        .post("/games")
        .as_user(&other[0])
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await;
    assert_eq!(created.assert_ok()["options"]["undo"], "own");
}

#[tokio::test]
async fn an_undo_cannot_reach_back_across_a_barrier() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let game = steel(&app, &players, "consent").await;
    play(&app, game, &players, "open").await;
    play(&app, game, &players, "pass_bid").await;
    // The last pass wins the auction for the opener: a payment, which no undo crosses.
    let (last, reply) = play(&app, game, &players, "pass_bid").await;
    let won = reply["version"].as_i64().unwrap();
    assert!(
        reply["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "auction_won"),
        "{reply}"
    );
    let d = detail(&app, game, &players[0]).await;
    let user = user_at(&players, &d, last);
    let refused = undo(&app, game, user, json!({"at_version": won})).await;
    let problem = refused.assert_problem(409, "undo_barrier");
    assert_eq!(problem["barrier_version"], won);
    assert_eq!(problem["barrier"], "payment");
    // Nor to a version before it, by anyone.
    let refused = undo(
        &app,
        game,
        user,
        json!({"at_version": won, "to_version": won - 2}),
    )
    .await;
    assert_eq!(
        refused.assert_problem(409, "undo_barrier")["barrier_version"],
        won
    );
}

/// anna, bert and cleo in a consent table where the player to act opened an auction and the
/// two others bid: the opener (to act again) has the request to make. Returns the game,
/// the opener, the two others (in bidding order) and the version before the opening.
async fn consent_table(app: &TestApp, names: &[&str]) -> (Uuid, Vec<User>, usize, i64) {
    let players = table(app, names).await;
    let game = steel(app, &players, "consent").await;
    let before = version(app, game, &players[0]).await;
    let (opener, _) = play(app, game, &players, "open").await;
    play(app, game, &players, "bid").await;
    play(app, game, &players, "bid").await;
    let d = detail(app, game, &players[0]).await;
    let opener = players
        .iter()
        .position(|u| u.id == user_at(&players, &d, opener).id)
        .unwrap();
    (game, players, opener, before)
}

#[tokio::test]
async fn a_consented_undo_in_a_three_seat_game_rewinds_when_both_accept() {
    let app = spawn_app().await;
    let (game, players, opener, before) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    let at = version(&app, game, me).await;
    let d = detail(&app, game, me).await;
    assert_eq!(d["undo"]["can_undo_to"], before);
    assert_eq!(d["undo"]["needs"].as_array().unwrap().len(), 2);
    let asked = undo(&app, game, me, json!({"at_version": at})).await;
    let asked = asked.assert_ok().clone();
    assert_eq!(asked["status"], "asked");
    assert_eq!(asked["version"], at + 1);
    let request = asked["request"]["seq"].as_i64().unwrap();
    assert_eq!(request, at + 1);
    assert_eq!(asked["request"]["to_version"], before);
    assert_eq!(asked["request"]["accepted"], json!([]));
    // A retry is the same request; a second request is refused while it is open.
    assert_eq!(
        undo(&app, game, me, json!({"at_version": at}))
            .await
            .assert_ok(),
        &asked
    );
    let open = undo(&app, game, others[0], json!({"at_version": at + 1})).await;
    assert_eq!(
        open.assert_problem(409, "undo_request_open")["request"],
        request
    );
    // Everyone sees the open request.
    for user in &players {
        assert_eq!(
            detail(&app, game, user).await["undo"]["request"]["seq"],
            request
        );
    }
    // The requester is not asked; one asked accepts (twice: the same answer).
    answer(&app, game, request, me, true)
        .await
        .assert_problem(409, "undo_not_asked");
    let first = answer(&app, game, request, others[0], true).await;
    let first = first.assert_ok().clone();
    assert_eq!(first["status"], "asked");
    assert_eq!(first["request"]["accepted"].as_array().unwrap().len(), 1);
    answer(&app, game, request, others[0], true)
        .await
        .assert_ok();
    answer(&app, game, request, others[0], false)
        .await
        .assert_problem(409, "undo_not_asked");
    let last = answer(&app, game, request, others[1], true).await;
    let last = last.assert_ok().clone();
    assert_eq!(last["status"], "rewound");
    let now = last["version"].as_i64().unwrap();
    assert_eq!(
        types_after(&app, game, at).await,
        [
            "kontor.undo_requested",
            "kontor.undo_answered",
            "kontor.undo_answered",
            "kontor.rewound"
        ]
    );
    // Exactly the position before the opening, for every seat.
    same_as_at(&app, game, &players, before).await;
    assert_eq!(detail(&app, game, me).await["undo"]["request"], Value::Null);
    // The answer again: the same outcome, nothing more.
    assert_eq!(
        answer(&app, game, request, others[1], true)
            .await
            .assert_ok()["status"],
        "rewound"
    );
    assert_eq!(version(&app, game, me).await, now);
    answer(&app, game, request, others[0], false)
        .await
        .assert_problem(409, "undo_not_asked");
}

#[tokio::test]
async fn a_decline_a_withdrawal_a_deadline_and_a_move_each_end_a_request() {
    let app = spawn_app().await;
    let (game, players, opener, before) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    // Back to before the opening: the others' bids are always in range.
    let ask = |at: i64| {
        undo(
            &app,
            game,
            me,
            json!({"at_version": at, "to_version": before}),
        )
    };

    // One decline ends it; nothing is taken back.
    let at = version(&app, game, me).await;
    let request = ask(at).await.assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    let declined = answer(&app, game, request, others[1], false).await;
    assert_eq!(declined.assert_ok()["status"], "declined");
    answer(&app, game, request, others[0], true)
        .await
        .assert_problem(409, "undo_no_request");
    assert_eq!(detail(&app, game, me).await["undo"]["request"], Value::Null);
    // Not asked again before the game moves on (see the test of that); a move lifts it.
    ask(at + 2).await.assert_problem(409, "undo_declined");
    play(&app, game, &players, "bid").await;

    // The requester withdraws; only they may.
    let at = version(&app, game, me).await;
    let request = ask(at).await.assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    app.delete(&format!("/games/{game}/undo/{request}"))
        .as_user(others[0])
        .send()
        .await
        .assert_problem(409, "undo_no_request");
    let withdrawn = app
        .delete(&format!("/games/{game}/undo/{request}"))
        .as_user(me)
        .send()
        .await;
    assert_eq!(withdrawn.assert_ok()["status"], "withdrawn");
    let again = app
        .delete(&format!("/games/{game}/undo/{request}"))
        .as_user(me)
        .send()
        .await;
    assert_eq!(again.assert_ok()["status"], "withdrawn");

    // Unanswered past the deadline (24 hours by default), it lapses.
    let at = version(&app, game, me).await;
    let request = ask(at).await.assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    app.clock.advance(Duration::from_secs(23 * 3600));
    assert_eq!(app.run_deadlines().await.undo_requests_lapsed, 0);
    app.clock.advance(Duration::from_secs(3601));
    assert_eq!(app.run_deadlines().await.undo_requests_lapsed, 1);
    assert_eq!(
        types_after(&app, game, at + 1).await,
        ["kontor.undo_lapsed"]
    );
    answer(&app, game, request, others[0], true)
        .await
        .assert_problem(409, "undo_no_request");

    // A move while a request is open lapses it: the move's batch begins with the lapse.
    let at = version(&app, game, me).await;
    let request = ask(at).await.assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    let (_, moved) = play(&app, game, &players, "pass_bid").await;
    assert_eq!(moved["events"][0]["type"], "kontor.undo_lapsed");
    assert_eq!(moved["events"][0]["data"]["reason"], "moved");
    assert_eq!(moved["events"][0]["data"]["request"], request);
    answer(&app, game, request, others[0], true)
        .await
        .assert_problem(409, "undo_no_request");
    assert_eq!(detail(&app, game, me).await["undo"]["request"], Value::Null);
    let open: i64 = sqlx::query_scalar("SELECT count(*) FROM undo_requests")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(open, 0);
}

#[tokio::test]
async fn a_declined_request_is_not_asked_again_before_the_next_move() {
    let app = spawn_app().await;
    let (game, players, opener, before) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    let at = version(&app, game, me).await;
    let request = undo(&app, game, me, json!({"at_version": at})).await;
    let request = request.assert_ok()["request"]["seq"].as_i64().unwrap();
    let no = answer(&app, game, request, others[0], false).await;
    no.assert_ok();
    let declined_at = at + 2;
    // The page knows beforehand: nothing to offer, and why.
    let d = detail(&app, game, me).await;
    assert_eq!(d["undo"]["declined_at"], declined_at);
    assert_eq!(d["undo"]["can_undo_to"], Value::Null);
    for other in &others {
        assert_eq!(
            detail(&app, game, other).await["undo"]["declined_at"],
            Value::Null
        );
    }
    // Asked again at once, in any form: refused, and nothing is appended.
    for body in [
        json!({"at_version": declined_at}),
        json!({"at_version": declined_at, "to_version": before}),
    ] {
        let again = undo(&app, game, me, body).await;
        let problem = again.assert_problem(409, "undo_declined");
        assert_eq!(problem["declined_at"], declined_at);
        assert!(
            problem["detail"].as_str().unwrap().contains("next move"),
            "{problem}"
        );
    }
    assert_eq!(version(&app, game, me).await, declined_at);
    // After a move the seat may ask again.
    play(&app, game, &players, "bid").await;
    let now = version(&app, game, me).await;
    let d = detail(&app, game, me).await;
    assert_eq!(d["undo"]["declined_at"], Value::Null);
    let asked = undo(
        &app,
        game,
        me,
        json!({"at_version": now, "to_version": before}),
    )
    .await;
    assert_eq!(asked.assert_ok()["status"], "asked");
}

#[tokio::test]
async fn refusals_say_the_real_reason() {
    let app = spawn_app().await;
    let (game, players, opener, before) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    // The three commands since `before`: the opening, then the two bids, each with its seat.
    let commands: Vec<(i64, i16)> = sqlx::query_as(
        "SELECT last_seq, seat FROM game_commands
          WHERE game_id = $1 AND first_seq > $2 ORDER BY first_seq",
    )
    .bind(game)
    .bind(before)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(commands.len(), 3, "{commands:?}");
    // Back to the end of the opening would take back only the others' bids, though the
    // opener has a move since the barrier: the refusal says so, not "nothing to undo".
    let end_of_opening = commands[0].0;
    let at = version(&app, game, me).await;
    let refused = undo(
        &app,
        game,
        me,
        json!({"at_version": at, "to_version": end_of_opening}),
    )
    .await;
    let problem = refused.assert_problem(409, "undo_not_own_moves");
    assert_eq!(problem["to_version"], end_of_opening);
    // The first bidder asks (the second bid is in range), then withdraws: a target that is
    // the request's own event is named as such, not "the middle of a move".
    let d = detail(&app, game, me).await;
    let first_bidder = user_at(&players, &d, i64::from(commands[1].1));
    let request = undo(&app, game, first_bidder, json!({"at_version": at})).await;
    let request = request.assert_ok()["request"]["seq"].as_i64().unwrap();
    app.delete(&format!("/games/{game}/undo/{request}"))
        .as_user(first_bidder)
        .send()
        .await
        .assert_ok();
    let now = version(&app, game, me).await;
    let refused = undo(
        &app,
        game,
        me,
        json!({"at_version": now, "to_version": request}),
    )
    .await;
    let problem = refused.assert_problem(422, "invalid_undo");
    assert_eq!(problem["reason"], "undo_event");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("an undo's own event"), "{detail}");
    assert!(!detail.contains("middle of a move"), "{detail}");
    // The words are the catalogue's, in the language the request asks for; the code and
    // the fields stay the same.
    let in_japanese = app
        .post(&format!("/games/{game}/undo"))
        .as_user(me)
        .header("Accept-Language", "ja")
        .json(&json!({"at_version": now, "to_version": end_of_opening}))
        .send()
        .await;
    let problem = in_japanese.assert_problem(409, "undo_not_own_moves");
    assert_eq!(problem["to_version"], end_of_opening);
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        detail.contains("ほかのプレイヤー") && detail.contains(&end_of_opening.to_string()),
        "{detail}"
    );
}

#[tokio::test]
async fn an_undo_and_a_move_at_once_exactly_one_wins() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    for round in 0..5 {
        let game = steel(&app, &players, "own").await;
        let (opener, _) = play(&app, game, &players, "open").await;
        let d = detail(&app, game, &players[0]).await;
        let opener_user = user_at(&players, &d, opener);
        let (_, next_user) = to_act(&app, game, &players).await;
        let mine = detail(&app, game, next_user).await;
        let at = mine["version"].as_i64().unwrap();
        let action = json!({"type": "bid", "bid": mine["legal"]["min_bid"]});
        let (undone, moved) = tokio::join!(
            undo(&app, game, opener_user, json!({"at_version": at})),
            app.act(next_user, game).version(at).send(&action)
        );
        let wins = [undone.status.as_u16(), moved.status.as_u16()]
            .iter()
            .filter(|&&s| s == 200)
            .count();
        assert_eq!(wins, 1, "round {round}: {} / {}", undone.text, moved.text);
        if undone.status == 200 {
            moved.assert_problem(409, "version_conflict");
            assert_eq!(types_after(&app, game, at).await, ["kontor.rewound"]);
        } else {
            // The bid came first: the opener's move is no longer theirs alone.
            assert_eq!(undone.status.as_u16(), 409, "{}", undone.text);
            assert!(
                !types_after(&app, game, at)
                    .await
                    .contains(&"kontor.rewound".to_string())
            );
        }
    }
}

#[tokio::test]
async fn the_seats_asked_are_mailed_in_their_language_and_told_on_their_stream() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let (game, players, opener, before) = consent_table(app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    app.put("/me/profile")
        .as_user(others[1])
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    sqlx::query("DELETE FROM mail_outbox")
        .execute(&app.pool)
        .await
        .unwrap();
    let mut stream = Stream::open(&app.address, "/me/stream", &others[0].token, None).await;
    let mut mine = Stream::open(&app.address, "/me/stream", &me.token, None).await;
    let at = version(app, game, me).await;
    let request = undo(app, game, me, json!({"at_version": at}))
        .await
        .assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    let told = loop {
        let event = stream
            .next(Duration::from_secs(10))
            .await
            .expect("an event");
        if event.event == "undo_requested" {
            break event;
        }
    };
    assert_eq!(
        told.data,
        json!({"game_id": game, "request": request, "version": at + 1})
    );

    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (2, 2), "{report:?}");
    let received = f.sink.received();
    let to = |user: &User| {
        received
            .iter()
            .find(|r| {
                r.to.iter()
                    .any(|t| t.contains(&format!("{}@example.org", user.name)))
            })
            .map(|r| r.mail())
    };
    assert!(to(me).is_none(), "the requester is not mailed");
    let en = to(others[0]).expect("a mail in English");
    assert_eq!(
        en.header("Subject"),
        Some(format!("{} asks to take back moves in Steel Driver", me.name).as_str())
    );
    assert_eq!(en.header("X-Kontor-Notice"), Some("undo_requested"));
    let text = en.text();
    assert!(
        text.contains("asks to take back the last 3 moves"),
        "{text}"
    );
    assert!(text.contains("one of them yours"), "{text}");
    assert!(
        text.contains(&format!("as it was at version {before}")),
        "{text}"
    );
    assert!(text.contains("Your consent is needed"), "{text}");
    assert!(text.contains(&format!("/games/{game}")), "{text}");
    assert!(text.contains("Unsubscribe from undo requests"), "{text}");
    let ja = to(others[1]).expect("a mail in Japanese");
    let text = ja.text();
    assert!(text.contains("直近3手"), "{text}");
    assert!(text.contains("あなたの同意が必要です"), "{text}");
    assert!(
        text.contains("手の取り消しの求めの配信を停止する"),
        "{text}"
    );

    // When it ends, the requester and the seats asked are told.
    answer(app, game, request, others[0], false)
        .await
        .assert_ok();
    let closed = loop {
        let event = mine.next(Duration::from_secs(10)).await.expect("an event");
        if event.event == "undo_closed" {
            break event;
        }
    };
    assert_eq!(closed.data["request"], request);
    assert_eq!(closed.data["outcome"], "declined");
}

#[tokio::test]
async fn a_mail_of_a_request_that_ended_before_delivery_is_not_sent() {
    let f = spawn_mailed_app(&[]).await;
    let app = &f.app;
    let (game, players, opener, _) = consent_table(app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    sqlx::query("DELETE FROM mail_outbox")
        .execute(&app.pool)
        .await
        .unwrap();
    let at = version(app, game, me).await;
    let request = undo(app, game, me, json!({"at_version": at}))
        .await
        .assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    app.delete(&format!("/games/{game}/undo/{request}"))
        .as_user(me)
        .send()
        .await
        .assert_ok();
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.skipped), (0, 2), "{report:?}");
}

/// The seat to act is played by the bot from now on (as after its abandonment), and the bot
/// moves for it.
async fn bot_moves(app: &TestApp, game: Uuid, players: &[User]) -> i64 {
    let (seat, _) = to_act(app, game, players).await;
    sqlx::query("UPDATE game_seats SET state = 'abandoned' WHERE game_id = $1 AND seat = $2")
        .bind(game)
        .bind(seat as i16)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO deadlines (game_id, seat, kind, turn_started_at, due_at)
         VALUES ($1, $2, 'bot', now(), now())",
    )
    .bind(game)
    .bind(seat as i16)
    .execute(&app.pool)
    .await
    .unwrap();
    assert_eq!(app.run_deadlines().await.bot_moves, 1);
    seat
}

#[tokio::test]
async fn bots_accept_at_once_under_consent_and_count_as_others_under_own() {
    let app = spawn_app().await;
    for policy in ["own", "consent"] {
        let players = table(
            &app,
            &[
                &format!("anna{policy}"),
                &format!("bert{policy}"),
                &format!("cleo{policy}"),
            ],
        )
        .await;
        let game = steel(&app, &players, policy).await;
        let before = version(&app, game, &players[0]).await;
        let (opener, _) = play(&app, game, &players, "open").await;
        let d = detail(&app, game, &players[0]).await;
        let me = user_at(&players, &d, opener);
        let bot = bot_moves(&app, game, &players).await;
        let at = version(&app, game, me).await;
        let reply = undo(&app, game, me, json!({"at_version": at})).await;
        if policy == "own" {
            assert_eq!(
                reply.assert_problem(409, "undo_needs_consent")["seats"],
                json!([bot])
            );
            continue;
        }
        let done = reply.assert_ok().clone();
        assert_eq!(done["status"], "rewound");
        assert_eq!(done["request"]["needs"], json!([bot]));
        assert_eq!(done["request"]["accepted"], json!([bot]));
        assert_eq!(
            types_after(&app, game, at).await,
            [
                "kontor.undo_requested",
                "kontor.undo_answered",
                "kontor.rewound"
            ]
        );
        same_as_at(&app, game, &players, before).await;
        assert_eq!(detail(&app, game, me).await["pending"], json!([opener]));
    }
}

#[tokio::test]
async fn after_a_rewind_the_seat_to_act_again_gets_a_fresh_clock() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "options": {"map": "usa", "undo": "own"},
                   "time_control": {"seconds_per_move": 86_400}}),
            &players,
        )
        .await;
    app.clock.advance(Duration::from_secs(3600));
    let (opener, _) = play(&app, game, &players, "open").await;
    let d = detail(&app, game, &players[0]).await;
    let me = user_at(&players, &d, opener);
    let (next, _) = to_act(&app, game, &players).await;
    app.clock.advance(Duration::from_secs(3600));
    let at = version(&app, game, me).await;
    undo(&app, game, me, json!({"at_version": at}))
        .await
        .assert_ok();
    // The opener is to act again, with a whole day from the rewind; the next bidder's clock
    // stopped.
    let seats: Vec<(
        i16,
        chrono::DateTime<chrono::Utc>,
        chrono::DateTime<chrono::Utc>,
    )> = sqlx::query_as("SELECT seat, turn_started_at, due_at FROM deadlines WHERE game_id = $1")
        .bind(game)
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(seats.len(), 1, "{seats:?}");
    let (seat, started, due) = seats[0];
    assert_eq!(i64::from(seat), opener);
    assert_ne!(i64::from(seat), next);
    assert_eq!(due - started, chrono::Duration::seconds(86_400));
    let now = app.clock.clock().now();
    assert!(
        (now - started).num_seconds().abs() < 60,
        "{started} vs {now}"
    );
    // And "your turn" is mailed to it again.
    let mailed: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM mail_outbox WHERE game_id = $1 AND user_id = $2 AND kind = 'your_turn'",
    )
    .bind(game)
    .bind(me.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(mailed, 2);
}

#[tokio::test]
async fn a_finished_game_with_undos_verifies_and_imports() {
    let app = spawn_app().await;
    let (game, players, opener, before) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    // A consented undo, then a misclick taken back at once.
    let at = version(&app, game, me).await;
    let request = undo(&app, game, me, json!({"at_version": at}))
        .await
        .assert_ok()["request"]["seq"]
        .as_i64()
        .unwrap();
    answer(&app, game, request, others[0], true)
        .await
        .assert_ok();
    answer(&app, game, request, others[1], true)
        .await
        .assert_ok();
    same_as_at(&app, game, &players, before).await;
    let (seat, _) = play(&app, game, &players, "open").await;
    let d = detail(&app, game, &players[0]).await;
    let at = version(&app, game, me).await;
    undo(
        &app,
        game,
        user_at(&players, &d, seat),
        json!({"at_version": at}),
    )
    .await
    .assert_ok();
    // A request lapsed by a move, too.
    play(&app, game, &players, "open").await;
    play(&app, game, &players, "bid").await;
    let (_, asker) = {
        let d = detail(&app, game, &players[0]).await;
        let seat = d["pending"][0].as_i64().unwrap();
        (seat, user_at(&players, &d, seat))
    };
    let at = version(&app, game, asker).await;
    let asked = undo(&app, game, asker, json!({"at_version": at})).await;
    if asked.status == 200 && asked.body["status"] == "asked" {
        play(&app, game, &players, "pass_bid").await;
    }
    crate::bots::play_to_end(&app, game, &players, crate::bots::steel_driver, 17).await;
    assert_eq!(detail(&app, game, me).await["status"], "finished");

    app.assert_verified(game, me).await;
    let export = app.export(game, me).await;
    assert!(export.contains("kontor.rewound"));
    let path = std::env::temp_dir().join(format!("kontor-undo-{game}.ndjson"));
    std::fs::write(&path, &export).unwrap();
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    let analyst = app.register("erin").await;
    let imported = read(
        app.client
            .post(app.url("/games/import"))
            .bearer_auth(&analyst.token)
            .header("content-type", "application/x-ndjson")
            .body(export)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    let sandbox = imported.body["id"].as_str().unwrap();
    // The sandbox is the same game: the same end, and the same position at the first rewind.
    let copy = app
        .get(&format!("/games/{sandbox}"))
        .as_user(&analyst)
        .send()
        .await;
    assert_eq!(
        copy.assert_ok()["outcome"],
        detail(&app, game, me).await["outcome"]
    );
}

/// A seat changing hands (here: a player deletes their account and leaves the game) is a
/// barrier, so an open request lapses just before it; the log reads on, and play goes on.
#[tokio::test]
async fn a_player_leaving_lapses_an_open_request_first() {
    let app = spawn_app().await;
    let (game, players, opener, _) = consent_table(&app, &["anna", "bert", "cleo"]).await;
    let me = &players[opener];
    let others: Vec<&User> = players.iter().filter(|u| u.id != me.id).collect();
    let at = version(&app, game, me).await;
    let asked = undo(&app, game, me, json!({"at_version": at})).await;
    let request = asked.assert_ok()["request"]["seq"].as_i64().unwrap();
    let leaver = others[1];
    app.post("/me/delete")
        .as_user(leaver)
        .json(&json!({"password": password_of(&leaver.name)}))
        .send()
        .await
        .assert_ok();
    assert_eq!(
        types_after(&app, game, at).await,
        [
            "kontor.undo_requested",
            "kontor.undo_lapsed",
            "kontor.seat_left"
        ]
    );
    let lapsed: Value =
        sqlx::query_scalar("SELECT payload FROM game_events WHERE game_id = $1 AND seq = $2")
            .bind(game)
            .bind(at + 2)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        lapsed,
        json!({"type": "kontor.undo_lapsed", "request": request, "reason": "seat"})
    );
    let d = detail(&app, game, me).await;
    assert_eq!(d["undo"]["request"], Value::Null);
    assert_eq!(d["version"], at + 3);
    // The answer that could no longer be granted is refused as for any ended request.
    answer(&app, game, request, others[0], true)
        .await
        .assert_problem(409, "undo_no_request");
}
