//! The health probes at the root: liveness and readiness.

use crate::support::*;

async fn probe(app: &TestApp, path: &str) -> Reply {
    read(
        app.client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn both_probes_answer_ok_on_a_running_server() {
    let app = spawn_app().await;
    for path in ["/healthz", "/readyz"] {
        let reply = probe(&app, path).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
        assert_eq!(reply.body, serde_json::json!({"status": "ok"}), "{path}");
        assert_eq!(reply.headers["cache-control"], "no-store");
    }
    // They live at the root only: the API's namespace has no probes.
    let reply = app.get("/healthz").send().await;
    reply.assert_problem(404, "not_found");
}

#[tokio::test]
async fn readiness_fails_while_a_migration_is_missing() {
    let app = spawn_app().await;
    // The newest migration "not applied": as when a newer binary meets an older schema.
    let newest: i64 = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE _sqlx_migrations SET success = false WHERE version = $1")
        .bind(newest)
        .execute(&app.pool)
        .await
        .unwrap();
    let reply = probe(&app, "/readyz").await;
    let body = reply.assert_problem(503, "not_ready");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains(&newest.to_string()),
        "{}",
        reply.text
    );
    assert_eq!(reply.headers["retry-after"], "2");
    assert_eq!(body["retry_after"], 2);
    // Liveness does not depend on the database.
    assert_eq!(probe(&app, "/healthz").await.status, 200);

    sqlx::query("UPDATE _sqlx_migrations SET success = true WHERE version = $1")
        .bind(newest)
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(probe(&app, "/readyz").await.status, 200);
}
