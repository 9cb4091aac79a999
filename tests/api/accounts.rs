//! Registration, login, refresh, logout, throttling and API tokens.

use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn register_login_and_me() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let me = app.get("/me").as_user(&anna).send().await;
    assert_eq!(me.assert_ok()["username"], "anna");
    assert_eq!(me.body["email"], "anna@example.org");
    assert!(me.body.get("password_hash").is_none());

    // Usernames are unique regardless of case; so are emails.
    let again = app
        .post("/auth/register").json(&json!({"username": "ANNA", "email": "other@example.org", "password": "tall ship sails at midnight"})).send()
        .await;
    again.assert_problem(409, "username_taken");
    let same_mail = app
        .post("/auth/register").json(&json!({"username": "anna2", "email": "Anna@Example.org", "password": "tall ship sails at midnight"})).send()
        .await;
    same_mail.assert_problem(409, "email_taken");

    // Login by email works too; the stored hash is argon2id.
    let by_mail = app
        .post("/auth/login")
        .json(&json!({"username": "anna@example.org", "password": password_of("anna")}))
        .send()
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
            json!({"username": "a", "email": "a@example.org", "password": "tall ship sails at midnight"}),
            "username",
        ),
        (
            json!({"username": "has space", "email": "a@example.org", "password": "tall ship sails at midnight"}),
            "username",
        ),
        (
            json!({"username": "anna", "email": "not-an-email", "password": "tall ship sails at midnight"}),
            "email",
        ),
        (
            json!({"username": "anna", "email": "a@example.org", "password": "short"}),
            "password",
        ),
    ] {
        let reply = app.post("/auth/register").json(&body).send().await;
        assert_eq!(reply.assert_problem(422, "invalid_field")["field"], field);
    }
}

#[tokio::test]
async fn a_failed_login_does_not_reveal_whether_the_user_exists() {
    let app = spawn_app().await;
    app.register("anna").await;
    let wrong_password = app
        .post("/auth/login")
        .json(&json!({"username": "anna", "password": "nope nope"}))
        .send()
        .await;
    let no_user = app
        .post("/auth/login")
        .json(&json!({"username": "nobody", "password": "nope nope"}))
        .send()
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
        app.post("/auth/login")
            .json(&json!({"username": "anna", "password": "guess guess"}))
            .send()
            .await
            .assert_problem(401, "invalid_credentials");
    }
    // Now even the right password waits: the account is throttled.
    let blocked = app
        .post("/auth/login")
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
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
        app.post("/auth/login")
            .json(&json!({"username": format!("ghost{i}"), "password": "guess guess"}))
            .send()
            .await
            .assert_problem(401, "invalid_credentials");
    }
    app.post("/auth/login")
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
        .await
        .assert_problem(429, "rate_limited");
}

#[tokio::test]
async fn refresh_rotates_and_a_reused_refresh_token_ends_the_login() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let first = app
        .post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    let first = first.assert_ok().clone();
    let new_refresh = first["refresh_token"].as_str().unwrap();
    assert_ne!(new_refresh, anna.refresh);
    app.get("/me")
        .token(first["access_token"].as_str().unwrap())
        .send()
        .await
        .assert_ok();

    // Sent again at once (a page left while its refresh was under way never got the new
    // one): the same browser, within the grace. Another new pair; the first stays valid.
    let again = app
        .post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    let again = again.assert_ok().clone();
    let again_refresh = again["refresh_token"].as_str().unwrap().to_string();
    assert_ne!(again_refresh, new_refresh);
    app.get("/me")
        .token(first["access_token"].as_str().unwrap())
        .send()
        .await
        .assert_ok();

    // Later, the spent token is someone else's copy: using it revokes the whole family.
    age_rotations(&app, "1 minute").await;
    app.post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await
        .assert_problem(401, "invalid_token");
    for live in [new_refresh, again_refresh.as_str()] {
        app.post("/auth/refresh")
            .json(&json!({"refresh_token": live}))
            .send()
            .await
            .assert_problem(401, "invalid_token");
    }
}

