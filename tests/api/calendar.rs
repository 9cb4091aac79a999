//! The deadline calendar: a private iCalendar feed per player, read here by an iCalendar
//! parser that is not Kontor's (Python's `icalendar`, installed by `deploy/setup-tests.sh`),
//! as a calendar program would read it.

use crate::support::*;
use chrono::{DateTime, SubsecRound, Utc};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use uuid::Uuid;

const BASE: &str = "https://kontor.test";

/// A server whose links start with [`BASE`], with a real SMTP receiver (for reset links).
async fn world() -> MailedApp {
    spawn_mailed_app(&[("KONTOR_BASE_URL", BASE)]).await
}

async fn players(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut players = Vec::new();
    for name in names {
        players.push(app.register(name).await);
    }
    players
}

/// Makes `user`'s feed: its URL, checked to be under [`BASE`] and to hold the token.
async fn make_feed(app: &TestApp, user: &User) -> String {
    let made = app.post("/me/calendar").as_user(user).send().await;
    assert_eq!(made.status.as_u16(), 201, "{}", made.text);
    let url = made.body["url"].as_str().unwrap().to_string();
    let prefix = format!("{BASE}/api/v1/calendar/kontor_cal_");
    assert!(url.starts_with(&prefix) && url.ends_with(".ics"), "{url}");
    url
}

/// The feed at `url` (its path is asked of the test server).
async fn fetch(app: &TestApp, url: &str) -> Reply {
    let path = url.strip_prefix(&format!("{BASE}/api/v1")).unwrap();
    app.get(path).send().await
}

/// The feed at `url`, as the independent parser reads it.
async fn events_at(app: &TestApp, url: &str) -> Value {
    let reply = fetch(app, url).await;
    assert_eq!(reply.status.as_u16(), 200, "{}", reply.text);
    assert_eq!(
        reply.headers["content-type"].to_str().unwrap(),
        "text/calendar; charset=utf-8"
    );
    parse(&reply.text)
}

