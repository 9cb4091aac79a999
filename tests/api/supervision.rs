//! Startup supervises (issue 11): a background task that stops while the server runs is
//! noticed and named, the server stops the clean way, and the run ends with the failure, which
//! makes `kontor serve` exit with status 1. A clean stop is no failure.

use crate::support::*;
use kontor::app::WorkerFailure;
use std::time::Duration;

/// A server with its workers running.
async fn with_workers() -> TestApp {
    spawn_app_with(AppOptions {
        settings: [("KONTOR_WORKERS".to_string(), "true".to_string())].into(),
    })
    .await
}

/// Whether the server answers its liveness probe.
async fn answers(app: &TestApp) -> bool {
    app.client
        .get(format!("{}/healthz", app.address))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

/// Waits (bounded, generously) for the server's run to end; returns its failure.
async fn failure_of(app: &mut TestApp) -> WorkerFailure {
    let server = app.server.as_mut().expect("an in-process server");
    let ended = tokio::time::timeout(Duration::from_secs(60), &mut server.running)
        .await
        .expect("the server stops once a worker has died")
        .expect("the server's task did not panic");
    let error = ended.expect_err("the run ends with the worker's failure");
    error
        .downcast_ref::<WorkerFailure>()
        .unwrap_or_else(|| panic!("a worker's failure, not {error:#}"))
        .clone()
}

#[tokio::test]
async fn a_worker_or_service_that_dies_stops_the_server_and_is_named() {
    for worker in [
        "mail",
        "deadlines",
        "housekeeping",
        "ratings",
        "live-listener",
        "committer",
        "live-publisher",
    ] {
        let mut app = with_workers().await;
        let anna = app.register("anna").await;
        assert!(answers(&app).await, "{worker}: the server runs");
        let supervisor = app.server.as_ref().unwrap().supervisor.clone();
        // Ended from outside, as a crash would end it: no chance to finish its item.
        assert!(supervisor.abort(worker), "{worker} runs under supervision");
        let failure = failure_of(&mut app).await;
        assert_eq!(failure.worker, worker);
        assert_eq!(failure.how, "was aborted");
        assert_eq!(
            failure.to_string(),
            format!("the {worker} worker was aborted")
        );
        assert!(!answers(&app).await, "{worker}: the server has stopped");
        // The database is untouched by the stop: the account is still there.
        let pool = app.own_pool().await;
        assert!(
            kontor::store::sessions::standing(&pool, anna.id, None)
                .await
                .unwrap()
                .account,
            "{worker}"
        );
    }
}

#[tokio::test]
async fn a_worker_that_panics_or_returns_is_noticed_with_how_it_ended() {
    let mut app = with_workers().await;
    let supervisor = app.server.as_ref().unwrap().supervisor.clone();
    supervisor.spawn_worker("exploding", async { panic!("on purpose, for the test") });
    let failure = failure_of(&mut app).await;
    assert_eq!(failure.worker, "exploding");
    assert_eq!(failure.how, "panicked: on purpose, for the test");
    assert!(!answers(&app).await, "the server has stopped");

    let mut app = spawn_app().await;
    let supervisor = app.server.as_ref().unwrap().supervisor.clone();
    let stop = supervisor.stop_token();
    // A worker must run until told to stop; this one returns at once.
    supervisor.spawn_worker("quitter", async move { drop(stop) });
    let failure = failure_of(&mut app).await;
    assert_eq!(failure.worker, "quitter");
    assert_eq!(failure.how, "returned while the server was running");
}

#[tokio::test]
async fn a_clean_stop_with_every_worker_running_is_no_failure() {
    let mut app = with_workers().await;
    let supervisor = app.server.as_ref().unwrap().supervisor.clone();
    let stop = supervisor.stop_token();
    // A worker that ends when told to is no failure.
    supervisor.spawn_worker("polite", async move { stop.cancelled().await });
    app.register("anna").await;
    let server = app.server.as_mut().unwrap();
    server.stopper.stop(true).await;
    let ended = tokio::time::timeout(Duration::from_secs(60), &mut server.running)
        .await
        .expect("the server stops")
        .expect("the server's task did not panic");
    ended.expect("a clean stop ends the run without an error");
    assert!(!answers(&app).await, "the server has stopped");
}

/// The backend of the server's live listener (`LISTEN kontor_live`), once there is one.
pub async fn live_listener(admin: &sqlx::PgPool, database: &str, not: Option<i32>) -> i32 {
    for _ in 0..600 {
        let pid: Option<i32> = sqlx::query_scalar(
            "SELECT pid FROM pg_stat_activity
              WHERE datname = $1 AND query ILIKE '%listen%kontor_live%' AND pid <> $2",
        )
        .bind(database)
        .bind(not.unwrap_or(0))
        .fetch_optional(admin)
        .await
        .unwrap();
        if let Some(pid) = pid {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no live listener on {database}");
}

/// What the supervision must not take for a death: a worker that meets a lost connection
/// retries (the live listener reconnects with backoff), and the server goes on.
#[tokio::test]
async fn a_killed_database_connection_is_retried_and_no_failure() {
    let mut app = with_workers().await;
    let admin = kontor::store::connect(pg().superuser_options("postgres"), 1)
        .await
        .unwrap();
    let before = live_listener(&admin, &app.database, None).await;
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1",
    )
    .bind(&app.database)
    .fetch_one(&admin)
    .await
    .unwrap();
    assert!(killed >= 1, "the server's connections were killed");
    let after = live_listener(&admin, &app.database, Some(before)).await;
    assert_ne!(after, before, "the listener reconnected");
    app.register("anna").await;
    assert!(answers(&app).await);
    let server = app.server.as_mut().unwrap();
    assert!(!server.running.is_finished(), "the server still runs");
    server.stopper.stop(true).await;
    let ended = tokio::time::timeout(Duration::from_secs(60), &mut server.running)
        .await
        .expect("the server stops")
        .expect("the server's task did not panic");
    ended.expect("no task of the server failed");
    admin.close().await;
}
