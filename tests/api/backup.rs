//! Backup and restore with `kontor backup` and `kontor restore`, configured as systemd would
//! configure the server: by a `KONTOR_CONFIG` file of `KEY=value` lines, values with spaces
//! and `<…>` that a shell could not source among them. A database with finished and running
//! games of both kinds is dumped with the real `pg_dump` while its server runs, restored into
//! a new cluster, and there `kontor replay --check` passes, every finished game verifies, a
//! running game plays on, and a token issued before the backup still works because the data
//! folder's secret came with it.

use crate::bots;
use crate::support::*;
use kontor::app::Application;
use kontor::config::Config;
use kontor::embedded_pg::{Durability, EmbeddedPostgres};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// Runs `kontor <args>` configured only by a configuration file holding these settings (and
/// a few any server's file has, which no shell could source); the status and its output.
fn kontor_configured(args: &[&Path], settings: &[(&str, &Path)]) -> (bool, String) {
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let mut file = String::from(
        "# as in /etc/kontor.env\nKONTOR_MAIL_FROM=Kontor Games <kontor@example.org>\n\
         KONTOR_BASE_URL = https://kontor.example.org\n",
    );
    for (key, value) in settings {
        file.push_str(&format!("{key}={}\n", value.display()));
    }
    let n = FILES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("kontor-backup-{}-{n}.env", std::process::id()));
    std::fs::write(&path, file).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
        .args(args)
        .env("KONTOR_CONFIG", &path)
        .env_remove("KONTOR_DATABASE_URL")
        .env_remove("DATABASE_URL")
        .env_remove("KONTOR_DATA_DIR")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// [`kontor_configured`], which must succeed; its output.
fn kontor(command: &str, folder: &Path, settings: &[(&str, &Path)]) -> String {
    let (ok, text) = kontor_configured(&[Path::new(command), folder], settings);
    assert!(ok, "kontor {command} failed: {text}");
    text
}

/// A server in this process on `pg`'s database `kontor`, reading its JWT secret from the data
/// folder `data` (none is configured), as `kontor serve` would with that data folder.
async fn server_on(pg: &EmbeddedPostgres, data: &Path) -> TestApp {
    let settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0".to_string()),
        ("KONTOR_WORKERS", "false".to_string()),
        ("KONTOR_DATA_DIR", data.display().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut config = Config::from_map(&settings).unwrap();
    assert!(config.jwt_secret.is_none());
    let clock = kontor::time::TestClock::new();
    config.clock = clock.clock();
    let pool = kontor::store::connect(pg.connect_options("kontor"), 4)
        .await
        .unwrap();
    kontor::store::migrate(&pool).await.unwrap();
    let server = Application::build(config, pool.clone()).unwrap();
    let app = TestApp::in_process(&server, pool, "kontor", clock);
    tokio::spawn(server.run_until_stopped());
    app
}

/// `kontor replay --check` on the embedded cluster of the data folder `data`: it must pass.
async fn replay_check(data: &Path) {
    let replay = tokio::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
        .args(["replay", "--check"])
        .env("KONTOR_DATA_DIR", data)
        .env_remove("KONTOR_DATABASE_URL")
        .env_remove("KONTOR_CONFIG")
        .env("RUST_LOG", "warn")
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout).into_owned()
        + &String::from_utf8_lossy(&replay.stderr);
    assert!(replay.status.success(), "replay --check: {text}");
    assert!(text.contains("every game folds"), "{text}");
}

