//! Keeping an account, against the real server, PostgreSQL and SMTP receiver: verification
//! links, no game mail to unverified addresses, password reset by mail, changing the
//! password and the address, and the list of logins.

use crate::smtp::{Received, links};
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

type Fixture = MailedApp;

async fn fixture(extra: &[(&str, &str)]) -> Fixture {
    let mut settings = vec![
        ("KONTOR_MAIL_FROM", "Kontor <kontor@kontor.test>"),
        ("KONTOR_BASE_URL", "https://kontor.test"),
    ];
    settings.extend_from_slice(extra);
    spawn_mailed_app(&settings).await
}

impl Fixture {
    /// Delivers what is due; returns the mails that arrived with this delivery.
    async fn deliver(&self) -> Vec<Received> {
        let before = self.sink.received().len();
        self.notifier.deliver_due(50).await.unwrap();
        self.sink.received()[before..].to_vec()
    }

    /// Delivers what is due and returns the one mail that arrived of `kind` for `to`.
    async fn mail_for(&self, kind: &str, to: &str) -> Received {
        let mails: Vec<Received> = self
            .deliver()
            .await
            .into_iter()
            .filter(|m| m.mail().header("X-Kontor-Notice") == Some(kind))
            .filter(|m| m.to.iter().any(|t| t == to))
            .collect();
        assert_eq!(mails.len(), 1, "one {kind} mail to {to}: {mails:?}");
        mails.into_iter().next().unwrap()
    }
}

/// The token of the link to `page` in a mail.
fn token_in(mail: &Received, page: &str) -> String {
    let text = mail.mail().text().to_string();
    let link = links(&text)
        .into_iter()
        .find(|l| l.contains(&format!("/{page}?token=")))
        .unwrap_or_else(|| panic!("no {page} link in {text}"));
    assert!(
        link.starts_with(&format!("https://kontor.test/{page}?token=")),
        "{link}"
    );
    link.split("token=").nth(1).unwrap().to_string()
}

/// Whether the raw token is stored anywhere in the database.
async fn stored_anywhere(app: &TestApp, token: &str) -> bool {
    let dump: Vec<String> = sqlx::query_scalar(
        "SELECT data::text FROM mail_outbox UNION ALL SELECT email FROM mail_tokens",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    dump.iter().any(|row| row.contains(token))
}

async fn me(app: &TestApp, user: &User) -> Value {
    app.get("/me")
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

async fn verify(app: &TestApp, token: &str) -> Reply {
    app.post("/auth/verify-email")
        .json(&json!({ "token": token }))
        .send()
        .await
}

fn tampered(token: &str) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    let last = chars.last_mut().unwrap();
    *last = if *last == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

/// Tables a refused request may not change (the throttle's counters aside).
const BOOKKEEPING: &[&str] = &["login_failures"];

#[tokio::test]
async fn registration_mails_a_link_that_verifies_the_address_once() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let nora = app.register_unverified("nora").await;
    let profile = me(app, &nora).await;
    assert_eq!(profile["email_verified"], false);
    let mail = f.mail_for("verify_email", "nora@example.org").await;
    let parsed = mail.mail();
    // Transactional: no unsubscribe link or header.
    assert!(parsed.header("List-Unsubscribe").is_none());
    assert!(!parsed.text().contains("nsubscribe"));
    let token = token_in(&mail, "verify-email");
    assert!(token.starts_with("kontor_ve_"), "{token}");
    // Only the hash is kept, once the mail is out.
    assert!(!stored_anywhere(app, &token).await);

    // A damaged link and one of another kind change nothing.
    let before = app.fingerprint_except(BOOKKEEPING).await;
    verify(app, &tampered(&token))
        .await
        .assert_problem(400, "mail_token_invalid");
    verify(app, "kontor_pw_notatoken")
        .await
        .assert_problem(400, "mail_token_invalid");
    verify(app, "").await.assert_problem(422, "invalid_field");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);
    assert_eq!(me(app, &nora).await["email_verified"], false);

    let done = verify(app, &token).await;
    assert_eq!(done.assert_ok()["email"], "nora@example.org");
    assert_eq!(done.body["changed"], false);
    assert_eq!(me(app, &nora).await["email_verified"], true);

    // Once only.
    let before = app.fingerprint_except(BOOKKEEPING).await;
    verify(app, &token)
        .await
        .assert_problem(410, "mail_token_used");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);
}

