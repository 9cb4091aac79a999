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
        "x-request-id",
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
        for name in [
            "etag",
            "idempotent-replayed",
            "retry-after",
            "location",
            "x-request-id",
            "allow",
        ] {
            assert!(
                list.split(", ").any(|listed| listed == name),
                "{name} not in {list}"
            );
        }
        assert!(header(headers, "vary").unwrap().contains("Origin"));
    };
    let reply = app.get("/kinds").headers(&origin).send().await;
    reply.assert_ok();
    exposed(&reply.headers);
    let reply = app
        .post("/auth/register").json(&json!({"username": "anna", "email": "anna@example.org", "password": password_of("anna")})).headers(&origin).send()
        .await;
    reply.assert_ok();
    exposed(&reply.headers);
    // Errors too, so that a page can read the problem.
    let reply = app.get("/me").headers(&origin).send().await;
    reply.assert_problem(401, "unauthenticated");
    exposed(&reply.headers);
    // A 405's `Allow` says which methods the path answers: a page may read it.
    let reply = app
        .request(Method::PATCH, "/kinds")
        .headers(&origin)
        .send()
        .await;
    reply.assert_problem(405, "method_not_allowed");
    assert!(header(&reply.headers, "allow").unwrap().contains("GET"));
    exposed(&reply.headers);

    // Another origin is served as without CORS: no CORS headers, but the answer is the same
    // (same-origin pages send `Origin` too).
    let reply = app
        .get("/kinds")
        .header("Origin", "https://evil.example")
        .send()
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
            .request(method.clone(), &path)
            .as_user(&anna)
            .send()
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
        app.request(method, &path)
            .as_user(&anna)
            .send()
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
        // A bound, not a timing check: a HEAD that kept the stream's body would never end.
        let head = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            let head = app
                .client
                .head(app.url("/me/stream"))
                .bearer_auth(&anna.token)
                .send()
                .await
                .unwrap();
            let status = head.status();
            let kind = header(head.headers(), "content-type").map(str::to_string);
            (status, kind, head.bytes().await.unwrap())
        })
        .await
        .expect("a HEAD of a stream ends");
        assert_eq!(head.0, 200);
        assert_eq!(head.1.as_deref(), Some("text/event-stream"));
        assert!(head.2.is_empty());
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

/// Four players in a started Flying Dutchman game, and the seat that must act first.
async fn started_game(app: &TestApp) -> (uuid::Uuid, Vec<User>, usize) {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let first = detail.assert_ok()["pending"][0].as_u64().unwrap() as usize;
    (game, players, first)
}

/// `GET path` with `If-None-Match: condition`.
async fn get_if_none_match(app: &TestApp, path: &str, token: &str, condition: &str) -> Reply {
    app.get(path)
        .token(token)
        .header("If-None-Match", condition)
        .send()
        .await
}

fn etag(reply: &Reply) -> String {
    header(&reply.headers, "etag").expect("an ETag").to_string()
}

