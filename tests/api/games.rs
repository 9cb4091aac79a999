//! Whole games through the API, and the hidden-information property.

use crate::bots::{self, Seen};
use crate::support::*;
use kontor::games::flying_dutchman::FlyingDutchman;
use kontor::games::{Rules, Viewer};
use serde_json::{Value, json};
use uuid::Uuid;

async fn players(app: &TestApp, count: usize) -> Vec<User> {
    let mut players = Vec::new();
    for i in 0..count {
        players.push(app.register(&format!("player{i}")).await);
    }
    players
}

async fn finished_detail(app: &TestApp, game: Uuid, user: &User) -> Value {
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await;
    let detail = detail.assert_ok().clone();
    assert_eq!(detail["status"], "finished");
    detail
}

#[tokio::test]
async fn a_whole_flying_dutchman_game_through_the_api() {
    let app = spawn_app().await;
    let players = players(&app, 4).await;
    let game = app
        .start_game("flying-dutchman", json!({"edition": "1992"}), &players)
        .await;
    bots::play_to_end(&app, game, &players, bots::flying_dutchman, 7).await;
    let detail = finished_detail(&app, game, &players[0]).await;
    let outcome = &detail["outcome"];
    assert_eq!(outcome["ranks"].as_array().unwrap().len(), 4);
    assert!(!outcome["winners"].as_array().unwrap().is_empty());
    // The seed is revealed and matches the commitment made before the start.
    let seed = hex::decode(detail["seed"].as_str().unwrap()).unwrap();
    assert_eq!(
        kontor::games::rng::commitment(&seed.try_into().unwrap()),
        detail["seed_commitment"].as_str().unwrap()
    );
    // Nobody is pending, nothing more is accepted.
    assert!(detail["pending"].as_array().unwrap().is_empty());
    let reply = app
        .act(&players[0], game)
        .version(detail["version"].as_i64().unwrap())
        .send(&json!({"type": "pass"}))
        .await;
    reply.assert_problem(409, "game_not_active");
    let finished = app
        .get("/games?view=finished")
        .as_user(&players[1])
        .send()
        .await;
    assert_eq!(finished.body["items"][0]["id"], game.to_string());
}

#[tokio::test]
async fn a_whole_steel_driver_game_through_the_api() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let game = app.start_game("steel-driver", json!({}), &players).await;
    bots::play_to_end(&app, game, &players, bots::steel_driver, 11).await;
    let detail = finished_detail(&app, game, &players[2]).await;
    let scores = detail["outcome"]["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 3);
    assert!(scores.iter().all(|s| s.as_i64().unwrap() >= 0));
    assert_eq!(detail["view"]["round"], 5, "{}", detail["view"]);
}

/// The private parts of a Flying Dutchman player entry in a view.
const PRIVATE_PLAYER_FIELDS: [&str; 2] = ["shares", "horseshoes"];