#[tokio::test]
async fn expired_and_replaced_links_are_refused() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let nora = app.register_unverified("nora").await;
    let first = token_in(
        &f.mail_for("verify_email", "nora@example.org").await,
        "verify-email",
    );
    // A new link replaces the old one.
    let resent = app
        .post("/me/email/verification")
        .as_user(&nora)
        .send()
        .await;
    assert_eq!(resent.status.as_u16(), 202, "{}", resent.text);
    assert_eq!(resent.body["sent_to"], "nora@example.org");
    let second = token_in(
        &f.mail_for("verify_email", "nora@example.org").await,
        "verify-email",
    );
    assert_ne!(first, second);
    verify(app, &first)
        .await
        .assert_problem(410, "mail_token_used");

    // Past its lifetime (KONTOR_VERIFY_TOKEN_TTL, two days) the link is refused.
    app.clock.advance(Duration::from_secs(2 * 86_400 + 1));
    let before = app.fingerprint_except(BOOKKEEPING).await;
    verify(app, &second)
        .await
        .assert_problem(410, "mail_token_expired");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);
    assert_eq!(me(app, &nora).await["email_verified"], false);
}

#[tokio::test]
async fn resending_is_rate_limited_and_only_for_what_waits() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let nora = app.register_unverified("nora").await;
    let first = app
        .post("/me/email/verification")
        .as_user(&nora)
        .send()
        .await;
    assert_eq!(first.status.as_u16(), 202, "{}", first.text);
    let again = app
        .post("/me/email/verification")
        .as_user(&nora)
        .send()
        .await;
    again.assert_problem(429, "rate_limited");
    assert!(again.headers.get("retry-after").is_some());

    // API tokens cannot ask.
    let token = app.api_token(&nora.token, &["game:read"]).await;
    app.post("/me/email/verification")
        .token(&token)
        .send()
        .await
        .assert_problem(403, "session_required");

    // A verified address with no change waiting needs no link.
    let bert = app.register("bert").await;
    app.post("/me/email/verification")
        .as_user(&bert)
        .send()
        .await
        .assert_problem(409, "email_already_verified");
}

/// (kind, status, skip_reason) of a user's outbox rows, oldest first.
async fn outbox(app: &TestApp, user: &User) -> Vec<(String, String, Option<String>)> {
    sqlx::query_as(
        "SELECT kind, status, skip_reason FROM mail_outbox WHERE user_id = $1 ORDER BY id",
    )
    .bind(user.id)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn an_unverified_address_gets_no_game_mail() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register_unverified("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let players = [anna.clone(), bert.clone(), cleo.clone()];
    app.start_game("flying-dutchman", json!({}), &players).await;
    let arrived = f.deliver().await;
    let to_anna: Vec<String> = arrived
        .iter()
        .filter(|m| m.to.iter().any(|t| t == "anna@example.org"))
        .map(|m| m.mail().header("X-Kontor-Notice").unwrap_or("").to_string())
        .collect();
    assert_eq!(to_anna, ["verify_email"], "anna gets only her link");
    assert!(
        arrived
            .iter()
            .any(|m| m.to.iter().any(|t| t == "bert@example.org")
                && m.mail().header("X-Kontor-Notice") == Some("game_started")),
        "verified players get the game's mail"
    );
    let anna_rows = outbox(app, &anna).await;
    let game_rows: Vec<_> = anna_rows.iter().filter(|r| r.0 != "verify_email").collect();
    assert!(!game_rows.is_empty());
    for (kind, status, reason) in game_rows {
        assert_eq!(
            (status.as_str(), reason.as_deref()),
            ("skipped", Some("unverified")),
            "{kind}"
        );
    }
}

#[tokio::test]
async fn unverified_accounts_may_read_but_not_play_where_the_setting_says_so() {
    let f = fixture(&[("KONTOR_UNVERIFIED_MAY_PLAY", "false")]).await;
    let app = &f.app;
    let nora = app.register_unverified("nora").await;
    me(app, &nora).await;
    app.get("/games").as_user(&nora).send().await.assert_ok();
    let before = app.fingerprint_except(BOOKKEEPING).await;
    app.post("/games")
        .as_user(&nora)
        .json(&json!({"kind": "flying-dutchman", "seats": 3}))
        .send()
        .await
        .assert_problem(403, "email_not_verified");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);

    let bert = app.register("bert").await;
    let game = app.open_game(&bert).await;
    app.post(&format!("/games/{game}/join"))
        .as_user(&nora)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "email_not_verified");

    let token = token_in(
        &f.mail_for("verify_email", "nora@example.org").await,
        "verify-email",
    );
    verify(app, &token).await.assert_ok();
    app.post(&format!("/games/{game}/join"))
        .as_user(&nora)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
}

