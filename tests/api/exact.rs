//! The description says what the server does: one policy for unknown query parameters,
//! `Location` on every 201, and the answers every operation can give are listed.

use crate::support::spawn_app;
use serde_json::{Value, json};

#[tokio::test]
async fn unknown_query_parameters_are_refused_everywhere_and_known_ones_pass() {
    let app = spawn_app().await;
    let user = app.register("anna").await;
    let get = |path: &str| {
        app.client
            .get(format!("{}/api/v1{path}", app.address))
            .bearer_auth(&user.token)
            .send()
    };
    for path in [
        "/kinds?foo=1",
        "/games?foo=1",
        "/me?limt=5",
        "/games?view=open&x=1",
    ] {
        let response = get(path).await.unwrap();
        assert_eq!(response.status(), 400, "{path}");
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["code"], "invalid_parameter", "{path}");
        assert!(problem["parameter"].is_string(), "{path}: {problem}");
    }
    for path in ["/kinds", "/games?view=open&limit=5", "/me"] {
        assert_eq!(get(path).await.unwrap().status(), 200, "{path}");
    }
    // HEAD is checked as GET.
    let head = app
        .client
        .head(format!("{}/api/v1/kinds?foo=1", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 400);
}

#[tokio::test]
async fn every_created_resource_is_named_in_location() {
    let app = spawn_app().await;
    let register = app
        .client
        .post(format!("{}/api/v1/auth/register", app.address))
        .json(&json!({"username": "bert", "email": "bert@example.org", "password": crate::support::password_of("bert")}))
        .send()
        .await
        .unwrap();
    assert_eq!(register.status(), 201);
    assert_eq!(register.headers()["location"], "/api/v1/me");
    let anna = app.register("anna").await;
    let post = |path: &str, body: Value| {
        app.client
            .post(format!("{}/api/v1{path}", app.address))
            .bearer_auth(&anna.token)
            .json(&body)
            .send()
    };
    let game = post("/games", json!({"kind": "steel-driver", "seats": 3}))
        .await
        .unwrap();
    assert_eq!(game.status(), 201);
    let location = game.headers()["location"].to_str().unwrap().to_string();
    let body: Value = game.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/games/{}", body["id"].as_str().unwrap())
    );
    // The address answers the resource.
    let fetched = app
        .client
        .get(format!("{}{location}", app.address))
        .bearer_auth(&anna.token)
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 200);
    let token = post(
        "/me/tokens",
        json!({"name": "bot", "scopes": ["game:read"]}),
    )
    .await
    .unwrap();
    assert_eq!(token.status(), 201);
    let location = token.headers()["location"].to_str().unwrap().to_string();
    let body: Value = token.json().await.unwrap();
    assert_eq!(
        location,
        format!("/api/v1/me/tokens/{}", body["id"].as_str().unwrap())
    );
}

