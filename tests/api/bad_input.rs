//! Client mistakes get a 4xx problem+json with a stable code, and change nothing.

use crate::support::*;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kontor::auth::JwtKeys;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

/// Sends raw bytes as a body.
async fn raw(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    content_type: &str,
    body: Vec<u8>,
) -> Reply {
    let mut request = app
        .client
        .request(method, app.url(path))
        .header("content-type", content_type)
        .body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    read(request.send().await.unwrap()).await
}

#[tokio::test]
async fn malformed_and_mistyped_bodies_change_nothing() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let game_id = app.open_game(&anna).await;
    let before = app.fingerprint().await;

    let cases: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        (
            "/games",
            "application/json",
            b"{\"kind\": ".to_vec(),
            400,
            "malformed_json",
        ),
        (
            "/games",
            "application/json",
            b"not json at all".to_vec(),
            400,
            "malformed_json",
        ),
        (
            "/games",
            "application/json",
            br#"{"kind": 7, "seats": 3}"#.to_vec(),
            400,
            "invalid_body",
        ),
        (
            "/games",
            "application/json",
            br#"{"kind": "flying-dutchman", "seats": "three"}"#.to_vec(),
            400,
            "invalid_body",
        ),
        (
            "/games",
            "application/json",
            br#"{"kind": "flying-dutchman", "seats": 3, "colour": "red"}"#.to_vec(),
            400,
            "invalid_body",
        ),
        (
            "/games",
            "application/json",
            br#"{"kind": "flying-dutchman", "seats": -1}"#.to_vec(),
            400,
            "invalid_body",
        ),
        (
            "/games",
            "text/plain",
            br#"{"kind": "flying-dutchman", "seats": 3}"#.to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "/games",
            "application/json",
            vec![b' '; 100 * 1024],
            413,
            "payload_too_large",
        ),
        (
            "/auth/register",
            "application/json",
            br#"{"username": ["anna"]}"#.to_vec(),
            400,
            "invalid_body",
        ),
        (
            "/auth/login",
            "application/json",
            b"{{{".to_vec(),
            400,
            "malformed_json",
        ),
    ];
    for (path, content_type, body, status, code) in cases {
        let reply = raw(
            &app,
            Method::POST,
            path,
            Some(&anna.token),
            content_type,
            body,
        )
        .await;
        reply.assert_problem(status, code);
    }
    let actions = format!("/games/{game_id}/actions");
    let reply = raw(
        &app,
        Method::POST,
        &actions,
        Some(&anna.token),
        "application/json",
        b"[1,2".to_vec(),
    )
    .await;
    reply.assert_problem(400, "malformed_json");
    assert_eq!(
        app.fingerprint().await,
        before,
        "bad input changed the database"
    );
}

#[tokio::test]
async fn unknown_game_kinds_and_options_are_refused_with_reasons() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let before = app.fingerprint().await;
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({"kind": "chess", "seats": 2}),
            "unknown_game_kind",
            "kind",
        ),
        (
            json!({"kind": "flying-dutchman", "seats": 7}),
            "invalid_options",
            "seats",
        ),
        (
            json!({"kind": "flying-dutchman", "seats": 2}),
            "invalid_options",
            "seats",
        ),
        (
            json!({"kind": "steel-driver", "seats": 7}),
            "invalid_options",
            "seats",
        ),
        (
            json!({"kind": "flying-dutchman", "seats": 4, "options": {"speed": "fast"}}),
            "invalid_options",
            "speed",
        ),
        (
            json!({"kind": "flying-dutchman", "seats": 4, "options": {"edition": "1999"}}),
            "invalid_options",
            "edition",
        ),
        (
            json!({"kind": "steel-driver", "seats": 4, "options": {"map": "europe"}}),
            "invalid_options",
            "map",
        ),
        (
            json!({"kind": "flying-dutchman", "seats": 4, "visibility": "secret"}),
            "invalid_field",
            "visibility",
        ),
    ];
    for (body, code, field) in cases {
        let reply = app.post("/games").as_user(&anna).json(&body).send().await;
        let problem = reply.assert_problem(422, code);
        assert_eq!(problem["field"], field, "{}", reply.text);
    }
    // Say why: a 7-seat Flying Dutchman names the allowed range.
    let reply = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 7}))
        .send()
        .await;
    assert!(
        reply.body["detail"].as_str().unwrap().contains('6'),
        "{}",
        reply.text
    );
    assert_eq!(app.fingerprint().await, before);
}