/// A folder for this test, removed on drop (with the restored cluster stopped first).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_backup_restores_into_a_new_cluster_with_games_that_verify_and_play_on() {
    // The source: a server whose JWT secret is generated into its data folder, as in
    // production when KONTOR_JWT_SECRET is not set.
    let source =
        spawn_app_configured(AppOptions::default(), |config| config.jwt_secret = None).await;
    assert!(source.config.data_dir.join("jwt-secret").exists());
    let players = [
        source.register("anna").await,
        source.register("bert").await,
        source.register("cleo").await,
    ];
    let mut finished = Vec::new();
    for (kind, choose) in [
        ("flying-dutchman", bots::flying_dutchman as bots::Chooser),
        ("steel-driver", bots::steel_driver),
    ] {
        let game = source.start_game(kind, json!({}), &players).await;
        bots::play_to_end(&source, game, &players, choose, 11).await;
        finished.push(game);
    }
    let running_fd = source
        .start_game("flying-dutchman", json!({}), &players)
        .await;
    bots::play(&source, running_fd, &players, bots::flying_dutchman, 5, 12).await;
    let running_sd = source.start_game("steel-driver", json!({}), &players).await;
    // Past a snapshot (every 32 versions), so the restored ladder is exercised too.
    bots::play(&source, running_sd, &players, bots::steel_driver, 6, 40).await;
    let open = source.open_game(&players[0]).await;
    let past_before = source
        .get(&format!("/games/{running_sd}?at=33"))
        .as_user(&players[0])
        .send()
        .await
        .assert_ok()
        .clone();
    for game in &finished {
        let detail = source
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        assert_eq!(detail.assert_ok()["status"], "finished");
    }

    // The backup, taken while the source server runs.
    let scratch =
        Scratch(std::env::temp_dir().join(format!("kontor-backup-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&scratch.0);
    std::fs::create_dir_all(&scratch.0).unwrap();
    let backup = scratch.0.join("backup");
    let said = kontor(
        "backup",
        &backup,
        &[
            ("KONTOR_DATABASE_URL", Path::new(&source.database_url())),
            ("KONTOR_DATA_DIR", &source.config.data_dir),
        ],
    );
    assert!(said.contains("jwt-secret"), "{said}");
    assert!(backup.join("kontor.dump").exists());
    assert_eq!(
        std::fs::read(backup.join("jwt-secret")).unwrap(),
        std::fs::read(source.config.data_dir.join("jwt-secret")).unwrap()
    );
    let before = source.fingerprint_except(&["live_presence"]).await;

    // A new cluster: the embedded cluster of a new data folder (initdb'd here, as `kontor
    // migrate` would make it), and the backup restored into it by the embedded path.
    let data = scratch.0.join("data");
    let new_pg = EmbeddedPostgres::start(&data, Durability::Fast).unwrap();
    assert!(new_pg.started_here(), "a new cluster, not the test run's");
    new_pg.ensure_database("kontor").await.unwrap();
    let said = kontor("restore", &backup, &[("KONTOR_DATA_DIR", &data)]);
    assert!(said.contains("restored 5 games"), "{said}");

    // The real binary on the restored copy (the embedded default of that data folder).
    replay_check(&data).await;

    // A server on the restored copy with the restored data folder.
    let restored = server_on(&new_pg, &data).await;
    assert_eq!(
        restored.fingerprint_except(&["live_presence"]).await,
        before,
        "the restored database holds exactly what was backed up"
    );
    // Tokens issued before the backup still work: the access token (signed with the
    // restored secret) and the refresh token (stored in the database).
    let me = restored.get("/me").as_user(&players[0]).send().await;
    assert_eq!(me.assert_ok()["username"], "anna");
    restored
        .post("/auth/refresh")
        .json(&json!({"refresh_token": players[1].refresh}))
        .send()
        .await
        .assert_ok();
    for game in &finished {
        restored.assert_verified(*game, &players[2]).await;
        // The restored log is the original's, event for event (the header differs only in
        // its `exported_at`), and the original server's export verifies on the restored one.
        let events = |export: &str| export.lines().skip(1).collect::<Vec<_>>().join("\n");
        let original = source.export(*game, &players[0]).await;
        assert!(
            events(&restored.export(*game, &players[0]).await) == events(&original),
            "the restored log of {game} differs from the original"
        );
        let report = restored
            .client
            .post(restored.url("/verify"))
            .bearer_auth(&players[0].token)
            .header("content-type", "application/x-ndjson")
            .body(original)
            .send()
            .await
            .unwrap();
        assert_eq!(read(report).await.assert_ok()["verified"], true);
    }
    // The running games play on, past the next snapshot, and still fold.
    bots::play(&restored, running_sd, &players, bots::steel_driver, 8, 30).await;
    bots::play(
        &restored,
        running_fd,
        &players,
        bots::flying_dutchman,
        9,
        10,
    )
    .await;
    let open: Uuid = open.parse().unwrap();
    restored
        .post(&format!("/games/{open}/join"))
        .as_user(&players[1])
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    // A past version folds on the restored copy as it did on the original.
    let past = restored
        .get(&format!("/games/{running_sd}?at=33"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(past.assert_ok()["at_version"], 33);
    assert_eq!(past.body["view"], past_before["view"]);
    replay_check(&data).await;

    // Without the data folder's secret the old tokens are worthless: a server on the same
    // restored database with a new data folder generates a new secret.
    let elsewhere = server_on(&new_pg, &scratch.0.join("no-secrets")).await;
    elsewhere
        .get("/me")
        .as_user(&players[0])
        .send()
        .await
        .assert_problem(401, "invalid_token");

    // The restored copy backs up again by the embedded path (its cluster running), and
    // restores into an empty database of another cluster by the URL path.
    let again = scratch.0.join("backup-again");
    kontor("backup", &again, &[("KONTOR_DATA_DIR", &data)]);
    let admin = kontor::store::connect(pg().superuser_options("postgres"), 1)
        .await
        .unwrap();
    let copy = format!("restored_{}", std::process::id());
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE DATABASE {copy} OWNER kontor"
    )))
    .execute(&admin)
    .await
    .unwrap();
    admin.close().await;
    let copy_data = scratch.0.join("copy-data");
    let said = kontor(
        "restore",
        &again,
        &[
            ("KONTOR_DATABASE_URL", Path::new(&pg().url(&copy))),
            ("KONTOR_DATA_DIR", &copy_data),
        ],
    );
    assert!(said.contains("restored 5 games"), "{said}");
    assert_eq!(
        std::fs::read(copy_data.join("jwt-secret")).unwrap(),
        std::fs::read(backup.join("jwt-secret")).unwrap()
    );
    // A restore never lands on a database that holds data, nor replaces a different secret.
    let copy_url = pg().url(&copy);
    let (restored_again, said) = kontor_configured(
        &[Path::new("restore"), &again],
        &[
            ("KONTOR_DATABASE_URL", Path::new(&copy_url)),
            ("KONTOR_DATA_DIR", &copy_data),
        ],
    );
    assert!(!restored_again && said.contains("not empty"), "{said}");
    let (restored_again, said) = kontor_configured(
        &[Path::new("restore"), &again],
        &[("KONTOR_DATA_DIR", &scratch.0.join("no-secrets"))],
    );
    assert!(
        !restored_again && said.contains("differs from the backup's"),
        "{said}"
    );
    // Nor into a folder without a cluster, which it would have to create.
    let (restored_again, said) = kontor_configured(
        &[Path::new("restore"), &again],
        &[("KONTOR_DATA_DIR", &scratch.0.join("never-served"))],
    );
    assert!(
        !restored_again && said.contains("no embedded PostgreSQL cluster"),
        "{said}"
    );
    // And it makes no cluster folder for it, in the data folder or elsewhere (whose place a
    // note in the data folder would name).
    let never_served = scratch.0.join("never-served");
    for made in ["postgres", "postgres-location.txt"] {
        assert!(!never_served.join(made).exists(), "{made} was made");
    }
    // A backup refuses a folder that exists.
    let (backed_up, said) = kontor_configured(
        &[Path::new("backup"), &again],
        &[("KONTOR_DATA_DIR", &data)],
    );
    assert!(!backed_up && said.contains("exists already"), "{said}");

    // With no server running on it, the command starts the embedded cluster for the dump and
    // stops it again.
    drop(new_pg);
    let postmaster = data.join("postgres").join("data").join("postmaster.pid");
    assert!(!postmaster.exists(), "the test's cluster is stopped");
    let cold = scratch.0.join("backup-cold");
    kontor("backup", &cold, &[("KONTOR_DATA_DIR", &data)]);
    assert!(cold.join("kontor.dump").exists() && cold.join("jwt-secret").exists());
    assert!(
        !postmaster.exists(),
        "the command stopped the cluster it started"
    );
}