/// Moves every refresh back by `by` (an SQL interval), past the grace in which a spent
/// refresh token is still taken once more.
pub async fn age_rotations(app: &TestApp, by: &str) {
    sqlx::query("UPDATE refresh_tokens SET rotated_at = rotated_at - $1::interval WHERE rotated_at IS NOT NULL")
        .bind(by)
        .execute(&app.pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_spent_refresh_token_of_an_ended_login_is_refused_even_within_the_grace() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let renewed = app
        .post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    let renewed = renewed.assert_ok().clone();
    let reply = app
        .post("/auth/logout")
        .json(&json!({"refresh_token": renewed["refresh_token"]}))
        .send()
        .await;
    assert_eq!(reply.status, 204);
    app.post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await
        .assert_problem(401, "invalid_token");
}

#[tokio::test]
async fn logout_ends_the_refresh_and_the_access_token() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    app.get("/me").as_user(&anna).send().await.assert_ok();
    let reply = app
        .post("/auth/logout")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    assert_eq!(reply.status, 204);
    app.post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await
        .assert_problem(401, "invalid_token");
    // The login's access token is over too, though not yet expired.
    app.get("/me")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(401, "invalid_token");
}

#[tokio::test]
async fn api_tokens_are_scoped_shown_once_stored_hashed_and_revocable() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let created = app
        .post("/me/tokens")
        .as_user(&anna)
        .json(&json!({"name": "reader", "scopes": ["game:read"]}))
        .send()
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let token = created.body["token"].as_str().unwrap().to_string();
    let id = created.body["id"].as_str().unwrap().to_string();
    assert!(token.starts_with("kontor_pat_"));

    // Listed without the token; only a hash is stored.
    let list = app.get("/me/tokens").as_user(&anna).send().await;
    assert_eq!(list.assert_ok()["items"][0]["name"], "reader");
    assert!(!list.text.contains(&token));
    let stored: Vec<u8> = sqlx::query_scalar("SELECT token_hash FROM api_tokens")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_ne!(stored, token.as_bytes());

    // The token reads but may not play, nor manage tokens.
    app.get("/games?view=open")
        .token(&token)
        .send()
        .await
        .assert_ok();
    app.post("/games")
        .token(&token)
        .json(&json!({"kind": "flying-dutchman", "seats": 4}))
        .send()
        .await
        .assert_problem(403, "insufficient_scope");
    app.get("/me/tokens")
        .token(&token)
        .send()
        .await
        .assert_problem(403, "session_required");

    // Unknown scopes are refused.
    app.post("/me/tokens")
        .as_user(&anna)
        .json(&json!({"name": "x", "scopes": ["admin"]}))
        .send()
        .await
        .assert_problem(422, "invalid_field");

    // Revoked, it stops working at once.
    let revoked = app
        .delete(&format!("/me/tokens/{id}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(revoked.status, 204);
    app.get("/games?view=open")
        .token(&token)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    app.delete(&format!("/me/tokens/{id}"))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "token_not_found");
}

/// Registers `username` with `email` and a strong password; returns the reply.
async fn register_as(app: &TestApp, username: &str, email: &str) -> Reply {
    app.post("/auth/register").json(&json!({"username": username, "email": email, "password": "tall ship sails at midnight"})).send()
    .await
}

async fn login_as(app: &TestApp, identifier: &str, password: &str) -> Reply {
    app.post("/auth/login")
        .json(&json!({"username": identifier, "password": password}))
        .send()
        .await
}

