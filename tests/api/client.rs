//! The description, used as a third party would: openapi-python-client (installed by
//! deploy/setup-tests.sh) generates a client from the committed `openapi/openapi.json`, mypy
//! checks strictly that `tests/client/play.py` uses nothing but its typed calls and models,
//! and the script keeps a code and an event type it was not generated with, takes a misclick
//! back through the undo endpoint, sets, edits and cancels standing orders and sees one play,
//! plays whole games of both kinds against a test server until
//! every command type of each game was sent (or played by the server where the rules force
//! it, as the script reads from each game's export and the test checks against the store;
//! the script prefers a type it has not sent yet), and exports, verifies and imports a finished
//! game of each kind. It also reads a leaderboard (ratings seeded here) and runs a tournament
//! up to its first round (verified players made here): its reading of both is compared with
//! the server's own.

use crate::support::{AppOptions, run, spawn_app_with};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Each game's command types, from the description's discriminator mappings.
fn command_types(spec: &Value) -> BTreeMap<String, BTreeSet<String>> {
    [
        ("flying-dutchman", "FlyingDutchman.Command"),
        ("steel-driver", "SteelDriver.Command"),
    ]
    .into_iter()
    .map(|(kind, schema)| {
        let mapping = spec["components"]["schemas"][schema]["discriminator"]["mapping"]
            .as_object()
            .unwrap_or_else(|| panic!("{schema} has a discriminator mapping"));
        (kind.to_string(), mapping.keys().cloned().collect())
    })
    .collect()
}