async fn login(app: &TestApp, name: &str, password: &str) -> Reply {
    app.post("/auth/login")
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
}

async fn refresh(app: &TestApp, token: &str) -> Reply {
    app.post("/auth/refresh")
        .json(&json!({ "refresh_token": token }))
        .send()
        .await
}

async fn forgot(app: &TestApp, login: &str) -> Reply {
    app.post("/auth/password/forgot")
        .json(&json!({ "login": login }))
        .send()
        .await
}

async fn reset(app: &TestApp, token: &str, password: &str) -> Reply {
    app.post("/auth/password/reset")
        .json(&json!({"token": token, "password": password}))
        .send()
        .await
}

#[tokio::test]
async fn a_reset_answers_alike_for_every_name_and_its_link_works_once() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register_unverified("anna").await;
    f.deliver().await;
    assert_eq!(me(app, &anna).await["email_verified"], false);
    // A second login, and an API token.
    let second = login(app, "anna", &password_of("anna")).await;
    let second_refresh = second.assert_ok()["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    let api_token = app.api_token(&anna.token, &["game:read"]).await;

    // The same answer for a known name, a known address and nobody.
    let known = forgot(app, "anna").await;
    let unknown = forgot(app, "nobody-at-all").await;
    assert_eq!(known.status.as_u16(), 202, "{}", known.text);
    assert_eq!((known.status, &known.body), (unknown.status, &unknown.body));
    let mail = f.mail_for("password_reset", "anna@example.org").await;
    let first = token_in(&mail, "reset-password");
    assert!(first.starts_with("kontor_pw_"));
    assert!(!stored_anywhere(app, &first).await);
    // By address too; the newer link replaces the older.
    let by_address = forgot(app, "ANNA@example.org").await;
    assert_eq!(
        (by_address.status, &by_address.body),
        (known.status, &known.body)
    );
    let token = token_in(
        &f.mail_for("password_reset", "anna@example.org").await,
        "reset-password",
    );
    reset(app, &first, "a brand new horse battery")
        .await
        .assert_problem(410, "mail_token_used");

    // A weak password is refused and the link still works.
    let before = app.fingerprint_except(BOOKKEEPING).await;
    reset(app, &token, "password1")
        .await
        .assert_problem(422, "invalid_field");
    reset(app, &tampered(&token), "a brand new horse battery")
        .await
        .assert_problem(400, "mail_token_invalid");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);

    let done = reset(app, &token, "a brand new horse battery").await;
    assert_eq!(
        done.assert_ok()["revoked"],
        json!({"sessions": 2, "api_tokens": 1})
    );
    // Every old credential stops working (refresh tokens and API tokens at once).
    refresh(app, &anna.refresh)
        .await
        .assert_problem(401, "invalid_token");
    refresh(app, &second_refresh)
        .await
        .assert_problem(401, "invalid_token");
    app.get("/me")
        .token(&api_token)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    // And the access tokens of the old logins, though not expired.
    app.get("/me")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    login(app, "anna", &password_of("anna"))
        .await
        .assert_problem(401, "invalid_credentials");
    let fresh = login(app, "anna", "a brand new horse battery").await;
    let fresh = fresh.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    // The link reached the address: it counts as verified. The owner is told.
    let account = app.get("/me").token(&fresh).send().await;
    assert_eq!(account.assert_ok()["email_verified"], true);
    let told = f.mail_for("password_changed", "anna@example.org").await;
    assert!(
        told.mail().text().contains("reset"),
        "{}",
        told.mail().text()
    );

    // Once only.
    reset(app, &token, "another brand new horse battery")
        .await
        .assert_problem(410, "mail_token_used");
}

