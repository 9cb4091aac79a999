//! HTTP semantics: CORS for configured browser clients, 405 with `Allow`, `HEAD`,
//! conditional GETs and compression.

use crate::support::*;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::json;
use std::collections::HashMap;

const CLIENT: &str = "https://client.example";

async fn cors_app() -> TestApp {
    spawn_app_with(AppOptions {
        settings: HashMap::from([(
            "KONTOR_CORS_ORIGINS".to_string(),
            format!("{CLIENT}, http://localhost:5173"),
        )]),
    })
    .await
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn cors_headers(headers: &HeaderMap) -> Vec<String> {
    headers
        .keys()
        .map(|k| k.as_str().to_string())
        .filter(|k| k.starts_with("access-control-"))
        .collect()
}

async fn preflight(app: &TestApp, origin: &str) -> reqwest::Response {
    app.client
        .request(
            Method::OPTIONS,
            app.url("/games/00000000-0000-0000-0000-000000000000/actions"),
        )
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type, idempotency-key, if-match",
        )
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_and_others_get_no_cors_headers() {
    let app = cors_app().await;
    let reply = preflight(&app, CLIENT).await;
    assert_eq!(reply.status(), 204);
    let headers = reply.headers();
    assert_eq!(header(headers, "access-control-allow-origin"), Some(CLIENT));
    let methods = header(headers, "access-control-allow-methods").unwrap();
    for method in ["GET", "POST", "PUT", "DELETE"] {
        assert!(methods.contains(method), "{methods}");
    }
    let allowed = header(headers, "access-control-allow-headers").unwrap();
    for name in [
        "authorization",
        "content-type",
        "idempotency-key",
        "if-match",
        "if-none-match",
        "last-event-id",
    ] {
        assert!(allowed.contains(name), "{name} not in {allowed}");
    }
    assert!(header(headers, "access-control-max-age").is_some());
    assert!(
        header(headers, "access-control-allow-credentials").is_none(),
        "no credentials mode"
    );
    assert!(header(headers, "vary").unwrap().contains("Origin"));

    // Another origin (even one differing only by scheme or port) gets no CORS headers.
    for other in [
        "https://evil.example",
        "http://client.example",
        "https://client.example:8443",
    ] {
        let reply = preflight(&app, other).await;
        assert!(
            cors_headers(reply.headers()).is_empty(),
            "{other}: {:?}",
            reply.headers()
        );
        assert!(!reply.status().is_success(), "{other}: {}", reply.status());
    }

    // A server with no origins configured sends no CORS headers to anyone.
    let plain = spawn_app().await;
    let reply = preflight(&plain, CLIENT).await;
    assert!(
        cors_headers(reply.headers()).is_empty(),
        "{:?}",
        reply.headers()
    );
    let reply = plain
        .client
        .get(plain.url("/kinds"))
        .header("Origin", CLIENT)
        .send()
        .await
        .unwrap();
    assert!(
        cors_headers(reply.headers()).is_empty(),
        "{:?}",
        reply.headers()
    );
}

#[tokio::test]
async fn cross_origin_answers_carry_the_allowed_origin_and_the_exposed_headers() {
    let app = cors_app().await;
    let origin = [("Origin", CLIENT)];
    let exposed = |headers: &HeaderMap| {
        assert_eq!(header(headers, "access-control-allow-origin"), Some(CLIENT));
        let list = header(headers, "access-control-expose-headers")
            .unwrap()
            .to_string();
        for name in ["etag", "idempotent-replayed", "retry-after", "location"] {
            assert!(list.contains(name), "{name} not in {list}");
        }
        assert!(header(headers, "vary").unwrap().contains("Origin"));
    };
    let reply = app.call(Method::GET, "/kinds", None, None, &origin).await;
    reply.assert_ok();
    exposed(&reply.headers);
    let reply = app
        .call(
            Method::POST,
            "/auth/register",
            None,
            Some(&json!({"username": "anna", "email": "anna@example.org", "password": password_of("anna")})),
            &origin,
        )
        .await;
    reply.assert_ok();
    exposed(&reply.headers);
    // Errors too, so that a page can read the problem.
    let reply = app.call(Method::GET, "/me", None, None, &origin).await;
    reply.assert_problem(401, "unauthenticated");
    exposed(&reply.headers);

    // Another origin is served as without CORS: no CORS headers, but the answer is the same
    // (same-origin pages send `Origin` too).
    let reply = app
        .call(
            Method::GET,
            "/kinds",
            None,
            None,
            &[("Origin", "https://evil.example")],
        )
        .await;
    reply.assert_ok();
    assert!(
        cors_headers(&reply.headers).is_empty(),
        "{:?}",
        reply.headers
    );
    assert!(header(&reply.headers, "vary").unwrap().contains("Origin"));
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow_and_an_unknown_path_stays_404() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let game = uuid::Uuid::now_v7();
    for (method, path, allow) in [
        (Method::DELETE, "/kinds".to_string(), "GET, HEAD"),
        (Method::POST, format!("/games/{game}"), "GET, HEAD"),
        (Method::GET, format!("/games/{game}/actions"), "POST"),
        (Method::HEAD, "/auth/login".to_string(), "POST"),
        (
            Method::PUT,
            "/me/vacation".to_string(),
            "GET, HEAD, POST, DELETE",
        ),
        (Method::PATCH, "/games".to_string(), "GET, HEAD, POST"),
        (Method::OPTIONS, "/me".to_string(), "GET, HEAD"),
    ] {
        let reply = app
            .call(method.clone(), &path, Some(&anna.token), None, &[])
            .await;
        assert_eq!(reply.status, 405, "{method} {path}: {}", reply.text);
        assert_eq!(
            header(&reply.headers, "allow"),
            Some(allow),
            "{method} {path}"
        );
        if method != Method::HEAD {
            reply.assert_problem(405, "method_not_allowed");
        }
    }
    // The root's probes too.
    let reply = read(
        app.client
            .post(format!("{}/healthz", app.address))
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_problem(405, "method_not_allowed");
    assert_eq!(header(&reply.headers, "allow"), Some("GET, HEAD"));
    // Paths that do not exist are 404, whatever the method.
    for (method, path) in [
        (Method::GET, "/nowhere".to_string()),
        (Method::DELETE, format!("/games/{game}/nothing")),
        (Method::POST, "/kinds/more".to_string()),
    ] {
        app.call(method, &path, Some(&anna.token), None, &[])
            .await
            .assert_problem(404, "not_found");
    }
}

#[tokio::test]
async fn head_works_wherever_get_does_with_the_same_headers_and_no_body() {
    let app = spawn_app().await;
    let players = [
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let urls = [
        app.url("/kinds"),
        app.url("/openapi.json"),
        app.url(&format!("/games/{game}")),
        app.url(&format!("/games/{game}/events")),
        app.url("/me"),
        format!("{}/healthz", app.address),
        format!("{}/readyz", app.address),
    ];
    for url in urls {
        let get = app
            .client
            .get(&url)
            .bearer_auth(&players[0].token)
            .send()
            .await
            .unwrap();
        let head = app
            .client
            .head(&url)
            .bearer_auth(&players[0].token)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200, "HEAD {url}");
        assert_eq!(get.status(), 200, "GET {url}");
        for name in ["content-type", "content-length", "etag", "cache-control"] {
            assert_eq!(
                header(head.headers(), name),
                header(get.headers(), name),
                "{name} of HEAD {url}"
            );
        }
        assert!(header(head.headers(), "content-length").is_some(), "{url}");
        assert!(!get.bytes().await.unwrap().is_empty());
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "HEAD {url} has no body"
        );
    }
}

#[tokio::test]
async fn head_of_a_live_stream_answers_at_once_and_holds_no_slot() {
    let app = spawn_app_with(AppOptions {
        settings: HashMap::from([(
            "KONTOR_LIVE_MAX_STREAMS_PER_USER".to_string(),
            "1".to_string(),
        )]),
    })
    .await;
    let anna = app.register("anna").await;
    for _ in 0..3 {
        let head = app
            .client
            .head(app.url("/me/stream"))
            .bearer_auth(&anna.token)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200);
        assert_eq!(
            header(head.headers(), "content-type"),
            Some("text/event-stream")
        );
        assert!(head.bytes().await.unwrap().is_empty());
    }
    // The one slot is free: a real stream opens (bounded wait for the slot's release).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let stream = app
            .client
            .get(app.url("/me/stream"))
            .bearer_auth(&anna.token)
            .send()
            .await
            .unwrap();
        if stream.status() == 200 {
            break;
        }
        assert_eq!(stream.status(), 429);
        assert!(
            std::time::Instant::now() < deadline,
            "the HEAD kept its slot"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