#[tokio::test]
async fn bad_credentials_are_401_with_a_reason() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let before = app.fingerprint().await;
    let keys = JwtKeys::new(JWT_SECRET.as_bytes(), Duration::from_secs(900)).unwrap();
    let now = jsonwebtoken::get_current_timestamp();
    let expired = keys
        .issue_with_times(anna.id, now - 3600, now - 1800)
        .unwrap();

    // Tampered: claims of another user with anna's signature.
    let parts: Vec<&str> = anna.token.split('.').collect();
    let claims = URL_SAFE_NO_PAD.encode(
        format!(
            r#"{{"sub":"{}","exp":{},"iat":{now},"typ":"access"}}"#,
            uuid::Uuid::new_v4(),
            now + 600
        )
        .as_bytes(),
    );
    let tampered = format!("{}.{}.{}", parts[0], claims, parts[2]);
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
        claims
    );
    let other_key = JwtKeys::new(&[9u8; 40], Duration::from_secs(900))
        .unwrap()
        .issue(anna.id)
        .unwrap();

    let cases: Vec<(Option<String>, &str)> = vec![
        (None, "unauthenticated"),
        (Some(expired), "token_expired"),
        (Some(tampered), "invalid_token"),
        (Some(unsigned), "invalid_token"),
        (Some(other_key), "invalid_token"),
        (Some("garbage".into()), "invalid_token"),
        (Some(anna.refresh.clone()), "wrong_token_type"),
        (Some("kontor_pat_doesnotexist".into()), "invalid_token"),
    ];
    for (token, code) in cases {
        let reply = app.get("/me").maybe_token(token.as_deref()).send().await;
        reply.assert_problem(401, code);
        assert_eq!(reply.headers["www-authenticate"], "Bearer");
        // The same on a write: nothing is created.
        let reply = app
            .post("/games")
            .maybe_token(token.as_deref())
            .json(&json!({"kind": "flying-dutchman", "seats": 3}))
            .send()
            .await;
        reply.assert_problem(401, code);
    }
    // A Basic header is not a bearer token.
    let reply = app
        .client
        .get(app.url("/me"))
        .header("authorization", "Basic YW5uYTpwdw==")
        .send()
        .await
        .unwrap();
    read(reply).await.assert_problem(401, "unauthenticated");
    assert_eq!(app.fingerprint().await, before);
}

#[tokio::test]
async fn validly_signed_tokens_with_times_the_server_never_issues_are_401() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let now = jsonwebtoken::get_current_timestamp();
    let sign = |claims: serde_json::Value| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &claims,
            &jsonwebtoken::EncodingKey::from_secret(JWT_SECRET.as_bytes()).unwrap(),
        )
        .unwrap()
    };
    let year = 365 * 86_400;
    for claims in [
        // exp far in the future.
        json!({"sub": anna.id, "iat": now, "exp": now + 30 * year, "typ": "access"}),
        // Not good before a time to come.
        json!({"sub": anna.id, "iat": now, "exp": now + 600, "nbf": now + 300, "typ": "access"}),
        // Issued in the future.
        json!({"sub": anna.id, "iat": now + 86_400, "exp": now + 86_400 + 600, "typ": "access"}),
        // A 30-year lifetime that began long ago.
        json!({"sub": anna.id, "iat": now - 10 * year, "exp": now + 20 * year, "typ": "access"}),
    ] {
        app.get("/me")
            .token(&sign(claims.clone()))
            .send()
            .await
            .assert_problem(401, "invalid_token");
    }
    // The server's own lifetime (KONTOR_ACCESS_TOKEN_TTL, 900 s) is fine.
    let fine = sign(json!({"sub": anna.id, "iat": now, "exp": now + 900, "typ": "access"}));
    app.get("/me").token(&fine).send().await.assert_ok();
}