#[tokio::test]
async fn an_account_mail_is_in_the_recipients_language_and_time_zone() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register("anna").await;
    f.deliver().await;
    app.put("/me/profile")
        .as_user(&anna)
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    forgot(app, "anna").await;
    let received = f.mail_for("password_reset", "anna@example.org").await;
    let mail = received.mail();
    let text = mail.text();
    assert!(text.contains("パスワード"), "{text}");
    // The link's expiry, in Tokyo and named so.
    let expires: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
        "SELECT expires_at FROM mail_tokens WHERE user_id = $1 AND purpose = 'reset_password'",
    )
    .bind(anna.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let expiry = expires
        .with_timezone(&chrono_tz::Asia::Tokyo)
        .format("%H:%M（Asia/Tokyo）")
        .to_string();
    assert!(text.contains(&expiry), "{expiry} in {text}");
}

#[tokio::test]
async fn reset_links_expire_and_are_rate_limited_silently() {
    let f = fixture(&[]).await;
    let app = &f.app;
    app.register("anna").await;
    f.deliver().await;
    forgot(app, "anna").await;
    let token = token_in(
        &f.mail_for("password_reset", "anna@example.org").await,
        "reset-password",
    );
    app.clock.advance(Duration::from_secs(3_601));
    reset(app, &token, "a brand new horse battery")
        .await
        .assert_problem(410, "mail_token_expired");

    // Three links an hour per account; beyond that the same answer, and no mail.
    forgot(app, "anna").await;
    forgot(app, "anna").await;
    let fourth = forgot(app, "anna").await;
    assert_eq!(fourth.status.as_u16(), 202);
    let resets = f
        .deliver()
        .await
        .into_iter()
        .filter(|m| m.mail().header("X-Kontor-Notice") == Some("password_reset"))
        .count();
    assert_eq!(resets, 2, "the first of the hour was mailed before");
}

#[tokio::test]
async fn changing_the_password_ends_the_other_logins_only() {
    let f = fixture(&[("KONTOR_LOGIN_MAX_FAILURES", "3")]).await;
    let app = &f.app;
    let anna = app.register("anna").await;
    let other = login(app, "anna", &password_of("anna")).await;
    let other_refresh = other.assert_ok()["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    let other_access = other.body["access_token"].as_str().unwrap().to_string();
    app.get("/me").token(&other_access).send().await.assert_ok();
    f.deliver().await;

    let change = |current: &str, new: &str| {
        app.post("/me/password")
            .as_user(&anna)
            .json(&json!({"current_password": current, "new_password": new}))
    };
    let before = app.fingerprint_except(BOOKKEEPING).await;
    change("not my password", "a brand new horse battery")
        .send()
        .await
        .assert_problem(403, "wrong_password");
    change(&password_of("anna"), "password1")
        .send()
        .await
        .assert_problem(422, "invalid_field");
    // The same password again is no change.
    let same = change(&password_of("anna"), &password_of("anna"))
        .send()
        .await;
    assert_eq!(
        same.assert_problem(422, "invalid_field")["field"],
        "new_password"
    );
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);

    let done = change(&password_of("anna"), "a brand new horse battery")
        .send()
        .await;
    assert_eq!(
        done.assert_ok()["revoked"],
        json!({"sessions": 1, "api_tokens": 0})
    );
    refresh(app, &other_refresh)
        .await
        .assert_problem(401, "invalid_token");
    // The other login's access token too, at once (a thief's copy is worth nothing now).
    app.get("/me")
        .token(&other_access)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    me(app, &anna).await;
    refresh(app, &anna.refresh).await.assert_ok();
    let told = f.mail_for("password_changed", "anna@example.org").await;
    assert!(told.mail().text().contains("changed"));

    // Wrong current passwords count as failed logins.
    for _ in 0..3 {
        change("not my password", "a brand new horse battery")
            .send()
            .await
            .assert_problem(403, "wrong_password");
    }
    change("a brand new horse battery", "another new horse battery")
        .send()
        .await
        .assert_problem(429, "rate_limited");
    login(app, "anna", "a brand new horse battery")
        .await
        .assert_problem(429, "rate_limited");
}

