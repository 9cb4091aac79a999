//! Housekeeping: old finished mail, stale live presence, expired refresh tokens and ended
//! failed-login windows are deleted; the rest stays.

use crate::bots;
use crate::support::*;
use serde_json::json;
use std::collections::HashMap;
use uuid::Uuid;

/// Queues a mail of `user` in `status`, last changed (and sent, if sent) `days_ago`; a
/// "digested" one is summed up in `digest`.
async fn mail(
    app: &TestApp,
    user: Uuid,
    kind: &str,
    status: &str,
    days_ago: i32,
    digest: Option<Uuid>,
) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO mail_outbox (id, user_id, kind, dedupe_key, data, status, digest_id,
                                  created_at, updated_at, sent_at)
         VALUES ($1, $2, $3, $4, '{}', $5, $6, now() - make_interval(days => $7),
                 now() - make_interval(days => $7),
                 CASE WHEN $5 = 'sent' THEN now() - make_interval(days => $7) END)",
    )
    .bind(id)
    .bind(user)
    .bind(kind)
    .bind(format!("test:{id}"))
    .bind(status)
    .bind(digest)
    .bind(days_ago)
    .execute(&app.pool)
    .await
    .unwrap();
    id
}

async fn presence(app: &TestApp, user: Uuid, game: Uuid, instance: &str, secs_ago: f64) {
    sqlx::query(
        "INSERT INTO live_presence (user_id, game_id, instance_id, seen_at)
         VALUES ($1, $2, $3, now() - make_interval(secs => $4))",
    )
    .bind(user)
    .bind(game)
    .bind(instance)
    .bind(secs_ago)
    .execute(&app.pool)
    .await
    .unwrap();
}

/// A refresh token of `user` expiring `expires_in_secs` from now (negative: expired).
async fn refresh_token(app: &TestApp, user: Uuid, expires_in_secs: f64) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, expires_at)
         VALUES ($1, $2, $1, decode(md5($1::text), 'hex'), now() + make_interval(secs => $3))",
    )
    .bind(id)
    .bind(user)
    .bind(expires_in_secs)
    .execute(&app.pool)
    .await
    .unwrap();
    id
}

async fn login_failures(app: &TestApp, subject: &str, started_secs_ago: f64) {
    sqlx::query(
        "INSERT INTO login_failures (subject, failures, window_start)
         VALUES ($1, 3, now() - make_interval(secs => $2))",
    )
    .bind(subject)
    .bind(started_secs_ago)
    .execute(&app.pool)
    .await
    .unwrap();
}

async fn ids(app: &TestApp, sql: &str) -> Vec<String> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