#[tokio::test]
async fn a_signed_token_of_a_user_who_does_not_exist_is_401_and_stores_nothing() {
    // Signed with the server's own key, so only the missing account gives it away: the
    // writes keyed by the user used to fail on a foreign key (500).
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let before = app.fingerprint().await;
    let keys = JwtKeys::new(JWT_SECRET.as_bytes(), Duration::from_secs(900)).unwrap();
    let ghost = keys.issue(uuid::Uuid::new_v4()).unwrap();
    let writes = [
        ("/games", json!({"kind": "steel-driver", "seats": 3})),
        (
            "/me/tokens",
            json!({"name": "bot", "scopes": ["game:read", "game:play"]}),
        ),
        ("/me/vacation", json!({"days": 3})),
    ];
    for (path, body) in &writes {
        let reply = app.post(path).token(&ghost).json(body).send().await;
        let problem = reply.assert_problem(401, "invalid_token");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("no longer exists"),
            "{path}: {}",
            reply.text
        );
        assert_eq!(reply.headers["www-authenticate"], "Bearer");
    }
    for path in ["/me", "/me/tokens", "/me/notifications", "/games?view=mine"] {
        app.get(path)
            .token(&ghost)
            .send()
            .await
            .assert_problem(401, "invalid_token");
    }
    // Also through a query token (the live streams' way for browsers).
    let reply = app
        .client
        .get(app.url(&format!("/me/stream?access_token={ghost}")))
        .send()
        .await
        .unwrap();
    read(reply).await.assert_problem(401, "invalid_token");
    assert_eq!(app.fingerprint().await, before);
    for table in [
        "api_tokens",
        "vacations",
        "notification_prefs",
        "notice_choices",
        "live_presence",
    ] {
        let rows: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
                .fetch_one(&app.pool)
                .await
                .unwrap();
        assert_eq!(rows, 0, "{table}");
    }
    // A real user's token of the same kind still works, on reads and writes.
    app.get("/me").as_user(&anna).send().await.assert_ok();
    app.post("/games")
        .as_user(&anna)
        .json(&writes[0].1)
        .send()
        .await
        .assert_ok();
}

#[tokio::test]
async fn unknown_paths_and_bad_parameters_are_problems_too() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    app.get("/nowhere")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "not_found");
    app.get("/games/not-a-uuid")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    app.get(&format!("/games/{}", uuid::Uuid::new_v4()))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "game_not_found");
    app.get("/games?view=everything")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    app.get("/games?limit=1000")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    app.get("/games?cursor=bogus")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
}