#[tokio::test]
async fn identities_are_compared_with_full_case_folding_and_normalisation() {
    let app = spawn_app().await;
    // Emails that differ only in non-ASCII letter case are one address.
    assert_eq!(
        register_as(&app, "uebel", "übel@example.org").await.status,
        201
    );
    register_as(&app, "uebel2", "ÜBEL@example.org")
        .await
        .assert_problem(409, "email_taken");
    // Full folding: ß is "ss".
    assert_eq!(
        register_as(&app, "straße", "strasse@example.org")
            .await
            .status,
        201
    );
    register_as(&app, "STRASSE", "other@example.org")
        .await
        .assert_problem(409, "username_taken");
    // NFC and NFD spellings of one name are one name, for usernames and emails alike.
    let created = register_as(&app, "Zoe\u{308}", "zoe\u{308}@example.org").await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(
        created.body["username"], "Zo\u{eb}",
        "stored composed (NFC)"
    );
    register_as(&app, "zo\u{eb}", "zoe2@example.org")
        .await
        .assert_problem(409, "username_taken");
    register_as(&app, "zoe3", "ZO\u{cb}@EXAMPLE.ORG")
        .await
        .assert_problem(409, "email_taken");

    // Login works with any case and form of the username or the address.
    let password = "tall ship sails at midnight";
    for identifier in [
        "STRASSE",
        "Straße",
        "strasse@EXAMPLE.org",
        "ÜBEL@EXAMPLE.ORG",
        "U\u{308}bel@example.org",
        "ZOË",
        "zoe\u{308}",
        " Uebel ",
    ] {
        let reply = login_as(&app, identifier, password).await;
        assert_eq!(reply.status, 200, "{identifier:?}: {}", reply.text);
    }
    // The display form is kept as typed.
    let token = login_as(&app, "STRASSE", password).await.body["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        app.get("/me").token(&token).send().await.body["username"],
        "straße"
    );
    // Invitations find a user the same way.
    let anna = app.register("anna").await;
    let game = app.open_game(&anna).await;
    let invited = app
        .post(&format!("/games/{game}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "STRASSE"}))
        .send()
        .await;
    assert_eq!(invited.assert_ok()["username"], "straße");
}

#[tokio::test]
async fn usernames_with_invisible_characters_are_refused_with_a_reason() {
    let app = spawn_app().await;
    let before = app.fingerprint().await;
    for (name, why) in [
        ("an\u{200D}na", "invisible"),
        ("an\u{200B}na", "invisible"),
        ("anna\u{202E}", "invisible"),
        ("an\u{2066}na", "invisible"),
        ("\u{3164}anna", "invisible"),
        ("an na", "spaces"),
        ("an\u{a0}na", "spaces"),
        ("an\tna", "control"),
    ] {
        let reply = register_as(&app, name, "anna@example.org").await;
        let problem = reply.assert_problem(422, "invalid_field");
        assert_eq!(problem["field"], "username", "{name:?}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(why), "{name:?}: {detail}");
    }
    assert_eq!(app.fingerprint().await, before);
}

#[tokio::test]
async fn easily_guessed_passwords_are_refused_with_zxcvbn_feedback() {
    let app = spawn_app().await;
    let before = app.fingerprint().await;
    for password in [
        "aaaaaaaa",
        "password",
        "        ",
        "12345678",
        "qwertyuiop",
        "anna-password",
        "annasmith@example.org",
    ] {
        let reply = app
            .post("/auth/register").json(&json!({"username": "anna", "email": "annasmith@example.org", "password": password})).send()
            .await;
        let problem = reply.assert_problem(422, "invalid_field");
        assert_eq!(problem["field"], "password", "{password:?}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains("easy to guess"), "{password:?}: {detail}");
    }
    // zxcvbn's warning is passed on.
    let reply = app
        .post("/auth/register")
        .json(&json!({"username": "anna", "email": "anna@example.org", "password": "password"}))
        .send()
        .await;
    let detail = reply.body["detail"].as_str().unwrap();
    assert!(detail.contains("common"), "{detail}");
    // The length is bounded before the estimate.
    let long = "x7!Qz".repeat(26);
    let reply = app
        .post("/auth/register")
        .json(&json!({"username": "anna", "email": "anna@example.org", "password": long}))
        .send()
        .await;
    let detail = reply.assert_problem(422, "invalid_field")["detail"]
        .as_str()
        .unwrap();
    assert!(detail.contains("at most 128"), "{detail}");
    assert_eq!(app.fingerprint().await, before);
    // The walkthrough's passwords (docs/api/first-game.md) pass the bar.
    for name in ["anna", "bert", "cleo"] {
        let reply = app
            .post("/auth/register").json(&json!({"username": name, "email": format!("{name}@example.org"), "password": format!("secret-{name}-123")})).send()
            .await;
        assert_eq!(reply.status, 201, "{}", reply.text);
    }
}

async fn fail_login(app: &TestApp, identifier: &str) {
    login_as(app, identifier, "guess guess")
        .await
        .assert_problem(401, "invalid_credentials");
}

#[tokio::test]
async fn failures_count_per_account_whichever_identifier_was_typed() {
    let app = spawn_app().await;
    app.register("anna").await;
    app.register("bert").await;
    // Five failures by username: the email address gets no fresh tries.
    for _ in 0..5 {
        fail_login(&app, "anna").await;
    }
    login_as(&app, "anna@example.org", &password_of("anna"))
        .await
        .assert_problem(429, "rate_limited");
    login_as(&app, "ANNA@Example.org", "guess guess")
        .await
        .assert_problem(429, "rate_limited");
    // And the other way round, mixing the cases of the username.
    for _ in 0..5 {
        fail_login(&app, "bert@example.org").await;
    }
    for identifier in ["bert", "BERT"] {
        login_as(&app, identifier, &password_of("bert"))
            .await
            .assert_problem(429, "rate_limited");
    }
    // An identifier no account has still counts, folded as typed, so a throttled answer
    // looks the same whether or not the account exists.
    for _ in 0..5 {
        fail_login(&app, "ghost").await;
    }
    login_as(&app, "GHOST", "guess guess")
        .await
        .assert_problem(429, "rate_limited");
}

#[tokio::test]
async fn the_per_address_limit_is_its_own_setting() {
    // A low address limit throttles after that many failures on different accounts.
    let app = spawn_app_with(AppOptions {
        settings: [("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS".into(), "3".into())].into(),
    })
    .await;
    app.register("anna").await;
    for i in 0..3 {
        fail_login(&app, &format!("ghost{i}")).await;
    }
    login_as(&app, "anna", &password_of("anna"))
        .await
        .assert_problem(429, "rate_limited");

    // A high one lets a shared address fail more often than four times an account's limit.
    let app = spawn_app_with(AppOptions {
        settings: [("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS".into(), "100".into())].into(),
    })
    .await;
    app.register("anna").await;
    for i in 0..25 {
        fail_login(&app, &format!("ghost{i}")).await;
    }
    login_as(&app, "anna", &password_of("anna"))
        .await
        .assert_ok();
}

#[tokio::test]
async fn older_accounts_get_exact_keys_after_migrating_and_the_oldest_keeps_a_shared_one() {
    let app = spawn_app().await;
    let password = "tall ship sails at midnight";
    let hash = kontor::auth::hash_password(password).unwrap();
    // Accounts as the code before migration 0007 made them: keys by lower(), version 0.
    // Pairs that exact folding makes equal could both be registered then.
    let accounts = [
        ("ernst", "Ünal@Example.org", 6),
        ("bernd", "ünal@example.org", 5),
        ("alma", "maß@example.org", 4), // its folded key is bert's old one...
        ("bert", "MASS@example.org", 3), // ...which bert still holds until the backfill
        ("carl", "carl@example.org", 2),
    ];
    let mut ids = std::collections::HashMap::new();
    for (name, email, days_ago) in accounts {
        let id = uuid::Uuid::now_v7();
        sqlx::query(
            "INSERT INTO users (id, username, username_key, email, email_key, password_hash,
                                created_at, identity_keys_version)
             VALUES ($1, $2, lower($2), $3, lower($3), $4, now() - make_interval(days => $5), 0)",
        )
        .bind(id)
        .bind(name)
        .bind(email)
        .bind(&hash)
        .bind(days_ago)
        .execute(&app.pool)
        .await
        .unwrap();
        ids.insert(name, id);
    }
    // What the server runs at start.
    kontor::store::migrate(&app.pool).await.unwrap();
    let keys: Vec<(String, String, String, i16)> = sqlx::query_as(
        "SELECT username, username_key, email_key, identity_keys_version FROM users
          ORDER BY created_at",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let key_of = |name: &str| keys.iter().find(|k| k.0 == name).unwrap().clone();
    assert_eq!(key_of("ernst").2, "ünal@example.org");
    assert_eq!(key_of("alma").2, "mass@example.org");
    assert_eq!(key_of("carl").2, "carl@example.org");
    // The younger of each pair keeps its username but cannot be reached by the address.
    for younger in ["bernd", "bert"] {
        let (_, username_key, email_key, _) = key_of(younger);
        assert_eq!(username_key, younger);
        assert!(email_key.starts_with('\u{1}'), "{email_key:?}");
    }
    assert!(keys.iter().all(|k| k.3 == 1), "{keys:?}");

    // Logins find the older account by any spelling of the address, the younger by name.
    for (identifier, owner) in [
        ("ÜNAL@EXAMPLE.ORG", "ernst"),
        ("u\u{308}nal@example.org", "ernst"),
        ("MASS@example.org", "alma"),
        ("maß@example.org", "alma"),
        ("bernd", "bernd"),
        ("BERT", "bert"),
        ("Carl@Example.org", "carl"),
    ] {
        let reply = login_as(&app, identifier, password).await;
        let token = reply.assert_ok()["access_token"].as_str().unwrap();
        let me = app.get("/me").token(token).send().await;
        assert_eq!(me.body["id"], ids[owner].to_string(), "{identifier}");
    }
    // Once done, it does nothing.
    let again = kontor::store::users::backfill_identity_keys(&app.pool)
        .await
        .unwrap();
    assert_eq!(again, kontor::store::users::Backfill::default());
}