async fn mails(app: &TestApp) -> Vec<Uuid> {
    sqlx::query_scalar("SELECT id FROM mail_outbox ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

async fn instances(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT instance_id FROM live_presence ORDER BY instance_id")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn housekeeping_deletes_old_finished_mail_and_stale_presence_only() {
    let app = spawn_app().await;
    let players = vec![
        app.register("hana").await,
        app.register("ivo").await,
        app.register("jola").await,
    ];
    let game = app.start_game("steel-driver", json!({}), &players).await;
    bots::play(&app, game, &players, bots::steel_driver, 5, 10).await;
    // Only the test's own mails.
    sqlx::query("DELETE FROM mail_outbox")
        .execute(&app.pool)
        .await
        .unwrap();
    let user = players[0].id;

    let old_sent = mail(&app, user, "your_turn", "sent", 40, None).await;
    let old_skipped = mail(&app, user, "your_turn", "skipped", 40, None).await;
    let old_digest = mail(&app, user, "digest", "sent", 40, None).await;
    let summed = mail(&app, user, "your_turn", "digested", 41, Some(old_digest)).await;
    let recent_sent = mail(&app, user, "your_turn", "sent", 2, None).await;
    let recent_skipped = mail(&app, user, "your_turn", "skipped", 2, None).await;
    let recent_digest = mail(&app, user, "digest", "sent", 2, None).await;
    let recent_summed = mail(&app, user, "your_turn", "digested", 41, Some(recent_digest)).await;
    let mut kept = vec![recent_sent, recent_skipped, recent_digest, recent_summed];
    for status in ["pending", "sending", "held", "failed"] {
        kept.push(mail(&app, user, "your_turn", status, 90, None).await);
    }
    presence(&app, user, game, "dead", 600.0).await;
    presence(&app, user, game, "just-died", 61.0).await;
    presence(&app, user, game, "alive", 1.0).await;
    let refresh_tokens = "SELECT id::text FROM refresh_tokens ORDER BY id";
    let mut live_tokens = ids(&app, refresh_tokens).await;
    refresh_token(&app, user, -1.0).await;
    live_tokens.push(refresh_token(&app, user, 60.0).await.to_string());
    live_tokens.sort();
    // The login window is KONTOR_LOGIN_WINDOW, 900 s by default.
    login_failures(&app, "ip:192.0.2.1", 901.0).await;
    login_failures(&app, "ip:192.0.2.2", 10.0).await;
    // Counters of account mails live beside them, with windows of up to a day.
    login_failures(&app, "mail:verify:86400:someone", 901.0).await;
    login_failures(&app, "mail:verify:86400:someone-else", 86_401.0).await;
    // Housekeeping deletes from these; every other table stays as it is.
    let swept_tables = [
        "mail_outbox",
        "live_presence",
        "refresh_tokens",
        "login_failures",
    ];
    let log = app.fingerprint_except(&swept_tables).await;

    let (ok, out) = app.kontor(&["housekeeping"]).await;
    assert!(ok, "{out}");
    assert!(
        out.contains("deleted 4 finished mail(s) and 2 stale live presence row(s), 1 expired refresh token(s) and 2 failed-login counter(s) whose window ended"),
        "{out}"
    );
    assert_eq!(ids(&app, refresh_tokens).await, live_tokens);
    // Of the counters planted above (the players' registrations counted fresh ones too).
    let planted = "SELECT subject FROM login_failures
                    WHERE subject LIKE 'ip:192.0.2.%' OR subject LIKE 'mail:verify:%'
                    ORDER BY subject";
    assert_eq!(
        ids(&app, planted).await,
        ["ip:192.0.2.2", "mail:verify:86400:someone"]
    );
    // The log, the commands, the games, the seats, the snapshots, the logins (every other
    // table) are untouched.
    assert_eq!(app.fingerprint_except(&swept_tables).await, log);
    // The players' logins still refresh.
    app.post("/auth/refresh")
        .json(&json!({"refresh_token": players[1].refresh}))
        .send()
        .await
        .assert_ok();
    kept.sort();
    assert_eq!(mails(&app).await, kept);
    for gone in [old_sent, old_skipped, old_digest, summed] {
        assert!(!kept.contains(&gone));
    }
    assert_eq!(instances(&app).await, vec!["alive".to_string()]);

    // Nothing left to do: a second pass deletes nothing.
    let swept = kontor::service::housekeeping::sweep(
        &app.pool,
        30,
        app.config.login_window,
        app.config.idempotency_window,
        app.config.clock.now(),
    )
    .await
    .unwrap();
    assert_eq!(swept, Default::default());
    // 0 keeps finished mail forever; with 1 day the two-day-old mails go too.
    presence(&app, user, game, "dead-again", 120.0).await;
    let swept = kontor::service::housekeeping::sweep(
        &app.pool,
        0,
        app.config.login_window,
        app.config.idempotency_window,
        app.config.clock.now(),
    )
    .await
    .unwrap();
    assert_eq!((swept.mails, swept.presence), (0, 1));
    let swept = kontor::service::housekeeping::sweep(
        &app.pool,
        1,
        app.config.login_window,
        app.config.idempotency_window,
        app.config.clock.now(),
    )
    .await
    .unwrap();
    assert_eq!(swept.mails, 4);
    assert_eq!(mails(&app).await.len(), 4);
}

#[tokio::test]
async fn the_workers_keep_house() {
    // Passes every 20 ms: shorter than any setting allows (a second at the least).
    let app = spawn_app_configured(
        AppOptions {
            settings: HashMap::from([("KONTOR_WORKERS".to_string(), "true".to_string())]),
        },
        |config| config.housekeeping_every = std::time::Duration::from_millis(20),
    )
    .await;
    let user = app.register("kai").await;
    let game = Uuid::now_v7();
    presence(&app, user.id, game, "dead", 600.0).await;
    presence(&app, user.id, game, "alive", 0.0).await;
    let old = mail(&app, user.id, "your_turn", "sent", 40, None).await;
    let expired = refresh_token(&app, user.id, -1.0).await.to_string();
    // A bounded wait for the worker's next pass.
    for _ in 0..500 {
        if instances(&app).await == ["alive"]
            && !mails(&app).await.contains(&old)
            && !ids(&app, "SELECT id::text FROM refresh_tokens")
                .await
                .contains(&expired)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!(
        "the workers left {:?} and {:?}",
        instances(&app).await,
        mails(&app).await
    );
}