/// Checks everything one game sent to its seats: each view is exactly the rules engine's
/// view for that seat at that version, each returned event exactly the engine's redaction for
/// that seat, and no view carries another seat's hand.
fn check_nothing_leaked(seen: &Seen, log: &[Value], seats: usize) {
    // States after each version, folded from the complete log: a rewind makes the game again
    // what it was at its target.
    let mut states = vec![<FlyingDutchman as Rules>::State::default()];
    let mut events_by_seq = std::collections::HashMap::new();
    for line in log {
        let mut state = states.last().unwrap().clone();
        let kind = line["type"].as_str().unwrap();
        if kind == "kontor.rewound" {
            state = states[line["data"]["to_version"].as_u64().unwrap() as usize].clone();
        } else if !kind.starts_with("kontor.") {
            let event: <FlyingDutchman as Rules>::Event =
                serde_json::from_value(line["data"].clone()).unwrap();
            FlyingDutchman::evolve(&mut state, &event);
            events_by_seq.insert(line["seq"].as_i64().unwrap(), event);
        }
        states.push(state);
    }
    for (seat, detail) in &seen.views {
        let version = detail["version"].as_u64().unwrap() as usize;
        let expected = serde_json::to_value(FlyingDutchman::view(
            &states[version],
            Viewer::Seat(*seat as u8),
        ))
        .unwrap();
        assert_eq!(
            detail["view"], expected,
            "seat {seat} at version {version} got a view the rules do not give it"
        );
        let expected_legal =
            serde_json::to_value(FlyingDutchman::legal(&states[version], *seat as u8)).unwrap();
        assert_eq!(detail["legal"], expected_legal);
        for (other, player) in detail["view"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            // A bankrupt player's cards become public (rules, section 6).
            let public = player["bankrupt"] == true;
            for field in PRIVATE_PLAYER_FIELDS {
                assert_eq!(
                    player.get(field).is_some(),
                    other == *seat || public,
                    "seat {seat} was sent {field} of seat {other}: {player}"
                );
            }
        }
        assert!(
            detail["view"].get("hidden").is_none(),
            "seat {seat} saw the hidden parts"
        );
        assert!(
            detail["seed"].is_null(),
            "the seed was revealed before the end"
        );
    }
    for (seat, ended, events) in &seen.action_events {
        // Once the game is over, the whole log is everyone's.
        let viewer = if *ended {
            Viewer::Omniscient
        } else {
            Viewer::Seat(*seat as u8)
        };
        for served in events.as_array().unwrap() {
            let seq = served["seq"].as_i64().unwrap();
            let Some(event) = events_by_seq.get(&seq) else {
                continue;
            };
            let expected =
                FlyingDutchman::redact(event, viewer).map(|e| serde_json::to_value(e).unwrap());
            assert_eq!(
                Some(&served["data"]),
                expected.as_ref(),
                "seat {seat} got event {seq} unredacted"
            );
        }
    }
    assert!(seats >= 3);
}

#[tokio::test]
async fn hidden_information_never_reaches_another_seat() {
    let app = spawn_app_with(AppOptions {
        settings: std::collections::HashMap::from([("KONTOR_CHAT_BURST".into(), "100".into())]),
    })
    .await;
    let everyone = players(&app, 6).await;
    for (round, seats) in [3usize, 4, 5, 6, 4, 5].into_iter().enumerate() {
        let table = &everyone[..seats];
        // Two tables take moves back (with the others' consent where needed).
        let options = if (1..=2).contains(&round) {
            json!({"undo": "consent"})
        } else {
            json!({})
        };
        let game = app.start_game("flying-dutchman", options, table).await;
        // While the game runs, each seat's log is its redaction too. In the first game the
        // seats and a spectator also talk, and no other reader is sent what they said; each
        // seat keeps a private note, which nobody else is ever sent.
        let seed = 100 + round as u64;
        let seen = if round == 0 {
            play_talking(&app, game, table, &everyone[5], seed).await
        } else if round <= 2 {
            play_undoing(&app, game, table, seed).await
        } else {
            bots::play_to_end(&app, game, table, bots::flying_dutchman, seed).await
        };
        let export = app.export(game, &table[0]).await;
        let log: Vec<Value> = export
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        check_nothing_leaked(&seen, &log, seats);
    }
}