#[tokio::test]
async fn a_new_password_calls_off_a_change_of_address_someone_else_began() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register("anna").await;
    f.deliver().await;
    let f = &f;
    let steal = |user: &User, password: String| {
        let request = app
            .post("/me/email")
            .as_user(user)
            .json(&json!({"password": password, "email": "thief@evil.example"}));
        async move {
            let asked = request.send().await;
            assert_eq!(asked.status.as_u16(), 202, "{}", asked.text);
            let link = f.mail_for("verify_email", "thief@evil.example").await;
            token_in(&link, "verify-email")
        }
    };
    // The mail counters (sign-up's link was mailed a moment ago; they count by the
    // database's clock) are not what this test is about.
    let forget_mail_counts = || async {
        sqlx::query("DELETE FROM login_failures")
            .execute(&app.pool)
            .await
            .unwrap();
    };
    // Someone with anna's session asks for their own address; the old address is warned and
    // anna resets her password, as the warning says.
    forget_mail_counts().await;
    let stolen = steal(&anna, password_of("anna")).await;
    forgot(app, "anna").await;
    let link = f.mail_for("password_reset", "anna@example.org").await;
    reset(
        app,
        &token_in(&link, "reset-password"),
        "a brand new horse battery",
    )
    .await
    .assert_ok();
    verify(app, &stolen)
        .await
        .assert_problem(410, "mail_token_used");
    let again = login(app, "anna", "a brand new horse battery").await;
    let anna = User {
        token: again.assert_ok()["access_token"]
            .as_str()
            .unwrap()
            .to_string(),
        ..anna
    };
    let profile = me(app, &anna).await;
    assert_eq!(profile["email"], "anna@example.org");
    assert!(profile.get("pending_email").is_none(), "{profile}");

    // The same after a change of password by the owner, signed in.
    forget_mail_counts().await;
    let stolen = steal(&anna, "a brand new horse battery".into()).await;
    app.post("/me/password")
        .as_user(&anna)
        .json(&json!({"current_password": "a brand new horse battery", "new_password": "another new horse battery"}))
        .send()
        .await
        .assert_ok();
    verify(app, &stolen)
        .await
        .assert_problem(410, "mail_token_used");
    assert_eq!(me(app, &anna).await["email"], "anna@example.org");
}