#[tokio::test]
async fn a_generated_python_client_plays_whole_games_of_both_kinds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/python-client/bin");
    assert!(
        venv.join("openapi-python-client").exists(),
        "{} is missing: run deploy/setup-tests.sh",
        venv.display()
    );
    let work = std::env::temp_dir().join(format!("kontor-client-{}", uuid::Uuid::now_v7()));
    let mut generate = Command::new(venv.join("openapi-python-client"));
    generate
        .arg("generate")
        .arg("--path")
        .arg(root.join("openapi/openapi.json"))
        .arg("--output-path")
        .arg(&work)
        .arg("--meta")
        .arg("none");
    run(generate, "openapi-python-client");
    // `--meta none` writes the package itself; the script imports it by its name.
    let packages = work.parent().unwrap().join(format!(
        "{}-packages",
        work.file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&packages).unwrap();
    std::fs::rename(&work, packages.join("kontor_api_client")).unwrap();
    let script = root.join("tests/client/play.py");
    let mut mypy = Command::new(venv.join("mypy"));
    // Its cache goes beside the generated package, not into the working directory.
    mypy.args(["--strict", "--follow-imports=silent", "--no-incremental"])
        .arg("--cache-dir")
        .arg(packages.with_file_name("mypy-cache"))
        .arg(&script)
        .env("MYPYPATH", &packages);
    run(mypy, "mypy --strict on the script");

    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("openapi/openapi.json")).unwrap())
            .unwrap();
    let mut wanted = command_types(&spec);
    // Steel Driver asks to choose a path only when two transcontinental paths tie, too
    // seldom to wait for; the script sends it whenever it is asked (it is the only choice).
    wanted
        .get_mut("steel-driver")
        .unwrap()
        .remove("choose_path");
    // The generated client registers more players from one address than an hour allows.
    let app = spawn_app_with(AppOptions {
        settings: [("KONTOR_REGISTRATIONS_PER_ADDRESS", "1000")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    })
    .await;
    let standing = StandingSetup::seed(&app).await;
    let output = tokio::process::Command::new(venv.join("python"))
        .arg(&script)
        .arg(&app.address)
        .arg("17")
        .arg(serde_json::to_string(&wanted).unwrap())
        .arg(standing.argument())
        .env("PYTHONPATH", &packages)
        .output()
        .await
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the generated client's games failed:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_dir_all(&packages).unwrap();

    // The script's account of its games and audits, checked against the server's own.
    let lines: Vec<Value> = report
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect();
    standing.check(&app, &lines).await;
    // The standing order it set played as its seat's move, marked as such in the log.
    let ordered = lines
        .iter()
        .find(|line| line.get("orders").is_some())
        .expect("the script's standing orders");
    let marked: Option<Value> = sqlx::query_scalar(
        "SELECT auto FROM game_commands WHERE game_id = $1::uuid AND first_seq = $2",
    )
    .bind(ordered["orders"].as_str().unwrap())
    .bind(ordered["played"].as_i64().unwrap())
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(marked.expect("marked")["kind"], "order");
    let (audits, games): (Vec<Value>, Vec<Value>) = lines
        .into_iter()
        .filter(|line| line.get("game").is_some() || line.get("audit").is_some())
        .partition(|line| line.get("audit").is_some());
    assert_eq!(audits.len(), 2, "one audit of each kind: {audits:?}");
    let checker = app.register("checker").await;
    let mut sent: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut undone = 0;
    for game in &games {
        let id = game["game"].as_str().unwrap();
        let detail = app
            .get(&format!("/games/{id}"))
            .as_user(&checker)
            .send()
            .await
            .assert_ok()
            .clone();
        // The misclick the script took back: before, after the move, after the rewind.
        if let Some(versions) = game.get("rewound") {
            assert_eq!(detail["status"], "active", "{game}");
            assert_eq!(detail["version"], versions[2], "{game}");
            let log = app
                .get(&format!("/games/{id}/events"))
                .as_user(&checker)
                .send()
                .await;
            let items = log.assert_ok()["items"].as_array().unwrap().clone();
            assert_eq!(items.last().unwrap()["type"], "kontor.rewound", "{game}");
            undone += 1;
            continue;
        }
        assert_eq!(detail["status"], "finished", "{game}");
        assert_eq!(detail["version"], game["version"]);
        let verification = app
            .get(&format!("/games/{id}/verification"))
            .as_user(&checker)
            .send()
            .await
            .assert_ok()
            .clone();
        assert_eq!(verification["verified"], json!(true), "{verification}");
        let kind = game["kind"].as_str().unwrap().to_string();
        sent.entry(kind.clone()).or_default().extend(
            game["sent"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string()),
        );
        // A command the rules force (a company that cannot build passes) is never left to a
        // client: the server plays it. Those count as played too.
        let forced: Vec<Value> = sqlx::query_scalar(
            "SELECT command FROM game_commands WHERE game_id = $1::uuid AND auto->>'kind' = 'forced'",
        )
        .bind(id)
        .fetch_all(&app.pool)
        .await
        .unwrap();
        let forced: BTreeSet<String> = forced
            .iter()
            .map(|c| c["type"].as_str().unwrap().to_string())
            .collect();
        // The script read the same from the game's export (and stopped playing on it).
        let read: BTreeSet<String> = serde_json::from_value(game["forced"].clone()).unwrap();
        assert_eq!(read, forced, "{game}");
        sent.entry(kind).or_default().extend(forced);
    }
    assert_eq!(undone, 1, "the script took one misclick back");
    for audit in &audits {
        let id = audit["audit"].as_str().unwrap();
        let played = games
            .iter()
            .find(|g| g["game"] == id)
            .expect("an audited game was played");
        // Every line of the log went out and came back: the header and one per version.
        assert_eq!(audit["lines"], played["version"].as_i64().unwrap() + 1);
        assert_eq!(audit["verified"], json!(true));
        assert_eq!(audit["imported_from"], id);
        // The sandbox is its importer's alone: to anyone else it does not exist.
        app.get(&format!("/games/{}", audit["sandbox"].as_str().unwrap()))
            .as_user(&checker)
            .send()
            .await
            .assert_problem(404, "game_not_found");
    }
    for (kind, types) in &wanted {
        let missing: Vec<_> = types.difference(&sent[kind]).collect();
        assert!(
            missing.is_empty(),
            "{kind}: the generated client never sent {missing:?} (nor did the server play it)"
        );
    }
}