/// Plays a game to its end like [`bots::play_to_end`], while now and then a seat that could take
/// moves back does: at once, or asking the others, who accept or (now and then) decline. Every
/// seat's view after each undo, and of each seat asked, is kept to be checked too.
async fn play_undoing(app: &TestApp, game: Uuid, table: &[User], seed: u64) -> Seen {
    let mut rng = kontor::games::GameRng::from_u64(seed);
    let mut seen = Seen::default();
    let mut undos = 0;
    let get = async |user: &User| {
        app.get(&format!("/games/{game}"))
            .as_user(user)
            .send()
            .await
            .assert_ok()
            .clone()
    };
    for chunk in 0.. {
        let part = bots::play(app, game, table, bots::flying_dutchman, seed + chunk, 4).await;
        seen.views.extend(part.views);
        seen.action_events.extend(part.action_events);
        if get(&table[0]).await["status"] == "finished" {
            break;
        }
        for (seat, user) in table.iter().enumerate() {
            let mine = get(user).await;
            seen.views.push((seat, mine.clone()));
            if !mine["undo"]["can_undo_to"].is_i64() || !rng.chance(1, 2) {
                continue;
            }
            let reply = app
                .post(&format!("/games/{game}/undo"))
                .as_user(user)
                .json(&json!({"at_version": mine["version"]}))
                .send()
                .await;
            let reply = reply.assert_ok().clone();
            if reply["status"] == "asked" {
                let request = reply["request"]["seq"].as_i64().unwrap();
                for asked in reply["request"]["needs"].as_array().unwrap() {
                    let asked = asked.as_u64().unwrap() as usize;
                    seen.views.push((asked, get(&table[asked]).await));
                    let accept = rng.chance(3, 4);
                    app.post(&format!("/games/{game}/undo/{request}/answer"))
                        .as_user(&table[asked])
                        .json(&json!({"accept": accept}))
                        .send()
                        .await
                        .assert_ok();
                    if !accept {
                        break;
                    }
                }
            }
            undos += 1;
            for (seat, user) in table.iter().enumerate() {
                seen.views.push((seat, get(user).await));
            }
            break;
        }
    }
    assert!(undos > 0, "no seat could take anything back");
    seen
}

/// What one reader (a seat or the spectator) was sent: every response body and stream event.
#[derive(Default)]
struct Received {
    /// Before the game ended.
    before: String,
    /// After it ended.
    after: String,
    /// What its streams (the game's and `/me/stream`) sent, before and after the end.
    streamed: String,
}

/// One chat message of [`play_talking`]: its channel and its distinctive text.
struct Said {
    channel: String,
    text: String,
    /// Whether the game had ended when it was sent.
    ended: bool,
}

/// Who may be sent a message of `channel` (seats by number, the spectator as `None`), before
/// and after the end.
fn may_read(channel: &str, reader: Option<usize>, ended: bool) -> bool {
    match (channel, reader) {
        ("table", Some(_)) => true,
        ("table", None) => ended,
        ("spectators", None) => true,
        ("spectators", Some(_)) => ended,
        (private, Some(seat)) => {
            let pair = private.strip_prefix("private:").unwrap();
            pair.split('-').any(|s| s.parse::<usize>().unwrap() == seat)
        }
        (_, None) => false,
    }
}

/// Every read a reader makes of the game: the detail, the chat overview, every channel's page
/// (its own or not), the event log, the export, the reader's note and my-data export.
async fn read_everything(app: &TestApp, game: Uuid, reader: &User, seats: usize) -> String {
    let mut paths = vec![
        format!("/games/{game}"),
        format!("/games/{game}/chat"),
        format!("/games/{game}/chat/table/messages"),
        format!("/games/{game}/chat/spectators/messages"),
        format!("/games/{game}/events?limit=1000"),
        format!("/games/{game}/export"),
        format!("/games/{game}/notes"),
        format!("/games/{game}/orders"),
        "/me/export".to_string(),
    ];
    for a in 0..seats {
        for b in a + 1..seats {
            paths.push(format!("/games/{game}/chat/private:{a}-{b}/messages"));
        }
    }
    let mut bodies = String::new();
    for path in paths {
        let reply = app.get(&path).as_user(reader).send().await;
        assert!(
            reply.status.as_u16() < 500,
            "{path} answered {}",
            reply.status
        );
        bodies.push_str(&reply.text);
    }
    bodies
}

