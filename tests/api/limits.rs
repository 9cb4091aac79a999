//! Volume limits against abuse, against the real server and PostgreSQL: registrations per
//! client address, open games per user, verification mails to one address whichever accounts
//! ask, invitations per inviter and invitation mails per invitee; and the forgot-password
//! request doing the same work whether or not the account exists.

use crate::support::*;
use serde_json::json;
use std::time::Duration;

async fn app_with(settings: &[(&str, &str)]) -> TestApp {
    spawn_app_with(AppOptions {
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    })
    .await
}

/// The `Retry-After` of a 429, checked to be there and within `most` seconds.
fn retry_after(reply: &Reply, most: u64) -> u64 {
    let wait: u64 = reply.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=most).contains(&wait), "Retry-After {wait}");
    assert_eq!(reply.body["retry_after"], wait);
    wait
}

async fn register_from(app: &TestApp, client: &str, name: &str, email: &str) -> Reply {
    app.post("/auth/register")
        .header("x-forwarded-for", client)
        .json(&json!({"username": name, "email": email, "password": password_of(name)}))
        .send()
        .await
}

async fn count(app: &TestApp, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.unwrap()
}

#[tokio::test]
async fn registrations_are_limited_per_client_address() {
    let app = app_with(&[
        ("KONTOR_REGISTRATIONS_PER_ADDRESS", "3"),
        ("KONTOR_TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let client = "203.0.113.7";
    // A refused registration (a name taken) counts nothing.
    register_from(&app, "198.51.100.1", "anna", "anna@example.org")
        .await
        .assert_ok();
    for _ in 0..3 {
        register_from(&app, client, "anna", "other@example.org")
            .await
            .assert_problem(409, "username_taken");
    }
    for i in 0..3 {
        let name = format!("user{i}");
        register_from(&app, client, &name, &format!("{name}@example.org"))
            .await
            .assert_ok();
    }
    let refused = register_from(&app, client, "user3", "user3@example.org").await;
    refused.assert_problem(429, "too_many_registrations");
    retry_after(&refused, 3_600);
    // No account, no mail to the typed address.
    assert_eq!(
        count(&app, "SELECT count(*) FROM users WHERE username = 'user3'").await,
        0
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM mail_tokens WHERE email = 'user3@example.org'"
        )
        .await,
        0
    );
    // Another client address has its own allowance.
    register_from(&app, "203.0.113.8", "user3", "user3@example.org")
        .await
        .assert_ok();
}

#[tokio::test]
async fn open_games_are_limited_per_user() {
    let app = app_with(&[("KONTOR_OPEN_GAMES_PER_USER", "2")]).await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let first = app.open_game(&anna).await;
    app.open_game(&anna).await;
    let create = json!({"kind": "flying-dutchman", "seats": 3});
    let refused = app.post("/games").as_user(&anna).json(&create).send().await;
    refused.assert_problem(429, "too_many_open_games");
    retry_after(&refused, 3_600);
    let open = "SELECT count(*) FROM games WHERE status = 'open'";
    assert_eq!(count(&app, open).await, 2);
    // Others are not held back by her games.
    app.open_game(&bert).await;
    // A cancelled game is no longer open: room for another.
    app.post(&format!("/games/{first}/cancel"))
        .as_user(&anna)
        .send()
        .await
        .assert_ok();
    app.open_game(&anna).await;
}

#[tokio::test]
async fn verification_mails_to_one_address_are_capped_whichever_accounts_ask() {
    let app = app_with(&[("KONTOR_VERIFY_MAILS_PER_ADDRESS", "2")]).await;
    let users = [
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let change = |user: &User, email: &str| {
        let body = json!({"password": password_of(&user.name), "email": email});
        app.post("/me/email").as_user(user).json(&body).send()
    };
    // Two accounts each mail the stranger once (in any letter case, it is one address).
    change(&users[0], "stranger@example.net").await.assert_ok();
    change(&users[1], "Stranger@Example.net").await.assert_ok();
    let refused = change(&users[2], "stranger@example.net").await;
    refused.assert_problem(429, "too_many_mails_to_address");
    retry_after(&refused, 86_400);
    let links = "SELECT count(*) FROM mail_tokens WHERE lower(email) = 'stranger@example.net'";
    assert_eq!(count(&app, links).await, 2);
    // Nothing changed for cleo, and her own allowance (a link a minute) is untouched.
    let me = app.get("/me").as_user(&users[2]).send().await;
    assert!(me.assert_ok().get("pending_email").is_none(), "{}", me.text);
    change(&users[2], "cleo@new.example").await.assert_ok();
    // A registration would mail the address too: refused alike, and no account is made.
    let register = json!({"username": "dora", "email": "stranger@example.net", "password": password_of("dora")});
    app.post("/auth/register")
        .json(&register)
        .send()
        .await
        .assert_problem(429, "too_many_mails_to_address");
    let dora = "SELECT count(*) FROM users WHERE username = 'dora'";
    assert_eq!(count(&app, dora).await, 0);
    assert_eq!(count(&app, links).await, 2);
}

#[tokio::test]
async fn invitations_are_capped_per_inviter_and_their_mails_per_invitee() {
    let app = app_with(&[
        ("KONTOR_INVITATIONS_PER_DAY", "3"),
        ("KONTOR_INVITATION_MAILS_PER_INVITEE", "2"),
    ])
    .await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let private = json!({"kind": "flying-dutchman", "seats": 3, "visibility": "private"});
    let mut games = Vec::new();
    for _ in 0..4 {
        let game = app
            .post("/games")
            .as_user(&anna)
            .json(&private)
            .send()
            .await;
        games.push(game.assert_ok()["id"].as_str().unwrap().to_string());
    }
    let invite = |by: &User, game: &str| {
        app.post(&format!("/games/{game}/invitations"))
            .as_user(by)
            .json(&json!({"username": "bert"}))
            .send()
    };
    for game in &games[..3] {
        assert_eq!(invite(&anna, game).await.status.as_u16(), 201);
    }
    // Inviting again is no new invitation: not counted.
    assert_eq!(invite(&anna, &games[0]).await.status.as_u16(), 200);
    let refused = invite(&anna, &games[3]).await;
    refused.assert_problem(429, "too_many_invitations");
    retry_after(&refused, 86_400);
    let invitations = "SELECT count(*) FROM game_invitations";
    assert_eq!(count(&app, invitations).await, 3);
    // Bert was mailed twice; the third invitation stands unmailed: he can join.
    let mails = "SELECT count(*) FROM mail_outbox WHERE kind = 'invited'";
    assert_eq!(count(&app, mails).await, 2);
    app.post(&format!("/games/{}/join", games[2]))
        .as_user(&bert)
        .send()
        .await
        .assert_ok();
    // Another inviter may invite him, but no further mail reaches him today.
    let game = app
        .post("/games")
        .as_user(&cleo)
        .json(&private)
        .send()
        .await;
    let game = game.assert_ok()["id"].as_str().unwrap().to_string();
    assert_eq!(invite(&cleo, &game).await.status.as_u16(), 201);
    assert_eq!(count(&app, mails).await, 2);
}

#[tokio::test]
async fn forgot_password_commits_the_same_work_for_an_unknown_name_as_for_an_account() {
    let app = spawn_app().await;
    app.register("anna").await;
    let mut listener = sqlx::postgres::PgListener::connect_with(&app.pool)
        .await
        .unwrap();
    listener.listen("kontor_mail").await.unwrap();
    for login in ["anna", "nobody-at-all"] {
        app.post("/auth/password/forgot")
            .json(&json!({ "login": login }))
            .send()
            .await
            .assert_ok();
        // Both wake the mail worker, as the one transaction each commits says.
        let woken = tokio::time::timeout(Duration::from_secs(10), listener.recv()).await;
        assert!(woken.is_ok(), "no wake-up of the mail worker for {login}");
    }
    // And both counted the request, in that transaction.
    let counted = "SELECT count(*) FROM login_failures WHERE subject LIKE 'mail:reset:%' AND subject NOT LIKE 'mail:reset:ip:%'";
    assert_eq!(count(&app, counted).await, 2);
    let links = "SELECT count(*) FROM mail_tokens WHERE purpose = 'reset_password'";
    assert_eq!(count(&app, links).await, 1);
}