#[tokio::test]
async fn each_representation_has_its_own_tag_and_a_matching_if_none_match_is_304() {
    let app = spawn_app().await;
    let (game, players, first) = started_game(&app).await;
    let path = format!("/games/{game}");
    let mover = &players[first];
    let now = app.get(&path).as_user(mover).send().await;
    let version = now.assert_ok()["version"].as_i64().unwrap();
    let tag = etag(&now);
    assert!(tag.starts_with(&format!("\"v{version}-s{first}-")), "{tag}");
    assert!(tag.ends_with('"'));
    assert_eq!(
        header(&now.headers, "cache-control"),
        Some("private, no-cache")
    );
    // The same representation, the same tag.
    assert_eq!(etag(&app.get(&path).as_user(mover).send().await), tag);
    // Another viewer, another tag; a spectator's says so.
    let other = &players[(first + 1) % 4];
    assert_ne!(etag(&app.get(&path).as_user(other).send().await), tag);
    let eve = app.register("eve").await;
    assert!(
        etag(&app.get(&path).as_user(&eve).send().await)
            .starts_with(&format!("\"v{version}-spectator-"))
    );
    // A past version has its own tag.
    let past = app.get(&format!("{path}?at=1")).as_user(mover).send().await;
    past.assert_ok();
    assert!(
        etag(&past).starts_with(&format!("\"v1-s{first}-")),
        "{}",
        etag(&past)
    );

    // If-None-Match: the current tag (also weak, in a list, or `*`) is 304 with no body.
    let weak = format!("W/{tag}");
    let listed = format!("\"v0-s0-0000000000000000\", {tag}");
    for condition in [tag.as_str(), weak.as_str(), listed.as_str(), "*"] {
        let reply = get_if_none_match(&app, &path, &mover.token, condition).await;
        assert_eq!(reply.status, 304, "{condition}: {}", reply.text);
        assert!(reply.text.is_empty());
        assert_eq!(etag(&reply), tag);
        assert_eq!(
            header(&reply.headers, "cache-control"),
            Some("private, no-cache")
        );
    }
    // Someone else's tag, or the past's, is no match.
    let theirs = etag(&app.get(&path).as_user(other).send().await);
    for condition in [theirs, etag(&past)] {
        let reply = get_if_none_match(&app, &path, &mover.token, &condition).await;
        assert_eq!(reply.status, 200, "{condition}");
        assert_eq!(etag(&reply), tag);
    }
    // The past version answers 304 to its own tag.
    let reply = get_if_none_match(&app, &format!("{path}?at=1"), &mover.token, &etag(&past)).await;
    assert_eq!(reply.status, 304);
    // A malformed one is a client error.
    get_if_none_match(&app, &path, &mover.token, "v12")
        .await
        .assert_problem(400, "invalid_parameter");

    // After a move the old tag no longer matches.
    app.act(mover, game)
        .version(version)
        .send(&json!({"type": "use_smith"}))
        .await
        .assert_ok();
    let reply = get_if_none_match(&app, &path, &mover.token, &tag).await;
    assert_eq!(reply.status, 200);
    assert_ne!(etag(&reply), tag);
}