/// Plays a game to its end like [`bots::play_to_end`] while the seats talk at the table and in
/// every private channel and `spectator` talks in the spectators channel, all with distinctive
/// texts, and each seat keeps a private note (changed after the end); then checks that no
/// reader's response or stream (game stream and `/me/stream`) carries a text of a channel it
/// may not read at that time, nor another's note, and that no stream carries a note at all.
async fn play_talking(
    app: &TestApp,
    game: Uuid,
    table: &[User],
    spectator: &User,
    seed: u64,
) -> bots::Seen {
    use crate::live::Stream;
    use futures_util::future::join_all;
    use std::time::Duration;
    let seats = table.len();
    // Readers: the seats by number, then the spectator.
    let readers: Vec<&User> = table.iter().chain([spectator]).collect();
    let seat_of = |i: usize| (i < seats).then_some(i);
    let mut streams = Vec::new();
    for reader in &readers {
        for path in [format!("/games/{game}/stream"), "/me/stream".to_string()] {
            streams.push(Stream::open(&app.address, &path, &reader.token, None).await);
        }
    }
    let mut received: Vec<Received> = readers.iter().map(|_| Received::default()).collect();
    let mut said: Vec<Said> = Vec::new();
    let mut seen = bots::Seen::default();
    let say = async |by: &User, channel: String, ended: bool| {
        let text = format!("said-{}", Uuid::new_v4().simple());
        app.post(&format!("/games/{game}/chat/{channel}/messages"))
            .as_user(by)
            .key(&Uuid::new_v4().to_string())
            .json(&json!({"text": text}))
            .send()
            .await
            .assert_ok();
        Said {
            channel,
            text,
            ended,
        }
    };
    // Each seat's notes: (seat, text).
    let mut noted: Vec<(usize, String)> = Vec::new();
    // Each seat's standing orders as it set them (seat, the order as its owner reads it),
    // and every event served to a reader before the end (reader, event): an event marked as
    // played by an order may only be its own seat's.
    let mut ordered: Vec<(usize, String)> = Vec::new();
    let mut served: Vec<(Option<usize>, Value)> = Vec::new();
    let mut orders_told = vec![0usize; readers.len()];
    let note = async |seat: usize, by: &User| {
        let text = format!("noted-{seat}-{}", Uuid::new_v4().simple());
        app.put(&format!("/games/{game}/notes"))
            .as_user(by)
            .header("If-Match", "*")
            .json(&json!({"text": format!("private\n{text}")}))
            .send()
            .await
            .assert_ok();
        (seat, text)
    };
    let mut chunk = 0;
    let mut ended = false;
    while !ended {
        let part = bots::play(app, game, table, bots::flying_dutchman, seed + chunk, 25).await;
        seen.views.extend(part.views);
        seen.action_events.extend(part.action_events);
        let status = app
            .get(&format!("/games/{game}"))
            .as_user(readers[0])
            .send()
            .await;
        ended = status.assert_ok()["status"] == "finished";
        if !ended {
            // Every seat sets standing orders for the round: a sealed bid (the action) and a
            // sealed extra-round choice, a Kontor ranking and an income rule, all from its
            // own hand; a spectator may set none.
            for (seat, by) in table.iter().enumerate() {
                ordered.extend(set_orders(app, game, seat, by, seed + chunk).await);
            }
            let refused = app
                .post(&format!("/games/{game}/orders"))
                .as_user(spectator)
                .json(&json!({"order": {"type": "income", "rule": {"kind": "best"}}}))
                .send()
                .await;
            refused.assert_problem(403, "not_a_player");
        }
        if chunk == 0 {
            // Talk while the game runs: every private channel both ways, the table, the
            // spectators.
            for a in 0..seats {
                for b in a + 1..seats {
                    let channel = format!("private:{a}-{b}");
                    said.push(say(&table[a], channel.clone(), false).await);
                    said.push(say(&table[b], channel, false).await);
                }
                said.push(say(&table[a], "table".into(), false).await);
            }
            said.push(say(spectator, "spectators".into(), false).await);
            for (seat, by) in table.iter().enumerate() {
                noted.push(note(seat, by).await);
            }
            // A spectator has no note to keep.
            let refused = app
                .put(&format!("/games/{game}/notes"))
                .as_user(spectator)
                .header("If-Match", "*")
                .json(&json!({"text": "spectator's"}))
                .send()
                .await;
            refused.assert_problem(403, "not_a_player");
        }
        let drained = join_all(
            streams
                .iter_mut()
                .map(|s| s.drain(Duration::from_millis(200))),
        )
        .await;
        for (i, events) in drained.iter().enumerate() {
            for event in events {
                if event.event == "event" && !ended {
                    served.push((seat_of(i / 2), event.data.clone()));
                }
                if event.event == "orders" {
                    orders_told[i / 2] += 1;
                }
            }
            let into = &mut received[i / 2];
            let text: String = events.iter().map(|e| e.data.to_string()).collect();
            into.streamed.push_str(&text);
            if ended {
                &mut into.after
            } else {
                &mut into.before
            }
            .push_str(&text);
        }
        if !ended {
            for (i, reader) in readers.iter().enumerate() {
                let page = app
                    .get(&format!("/games/{game}/events?limit=1000"))
                    .as_user(reader)
                    .send()
                    .await;
                for event in page.assert_ok()["items"].as_array().unwrap() {
                    served.push((seat_of(i), event.clone()));
                }
            }
        }
        if chunk == 0 || ended {
            for (i, reader) in readers.iter().enumerate() {
                let bodies = read_everything(app, game, reader, seats).await;
                if ended {
                    &mut received[i].after
                } else {
                    &mut received[i].before
                }
                .push_str(&bodies);
            }
        }
        chunk += 1;
    }
    // After the end: private channels stay private.
    for (a, seat) in table.iter().enumerate() {
        let b = (a + 1) % seats;
        let channel = format!("private:{}-{}", a.min(b), a.max(b));
        said.push(say(seat, channel, true).await);
        noted.push(note(a, seat).await);
    }
    let drained = join_all(
        streams
            .iter_mut()
            .map(|s| s.drain(Duration::from_millis(300))),
    )
    .await;
    for (i, events) in drained.iter().enumerate() {
        orders_told[i / 2] += events.iter().filter(|e| e.event == "orders").count();
        let text: String = events.iter().map(|e| e.data.to_string()).collect();
        received[i / 2].streamed.push_str(&text);
        received[i / 2].after.push_str(&text);
    }
    for (i, reader) in readers.iter().enumerate() {
        let bodies = read_everything(app, game, reader, seats).await;
        received[i].after.push_str(&bodies);
    }
    // The bots' own reads (each seat's details and event pages) belong to the seats.
    for (seat, detail) in &seen.views {
        received[*seat].before.push_str(&detail.to_string());
    }
    for (seat, ended, events) in &seen.action_events {
        received[*seat].before.push_str(&events.to_string());
        if !ended {
            for event in events.as_array().unwrap() {
                served.push((Some(*seat), event.clone()));
            }
        }
    }
    // Standing orders: a move an order played is marked for its own seat alone while the
    // game runs (everyone else sees it as if clicked), and at least one was.
    let mut owned = 0;
    for (reader, event) in &served {
        if event["auto"] == "order" {
            assert_eq!(
                event["actor"].as_u64().map(|a| a as usize),
                *reader,
                "reader {reader:?} was told that another seat's move was played by an order: {event}"
            );
            owned += 1;
        }
    }
    assert!(owned > 0, "no order played in the whole game");
    assert!(
        ordered.iter().any(|(_, o)| o.contains("\"type\":\"bid\"")),
        "no sealed bid was ordered"
    );
    // Only a seat's own streams are told of its orders; the spectator's never.
    assert_eq!(orders_told[seats], 0, "the spectator was told of orders");
    assert!(
        orders_told[..seats].iter().all(|&n| n > 0),
        "{orders_told:?}"
    );
    for (i, got) in received.iter().enumerate() {
        let reader = seat_of(i);
        for message in &said {
            let Said { channel, text, .. } = message;
            if !may_read(channel, reader, false) {
                assert!(
                    !got.before.contains(text.as_str()),
                    "reader {reader:?} was sent a message of {channel} while the game ran"
                );
            }
            if !may_read(channel, reader, true) {
                assert!(
                    !got.after.contains(text.as_str()),
                    "reader {reader:?} was sent a message of {channel} after the end"
                );
            }
            // The check is not vacuous: whoever may read a channel was sent its texts.
            if may_read(channel, reader, message.ended) {
                assert!(
                    got.before.contains(text.as_str()) || got.after.contains(text.as_str()),
                    "reader {reader:?} never received its message of {channel}"
                );
            }
        }
        // No reader but its owner is ever sent a seat's order while the game runs (after
        // the end, the complete export shows the orders that played), and no stream ever
        // carries one.
        for (seat, order) in &ordered {
            assert!(
                !got.streamed.contains(order.as_str()),
                "reader {reader:?} was streamed an order of seat {seat}"
            );
            // (An order the reader set alike is its own to read.)
            let also_its_own = ordered
                .iter()
                .any(|(other, same)| Some(*other) == reader && same == order);
            if reader != Some(*seat) && !also_its_own {
                assert!(
                    !got.before.contains(order.as_str()),
                    "reader {reader:?} was sent an order of seat {seat}: {order}"
                );
            }
        }
        for (seat, text) in &noted {
            assert!(
                !got.streamed.contains(text.as_str()),
                "reader {reader:?} was streamed the note of seat {seat}"
            );
            if reader == Some(*seat) {
                // Its owner reads it (the note itself, the my-data export).
                assert!(
                    got.before.contains(text.as_str()) || got.after.contains(text.as_str()),
                    "seat {seat} never read its own note"
                );
            } else {
                assert!(
                    !got.before.contains(text.as_str()) && !got.after.contains(text.as_str()),
                    "reader {reader:?} was sent the note of seat {seat}"
                );
            }
        }
    }
    seen
}