/// Every text field of every endpoint, each with a NUL character: 422 (400 in a query)
/// naming the field, and nothing changes (PostgreSQL refuses the byte; it used to be a 500).
#[tokio::test]
async fn nul_characters_in_any_text_field_are_refused_with_the_field_and_change_nothing() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let open = app.open_game(&anna).await;
    let cleo = app.register("cleo").await;
    let dora = app.register("dora").await;
    let active = app
        .start_game(
            "steel-driver",
            json!({}),
            &[cleo.clone(), dora.clone(), bert.clone()],
        )
        .await;
    let before = app.fingerprint().await;
    let login_failures = || async {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM login_failures")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        n
    };
    let failures_before = login_failures().await;

    let nul = "x\u{0}y";
    let strong = "tall ship sails at midnight";
    let register = |field: &str| {
        let mut body = json!({"username": "erik", "email": "erik@example.org", "password": strong});
        body[field] = json!(nul);
        body
    };
    let join = format!("/games/{open}/join");
    let invite = format!("/games/{open}/invitations");
    let actions = format!("/games/{active}/actions");
    let body_cases: Vec<(Method, &str, Option<&str>, Value, &str)> = vec![
        (
            Method::POST,
            "/auth/register",
            None,
            register("username"),
            "username",
        ),
        (
            Method::POST,
            "/auth/register",
            None,
            register("email"),
            "email",
        ),
        (
            Method::POST,
            "/auth/register",
            None,
            register("password"),
            "password",
        ),
        (
            Method::POST,
            "/auth/login",
            None,
            json!({"username": nul, "password": strong}),
            "username",
        ),
        (
            Method::POST,
            "/auth/login",
            None,
            json!({"username": "anna", "password": nul}),
            "password",
        ),
        (
            Method::POST,
            "/auth/refresh",
            None,
            json!({"refresh_token": format!("kontor_rt_{nul}")}),
            "refresh_token",
        ),
        (
            Method::POST,
            "/auth/logout",
            None,
            json!({"refresh_token": nul}),
            "refresh_token",
        ),
        (
            Method::POST,
            "/me/tokens",
            Some(&anna.token),
            json!({"name": nul, "scopes": ["game:read"]}),
            "name",
        ),
        (
            Method::POST,
            "/me/tokens",
            Some(&anna.token),
            json!({"name": "bot", "scopes": ["game:read", nul]}),
            "scopes[1]",
        ),
        (
            Method::POST,
            "/games",
            Some(&anna.token),
            json!({"kind": nul, "seats": 3}),
            "kind",
        ),
        (
            Method::POST,
            "/games",
            Some(&anna.token),
            json!({"kind": "flying-dutchman", "seats": 3, "visibility": nul}),
            "visibility",
        ),
        (
            Method::POST,
            "/games",
            Some(&anna.token),
            json!({"kind": "flying-dutchman", "seats": 3, "nonce": nul}),
            "nonce",
        ),
        (
            Method::POST,
            "/games",
            Some(&anna.token),
            json!({"kind": "flying-dutchman", "seats": 3, "options": {"edition": nul}}),
            "options.edition",
        ),
        (
            Method::POST,
            "/games",
            Some(&anna.token),
            json!({"kind": "flying-dutchman", "seats": 3, "time_control": {"days_per_move": 3, "on_abandon": nul}}),
            "time_control.on_abandon",
        ),
        (
            Method::POST,
            &join,
            Some(&bert.token),
            json!({"nonce": nul}),
            "nonce",
        ),
        (
            Method::POST,
            &invite,
            Some(&anna.token),
            json!({"username": nul}),
            "username",
        ),
        (
            Method::POST,
            &actions,
            Some(&cleo.token),
            json!({"version": 1, "action": {"type": nul}}),
            "action.type",
        ),
        (
            Method::PUT,
            "/me/notifications",
            Some(&anna.token),
            json!({"your_turn": nul}),
            "your_turn",
        ),
        (
            Method::POST,
            "/me/vacation",
            Some(&anna.token),
            json!({"days": 2, nul: 1}),
            "body",
        ),
    ];
    for (method, path, token, body, field) in body_cases {
        let reply = app
            .request(method.clone(), path)
            .maybe_token(token)
            .json(&body)
            .key("nul-test")
            .send()
            .await;
        let problem = reply.assert_problem(422, "invalid_field");
        assert_eq!(problem["field"], field, "{method} {path}: {}", reply.text);
    }
    // Another control character is refused the same way; tabs and line breaks are text.
    let reply = app
        .post("/me/tokens")
        .as_user(&anna)
        .json(&json!({"name": "bell\u{7}", "scopes": ["game:read"]}))
        .send()
        .await;
    assert_eq!(reply.assert_problem(422, "invalid_field")["field"], "name");

    // Text that is not UTF-8 (a raw byte, a lone surrogate) is not JSON.
    for body in [
        b"{\"username\": \"\xff\", \"password\": \"x\"}".to_vec(),
        br#"{"username": "\ud800", "password": "x"}"#.to_vec(),
    ] {
        raw(
            &app,
            Method::POST,
            "/auth/login",
            None,
            "application/json",
            body,
        )
        .await
        .assert_problem(400, "malformed_json");
    }

    // Query strings.
    let query_cases: Vec<(String, &str)> = vec![
        ("/games?kind=x%00y".to_string(), "kind"),
        ("/games?view=mine&status=%00".to_string(), "status"),
        ("/games?cursor=%00".to_string(), "cursor"),
        (format!("/games/{active}/events?after=%00"), "after"),
        ("/unsubscribe?token=x%00".to_string(), "token"),
        (
            format!("/games/{active}/stream?access_token=%00"),
            "access_token",
        ),
        ("/games?kind=%FF".to_string(), "kind"),
    ];
    for (path, field) in query_cases {
        let reply = app.get(&path).as_user(&anna).send().await;
        let problem = reply.assert_problem(400, "invalid_parameter");
        assert_eq!(problem["field"], field, "{path}: {}", reply.text);
    }

    // An uploaded export: the line and the field are named.
    let mut export = app.export(active, &cleo).await;
    export.push_str("{\"seq\": 99, \"type\": \"x\\u0000\"}\n");
    for path in ["/games/import", "/verify"] {
        let reply = raw(
            &app,
            Method::POST,
            path,
            Some(&anna.token),
            "application/x-ndjson",
            export.clone().into_bytes(),
        )
        .await;
        let problem = reply.assert_problem(422, "invalid_export");
        assert_eq!(problem["field"], "type", "{path}: {}", reply.text);
        assert!(problem["line"].as_u64().is_some(), "{}", reply.text);
    }

    assert_eq!(
        app.fingerprint().await,
        before,
        "a NUL changed the database"
    );
    assert_eq!(login_failures().await, failures_before);
}