/// What the script's standing part needs and what it must find: three verified players (a
/// tournament's organiser must be verified), two of them with settled Steel Driver ratings
/// and one still provisional (off the leaderboard), written as the rating worker would.
struct StandingSetup {
    players: Vec<crate::support::User>,
}

impl StandingSetup {
    const KIND: &'static str = "steel-driver";

    async fn seed(app: &crate::support::TestApp) -> Self {
        let mut players = Vec::new();
        // TEST FIXTURE standing in for the rating worker (settled ratings need five rated
        // games each, too slow to play here; the ratings tests play them): (μ, σ, rated games).
        for (name, (mu, sigma, games)) in [
            ("pyorganiser", (30.0_f64, 3.0_f64, 7)),
            ("pyseconds", (28.0, 2.5, 9)),
            ("pynewcomer", (27.0, 6.0, 2)),
        ] {
            let user = app.register(name).await;
            let rating = kontor::service::competition::ratings::display(
                kontor::service::competition::ratings::Rating { mu, sigma },
            );
            sqlx::query(
                "INSERT INTO ratings (user_id, kind, mu, sigma, games, rating, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, now())",
            )
            .bind(user.id)
            .bind(Self::KIND)
            .bind(mu)
            .bind(sigma)
            .bind(games)
            .bind(rating)
            .execute(&app.pool)
            .await
            .unwrap();
            players.push(user);
        }
        StandingSetup { players }
    }

    /// The script's fourth argument: the kind and each player's name and access token, the
    /// organiser first.
    fn argument(&self) -> String {
        json!({
            "kind": Self::KIND,
            "players": self.players.iter().map(|p| json!({"name": p.name, "token": p.token})).collect::<Vec<_>>(),
        })
        .to_string()
    }

    /// The script read the leaderboard and the tournament as the server holds them.
    async fn check(&self, app: &crate::support::TestApp, lines: &[Value]) {
        let reader = &self.players[0];
        let board = lines
            .iter()
            .find_map(|l| l.get("leaderboard"))
            .expect("the script read the leaderboard");
        // The settled two, highest first; the provisional one is not on the board.
        assert_eq!(
            board,
            &json!([
                {"position": 1, "username": "pyorganiser", "rating": 1840, "games": 7},
                {"position": 2, "username": "pyseconds", "rating": 1820, "games": 9},
            ]),
            "{board}"
        );
        let read = lines
            .iter()
            .find(|l| l.get("tournament").is_some())
            .expect("the script read a tournament");
        let id = read["tournament"].as_str().unwrap();
        let server = app
            .get(&format!("/tournaments/{id}"))
            .as_user(reader)
            .send()
            .await
            .assert_ok()
            .clone();
        assert_eq!(server["status"], "running", "{server}");
        let standings: Vec<Value> = server["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| json!({"position": row["position"], "username": row["username"], "points": row["points"]}))
            .collect();
        assert_eq!(read["standings"], json!(standings), "{read}");
        let names: BTreeSet<&str> = self.players.iter().map(|p| p.name.as_str()).collect();
        let listed: BTreeSet<&str> = standings
            .iter()
            .map(|row| row["username"].as_str().unwrap())
            .collect();
        assert_eq!(listed, names, "every player stands in the standings");
        let tables: Vec<Value> = server["rounds_played"][0]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| json!({"game_id": t["game_id"], "seats": t["seats"].as_array().unwrap().iter().map(|s| s["username"].clone()).collect::<Vec<_>>()}))
            .collect();
        assert_eq!(read["tables"], json!(tables), "{read}");
        assert_eq!(tables.len(), 1, "three players sit at one table: {server}");
    }
}