#[tokio::test]
async fn a_new_address_takes_effect_when_its_link_is_used() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register("anna").await;
    app.register("bert").await;
    f.deliver().await;

    let change = |password: &str, email: &str| {
        app.post("/me/email")
            .as_user(&anna)
            .json(&json!({"password": password, "email": email}))
    };
    change("not my password", "anna@new.example")
        .send()
        .await
        .assert_problem(403, "wrong_password");
    change(&password_of("anna"), "no address")
        .send()
        .await
        .assert_problem(422, "invalid_field");
    change(&password_of("anna"), "ANNA@example.org")
        .send()
        .await
        .assert_problem(422, "invalid_field");

    let asked = change(&password_of("anna"), "anna@new.example")
        .send()
        .await;
    assert_eq!(asked.status.as_u16(), 202, "{}", asked.text);
    assert_eq!(asked.body["pending_email"], "anna@new.example");
    // Nothing changes until the link is used.
    let profile = me(app, &anna).await;
    assert_eq!(profile["email"], "anna@example.org");
    assert_eq!(profile["email_verified"], true);
    assert_eq!(profile["pending_email"], "anna@new.example");
    let mails = f.deliver().await;
    let link = mails
        .iter()
        .find(|m| m.to == ["anna@new.example"])
        .expect("the link goes to the new address");
    assert_eq!(link.mail().header("X-Kontor-Notice"), Some("verify_email"));
    let notice = mails
        .iter()
        .find(|m| m.to == ["anna@example.org"])
        .expect("the old address is told");
    assert_eq!(
        notice.mail().header("X-Kontor-Notice"),
        Some("email_changed")
    );
    let text = notice.mail().text().to_string();
    assert!(text.contains("a***@new.example"), "{text}");
    assert!(!text.contains("anna@new.example"), "{text}");
    assert!(
        text.contains("https://kontor.test/reset-password"),
        "{text}"
    );

    let done = verify(app, &token_in(link, "verify-email")).await;
    assert_eq!(done.assert_ok()["email"], "anna@new.example");
    assert_eq!(done.body["changed"], true);
    let profile = me(app, &anna).await;
    assert_eq!(profile["email"], "anna@new.example");
    assert_eq!(profile["email_verified"], true);
    assert!(profile.get("pending_email").is_none());
    login(app, "anna@new.example", &password_of("anna"))
        .await
        .assert_ok();
    // The old address is told that the change took effect.
    let told = f
        .deliver()
        .await
        .into_iter()
        .find(|m| m.to == ["anna@example.org"])
        .expect("the old address is told of the change");
    assert_eq!(told.mail().header("X-Kontor-Notice"), Some("email_changed"));
    let text = told.mail().text().to_string();
    assert!(text.contains("is now a***@new.example"), "{text}");

    // An address another account has is refused when asked, as registration refuses it...
    app.clock.advance(Duration::from_secs(61));
    sqlx::query("DELETE FROM login_failures")
        .execute(&app.pool)
        .await
        .unwrap();
    change(&password_of("anna"), "BERT@example.org")
        .send()
        .await
        .assert_problem(409, "email_taken");
    // ... (which mails nothing, and so does not count against the mails allowed: another
    // address may be asked for at once) and when the link is used, if another account took it
    // meanwhile.
    let asked = change(&password_of("anna"), "cleo@example.org")
        .send()
        .await;
    assert_eq!(asked.status.as_u16(), 202, "{}", asked.text);
    let link = f.mail_for("verify_email", "cleo@example.org").await;
    app.register("cleo").await;
    let before = app.fingerprint_except(BOOKKEEPING).await;
    verify(app, &token_in(&link, "verify-email"))
        .await
        .assert_problem(409, "email_taken");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);
    assert_eq!(me(app, &anna).await["email"], "anna@new.example");
}