#[test]
fn every_operation_lists_the_answers_its_kind_can_give() {
    let spec = kontor::http::openapi::build();
    let mut checked = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            let name = format!("{method} {path}");
            let secured = operation["security"]
                .as_array()
                .is_some_and(|s| !s.is_empty());
            if secured {
                assert!(responses.contains_key("401"), "{name} lacks 401");
            }
            if operation["requestBody"]["content"]
                .get("application/json")
                .is_some()
            {
                for status in ["400", "413", "415"] {
                    assert!(responses.contains_key(status), "{name} lacks {status}");
                }
            }
            if operation["parameters"]
                .as_array()
                .is_some_and(|p| !p.is_empty())
            {
                assert!(responses.contains_key("400"), "{name} lacks 400");
            }
            for (status, response) in responses {
                if status == "201" {
                    assert!(
                        response["headers"].get("Location").is_some(),
                        "{name} 201 lacks Location"
                    );
                }
                if status == "429" || status == "503" {
                    assert!(
                        response["headers"].get("Retry-After").is_some(),
                        "{name} {status} lacks Retry-After"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} operations");
    assert!(spec["servers"].as_array().is_some_and(|s| !s.is_empty()));
}

#[tokio::test]
async fn bodies_the_description_allows_are_accepted_and_others_refused() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let post = |path: String, token: &str, body: &str| {
        app.client
            .post(format!("{}/api/v1{path}", app.address))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    // 3.0 is an integer to JSON Schema, and so to the description.
    let created = post(
        "/games".into(),
        &anna.token,
        r#"{"kind": "steel-driver", "seats": 3.0}"#,
    )
    .await
    .unwrap();
    assert_eq!(created.status(), 201);
    let game: Value = created.json().await.unwrap();
    assert_eq!(game["seat_count"], 3);
    let fraction = post(
        "/games".into(),
        &anna.token,
        r#"{"kind": "steel-driver", "seats": 3.5}"#,
    )
    .await
    .unwrap();
    assert_eq!(fraction.status(), 400);
    // A join body, when sent, is an object (`null` too is refused: the description offers
    // an object or no body, which generated clients can send).
    let id = game["id"].as_str().unwrap();
    // Nor is an array of the members in order, which serde alone would take for the object.
    for body in ["false", "[]", "\"x\"", "3", "null", "[1, null]"] {
        let refused = post(format!("/games/{id}/join"), &bert.token, body)
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{body}");
        let problem: Value = refused.json().await.unwrap();
        assert_eq!(problem["code"], "invalid_body", "{body}");
    }
    let before = app.fingerprint().await;
    for (path, body) in [
        (
            "/auth/register",
            r#"["dora", "dora@example.org", "a quite long passphrase 4711", null]"#,
        ),
        ("/games", r#"["steel-driver", 3, null, null, null, null]"#),
        (
            &format!("/games/{id}/actions")[..],
            r#"[0, null, {"type": "pass_pawn"}]"#,
        ),
    ] {
        let refused = post(path.to_string(), &anna.token, body).await.unwrap();
        assert_eq!(refused.status(), 400, "{path}");
    }
    assert_eq!(
        app.fingerprint().await,
        before,
        "arrays for objects change nothing"
    );
    // A command's members are the ones its schema names: a misspelt one is refused, not
    // dropped (a Flying Dutchman offer with `payment` would otherwise offer nothing).
    let started = app
        .start_game(
            "steel-driver",
            json!({}),
            &[anna.clone(), bert.clone(), app.register("cleo").await],
        )
        .await;
    let version = app
        .get(&format!("/games/{started}"))
        .as_user(&anna)
        .send()
        .await
        .assert_ok()["version"]
        .clone();
    let before = app.fingerprint().await;
    for action in [
        r#"{"type": "pass_pawn", "extra": 1}"#,
        r#"{"type": "open_auction", "company": "red", "bid": 2, "note": "hello"}"#,
    ] {
        let body = format!(r#"{{"version": {version}, "action": {action}}}"#);
        let refused = app
            .client
            .post(format!("{}/api/v1/games/{started}/actions", app.address))
            .bearer_auth(&anna.token)
            .header("content-type", "application/json")
            .header("idempotency-key", format!("unknown-{}", action.len()))
            .body(body)
            .send()
            .await
            .unwrap();
        let status = refused.status();
        let problem: Value = refused.json().await.unwrap();
        assert_eq!(
            (status.as_u16(), &problem["code"]),
            (422, &json!("invalid_command")),
            "{action}: {problem}"
        );
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("unknown field"),
            "{problem}"
        );
    }
    assert_eq!(
        app.fingerprint().await,
        before,
        "refused commands change nothing"
    );
    let joined = post(format!("/games/{id}/join"), &bert.token, "{}")
        .await
        .unwrap();
    assert_eq!(joined.status(), 200);
}

#[tokio::test]
async fn idempotency_keys_are_visible_ascii_and_refusals_say_so() {
    let app = spawn_app().await;
    let players = [
        app.register("anna").await,
        app.register("bert").await,
        app.register("cora").await,
    ];
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let id = game.to_string();
    for (key, says) in [
        ("", "empty"),
        ("a key", "space"),
        (&"k".repeat(256)[..], "256 bytes"),
    ] {
        let response = app
            .client
            .post(format!("{}/api/v1/games/{id}/actions", app.address))
            .bearer_auth(&players[0].token)
            .header("idempotency-key", key)
            .json(&json!({"version": 0, "action": {"type": "pass"}}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{key:?}");
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["code"], "idempotency_key_required");
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("visible ASCII") && detail.contains(says),
            "{detail}"
        );
    }
    let non_ascii = reqwest::header::HeaderValue::from_bytes("clé".as_bytes()).unwrap();
    let response = app
        .client
        .post(format!("{}/api/v1/games/{id}/actions", app.address))
        .bearer_auth(&players[0].token)
        .header("idempotency-key", non_ascii)
        .json(&json!({"version": 0, "action": {"type": "pass"}}))
        .send()
        .await
        .unwrap();
    let problem: Value = response.json().await.unwrap();
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("outside ASCII"),
        "{problem}"
    );
}

/// The limits the server checks are in the schemas, not only in the words: each bound of a
/// time control and of a vacation is read from the description, and the server takes the
/// bound and refuses one beyond it, changing nothing.
#[tokio::test]
async fn the_limits_in_the_schemas_are_the_servers() {
    let spec = kontor::http::openapi::build();
    let schemas = &spec["components"]["schemas"];
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bound = |schema: &str, field: &str, end: &str| {
        schemas[schema]["properties"][field][end]
            .as_i64()
            .unwrap_or_else(|| panic!("{schema}.{field} has a {end}"))
    };
    // Each field beside what it needs (a bank or a limit comes with a time per move).
    for (field, beside) in [
        ("days_per_move", json!({})),
        ("seconds_per_move", json!({})),
        ("bank_days", json!({"days_per_move": 3})),
        ("bank_seconds", json!({"days_per_move": 3})),
        ("abandon_after", json!({"days_per_move": 3})),
    ] {
        let create = |value: i64| {
            let mut time_control = beside.clone();
            time_control[field] = json!(value);
            app.post("/games").as_user(&anna).json(&json!({
                "kind": "steel-driver", "seats": 3, "time_control": time_control
            }))
        };
        let (low, high) = (
            bound("TimeControlRequest", field, "minimum"),
            bound("TimeControlRequest", field, "maximum"),
        );
        let before = app.fingerprint().await;
        for beyond in [low - 1, high + 1] {
            let refused = create(beyond).send().await;
            if beyond < 0 && refused.status == 400 {
                // Below zero does not even fit the body's type of a count of days.
                refused.assert_problem(400, "invalid_body");
                continue;
            }
            let problem = refused.assert_problem(422, "invalid_field");
            assert_eq!(
                problem["field"],
                format!("time_control.{field}"),
                "{beyond}"
            );
        }
        assert_eq!(
            app.fingerprint().await,
            before,
            "{field}: refusals change nothing"
        );
        for within in [low, high] {
            let game = create(within).send().await.assert_ok()["id"]
                .as_str()
                .unwrap()
                .to_string();
            // (Cancelled again, so that no limit of open games is reached.)
            app.post(&format!("/games/{game}/cancel"))
                .as_user(&anna)
                .send()
                .await
                .assert_ok();
        }
    }
    let days = |user: &crate::support::User, days: i64| {
        app.post("/me/vacation")
            .as_user(user)
            .json(&json!({ "days": days }))
            .send()
    };
    let most = bound("VacationRequest", "days", "maximum");
    assert_eq!(bound("VacationRequest", "days", "minimum"), 1);
    days(&anna, most + 1)
        .await
        .assert_problem(422, "invalid_field");
    days(&anna, most).await.assert_ok();

    // Login names are one line: the pattern is the one-line pattern of usernames, and a tab
    // (which free text may hold) is refused.
    assert_eq!(
        schemas["ForgotPasswordRequest"]["properties"]["login"]["pattern"],
        schemas["RegisterRequest"]["properties"]["username"]["pattern"]
    );
    app.post("/auth/password/forgot")
        .json(&json!({"login": "anna\tx"}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
    for schema in ["RegisterRequest", "ChangeEmailRequest"] {
        assert_eq!(
            schemas[schema]["properties"]["email"]["format"], "idn-email",
            "{schema}"
        );
    }
}

/// The ndjson operations take and give the same bytes as `application/octet-stream` too, as
/// the description says for generators that know no ndjson: an upload of either type is
/// verified and imported, and an export is answered as octet-stream when `Accept` prefers it.
#[tokio::test]
async fn the_ndjson_operations_take_and_give_octet_streams_too() {
    let spec = kontor::http::openapi::build();
    for (path, method, content) in [
        ("/api/v1/games/import", "post", "/requestBody/content"),
        ("/api/v1/verify", "post", "/requestBody/content"),
        (
            "/api/v1/games/{game_id}/export",
            "get",
            "/responses/200/content",
        ),
    ] {
        let media = spec["paths"][path][method].pointer(content).unwrap();
        for kind in ["application/x-ndjson", "application/octet-stream"] {
            assert_eq!(media[kind]["schema"]["format"], "binary", "{path} {kind}");
        }
    }
    let log = spec["components"]["examples"]["FinishedGameLog"]["value"]
        .as_str()
        .unwrap()
        .to_string();
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let upload = |path: &str, media: &str| {
        app.client
            .post(app.url(path))
            .bearer_auth(&anna.token)
            .header("Content-Type", media)
            .body(log.clone())
            .send()
    };
    for media in ["application/x-ndjson", "application/octet-stream"] {
        let verified = crate::support::read(upload("/verify", media).await.unwrap()).await;
        assert_eq!(verified.assert_ok()["verified"], true, "{media}");
    }
    // Bytes that are no UTF-8 text are no export: refused as such, naming the line.
    for path in ["/verify", "/games/import"] {
        let reply = app
            .client
            .post(app.url(path))
            .bearer_auth(&anna.token)
            .header("Content-Type", "application/octet-stream")
            .body(b"{}\n\x89PNG\r\n".to_vec())
            .send()
            .await
            .unwrap();
        let problem = crate::support::read(reply).await;
        assert_eq!(
            problem.assert_problem(422, "invalid_export")["line"],
            2,
            "{path}"
        );
    }
    let imported = crate::support::read(
        upload("/games/import", "application/octet-stream")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    let sandbox = imported.body["id"].as_str().unwrap().to_string();
    let export = |accept: &'static str| {
        app.client
            .get(app.url(&format!("/games/{sandbox}/export")))
            .bearer_auth(&anna.token)
            .header("Accept", accept)
            .send()
    };
    let mut bodies = Vec::new();
    for (accept, answered) in [
        ("*/*", "application/x-ndjson"),
        (
            "application/x-ndjson, application/octet-stream;q=0.5",
            "application/x-ndjson",
        ),
        ("application/octet-stream", "application/octet-stream"),
        (
            "application/x-ndjson;q=0.1, application/octet-stream",
            "application/octet-stream",
        ),
    ] {
        let reply = export(accept).await.unwrap();
        assert_eq!(reply.status(), 200, "{accept}");
        assert_eq!(reply.headers()["content-type"], answered, "{accept}");
        bodies.push(reply.text().await.unwrap());
    }
    // The same log each time (the header says when it was exported).
    let events = |body: &String| body.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
    assert!(bodies.iter().all(|body| events(body) == events(&bodies[0])));
    assert_eq!(bodies[0].lines().count(), log.lines().count());
}
