//! Registration, login, refresh, logout, throttling and API tokens.

use crate::support::*;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn register_login_and_me() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let me = app.get("/me", &anna.token).await;
    assert_eq!(me.assert_ok()["username"], "anna");
    assert_eq!(me.body["email"], "anna@example.org");
    assert!(me.body.get("password_hash").is_none());

    // Usernames are unique regardless of case; so are emails.
    let again = app
        .post(
            "/auth/register",
            None,
            &json!({"username": "ANNA", "email": "other@example.org", "password": "long enough"}),
        )
        .await;
    again.assert_problem(409, "username_taken");
    let same_mail = app
        .post(
            "/auth/register",
            None,
            &json!({"username": "anna2", "email": "Anna@Example.org", "password": "long enough"}),
        )
        .await;
    same_mail.assert_problem(409, "email_taken");

    // Login by email works too; the stored hash is argon2id.
    let by_mail = app
        .post(
            "/auth/login",
            None,
            &json!({"username": "anna@example.org", "password": "anna-password"}),
        )
        .await;
    by_mail.assert_ok();
    let hash: String =
        sqlx::query_scalar("SELECT password_hash FROM users WHERE username = 'anna'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(hash.starts_with("$argon2id$"), "{hash}");
}

#[tokio::test]
async fn registration_is_validated() {
    let app = spawn_app().await;
    for (body, field) in [
        (
            json!({"username": "a", "email": "a@example.org", "password": "long enough"}),
            "username",
        ),
        (
            json!({"username": "has space", "email": "a@example.org", "password": "long enough"}),
            "username",
        ),
        (
            json!({"username": "anna", "email": "not-an-email", "password": "long enough"}),
            "email",
        ),
        (
            json!({"username": "anna", "email": "a@example.org", "password": "short"}),
            "password",
        ),
    ] {
        let reply = app.post("/auth/register", None, &body).await;
        assert_eq!(reply.assert_problem(422, "invalid_field")["field"], field);
    }
}

#[tokio::test]
async fn a_failed_login_does_not_reveal_whether_the_user_exists() {
    let app = spawn_app().await;
    app.register("anna").await;
    let wrong_password = app
        .post(
            "/auth/login",
            None,
            &json!({"username": "anna", "password": "nope nope"}),
        )
        .await;
    let no_user = app
        .post(
            "/auth/login",
            None,
            &json!({"username": "nobody", "password": "nope nope"}),
        )
        .await;
    wrong_password.assert_problem(401, "invalid_credentials");
    no_user.assert_problem(401, "invalid_credentials");
    assert_eq!(wrong_password.body["detail"], no_user.body["detail"]);
}

#[tokio::test]
async fn repeated_failures_are_throttled_per_account() {
    let app = spawn_app().await;
    app.register("anna").await;
    for _ in 0..5 {
        app.post(
            "/auth/login",
            None,
            &json!({"username": "anna", "password": "guess guess"}),
        )
        .await
        .assert_problem(401, "invalid_credentials");
    }
    // Now even the right password waits: the account is throttled.
    let blocked = app
        .post(
            "/auth/login",
            None,
            &json!({"username": "anna", "password": "anna-password"}),
        )
        .await;
    blocked.assert_problem(429, "rate_limited");
    let retry_after: u64 = blocked.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=900).contains(&retry_after), "{retry_after}");
    // Only that account: another one logs in from the same address.
    app.register("bert").await;
}

#[tokio::test]
async fn repeated_failures_are_throttled_per_address() {
    let app = spawn_app().await;
    app.register("anna").await;
    // Twenty failures on different accounts from one address use up the address's
    // allowance (four times an account's).
    for i in 0..20 {
        app.post(
            "/auth/login",
            None,
            &json!({"username": format!("ghost{i}"), "password": "guess guess"}),
        )
        .await
        .assert_problem(401, "invalid_credentials");
    }
    app.post(
        "/auth/login",
        None,
        &json!({"username": "anna", "password": "anna-password"}),
    )
    .await
    .assert_problem(429, "rate_limited");
}

#[tokio::test]
async fn refresh_rotates_and_a_reused_refresh_token_ends_the_login() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let first = app
        .post(
            "/auth/refresh",
            None,
            &json!({"refresh_token": anna.refresh}),
        )
        .await;
    let first = first.assert_ok().clone();
    let new_refresh = first["refresh_token"].as_str().unwrap();
    assert_ne!(new_refresh, anna.refresh);
    app.get("/me", first["access_token"].as_str().unwrap())
        .await
        .assert_ok();

    // The old refresh token is spent; using it again revokes the whole family.
    app.post(
        "/auth/refresh",
        None,
        &json!({"refresh_token": anna.refresh}),
    )
    .await
    .assert_problem(401, "invalid_token");
    app.post(
        "/auth/refresh",
        None,
        &json!({"refresh_token": new_refresh}),
    )
    .await
    .assert_problem(401, "invalid_token");
}

#[tokio::test]
async fn logout_revokes_the_refresh_token() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let reply = app
        .post(
            "/auth/logout",
            None,
            &json!({"refresh_token": anna.refresh}),
        )
        .await;
    assert_eq!(reply.status, 204);
    app.post(
        "/auth/refresh",
        None,
        &json!({"refresh_token": anna.refresh}),
    )
    .await
    .assert_problem(401, "invalid_token");
}

#[tokio::test]
async fn api_tokens_are_scoped_shown_once_stored_hashed_and_revocable() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let created = app
        .post(
            "/me/tokens",
            Some(&anna.token),
            &json!({"name": "reader", "scopes": ["game:read"]}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let token = created.body["token"].as_str().unwrap().to_string();
    let id = created.body["id"].as_str().unwrap().to_string();
    assert!(token.starts_with("kontor_pat_"));

    // Listed without the token; only a hash is stored.
    let list = app.get("/me/tokens", &anna.token).await;
    assert_eq!(list.assert_ok()["items"][0]["name"], "reader");
    assert!(!list.text.contains(&token));
    let stored: Vec<u8> = sqlx::query_scalar("SELECT token_hash FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_ne!(stored, token.as_bytes());

    // The token reads but may not play, nor manage tokens.
    app.get("/games?view=open", &token).await.assert_ok();
    app.post(
        "/games",
        Some(&token),
        &json!({"kind": "flying-dutchman", "seats": 4}),
    )
    .await
    .assert_problem(403, "insufficient_scope");
    app.get("/me/tokens", &token)
        .await
        .assert_problem(403, "session_required");

    // Unknown scopes are refused.
    app.post(
        "/me/tokens",
        Some(&anna.token),
        &json!({"name": "x", "scopes": ["admin"]}),
    )
    .await
    .assert_problem(422, "invalid_field");

    // Revoked, it stops working at once.
    let revoked = app
        .call(
            Method::DELETE,
            &format!("/me/tokens/{id}"),
            Some(&anna.token),
            None,
            &[],
        )
        .await;
    assert_eq!(revoked.status, 204);
    app.get("/games?view=open", &token)
        .await
        .assert_problem(401, "invalid_token");
    app.call(
        Method::DELETE,
        &format!("/me/tokens/{id}"),
        Some(&anna.token),
        None,
        &[],
    )
    .await
    .assert_problem(404, "token_not_found");
}