/// Sets standing orders for `seat` (its player `by`) from its own view: an action (a sealed
/// bid of one of its horseshoes, else a pass), a sealed extra-round bid, a Kontor ranking
/// and an income rule. Returns each order set (compact JSON, as its owner reads it back; one
/// that fitted at once played at once); one the rules refuse now is left out.
async fn set_orders(
    app: &TestApp,
    game: Uuid,
    seat: usize,
    by: &User,
    seed: u64,
) -> Vec<(usize, String)> {
    let mut rng = kontor::games::GameRng::from_u64(seed * 7 + seat as u64);
    let mine = app
        .get(&format!("/games/{game}"))
        .as_user(by)
        .send()
        .await
        .assert_ok()
        .clone();
    if mine["status"] != "active" {
        return Vec::new();
    }
    let round = mine["view"]["round"].clone();
    let hand: Vec<Value> = mine["view"]["players"][seat]["horseshoes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut colours = vec!["blue", "yellow", "green", "orange", "red", "violet"];
    rng.shuffle(&mut colours);
    let mut wanted = vec![
        json!({"type": "kontor_return", "round": round, "keep": colours}),
        json!({"type": "income", "rule": {"kind": "prefer", "colours": &colours[..3]}}),
    ];
    if let Some(last) = hand.last() {
        wanted.push(json!({"type": "extra_round", "round": round,
            "choice": {"kind": "bid", "horseshoes": [{"value": last, "sign": "minus"}]}}));
    }
    let tried = std::cell::RefCell::new(Vec::new());
    let set = async |order: &Value| {
        let reply = app
            .post(&format!("/games/{game}/orders"))
            .as_user(by)
            .json(&json!({"order": order}))
            .send()
            .await;
        assert!(
            reply.status.is_success() || reply.status.as_u16() == 422,
            "{order}: {}",
            reply.text
        );
        if reply.status.is_success() {
            tried.borrow_mut().push((seat, order.to_string()));
        }
        reply.status.is_success()
    };
    for order in &wanted {
        set(order).await;
    }
    // The action: a sealed bid, or a pass where the bid cannot stand.
    let bid = hand.first().map(|first| {
        json!({"type": "action", "round": round,
            "action": {"type": "bid", "horseshoes": [{"value": first, "sign": "plus"}]}})
    });
    let bid_set = match &bid {
        Some(bid) => set(bid).await,
        None => false,
    };
    if !bid_set {
        set(&json!({"type": "action", "round": round, "action": {"type": "pass"}})).await;
    }
    // As the owner reads them back (the same JSON as the request's: members sorted).
    let listed = app
        .get(&format!("/games/{game}/orders"))
        .as_user(by)
        .send()
        .await;
    let mut set_orders = tried.into_inner();
    for order in listed.assert_ok()["orders"].as_array().unwrap() {
        assert!(
            set_orders.contains(&(seat, order["order"].to_string())),
            "{order} is not as set"
        );
    }
    set_orders.dedup();
    set_orders
}

#[tokio::test]
async fn a_create_retried_with_its_idempotency_key_makes_one_game() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let request = json!({"kind": "steel-driver", "seats": 3, "options": {"map": "usa"}});
    let create = |key: Option<&'static str>, user: &User, body: &Value| {
        let call = app.post("/games").as_user(user).json(body);
        match key {
            Some(key) => call.key(key),
            None => call,
        }
    };
    let first = create(Some("create-1"), &anna, &request).send().await;
    assert_eq!(first.status, 201, "{}", first.text);
    let id = first.body["id"].as_str().unwrap().to_string();
    let before = app.fingerprint().await;
    // The answer was lost; the same request again: the same game, no second one.
    let retried = create(Some("create-1"), &anna, &request).send().await;
    assert_eq!(retried.status, 200, "{}", retried.text);
    assert_eq!(retried.body["id"], id.as_str());
    assert_eq!(retried.headers["idempotent-replayed"], "true");
    assert_eq!(
        retried.headers["location"].to_str().unwrap(),
        format!("/api/v1/games/{id}")
    );
    assert_eq!(app.fingerprint().await, before, "nothing new was stored");
    // Two retries at once: still one game.
    let (a, b) = tokio::join!(
        create(Some("create-2"), &anna, &request).send(),
        create(Some("create-2"), &anna, &request).send()
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 201], "{} / {}", a.text, b.text);
    assert_eq!(a.body["id"], b.body["id"]);
    // The key with another request: refused, nothing made.
    let before = app.fingerprint().await;
    let other = json!({"kind": "steel-driver", "seats": 4, "options": {"map": "usa"}});
    create(Some("create-1"), &anna, &other)
        .send()
        .await
        .assert_problem(422, "idempotency_key_reused");
    assert_eq!(app.fingerprint().await, before);
    // A key is its user's: another may use the same one.
    let berts = create(Some("create-1"), &bert, &request).send().await;
    assert_eq!(berts.status, 201);
    assert_ne!(berts.body["id"], id.as_str());
    // Without a key, every request makes a game, as before; a bad key is refused.
    assert_eq!(create(None, &anna, &request).send().await.status, 201);
    assert_eq!(create(None, &anna, &request).send().await.status, 201);
    app.post("/games")
        .as_user(&anna)
        .header("Idempotency-Key", "")
        .json(&request)
        .send()
        .await
        .assert_problem(400, "idempotency_key_required");
    let open: i64 =
        sqlx::query_scalar("SELECT count(*) FROM games WHERE created_by = $1 AND status = 'open'")
            .bind(anna.id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(open, 4, "two keyed creates and two without a key");
}
