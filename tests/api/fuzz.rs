//! The description, checked by a fuzzer: schemathesis (installed by deploy/setup-tests.sh)
//! runs every operation against a test server with every check it has (status codes,
//! content types, response schemas and headers, server errors, positive and negative data,
//! methods, authentication), once with an access token and once with an API token.
//! `tests/fuzz/schemathesis.toml` says which few answers to schema-valid requests it must
//! accept, and why. Zero failures is the bar.

use crate::support::{AppOptions, spawn_app_with};
use serde_json::{Value, json};
use std::path::Path;

#[tokio::test]
async fn schemathesis_finds_nothing_the_description_does_not_say() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schemathesis = root.join("target/schemathesis/bin/schemathesis");
    assert!(
        schemathesis.exists(),
        "{} is missing: run deploy/setup-tests.sh",
        schemathesis.display()
    );
    let mut options = AppOptions::default();
    // The fuzzer logs in with wrong passwords many times.
    for setting in [
        "KONTOR_LOGIN_MAX_FAILURES",
        "KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS",
    ] {
        options.settings.insert(setting.into(), "1000000".into());
    }
    // Metrics on the main address: the fuzzer's tokens are not the metrics token, so it
    // checks the 401s (and that the metrics are not served to a user's token).
    options
        .settings
        .insert("KONTOR_METRICS_TOKEN".into(), "fuzz-metrics-token".into());
    let app = spawn_app_with(options).await;
    let fuzzer = app.register("fuzzer").await;
    kontor::store::users::set_admin(&app.pool, "fuzzer", true)
        .await
        .unwrap();
    let created: Value = app
        .client
        .post(format!("{}/api/v1/me/tokens", app.address))
        .bearer_auth(&fuzzer.token)
        .json(&json!({"name": "fuzzer", "scopes": ["game:read", "game:play"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let api_token = created["token"].as_str().unwrap().to_string();
    // A running game the fuzzer plays in, for every operation that takes a game id.
    let others = [app.register("bert").await, app.register("cora").await];
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[fuzzer.clone(), others[0].clone(), others[1].clone()],
        )
        .await;
    let spec = format!("{}/api/v1/openapi.json", app.address);
    let work = std::env::temp_dir().join(format!("kontor-fuzz-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&work).unwrap();
    for (credential, token) in [
        ("an access token", &fuzzer.token),
        ("an API token", &api_token),
    ] {
        let output = tokio::process::Command::new(&schemathesis)
            .arg("--config-file")
            .arg(root.join("tests/fuzz/schemathesis.toml"))
            .args([
                "run",
                &spec,
                "--checks",
                "all",
                "--workers",
                "2",
                "--no-color",
            ])
            .args(["--phases", "examples,coverage,fuzzing"])
            .args(["--header", &format!("Authorization: Bearer {token}")])
            .current_dir(&work)
            // The hooks module (ndjson bodies as text; a standing order of the fuzzer's to
            // edit and cancel) beside the configuration.
            .env("PYTHONPATH", root.join("tests/fuzz"))
            .env("KONTOR_FUZZ_GAME", game.to_string())
            .env("KONTOR_FUZZ_BASE", &app.address)
            .env("KONTOR_FUZZ_TOKEN", token)
            .output()
            .await
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "schemathesis with {credential} found failures:\n{report}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        // It really ran the operations, on real data (a run that tested nothing, or only
        // unknown ids, would succeed too).
        assert!(report.contains("Tested: "), "{report}");
        // (A failed mail to retry is the one id the fuzzer has none of.)
        let missing = report
            .split("Missing test data")
            .nth(1)
            .map(|rest| rest.split("\n\n💡").next().unwrap_or(rest))
            .unwrap_or_default();
        assert!(
            !missing.contains("{game_id}"),
            "game operations saw only 404s:\n{report}"
        );
    }
    std::fs::remove_dir_all(&work).unwrap();
}