/// What `tests/calendar/events.py` (Python's `icalendar`) reads in `feed`.
fn parse(feed: &str) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/icalendar/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run deploy/setup-tests.sh",
        python.display()
    );
    let mut child = Command::new(python)
        .arg(root.join("tests/calendar/events.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(feed.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "icalendar could not read the feed: {}\n{feed}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The events' UIDs.
fn uids(calendar: &Value) -> Vec<String> {
    calendar["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["uid"].as_str().unwrap().to_string())
        .collect()
}

async fn summary(app: &TestApp, game: Uuid, user: &User) -> Value {
    app.get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone()
}

/// The seat that must act now, and the player in it.
async fn to_act<'a>(app: &TestApp, game: Uuid, table: &'a [User]) -> (i64, &'a User) {
    let seat = summary(app, game, &table[0]).await["pending"][0]
        .as_i64()
        .unwrap();
    (seat, &table[seat as usize])
}

/// The deadline the lobby shows for `seat` of a game (`summary`), to the second as iCalendar
/// writes times (rounded down: the event is never after the deadline).
fn deadline_of(summary: &Value, seat: i64) -> DateTime<Utc> {
    let seat = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seat"] == seat)
        .unwrap();
    utc(seat["deadline"].as_str().unwrap()).trunc_subsecs(0)
}

fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

#[tokio::test]
async fn the_feed_lists_my_moves_with_their_deadlines_and_follows_the_game() {
    let w = world().await;
    let app = &w.app;
    let table = players(app, &["anna", "bert", "cleo"]).await;
    let dora = app.register("dora").await;
    let game = app
        .start_game_with(
            json!({"kind": "flying-dutchman", "time_control": {"seconds_per_move": 7200}}),
            &table,
        )
        .await;
    let mut feeds = Vec::new();
    for player in table.iter().chain([&dora]) {
        feeds.push(make_feed(app, player).await);
    }
    let (seat, first) = to_act(app, game, &table).await;
    let first_at = table.iter().position(|p| p.id == first.id).unwrap();

    // The first player's feed: this game, at the seat's deadline as the lobby shows it.
    let shown = summary(app, game, first).await;
    let deadline = deadline_of(&shown, seat);
    let calendar = events_at(app, &feeds[first_at]).await;
    assert_eq!(calendar["version"], "2.0");
    assert_eq!(calendar["name"], "Kontor — your moves");
    assert_eq!(calendar["published_ttl"], "PT15M");
    assert_eq!(calendar["refresh_interval_seconds"], 900.0);
    let events = calendar["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{calendar}");
    let event = &events[0];
    assert_eq!(event["uid"], format!("{game}-{seat}@kontor"));
    let others: Vec<&str> = table
        .iter()
        .filter(|p| p.id != first.id)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(
        event["summary"],
        format!("Your move: The Flying Dutchman vs {}", others.join(", "))
    );
    assert_eq!(utc(event["start"]["date_time"].as_str().unwrap()), deadline);
    assert_eq!(event["end"], Value::Null, "a deadline is a moment");
    let link = format!("{BASE}/games/{game}");
    assert_eq!(event["url"], link);
    assert!(event["description"].as_str().unwrap().contains(&link));
    let version = shown["version"].as_i64().unwrap();
    assert_eq!(event["sequence"], version);
    assert_eq!(event["transparency"], "TRANSPARENT");
    assert_eq!(event["alarms"][0]["action"], "DISPLAY");
    assert_eq!(event["alarms"][0]["trigger_seconds"], -3600.0);

    // Nobody else has anything to do: their feeds are empty, and none shows another's game.
    for (i, feed) in feeds.iter().enumerate() {
        if i != first_at {
            assert_eq!(uids(&events_at(app, feed).await), Vec::<String>::new());
        }
    }

    // Tagged, privately cached; the same feed again is "not modified".
    let reply = fetch(app, &feeds[first_at]).await;
    let tag = reply.headers["etag"].to_str().unwrap().to_string();
    assert!(
        reply.headers["cache-control"]
            .to_str()
            .unwrap()
            .starts_with("private"),
        "{:?}",
        reply.headers
    );
    let path = feeds[first_at]
        .strip_prefix(&format!("{BASE}/api/v1"))
        .unwrap()
        .to_string();
    let again = app.get(&path).header("If-None-Match", &tag).send().await;
    assert_eq!(again.status.as_u16(), 304, "{}", again.text);

    // The first player moves: their event is gone, and the next player's appears.
    app.act(first, game)
        .key("calendar-1")
        .version(version)
        .send(&json!({"type": "use_smith"}))
        .await
        .assert_ok();
    assert_eq!(
        uids(&events_at(app, &feeds[first_at]).await),
        Vec::<String>::new()
    );
    let changed = app.get(&path).header("If-None-Match", &tag).send().await;
    assert_eq!(
        changed.status.as_u16(),
        200,
        "the tag changed with the feed"
    );
    let (next_seat, next) = to_act(app, game, &table).await;
    assert_ne!(next.id, first.id);
    let next_at = table.iter().position(|p| p.id == next.id).unwrap();
    let calendar = events_at(app, &feeds[next_at]).await;
    assert_eq!(uids(&calendar), vec![format!("{game}-{next_seat}@kontor")]);
    let now = summary(app, game, next).await;
    assert_eq!(
        calendar["events"][0]["sequence"],
        now["version"].as_i64().unwrap()
    );
    assert!(now["version"].as_i64().unwrap() > version);
    assert_eq!(
        utc(calendar["events"][0]["start"]["date_time"]
            .as_str()
            .unwrap()),
        deadline_of(&now, next_seat)
    );
    // Dora plays in no game: still nothing.
    assert_eq!(uids(&events_at(app, &feeds[3]).await), Vec::<String>::new());
}

#[tokio::test]
async fn without_a_time_limit_the_move_is_an_all_day_event_in_the_players_language_and_zone() {
    let w = world().await;
    let app = &w.app;
    let table = players(app, &["anna", "bert", "cleo"]).await;
    let game = app.start_game("flying-dutchman", json!({}), &table).await;
    let (seat, first) = to_act(app, game, &table).await;
    app.put("/me/profile")
        .as_user(first)
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    let feed = make_feed(app, first).await;
    let calendar = events_at(app, &feed).await;
    assert_eq!(calendar["name"], "Kontor — あなたの手番");
    let event = &calendar["events"][0];
    assert_eq!(event["uid"], format!("{game}-{seat}@kontor"));
    let others: Vec<&str> = table
        .iter()
        .filter(|p| p.id != first.id)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(
        event["summary"],
        format!(
            "あなたの手番: さまよえるオランダ人（{}と対戦）",
            others.join("、")
        )
    );
    // The day the move became theirs, in Tokyo; the day after ends it.
    let since = utc(summary(app, game, first).await["turn_started_at"]
        .as_str()
        .unwrap());
    let day = since.with_timezone(&chrono_tz::Asia::Tokyo).date_naive();
    assert_eq!(event["start"], json!({"date": day.to_string()}));
    assert_eq!(
        event["end"],
        json!({"date": day.succ_opt().unwrap().to_string()})
    );
    assert_eq!(event["alarms"], json!([]));
    assert!(
        event["description"]
            .as_str()
            .unwrap()
            .contains(&format!("{BASE}/games/{game}"))
    );
}

#[tokio::test]
async fn a_feed_is_shown_once_and_replacing_revoking_or_securing_the_account_ends_it() {
    let w = world().await;
    let app = &w.app;
    let anna = app.register("anna").await;

    // Nothing yet; API tokens may not manage the feed.
    let none = app.get("/me/calendar").as_user(&anna).send().await;
    assert_eq!(
        none.assert_ok(),
        &json!({"exists": false, "created_at": null})
    );
    let bot = app.api_token(&anna.token, &["game:read"]).await;
    app.post("/me/calendar")
        .token(&bot)
        .send()
        .await
        .assert_problem(403, "session_required");
    app.delete("/me/calendar")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "calendar_not_found");

    // Made: the status never shows the URL, and only the token's hash is stored.
    let first = make_feed(app, &anna).await;
    let token = first.rsplit('/').next().unwrap().trim_end_matches(".ics");
    let status = app.get("/me/calendar").as_user(&anna).send().await;
    assert_eq!(status.assert_ok()["exists"], true);
    assert!(!status.text.contains(token), "{}", status.text);
    let stored: Vec<Vec<u8>> = sqlx::query_scalar("SELECT token_hash FROM calendar_feeds")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored, vec![kontor::auth::token_hash(token)]);
    events_at(app, &first).await;

    // Unknown, malformed and damaged tokens: one answer.
    let damaged = format!("{}x.ics", &first[..first.len() - 5]);
    for url in [
        format!("{BASE}/api/v1/calendar/kontor_cal_nothing.ics"),
        format!("{BASE}/api/v1/calendar/{}.ics", "a".repeat(54)),
        damaged,
    ] {
        fetch(app, &url)
            .await
            .assert_problem(404, "calendar_not_found");
    }

    // Replaced: the old URL stops working, the new one works.
    let second = make_feed(app, &anna).await;
    assert_ne!(first, second);
    fetch(app, &first)
        .await
        .assert_problem(404, "calendar_not_found");
    events_at(app, &second).await;

    // Revoked.
    let revoked = app.delete("/me/calendar").as_user(&anna).send().await;
    assert_eq!(revoked.status.as_u16(), 204, "{}", revoked.text);
    fetch(app, &second)
        .await
        .assert_problem(404, "calendar_not_found");
    assert_eq!(
        app.get("/me/calendar").as_user(&anna).send().await.body["exists"],
        false
    );

    // "Log out everywhere" revokes it.
    let third = make_feed(app, &anna).await;
    app.delete("/me/sessions")
        .as_user(&anna)
        .send()
        .await
        .assert_ok();
    fetch(app, &third)
        .await
        .assert_problem(404, "calendar_not_found");

    // So does a password reset.
    let fourth = make_feed(app, &anna).await;
    w.reset_password_by_mail("anna", "a brand new horse battery")
        .await;
    fetch(app, &fourth)
        .await
        .assert_problem(404, "calendar_not_found");
}

#[tokio::test]
async fn deleting_the_account_deletes_the_feed() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let made = app.post("/me/calendar").as_user(&anna).send().await;
    let url = made.assert_ok()["url"].as_str().unwrap().to_string();
    let path = url.split("/api/v1").nth(1).unwrap().to_string();
    assert_eq!(app.get(&path).send().await.status.as_u16(), 200);
    app.post("/me/delete")
        .as_user(&anna)
        .json(&json!({"password": password_of("anna")}))
        .send()
        .await;
    app.get(&path)
        .send()
        .await
        .assert_problem(404, "calendar_not_found");
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM calendar_feeds")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}