#[tokio::test]
async fn an_open_games_tag_changes_when_a_seat_is_taken_without_a_new_version() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await;
    let game = created.assert_ok()["id"].as_str().unwrap().to_string();
    let path = format!("/games/{game}");
    let before = app.get(&path).as_user(&anna).send().await;
    app.post(&format!("{path}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    let after = get_if_none_match(&app, &path, &anna.token, &etag(&before)).await;
    assert_eq!(after.status, 200, "the seats changed: no 304");
    assert_eq!(after.body["version"], before.body["version"]);
    assert_ne!(etag(&after), etag(&before));
}

#[tokio::test]
async fn if_match_on_actions_compares_strongly_and_star_matches_the_current_version() {
    let app = spawn_app().await;
    let (game, players, first) = started_game(&app).await;
    let path = format!("/games/{game}");
    let actions = format!("{path}/actions");
    let mover = &players[first];
    let seen = app.get(&path).as_user(mover).send().await;
    let version = seen.assert_ok()["version"].as_i64().unwrap();
    let tag = etag(&seen);
    let act = |if_match: String, key: &'static str, action: &'static str| {
        let app = &app;
        let actions = actions.clone();
        async move {
            app.post(&actions)
                .as_user(mover)
                .json(&json!({"action": {"type": action}}))
                .key(key)
                .header("If-Match", &if_match)
                .send()
                .await
        }
    };
    let stale = |v: i64| format!("\"v{v}-s{first}-0000000000000000\"");
    let before = app.fingerprint().await;
    // Weak tags never match under strong comparison; tags of no version of ours neither.
    act(format!("W/{tag}"), "k1", "use_smith")
        .await
        .assert_problem(412, "precondition_failed");
    act("\"abc\"".into(), "k2", "use_smith")
        .await
        .assert_problem(412, "precondition_failed");
    // Stale tags are the documented version conflict; a malformed header a client error.
    for condition in [
        stale(version - 1),
        format!("{}, {}", stale(version - 1), stale(version - 2)),
    ] {
        let reply = act(condition, "k3", "use_smith").await;
        assert_eq!(
            reply.assert_problem(409, "version_conflict")["current_version"],
            version
        );
    }
    act("v12 junk".into(), "k4", "use_smith")
        .await
        .assert_problem(400, "version_required");
    assert_eq!(
        app.fingerprint().await,
        before,
        "refused conditions change nothing"
    );

    // `*`, and a list with the current tag, match: the rules then decide (and refuse a pass
    // with nine horseshoes), as at the current version.
    for (condition, key) in [
        ("*".to_string(), "k5"),
        (format!("{}, {tag}", stale(version - 1)), "k6"),
    ] {
        act(condition, key, "pass")
            .await
            .assert_problem(422, "too_many_horseshoes_to_pass");
    }
    // The GET's own ETag is accepted as the version seen.
    let accepted = act(tag.clone(), "k7", "use_smith").await;
    let version = accepted.assert_ok()["version"].as_i64().unwrap();
    assert!(version > seen.body["version"].as_i64().unwrap());

    // A retry of an action sent with `*` gets the stored answer, although the version it
    // acted on is no longer the current one (it was judged again before, and refused).
    let next = app.get(&path).as_user(&players[0]).send().await;
    let next = &players[next.assert_ok()["pending"][0].as_u64().unwrap() as usize];
    let detail = app.get(&path).as_user(next).send().await;
    let mut rng = kontor::games::GameRng::from_u64(7);
    let action = crate::bots::flying_dutchman(&detail.body["legal"], &detail.body, &mut rng);
    let star = || {
        app.post(&actions)
            .as_user(next)
            .json(&json!({ "action": action }))
            .key("k8")
            .header("If-Match", "*")
            .send()
    };
    let first = star().await;
    assert_eq!(first.assert_ok()["version"].as_i64().unwrap(), version + 1);
    assert!(first.headers.get("idempotent-replayed").is_none());
    let retried = star().await;
    assert_eq!(retried.assert_ok(), first.assert_ok());
    assert_eq!(retried.headers["idempotent-replayed"], "true");
    let head = app.get(&path).as_user(next).send().await;
    assert_eq!(head.assert_ok()["version"].as_i64().unwrap(), version + 1);
}

#[tokio::test]
async fn json_answers_are_compressed_for_clients_that_accept_it_and_streams_are_not() {
    use std::io::Read;
    let app = spawn_app().await;
    let plain = app
        .client
        .get(app.url("/openapi.json"))
        .send()
        .await
        .unwrap();
    assert!(header(plain.headers(), "content-encoding").is_none());
    let plain = plain.bytes().await.unwrap();
    for (encoding, name) in [("gzip", "gzip"), ("br;q=1.0, gzip;q=0.5", "br")] {
        let reply = app
            .client
            .get(app.url("/openapi.json"))
            .header("Accept-Encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 200);
        assert_eq!(
            header(reply.headers(), "content-encoding"),
            Some(name),
            "{encoding}"
        );
        assert!(
            header(reply.headers(), "vary")
                .unwrap()
                .to_lowercase()
                .contains("accept-encoding")
        );
        let packed = reply.bytes().await.unwrap();
        // JSON this repetitive packs well over three to one at any level (gzip gives about 4).
        assert!(
            packed.len() * 3 < plain.len(),
            "{name}: {} of {}",
            packed.len(),
            plain.len()
        );
        if name == "gzip" {
            let mut unpacked = Vec::new();
            flate2::read::GzDecoder::new(&packed[..])
                .read_to_end(&mut unpacked)
                .unwrap();
            assert_eq!(unpacked, plain);
        }
    }
    // Problems are compressed as well, and still problems.
    let reply = app
        .client
        .get(app.url("/nowhere"))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 404);
    assert_eq!(
        header(reply.headers(), "content-type"),
        Some("application/problem+json")
    );

    // A live stream is sent as it is, each event at once.
    let anna = app.register("anna").await;
    let mut stream = app
        .client
        .get(app.url("/me/stream"))
        .bearer_auth(&anna.token)
        .header("Accept-Encoding", "gzip, br")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(
        header(stream.headers(), "content-type"),
        Some("text/event-stream")
    );
    // Not compressed, and no `Content-Encoding: identity` either (it names no coding).
    assert_eq!(
        header(stream.headers(), "content-encoding"),
        None,
        "{:?}",
        stream.headers()
    );
    // A bound, not a timing check: a compressed stream would hold the snapshot back.
    let first = tokio::time::timeout(std::time::Duration::from_secs(30), stream.chunk())
        .await
        .expect("the snapshot arrives")
        .unwrap()
        .unwrap();
    let text = String::from_utf8(first.to_vec()).expect("plain text, not compressed");
    assert!(
        text.contains("event:") || text.contains("data:") || text.starts_with(':'),
        "{text}"
    );
}

/// `GET /games/{id}` with `Accept-Encoding`.
async fn get_coded(
    app: &TestApp,
    path: &str,
    token: &str,
    coding: &str,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .header("Accept-Encoding", coding);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn each_content_coding_has_its_own_strong_tag_and_conditions_keep_working() {
    let app = spawn_app().await;
    let (game, players, first) = started_game(&app).await;
    let path = format!("/games/{game}");
    let mover = &players[first];
    let plain = app.get(&path).as_user(mover).send().await;
    let tag = etag(&plain);
    assert!(!tag.starts_with("W/"), "{tag}");
    // A strong tag names one representation (RFC 9110 §8.8.3): a compressed body is another,
    // and its tag says which coding it is in.
    let mut tags = vec![tag.clone()];
    for (accept, coding) in [
        ("gzip", "gzip"),
        ("br;q=1.0, gzip;q=0.5", "br"),
        ("deflate", "deflate"),
    ] {
        let reply = get_coded(&app, &path, &mover.token, accept, &[]).await;
        assert_eq!(reply.status(), 200);
        assert_eq!(header(reply.headers(), "content-encoding"), Some(coding));
        let coded = header(reply.headers(), "etag").unwrap().to_string();
        assert_eq!(coded, format!("{}-{coding}\"", tag.trim_end_matches('"')));
        // If-None-Match with that tag, in that coding: 304, with the same tag.
        let again = get_coded(
            &app,
            &path,
            &mover.token,
            accept,
            &[("If-None-Match", &coded)],
        )
        .await;
        assert_eq!(again.status(), 304, "{coding}");
        assert_eq!(header(again.headers(), "etag"), Some(coded.as_str()));
        // The identity tag names another representation: the body is sent.
        let other = get_coded(
            &app,
            &path,
            &mover.token,
            accept,
            &[("If-None-Match", &tag)],
        )
        .await;
        assert_eq!(other.status(), 200, "{coding}");
        tags.push(coded);
    }
    // HEAD tells the same tag as GET.
    let head = app
        .client
        .head(app.url(&path))
        .bearer_auth(&mover.token)
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(header(head.headers(), "etag"), Some(tags[1].as_str()));

    // If-Match on the GET compares strongly with the representation it would send.
    for (accept, condition) in [
        ("identity", tag.clone()),
        ("gzip", tags[1].clone()),
        ("gzip", "*".into()),
    ] {
        let reply = get_coded(
            &app,
            &path,
            &mover.token,
            accept,
            &[("If-Match", &condition)],
        )
        .await;
        assert_eq!(reply.status(), 200, "{accept} {condition}");
    }
    let weak = format!("W/{tag}");
    let other_viewer = etag(
        &app.get(&path)
            .as_user(&players[(first + 1) % 4])
            .send()
            .await,
    );
    for (accept, condition) in [
        ("identity", weak.as_str()),
        ("identity", other_viewer.as_str()),
        ("identity", tags[1].as_str()),
        ("gzip", tag.as_str()),
        ("identity", "\"v0-s0-0000000000000000\""),
    ] {
        let reply = get_coded(
            &app,
            &path,
            &mover.token,
            accept,
            &[("If-Match", condition)],
        )
        .await;
        assert_eq!(reply.status(), 412, "{accept} {condition}");
        if accept == "identity" {
            read(reply).await.assert_problem(412, "precondition_failed");
        }
    }
    app.get(&path)
        .as_user(mover)
        .header("If-Match", "v12")
        .send()
        .await
        .assert_problem(400, "invalid_parameter");

    // Any coding's tag, sent as If-Match on an action, is the version seen.
    let version = plain.body["version"].as_i64().unwrap();
    let acted = app
        .post(&format!("{path}/actions"))
        .as_user(mover)
        .json(&json!({"action": {"type": "use_smith"}}))
        .key("coded")
        .header("If-Match", &tags[2])
        .send()
        .await;
    assert_eq!(acted.assert_ok()["version"].as_i64().unwrap(), version + 1);
    // Now every tag of before is stale.
    let reply = get_coded(&app, &path, &mover.token, "gzip", &[("If-Match", &tags[1])]).await;
    assert_eq!(reply.status(), 412);
}

/// The web client's files get a tag per coding too: a script sent compressed says its coding,
/// an image (which is never compressed) keeps the tag of its content, and each answers 304 to
/// its own tag.
#[tokio::test]
async fn the_pages_files_are_tagged_per_coding_too() {
    let dir = std::env::temp_dir().join(format!("kontor-coded-web-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><p>client</p>").unwrap();
    std::fs::write(dir.join("assets/app-1.js"), "console.log(1);".repeat(100)).unwrap();
    std::fs::write(
        dir.join("assets/icon-1.png"),
        b"\x89PNG\r\n\x1a\n not really",
    )
    .unwrap();
    let mut options = AppOptions::default();
    options
        .settings
        .insert("KONTOR_WEB_DIR".into(), dir.to_string_lossy().into_owned());
    let app = spawn_app_with(options).await;
    let get = |path: &str, coding: &str, tag: Option<&str>| {
        let mut request = app
            .client
            .get(format!("{}{path}", app.address))
            .header("Accept-Encoding", coding);
        if let Some(tag) = tag {
            request = request.header("If-None-Match", tag);
        }
        request.send()
    };
    let tag_of = |reply: &reqwest::Response| header(reply.headers(), "etag").unwrap().to_string();
    let plain = tag_of(&get("/assets/app-1.js", "identity", None).await.unwrap());
    let packed = get("/assets/app-1.js", "gzip", None).await.unwrap();
    assert_eq!(header(packed.headers(), "content-encoding"), Some("gzip"));
    let packed = tag_of(&packed);
    assert_eq!(packed, format!("{}-gzip\"", plain.trim_end_matches('"')));
    let again = get("/assets/app-1.js", "gzip", Some(&packed))
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(tag_of(&again), packed);
    let image = get("/assets/icon-1.png", "gzip", None).await.unwrap();
    assert_eq!(header(image.headers(), "content-encoding"), None);
    let image_tag = tag_of(&image);
    assert_eq!(
        image_tag,
        tag_of(&get("/assets/icon-1.png", "identity", None).await.unwrap())
    );
    let again = get("/assets/icon-1.png", "gzip", Some(&image_tag))
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    std::fs::remove_dir_all(&dir).unwrap();
}