#[tokio::test]
async fn logins_are_listed_and_ended_one_or_all() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let agent = format!("Phone/1.0 {}", "x".repeat(300));
    let phone = app
        .post("/auth/login")
        .header("User-Agent", &agent)
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
        .await;
    let phone_token = phone.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let phone_refresh = phone.body["refresh_token"].as_str().unwrap().to_string();

    let list = app.get("/me/sessions").token(&phone_token).send().await;
    let items = list.assert_ok()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2, "{items:?}");
    let mine = items.iter().find(|s| s["current"] == true).unwrap();
    // The client as its User-Agent said, cut at 200 characters.
    assert_eq!(mine["client"], agent[..200]);
    let other = items.iter().find(|s| s["current"] == false).unwrap();
    let other_id = other["id"].as_str().unwrap().to_string();

    // End the first login: its refresh token and its access token stop working at once
    // (the access token was in use a moment ago, so the server knew it in good standing).
    me(&app, &anna).await;
    let ended = app
        .delete(&format!("/me/sessions/{other_id}"))
        .token(&phone_token)
        .send()
        .await;
    assert_eq!(ended.status.as_u16(), 204, "{}", ended.text);
    refresh(&app, &anna.refresh)
        .await
        .assert_problem(401, "invalid_token");
    let ended_access = app.get("/me").token(&anna.token).send().await;
    ended_access.assert_problem(401, "invalid_token");
    assert!(
        ended_access.text.contains("sign in again"),
        "{}",
        ended_access.text
    );
    app.delete(&format!("/me/sessions/{other_id}"))
        .token(&phone_token)
        .send()
        .await
        .assert_problem(404, "session_not_found");
    // Nobody ends another account's login.
    let bert = app.register("bert").await;
    app.delete(&format!("/me/sessions/{}", mine["id"].as_str().unwrap()))
        .as_user(&bert)
        .send()
        .await
        .assert_problem(404, "session_not_found");

    // A browser session is a login too; ending all but the current one ends it.
    let browser = app
        .post("/auth/session")
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
        .await;
    browser.assert_ok();
    let list = app.get("/me/sessions").token(&phone_token).send().await;
    assert_eq!(list.assert_ok()["items"].as_array().unwrap().len(), 2);
    let all = app.delete("/me/sessions").token(&phone_token).send().await;
    assert_eq!(all.assert_ok()["revoked"], 1);
    let list = app.get("/me/sessions").token(&phone_token).send().await;
    let items = list.assert_ok()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["current"], true);
    // The phone's own login still refreshes, and stays the current one.
    let renewed = refresh(&app, &phone_refresh).await;
    let renewed_token = renewed.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let list = app.get("/me/sessions").token(&renewed_token).send().await;
    assert_eq!(list.assert_ok()["items"][0]["current"], true);

    // API tokens cannot see or end logins.
    let api_token = app.api_token(&renewed_token, &["game:read"]).await;
    app.get("/me/sessions")
        .token(&api_token)
        .send()
        .await
        .assert_problem(403, "session_required");
    app.delete("/me/sessions")
        .token(&api_token)
        .send()
        .await
        .assert_problem(403, "session_required");
}

#[tokio::test]
async fn the_mails_links_open_the_web_client_which_sends_no_referrer() {
    let app = spawn_app().await;
    for page in ["verify-email", "reset-password"] {
        let response = app
            .client
            .get(format!("{}/{page}?token=kontor_ve_abc", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{page}: is the web client built?");
        let headers = response.headers();
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        // The token in the address must not travel on to another site.
        assert_eq!(headers["referrer-policy"], "no-referrer");
    }
}

#[tokio::test]
async fn a_password_change_voids_the_reset_links_mailed_before_it() {
    let f = fixture(&[]).await;
    let app = &f.app;
    let anna = app.register("anna").await;
    forgot(app, "anna").await;
    let token = token_in(
        &f.mail_for("password_reset", "anna@example.org").await,
        "reset-password",
    );
    app.post("/me/password")
        .as_user(&anna)
        .json(&json!({"current_password": password_of("anna"), "new_password": "a new and private passphrase"}))
        .send()
        .await
        .assert_ok();
    let before = app.fingerprint_except(BOOKKEEPING).await;
    reset(app, &token, "someone else's passphrase now")
        .await
        .assert_problem(410, "mail_token_used");
    assert_eq!(app.fingerprint_except(BOOKKEEPING).await, before);
    login(app, "anna", "a new and private passphrase")
        .await
        .assert_ok();
    // A link asked for after the change works as ever.
    forgot(app, "anna").await;
    let fresh = token_in(
        &f.mail_for("password_reset", "anna@example.org").await,
        "reset-password",
    );
    assert_ne!(fresh, token);
    reset(app, &fresh, "a third good passphrase here")
        .await
        .assert_ok();
}