/// Joining takes an optional body: none at all means the defaults, but a body that cannot be
/// read is refused (it used to be ignored, so a typo silently joined with defaults).
#[tokio::test]
async fn a_join_without_a_body_takes_defaults_and_an_unreadable_one_is_refused() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let game = app.open_game(&anna).await;
    let join = format!("/games/{game}/join");
    let before = app.fingerprint().await;
    for (content_type, body, status, code) in [
        (
            "application/json",
            b"{\"seat\": ".to_vec(),
            400,
            "malformed_json",
        ),
        (
            "application/json",
            b"{\"sit\": 1}".to_vec(),
            400,
            "invalid_body",
        ),
        (
            "text/plain",
            b"{\"seat\": 1}".to_vec(),
            415,
            "unsupported_media_type",
        ),
    ] {
        raw(
            &app,
            Method::POST,
            &join,
            Some(&bert.token),
            content_type,
            body,
        )
        .await
        .assert_problem(status, code);
    }
    assert_eq!(app.fingerprint().await, before);
    let joined = app.post(&join).as_user(&bert).send().await;
    assert_eq!(joined.assert_ok()["seats"].as_array().unwrap().len(), 2);
}

/// Sends `request` over a raw connection and reads until the server closes it, for at most
/// `wait`; returns what arrived and whether the server closed the connection.
async fn raw_exchange(address: &str, request: &[u8], wait: Duration) -> (String, bool) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(address.trim_start_matches("http://"))
        .await
        .unwrap();
    socket.write_all(request).await.unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, socket.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&received).into(), true),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => return (String::from_utf8_lossy(&received).into(), false),
        }
    }
}

/// Issue 10: a request whose body never finished arriving held its connection (and its
/// handler) open for as long as the client liked.
#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_answered_408_and_disconnected() {
    let app = spawn_app_with(AppOptions {
        settings: [("KONTOR_BODY_TIMEOUT".to_string(), "1".to_string())].into(),
    })
    .await;
    let before = app.fingerprint().await;
    let partial = concat!(
        "POST /api/v1/auth/register HTTP/1.1\r\n",
        "Host: localhost\r\n",
        "Content-Type: application/json\r\n",
        "Content-Length: 200\r\n",
        "\r\n",
        "{\"username\": \"slow\", "
    );
    let chunked = concat!(
        "POST /api/v1/auth/register HTTP/1.1\r\n",
        "Host: localhost\r\n",
        "Content-Type: application/json\r\n",
        "Transfer-Encoding: chunked\r\n",
        "\r\n",
        "8\r\n{\"userna\r\n"
    );
    for request in [partial, chunked] {
        // The bound is 1 s; waiting up to 20 s only keeps a broken server from hanging the test.
        let (answer, closed) =
            raw_exchange(&app.address, request.as_bytes(), Duration::from_secs(20)).await;
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "a 408 answer: {answer:?}"
        );
        assert!(
            answer.contains("application/problem+json") && answer.contains("\"body_timeout\""),
            "{answer}"
        );
        assert!(closed, "the server closes the connection: {answer}");
    }
    assert_eq!(app.fingerprint().await, before, "nothing was registered");
    // A body that arrives in time is read as ever.
    let on_time = concat!(
        "POST /api/v1/auth/login HTTP/1.1\r\n",
        "Host: localhost\r\n",
        "Content-Type: application/json\r\n",
        "Content-Length: 2\r\n",
        "Connection: close\r\n",
        "\r\n",
        "{}"
    );
    let (answer, _) = raw_exchange(&app.address, on_time.as_bytes(), Duration::from_secs(20)).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("\"invalid_body\""), "{answer}");
}
