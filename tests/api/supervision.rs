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
        assert!(
            kontor::store::users::exists(&app.pool, anna.id)
                .await
                .unwrap(),
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
