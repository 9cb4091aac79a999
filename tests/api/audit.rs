//! Audit and replay: logs, exports, views at past versions, fairness verification, import,
//! and the refold check.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use uuid::Uuid;

async fn table(app: &TestApp) -> Vec<User> {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        players.push(app.register(name).await);
    }
    players
}

async fn text(app: &TestApp, path: &str, token: &str) -> (u16, String) {
    let response = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Posts an export to /verify.
async fn verify(app: &TestApp, token: &str, export: &str) -> Value {
    let response = app
        .client
        .post(app.url("/verify"))
        .bearer_auth(token)
        .header("content-type", "application/x-ndjson")
        .body(export.to_string())
        .send()
        .await
        .unwrap();
    read(response).await.assert_ok().clone()
}

fn lines(export: &str) -> Vec<Value> {
    export
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn join(lines: &[Value]) -> String {
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// Changes the first event of `kind` that `change` accepts; returns the export and its seq.
fn tamper(export: &str, kind: &str, change: impl Fn(&mut Value) -> bool) -> (String, i64) {
    let mut lines = lines(export);
    for line in lines.iter_mut().skip(1) {
        if line["type"] == kind && change(&mut line["data"]) {
            let seq = line["seq"].as_i64().unwrap();
            return (join(&lines), seq);
        }
    }
    panic!("no {kind} event to tamper with");
}

/// A finished four-player Flying Dutchman game, with what was served while it ran.
struct Played {
    game: Uuid,
    players: Vec<User>,
    /// Texts served before the end: views, exports, logs, lists.
    before_the_end: Vec<String>,
    /// A seat's view recorded at some version during the game: (seat, version, view).
    recorded_view: (usize, i64, Value),
}

async fn play_a_game(app: &TestApp) -> Played {
    let players = table(app).await;
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let seen = bots::play(app, game, &players, bots::flying_dutchman, 5, 40).await;
    let (seat, detail) = seen.views.last().unwrap().clone();
    let recorded_view = (
        seat,
        detail["version"].as_i64().unwrap(),
        detail["view"].clone(),
    );
    let mut before_the_end = Vec::new();
    for player in &players {
        for path in [
            format!("/games/{game}"),
            format!("/games/{game}/export"),
            format!("/games/{game}/events?limit=1000"),
            "/games?view=mine".to_string(),
        ] {
            let (status, body) = text(app, &path, &player.token).await;
            assert_eq!(status, 200, "{path}: {body}");
            before_the_end.push(body);
        }
        let early = app
            .get(&format!("/games/{game}/verification"))
            .as_user(player)
            .send()
            .await;
        early.assert_problem(409, "game_not_finished");
    }
    bots::play_to_end(app, game, &players, bots::flying_dutchman, 6).await;
    Played {
        game,
        players,
        before_the_end,
        recorded_view,
    }
}

#[tokio::test]
async fn a_finished_game_verifies_and_tampering_is_caught_at_the_event() {
    let app = spawn_app().await;
    let played = play_a_game(&app).await;
    let token = &played.players[1].token;
    let game = played.game;

    // Nothing served before the end revealed the seed.
    let detail = app.get(&format!("/games/{game}")).token(token).send().await;
    let seed = detail.body["seed"].as_str().unwrap().to_string();
    assert_eq!(seed.len(), 64);
    for text in &played.before_the_end {
        assert!(!text.contains(&seed), "the seed leaked before the end");
    }

    // The server's own check, and the same on the uploaded export.
    app.assert_verified_with(game, token).await;
    let (_, export) = text(&app, &format!("/games/{game}/export"), token).await;
    let header = &lines(&export)[0];
    assert_eq!(header["complete"], true);
    assert_eq!(header["seed"], seed.as_str());
    let report = verify(&app, token, &export).await;
    assert_eq!(report["verified"], true, "{report}");
    assert!(report["commands_checked"].as_u64().unwrap() > 40);

    // A changed roll.
    let (rolled, seq) = tamper(&export, "round_started", |data| {
        let die_a = data["die_a"].as_u64().unwrap();
        let other = if die_a == 9 { 7 } else { 9 };
        data["die_a"] = json!(other);
        data["lucky_number"] = json!(other + data["die_b"].as_u64().unwrap());
        true
    });
    let report = verify(&app, token, &rolled).await;
    assert_eq!(report["verified"], false);
    assert_eq!(report["failure"]["seq"], seq, "{report}");

    // A changed deal.
    let (dealt, seq) = tamper(&export, "dealt", |data| {
        let first = data["horseshoes"][0].as_u64().unwrap();
        data["horseshoes"][0] = json!(if first == 48 { 47 } else { 48 });
        true
    });
    let report = verify(&app, token, &dealt).await;
    assert_eq!(report["failure"]["seq"], seq, "{report}");

    // A changed shuffle.
    let (shuffled, seq) = tamper(&export, "pool_refilled", |data| {
        let Some(pool) = data["pool"].as_array_mut() else {
            return false;
        };
        let before = pool.clone();
        pool.reverse();
        *pool != before
    });
    let report = verify(&app, token, &shuffled).await;
    assert_eq!(report["failure"]["seq"], seq, "{report}");

    // A seed that does not match the commitment.
    let mut forged = lines(&export);
    let fake = "00".repeat(32);
    forged[0]["seed"] = json!(fake);
    let last = forged.len() - 1;
    forged[last]["data"]["seed"] = json!(fake);
    let report = verify(&app, token, &join(&forged)).await;
    assert_eq!(report["verified"], false);
    assert!(
        report["failure"]["reason"]
            .as_str()
            .unwrap()
            .contains("commitment"),
        "{report}"
    );

    // The command line says the same, with its exit status.
    let dir = std::env::temp_dir().join(format!("kontor-verify-{game}"));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content, ok) in [("good", &export, true), ("rolled", &rolled, false)] {
        let path = dir.join(format!("{name}.ndjson"));
        std::fs::write(&path, content).unwrap();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
            .arg("verify")
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            status.status.success(),
            ok,
            "{}",
            String::from_utf8_lossy(&status.stdout)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn logs_exports_and_past_views_are_redacted_until_the_end() {
    let app = spawn_app().await;
    let players = table(&app).await;
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let seen = bots::play(&app, game, &players, bots::flying_dutchman, 9, 30).await;

    // A view recorded during the game is what ?at= gives for that version.
    let (seat, detail) = &seen.views[10];
    let version = detail["version"].as_i64().unwrap();
    let past = app
        .get(&format!("/games/{game}?at={version}"))
        .as_user(&players[*seat])
        .send()
        .await;
    assert_eq!(past.assert_ok()["view"], detail["view"]);
    assert_eq!(past.body["at_version"], version);
    assert!(past.body["legal"].is_null(), "no legal actions in the past");
    app.get(&format!("/games/{game}?at=99999"))
        .as_user(&players[0])
        .send()
        .await
        .assert_problem(400, "invalid_parameter");

    // The log pages by version.
    let page = app
        .get(&format!("/games/{game}/events?after=0&limit=5"))
        .as_user(&players[0])
        .send()
        .await;
    let page = page.assert_ok();
    assert_eq!(page["items"].as_array().unwrap().len(), 5);
    assert_eq!(page["next_after"], 5);
    let rest = app
        .get(&format!("/games/{game}/events?after=5&limit=1000"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(rest.body["items"][0]["seq"], 6);
    assert!(rest.body["next_after"].is_null());

    // A player's export is redacted and carries no seed and no commands.
    let (status, export) = text(&app, &format!("/games/{game}/export"), &players[0].token).await;
    assert_eq!(status, 200);
    let exported = lines(&export);
    assert_eq!(exported[0]["format"], "kontor-game-log");
    assert_eq!(exported[0]["complete"], false);
    assert!(exported[0]["seed"].is_null());
    assert!(exported.iter().skip(1).all(|l| l.get("command").is_none()));
    assert!(exported[0]["seed_commitment"].as_str().unwrap().len() == 64);

    // Such an export cannot be imported or verified.
    let response = app
        .client
        .post(app.url("/games/import"))
        .bearer_auth(&players[0].token)
        .header("content-type", "application/x-ndjson")
        .body(export.clone())
        .send()
        .await
        .unwrap();
    read(response)
        .await
        .assert_problem(422, "export_incomplete");
    let report = verify(&app, &players[0].token, &export).await;
    assert_eq!(report["verified"], false);
}

#[tokio::test]
async fn a_complete_export_imports_as_a_sandbox_to_step_through() {
    let app = spawn_app().await;
    let played = play_a_game(&app).await;
    let analyst = app.register("erin").await;
    let (_, export) = text(
        &app,
        &format!("/games/{}/export", played.game),
        &analyst.token,
    )
    .await;
    let response = app
        .client
        .post(app.url("/games/import"))
        .bearer_auth(&analyst.token)
        .header("content-type", "application/x-ndjson")
        .body(export.clone())
        .send()
        .await
        .unwrap();
    let imported = read(response).await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    let sandbox = imported.body["id"].as_str().unwrap().to_string();
    assert_eq!(imported.body["sandbox"], true);
    assert_eq!(imported.body["imported_from"], played.game.to_string());
    assert_eq!(imported.body["visibility"], "private");
    assert_eq!(imported.body["status"], "finished");
    assert_eq!(
        imported.body["outcome"],
        app.get(&format!("/games/{}", played.game))
            .as_user(&analyst)
            .send()
            .await
            .body["outcome"]
    );

    // Every position can be stepped through, fully visible to the analyst.
    let (seat, version, _) = &played.recorded_view;
    let step = app
        .get(&format!("/games/{sandbox}?at={version}"))
        .as_user(&analyst)
        .send()
        .await;
    let step = step.assert_ok();
    assert!(
        step["view"]["hidden"].is_object(),
        "the analyst sees everything: {step}"
    );
    assert!(step["view"]["players"][*seat]["shares"].is_array());
    // The sandbox keeps the snapshots of a game played here, and they are the log's.
    let sandbox_id: Uuid = sandbox.parse().unwrap();
    let mut conn = app.pool.acquire().await.unwrap();
    let head = kontor::store::games::head(&mut *conn, sandbox_id)
        .await
        .unwrap()
        .unwrap();
    let kept: Vec<i64> = kontor::store::events::snapshots(&mut *conn, sandbox_id)
        .await
        .unwrap()
        .iter()
        .map(|s| s.version)
        .collect();
    assert_eq!(
        kept,
        kontor::store::events::snapshot_versions(0, head.version, true)
    );
    drop(conn);
    let mismatches = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(mismatches.is_empty(), "{mismatches:?}");
    let mine = app.get("/games?view=mine").as_user(&analyst).send().await;
    assert_eq!(mine.body["items"][0]["id"], sandbox.as_str());
    // Nobody can act in a sandbox.
    app.act(&analyst, sandbox.parse().unwrap())
        .version(*version)
        .send(&json!({"type": "pass"}))
        .await
        .assert_problem(403, "not_a_player");

    // Garbage is refused with a reason.
    let response = app
        .client
        .post(app.url("/games/import"))
        .bearer_auth(&analyst.token)
        .header("content-type", "application/x-ndjson")
        .body("{\"hello\": 1}\n")
        .send()
        .await
        .unwrap();
    read(response).await.assert_problem(422, "invalid_export");
}

#[tokio::test]
async fn replay_check_finds_a_corrupted_cache_and_rebuild_repairs_it() {
    let app = spawn_app().await;
    let players = table(&app).await;
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    bots::play(&app, game, &players, bots::flying_dutchman, 3, 25).await;
    let other = app
        .start_game("steel-driver", json!({}), &players[..3])
        .await;
    bots::play(&app, other, &players[..3], bots::steel_driver, 4, 25).await;

    let clean = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(clean.is_empty(), "{clean:?}");

    // The latest snapshot, which the game's commands fold from.
    sqlx::query(
        "UPDATE game_snapshots SET state = jsonb_set(state::jsonb, '{round}', '99')::text
          WHERE game_id = $1
            AND version = (SELECT max(version) FROM game_snapshots WHERE game_id = $1)",
    )
    .bind(game)
    .execute(&app.pool)
    .await
    .unwrap();
    let mut progress = Vec::new();
    let found = kontor::audit::replay::check(&app.pool, |done, total| progress.push((done, total)))
        .await
        .unwrap();
    assert_eq!(progress.last(), Some(&(2, 2)));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].game_id, game);

    let failures = kontor::audit::replay::rebuild(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(failures.is_empty());
    assert!(
        kontor::audit::replay::check(&app.pool, |_, _| {})
            .await
            .unwrap()
            .is_empty()
    );
    // The game plays on after the rebuild.
    bots::play(&app, game, &players, bots::flying_dutchman, 8, 5).await;
}

/// Posts an export to /games/import.
async fn import(app: &TestApp, token: &str, export: &str) -> Reply {
    let response = app
        .client
        .post(app.url("/games/import"))
        .bearer_auth(token)
        .header("content-type", "application/x-ndjson")
        .body(export.to_string())
        .send()
        .await
        .unwrap();
    read(response).await
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/golden/{name}.ndjson",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Changes the data of the event at `seq`.
fn edit(export: &str, seq: usize, change: impl Fn(&mut Value)) -> String {
    let mut lines = lines(export);
    assert_eq!(lines[seq]["seq"], seq as i64);
    change(&mut lines[seq]["data"]);
    join(&lines)
}

#[tokio::test]
async fn an_import_is_verified_before_anything_is_stored() {
    let app = spawn_app().await;
    let analyst = app.register("erin").await;
    let token = &analyst.token;
    let export = golden("flying-dutchman-4p");
    let six = golden("flying-dutchman-6p-1992");
    let count = lines(&export).len() - 1;

    // Each refused with its code, naming the first event that differs where one is to blame;
    // none of them stores anything.
    let mut refused: Vec<(&str, String, u16, &str, Option<i64>)> = vec![
        (
            "200 horseshoes of face 255",
            edit(&export, 3, |d| {
                d["horseshoes"] = json!(vec![255; 200]);
                d["horseshoe_count"] = json!(200);
            }),
            422,
            "export_not_verified",
            Some(3),
        ),
        (
            "a deal to seat 200",
            edit(&export, 3, |d| d["seat"] = json!(200)),
            422,
            "export_not_verified",
            Some(3),
        ),
        (
            "start player 255",
            edit(&export, 2, |d| d["start_player"] = json!(255)),
            422,
            "export_not_verified",
            Some(2),
        ),
        (
            "a payment of i64::MAX",
            edit(&export, 19, |d| d["payments"][0]["due"] = json!(i64::MAX)),
            422,
            "export_not_verified",
            Some(19),
        ),
        (
            "a changed roll",
            edit(&export, 8, |d| {
                d["die_a"] = json!(9);
                d["lucky_number"] = json!(49);
            }),
            422,
            "export_not_verified",
            Some(8),
        ),
    ];
    // A log for 6 seats under a 5-seat header.
    let mut five = lines(&six);
    five[0]["seats"].as_array_mut().unwrap().pop();
    five[0]["nonces"].as_array_mut().unwrap().pop();
    refused.push((
        "six seats under a five-seat header",
        join(&five),
        422,
        "export_not_verified",
        Some(1),
    ));
    // An event after the end.
    let mut longer = lines(&export);
    let mut extra = longer[count - 1].clone();
    extra["seq"] = json!(count + 1);
    longer.push(extra);
    longer[0]["version"] = json!(count + 1);
    refused.push((
        "an event after the end",
        join(&longer),
        422,
        "export_not_verified",
        Some(count as i64 + 1),
    ));
    // 20,000 copies of one event.
    let mut copies = lines(&export);
    for n in 0..20_000 {
        let mut copy = copies[9].clone();
        copy["seq"] = json!(count + 1 + n);
        copies.push(copy);
    }
    refused.push((
        "20,000 copies of one event",
        join(&copies),
        413,
        "export_too_large",
        None,
    ));
    // More bytes than an upload may have.
    let mut padded = export.clone();
    padded.push_str(&" ".repeat(kontor::http::play::audit::MAX_EXPORT_BODY));
    refused.push(("more than 4 MiB", padded, 413, "payload_too_large", None));
    // The operator's complete export of a game still running: no seed, so nothing to verify.
    let mut running = lines(&export)[..100].to_vec();
    running[0]["seed"] = Value::Null;
    running[0]["status"] = json!("active");
    running[0]["version"] = json!(99);
    refused.push((
        "an unfinished game",
        join(&running),
        422,
        "export_unfinished",
        None,
    ));

    let before = app.fingerprint().await;
    for (what, upload, status, code, seq) in &refused {
        let reply = import(&app, token, upload).await;
        let problem = reply.assert_problem(*status, code);
        if let Some(seq) = seq {
            assert_eq!(problem["seq"], *seq, "{what}: {problem}");
            assert!(
                problem["detail"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("event {seq}")),
                "{what}: {problem}"
            );
            assert!(problem["reason"].is_string(), "{what}: {problem}");
        }
        assert_eq!(app.fingerprint().await, before, "{what} stored something");
    }

    // The genuine export still imports, and folds to the game's end.
    let imported = import(&app, token, &export).await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    assert_eq!(imported.body["status"], "finished");
    assert_eq!(imported.body["version"], count as i64);
    let end = &lines(&export)[count]["data"]["outcome"];
    assert_eq!(&imported.body["outcome"], end);
    let sandbox = imported.body["id"].as_str().unwrap();
    let detail = app
        .get(&format!("/games/{sandbox}"))
        .token(token)
        .send()
        .await;
    assert_eq!(detail.assert_ok()["outcome"], *end);
    // What was stored is the log itself, event for event and command for command, so the
    // sandbox verifies in turn.
    let (_, stored) = text(&app, &format!("/games/{sandbox}/export"), token).await;
    let strip = |export: &str| -> Vec<Value> {
        lines(export)[1..]
            .iter()
            .map(|l| json!([l["seq"], l["type"], l["actor"], l["data"], l["command"]]))
            .collect()
    };
    assert_eq!(strip(&stored), strip(&export));
    app.assert_verified_with(sandbox.parse().unwrap(), token)
        .await;
    let again = import(&app, token, &stored).await;
    assert_eq!(again.status, 201, "{}", again.text);
}

#[tokio::test]
async fn an_imported_game_is_readable_by_its_importer_only() {
    let app = spawn_app().await;
    let importer = app.register("erin").await;
    let other = app.register("fritz").await;
    let imported = import(&app, &importer.token, &golden("steel-driver-3p")).await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    let sandbox = imported.body["id"].as_str().unwrap().to_string();
    let unknown = Uuid::now_v7();

    let paths = |game: &str| {
        [
            format!("/games/{game}"),
            format!("/games/{game}?at=40"),
            format!("/games/{game}/events"),
            format!("/games/{game}/export"),
            format!("/games/{game}/verification"),
            format!("/games/{game}/stream"),
            format!("/games/{game}/stream?last_event_id=3"),
        ]
    };
    let status = |path: String, token: Option<String>| {
        let request = app.client.get(app.url(&path));
        let request = match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        };
        async move {
            // A stream's answer is complete once its status is in; the body never ends.
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            let code = if status == 200 {
                String::new()
            } else {
                read(response).await.body["code"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            };
            (status, code)
        }
    };
    for (path, unknown_path) in paths(&sandbox).into_iter().zip(paths(&unknown.to_string())) {
        let (code, _) = status(path.clone(), Some(importer.token.clone())).await;
        assert_eq!(code, 200, "the importer reads {path}");
        // Another user is told exactly what they are told for an id that does not exist.
        let theirs = status(path.clone(), Some(other.token.clone())).await;
        assert_eq!(theirs, (404, "game_not_found".to_string()), "{path}");
        assert_eq!(
            status(unknown_path.clone(), Some(other.token.clone())).await,
            theirs
        );
        // An anonymous caller is refused before any lookup, the same for every id.
        let anonymous = status(path.clone(), None).await;
        assert_eq!(anonymous, (401, "unauthenticated".to_string()), "{path}");
        assert_eq!(status(unknown_path, None).await, anonymous);
    }
    // Nor can anyone else act on it, join it or invite to it; they are told there is no game.
    let game: Uuid = sandbox.parse().unwrap();
    app.act(&other, game)
        .version(40)
        .send(&json!({"type": "pass_pawn"}))
        .await
        .assert_problem(404, "game_not_found");
    for what in ["join", "leave", "start", "cancel", "return"] {
        app.post(&format!("/games/{game}/{what}"))
            .as_user(&other)
            .json(&json!({}))
            .send()
            .await
            .assert_problem(404, "game_not_found");
    }
    app.post(&format!("/games/{game}/invitations"))
        .as_user(&other)
        .json(&json!({"username": "erin"}))
        .send()
        .await
        .assert_problem(404, "game_not_found");
    // And it is in nobody's lists but the importer's.
    for view in ["mine", "finished", "open"] {
        let list = app
            .get(&format!("/games?view={view}"))
            .as_user(&other)
            .send()
            .await;
        assert!(!list.text.contains(&sandbox), "{view}: {}", list.text);
    }
}

/// Issue 10: `after` near the ends of i64 overflowed `after + limit`, answering nonsense
/// cursors (and, followed by a live stream, paging forever).
#[tokio::test]
async fn log_cursors_outside_the_log_are_refused_and_paging_always_ends() {
    let app = spawn_app().await;
    let players = table(&app).await;
    let game = app
        .start_game("steel-driver", json!({}), &players[..3])
        .await;
    bots::play(&app, game, &players[..3], bots::steel_driver, 7, 4).await;
    let token = &players[0].token;
    let version = app
        .get(&format!("/games/{game}"))
        .token(token)
        .send()
        .await
        .body["version"]
        .as_i64()
        .unwrap();
    assert!(version > 3, "a few events to page through");
    let before = app.fingerprint().await;
    for query in [
        format!("after={}", i64::MAX),
        format!("after={}", i64::MIN),
        "after=-1".to_string(),
        format!("after={}", version + 1),
        format!("after={}&limit={}", i64::MAX, i64::MAX),
        "limit=0".to_string(),
        "limit=1001".to_string(),
        format!("limit={}", i64::MAX),
        format!("limit={}", i64::MIN),
    ] {
        let reply = app
            .get(&format!("/games/{game}/events?{query}"))
            .token(token)
            .send()
            .await;
        reply.assert_problem(400, "invalid_parameter");
        assert!(
            reply.body["detail"].as_str().unwrap().contains("between"),
            "the detail names the range: {}",
            reply.text
        );
    }
    assert_eq!(app.fingerprint().await, before, "refusals change nothing");

    // At the current version: an empty last page.
    let last = app
        .get(&format!("/games/{game}/events?after={version}"))
        .token(token)
        .send()
        .await;
    assert!(last.assert_ok()["items"].as_array().unwrap().is_empty());
    assert!(last.body["next_after"].is_null());

    // Following `next_after` visits every version once and ends at the current one.
    let mut after = 0;
    let mut seen = Vec::new();
    loop {
        let page = app
            .get(&format!("/games/{game}/events?after={after}&limit=3"))
            .token(token)
            .send()
            .await;
        let page = page.assert_ok();
        seen.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["seq"].as_i64().unwrap()),
        );
        match page["next_after"].as_i64() {
            Some(next) => {
                assert!(next > after && next <= version, "{next} after {after}");
                after = next;
            }
            None => break,
        }
    }
    assert_eq!(seen, (1..=version).collect::<Vec<_>>());
}

#[tokio::test]
async fn every_past_version_folds_from_a_snapshot_close_below_it() {
    use kontor::games::flying_dutchman::FlyingDutchman;
    use kontor::store::events::{self, SNAPSHOT_EVERY};

    let app = spawn_app().await;
    let players = table(&app).await;
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let seen = bots::play(&app, game, &players, bots::flying_dutchman, 21, 60).await;
    let now = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(now.assert_ok()["status"], "active");
    assert!(
        now.body["version"].as_i64().unwrap() > 2 * 32,
        "{}",
        now.body["version"]
    );

    // The past views the players were shown are what ?at= gives now, at many versions (views
    // of a game under way: once it is over, the past is shown unredacted).
    let step = (seen.views.len() / 12).max(1);
    for (seat, detail) in seen.views.iter().step_by(step) {
        let version = detail["version"].as_i64().unwrap();
        let past = app
            .get(&format!("/games/{game}?at={version}"))
            .as_user(&players[*seat])
            .send()
            .await;
        assert_eq!(
            past.assert_ok()["view"],
            detail["view"],
            "version {version}"
        );
    }

    bots::play_to_end(&app, game, &players, bots::flying_dutchman, 22).await;
    let mut conn = app.pool.acquire().await.unwrap();
    let head = kontor::store::games::head(&mut *conn, game)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(head.status.as_str(), "finished");
    assert!(
        head.version > 4 * SNAPSHOT_EVERY,
        "a long game: {}",
        head.version
    );

    // A snapshot is kept at every multiple of SNAPSHOT_EVERY and at the end, so the fold for
    // any version starts fewer than SNAPSHOT_EVERY versions below it.
    let kept: Vec<i64> = events::snapshots(&mut *conn, game)
        .await
        .unwrap()
        .iter()
        .map(|s| s.version)
        .collect();
    // (The start keeps the state after the setup too.)
    let expected = events::snapshot_versions(0, head.version, true);
    assert_eq!(kept[1..], expected[..], "{kept:?}");
    for version in 1..=head.version {
        let from = events::snapshot_below(&mut *conn, game, version, head.rules_version)
            .await
            .unwrap()
            .unwrap_or(0);
        assert!(
            from <= version && version - from < SNAPSHOT_EVERY,
            "version {version} folds from {from}"
        );
        // And what it folds to is the log folded from the start.
        let near =
            kontor::service::play::log::state_at::<FlyingDutchman>(&mut conn, &head, version)
                .await
                .unwrap();
        let whole = kontor::service::play::log::fold_to::<FlyingDutchman>(&mut conn, game, version)
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&near).unwrap(),
            serde_json::to_value(&whole).unwrap(),
            "version {version}"
        );
    }

    // The replay check covers every snapshot: a corrupted old one is found, and the rebuild
    // writes the same ladder anew.
    assert!(
        kontor::audit::replay::check(&app.pool, |_, _| {})
            .await
            .unwrap()
            .is_empty()
    );
    let ladder = || async {
        sqlx::query_as::<_, (i64, Value)>(
            "SELECT version, state::jsonb FROM game_snapshots WHERE game_id = $1 ORDER BY version",
        )
        .bind(game)
        .fetch_all(&app.pool)
        .await
        .unwrap()
    };
    let before = ladder().await;
    sqlx::query(
        "UPDATE game_snapshots SET state = jsonb_set(state::jsonb, '{round}', '99')::text
          WHERE game_id = $1 AND version = $2",
    )
    .bind(game)
    .bind(2 * SNAPSHOT_EVERY)
    .execute(&app.pool)
    .await
    .unwrap();
    let found = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .reason
            .contains(&format!("version {}", 2 * SNAPSHOT_EVERY)),
        "{found:?}"
    );
    assert!(
        kontor::audit::replay::rebuild(&app.pool, |_, _| {})
            .await
            .unwrap()
            .is_empty()
    );
    // (Only the rebuild does not know where the setup ended.)
    assert_eq!(ladder().await[..], before[1..]);
}

/// The stored log of `game` as the undo timeline reads it.
async fn timeline_of(
    app: &TestApp,
    game: Uuid,
) -> (
    Vec<kontor::store::events::EventRow>,
    kontor::service::play::undo::Timeline,
) {
    use kontor::games::{Actor, steel_driver::SteelDriver};
    use kontor::service::play::undo::{Line, Timeline};
    let head = kontor::store::games::head(&app.pool, game)
        .await
        .unwrap()
        .unwrap();
    let rows = kontor::store::events::load(&app.pool, game, 1, head.version)
        .await
        .unwrap();
    let commands: std::collections::HashMap<i64, Actor> =
        kontor::store::games::recorded_commands(&app.pool, game)
            .await
            .unwrap()
            .into_iter()
            .map(|(first, seat, _, _)| {
                (first, seat.map_or(Actor::System, |s| Actor::Seat(s as u8)))
            })
            .collect();
    let lines: Vec<Line> = rows
        .iter()
        .map(|r| Line {
            seq: r.seq,
            kind: &r.kind,
            payload: &r.payload,
            command: commands.get(&r.seq).copied(),
        })
        .collect();
    let timeline = Timeline::of::<SteelDriver>(&lines).unwrap();
    (rows.clone(), timeline)
}

#[tokio::test]
async fn a_rewind_is_skipped_by_every_fold_and_kept_by_rebuild() {
    use kontor::games::{Rules, steel_driver::SteelDriver};
    use kontor::service::play::events::PlatformEvent;
    use kontor::service::play::undo::{Plan, Policy, plan};
    let app = spawn_app().await;
    let players = table(&app).await;
    let players = &players[..3];
    let game = app.start_game("steel-driver", json!({}), players).await;
    // Play until the seat that moved last may take its move back by itself.
    let mut found = None;
    for seed in 0..80 {
        bots::play(&app, game, players, bots::steel_driver, 100 + seed, 1).await;
        let (_, timeline) = timeline_of(&app, game).await;
        let Some(seat) = timeline.since_barrier().last().and_then(|b| b.seat()) else {
            continue;
        };
        if let Ok(Plan::Rewind { to_version }) =
            plan(&timeline, Policy::Own, seat, timeline.version(), None, &[])
        {
            found = Some((seat, to_version, timeline.version()));
            break;
        }
    }
    let (seat, target, from) = found.expect("an own move to take back");
    let views = |at: i64| {
        let app = &app;
        async move {
            let mut views = Vec::new();
            for player in players {
                let detail = app
                    .get(&format!("/games/{game}?at={at}"))
                    .as_user(player)
                    .send()
                    .await;
                views.push(detail.assert_ok()["view"].clone());
            }
            views
        }
    };
    let at_target = views(target).await;
    let at_from = views(from).await;
    // The rewind, appended as the service does (without keeping its snapshot, so that
    // the reads fold across it).
    let rewound = PlatformEvent::Rewound {
        from_version: from,
        to_version: target,
        by_seat: seat,
        request: None,
    };
    let mut tx = app.pool.begin().await.unwrap();
    kontor::store::games::lock_head(&mut tx, game)
        .await
        .unwrap();
    kontor::store::events::append(&mut tx, game, from + 1, None, &[rewound.to_new_event()])
        .await
        .unwrap();
    let (rows, _) = timeline_of(&app, game).await;
    let state = kontor::service::play::log::fold_effective::<SteelDriver>(&rows, target).unwrap();
    let pending: Vec<i16> = SteelDriver::pending(&state)
        .into_iter()
        .map(i16::from)
        .collect();
    sqlx::query("UPDATE games SET pending_seats = $2 WHERE id = $1")
        .bind(game)
        .bind(&pending)
        .execute(&mut *tx)
        .await
        .unwrap();
    let undone = from - target + 1;
    kontor::store::games::set_version_undone(&mut tx, game, from + 1, undone)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let (_, timeline) = timeline_of(&app, game).await;
    assert_eq!(timeline.undone_count(), undone);

    // The position is the target's again; the versions taken back still show as they were.
    assert_eq!(views(from + 1).await, at_target);
    assert_eq!(views(from).await, at_from);
    // The log marks what was taken back, and nothing else.
    let page = app
        .get(&format!("/games/{game}/events?after=0&limit=1000"))
        .as_user(&players[0])
        .send()
        .await;
    for item in page.assert_ok()["items"].as_array().unwrap() {
        let seq = item["seq"].as_i64().unwrap();
        let undone = seq > target && seq <= from;
        assert_eq!(item.get("undone") == Some(&json!(true)), undone, "{item}");
    }
    // The caches agree with the log; a rebuild keeps a snapshot at the rewind.
    let clean = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(clean.is_empty(), "{clean:?}");
    assert!(
        kontor::audit::replay::rebuild(&app.pool, |_, _| {})
            .await
            .unwrap()
            .is_empty()
    );
    let kept: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM game_snapshots WHERE game_id = $1")
            .bind(game)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert!(kept.contains(&(from + 1)), "{kept:?}");
    assert_eq!(views(from + 1).await, at_target);
    // Play goes on from the target, and every fold still agrees.
    bots::play(&app, game, players, bots::steel_driver, 7, 6).await;
    let clean = kontor::audit::replay::check(&app.pool, |_, _| {})
        .await
        .unwrap();
    assert!(clean.is_empty(), "{clean:?}");
    let (_, timeline) = timeline_of(&app, game).await;
    let head = kontor::store::games::head(&app.pool, game)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(head.undone_events, timeline.undone_count());
}
