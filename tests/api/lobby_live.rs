//! The lobby's live stream (`GET /lobby/stream`): open games, seats, starts and turns as they
//! happen, told exactly as the open list holds them.

use crate::live::{Sse, Stream};
use crate::support::*;
use serde_json::json;
use std::time::Duration;
use uuid::Uuid;

const WAIT: Duration = Duration::from_secs(10);
/// How long a stream must stay quiet to show that nothing was sent.
const QUIET: Duration = Duration::from_millis(1500);

async fn lobby(app: &TestApp, user: &User) -> Stream {
    let mut stream = Stream::open(&app.address, "/lobby/stream", &user.token, None).await;
    let snapshot = stream.next(WAIT).await.expect("a snapshot");
    assert_eq!(snapshot.event, "snapshot");
    stream
}

/// The next event, which must come.
async fn next(stream: &mut Stream) -> Sse {
    stream.next(WAIT).await.expect("an event")
}

fn game_id(event: &Sse) -> Uuid {
    let id = event.data.get("game_id").or_else(|| event.data.get("id"));
    id.and_then(|v| v.as_str()).unwrap().parse().unwrap()
}

async fn create(app: &TestApp, user: &User, body: serde_json::Value) -> Uuid {
    let created = app.post("/games").as_user(user).json(&body).send().await;
    created.assert_ok()["id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn an_open_game_its_seats_and_its_start_arrive_live() {
    let app = spawn_app().await;
    let [anna, bert, cleo, dave] =
        <[User; 4]>::try_from(futures_all(&app, &["anna", "bert", "cleo", "dave"]).await).unwrap();
    let mut watching = lobby(&app, &anna).await;
    let mut creator = lobby(&app, &bert).await;
    let game = create(&app, &bert, json!({"kind": "steel-driver", "seats": 3})).await;
    let opened = next(&mut watching).await;
    assert_eq!(
        (opened.event.as_str(), game_id(&opened)),
        ("game_opened", game)
    );
    assert_eq!(opened.data["your_seat"], json!(null));
    assert_eq!(opened.data["seats"].as_array().unwrap().len(), 1);
    let own = next(&mut creator).await;
    assert_eq!(
        (own.event.as_str(), own.data["your_seat"].clone()),
        ("game_opened", json!(0))
    );
    app.post(&format!("/games/{game}/join"))
        .as_user(&cleo)
        .send()
        .await
        .assert_ok();
    let taken = next(&mut watching).await;
    assert_eq!(
        (taken.event.as_str(), game_id(&taken)),
        ("seats_changed", game)
    );
    assert_eq!(taken.data["seats"].as_array().unwrap().len(), 2);
    assert_eq!(next(&mut creator).await.event, "seats_changed");
    // The last seat starts it: gone from anna's open games, started for its players.
    app.post(&format!("/games/{game}/join"))
        .as_user(&dave)
        .send()
        .await
        .assert_ok();
    let gone = next(&mut watching).await;
    assert_eq!(
        (gone.event.as_str(), gone.data.clone()),
        ("game_removed", json!({"game_id": game}))
    );
    let mut told: Vec<String> = creator
        .drain(QUIET)
        .await
        .into_iter()
        .map(|e| e.event)
        .collect();
    told.sort();
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&bert)
        .send()
        .await;
    let bert_first = detail.body["your_turn"] == true;
    let expected: Vec<&str> = if bert_first {
        vec!["game_started", "your_turn"]
    } else {
        vec!["game_started"]
    };
    assert_eq!(told, expected);
}

async fn futures_all(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut users = Vec::new();
    for name in names {
        users.push(app.register(name).await);
    }
    users
}

#[tokio::test]
async fn your_turn_arrives_when_a_move_hands_it_over() {
    let app = spawn_app().await;
    let players = futures_all(&app, &["anna", "bert", "cleo"]).await;
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let mover = detail.body["pending"][0].as_u64().unwrap() as usize;
    let mut streams = Vec::new();
    for player in &players {
        streams.push(lobby(&app, player).await);
    }
    crate::bots::play(&app, game, &players, crate::bots::steel_driver, 1, 1).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let next_seat = detail.body["pending"][0].as_u64().unwrap() as usize;
    assert_ne!(next_seat, mover);
    let turn = next(&mut streams[next_seat]).await;
    assert_eq!((turn.event.as_str(), game_id(&turn)), ("your_turn", game));
    assert_eq!(turn.data["your_turn"], true);
    assert_eq!(turn.data["version"], detail.body["version"]);
    for seat in (0..3).filter(|&s| s != next_seat) {
        assert!(
            streams[seat].drain(QUIET).await.is_empty(),
            "seat {seat} is told nothing"
        );
    }
}

#[tokio::test]
async fn the_lobby_stream_leaves_out_private_games_and_blocked_players() {
    let app = spawn_app().await;
    let [anna, bert, cleo, dave] =
        <[User; 4]>::try_from(futures_all(&app, &["anna", "bert", "cleo", "dave"]).await).unwrap();
    app.put("/me/blocks/anna")
        .as_user(&cleo)
        .send()
        .await
        .assert_ok();
    let mut watching = lobby(&app, &anna).await;
    // A private game is not anna's to see, until she is invited.
    let private = create(
        &app,
        &bert,
        json!({"kind": "steel-driver", "seats": 4, "visibility": "private"}),
    )
    .await;
    assert!(
        watching.drain(QUIET).await.is_empty(),
        "a private game is left out"
    );
    app.post(&format!("/games/{private}/invitations"))
        .as_user(&bert)
        .json(&json!({"username": "anna"}))
        .send()
        .await
        .assert_ok();
    let invited = next(&mut watching).await;
    assert_eq!(
        (invited.event.as_str(), game_id(&invited)),
        ("game_opened", private)
    );
    // Cleo blocked anna: cleo's games are left out, and one cleo joins leaves anna's lobby.
    create(&app, &cleo, json!({"kind": "steel-driver", "seats": 3})).await;
    assert!(
        watching.drain(QUIET).await.is_empty(),
        "a blocking player's game is left out"
    );
    let public = create(&app, &dave, json!({"kind": "steel-driver", "seats": 4})).await;
    assert_eq!(game_id(&next(&mut watching).await), public);
    app.post(&format!("/games/{public}/join"))
        .as_user(&cleo)
        .send()
        .await
        .assert_ok();
    let gone = next(&mut watching).await;
    assert_eq!(
        (gone.event.as_str(), game_id(&gone)),
        ("game_removed", public)
    );
    // And so does a cancelled one.
    app.post(&format!("/games/{private}/cancel"))
        .as_user(&bert)
        .send()
        .await
        .assert_ok();
    let gone = next(&mut watching).await;
    assert_eq!(
        (gone.event.as_str(), game_id(&gone)),
        ("game_removed", private)
    );
}

#[tokio::test]
async fn a_reconnect_begins_with_a_snapshot_of_what_holds_now() {
    let app = spawn_app().await;
    let players = futures_all(&app, &["anna", "bert", "cleo"]).await;
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let open = create(
        &app,
        &players[1],
        json!({"kind": "flying-dutchman", "seats": 3}),
    )
    .await;
    let mut stream = Stream::open(&app.address, "/lobby/stream", &players[0].token, None).await;
    let snapshot = next(&mut stream).await;
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(
        snapshot.id, None,
        "no resume ids: a reconnect gets a new snapshot"
    );
    let ids = |list: &str| -> Vec<String> {
        snapshot.data[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids("open"), vec![open.to_string()]);
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let waiting: Vec<String> = if detail.body["your_turn"] == true {
        vec![game.to_string()]
    } else {
        vec![]
    };
    assert_eq!(ids("my_turn"), waiting);
}

/// The unread chat counts the lobby shows arrive live, each reader with their own count: a
/// message reaches the lobbies of the players who read its channel (not its author's, never a
/// non-member's for a private channel, nobody's who does not sit in the game), and a read
/// marker moved updates the reader's own lobby.
#[tokio::test]
async fn unread_chat_counts_arrive_live_per_reader() {
    let app = spawn_app().await;
    let [anna, bert, cleo, dave] =
        <[User; 4]>::try_from(futures_all(&app, &["anna", "bert", "cleo", "dave"]).await).unwrap();
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let mut lobbies = Vec::new();
    for user in [&anna, &bert, &cleo, &dave] {
        lobbies.push(lobby(&app, user).await);
    }
    let send = |user: &User, channel: &str, text: &str| {
        app.post(&format!("/games/{game}/chat/{channel}/messages"))
            .as_user(user)
            .key(&Uuid::new_v4().to_string())
            .json(&json!({"text": text}))
            .send()
    };
    send(&anna, "table", "hello table").await.assert_ok();
    send(&anna, "private:0-1", "psst bert").await.assert_ok();
    send(&dave, "spectators", "just watching").await.assert_ok();
    // What each lobby was told: (event, game, its unread count); no event carries text.
    let mut told = Vec::new();
    for stream in &mut lobbies {
        let events = stream.drain(QUIET).await;
        let all: String = events.iter().map(|e| e.data.to_string()).collect();
        assert!(!all.contains("psst") && !all.contains("hello"), "{all}");
        told.push(
            events
                .iter()
                .map(|e| {
                    (
                        e.event.clone(),
                        game_id(e),
                        e.data["chat_unread"].as_i64().unwrap(),
                    )
                })
                .collect::<Vec<_>>(),
        );
    }
    let unread = |n| ("chat_unread".to_string(), game, n);
    assert_eq!(told[0], vec![], "the author's own messages are not unread");
    // Bert hears of both messages. Each event carries his count as read when it is published,
    // so the first may already count the second message (a publisher running behind reads 2).
    assert_eq!(told[1].len(), 2, "bert hears of both: {:?}", told[1]);
    assert!(
        [unread(1), unread(2)].contains(&told[1][0]),
        "bert's first count: {:?}",
        told[1]
    );
    assert_eq!(told[1][1], unread(2), "bert reads both");
    assert_eq!(
        told[2],
        vec![unread(1)],
        "cleo never hears of the private channel"
    );
    assert_eq!(
        told[3],
        vec![],
        "a spectator's lobby does not list the game"
    );
    // Each count is the reader's own, as the lobby's lists show it.
    let listed = app.get("/games?view=mine").as_user(&bert).send().await;
    let row = listed.assert_ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == json!(game))
        .cloned()
        .unwrap();
    assert_eq!(row["chat_unread"], 2);
    // Bert reads the table: his lobby hears his count fell; nobody else's hears anything.
    let last = app
        .get(&format!("/games/{game}/chat/table/messages"))
        .as_user(&bert)
        .send()
        .await
        .assert_ok()["items"][0]["id"]
        .as_i64()
        .unwrap();
    app.put(&format!("/games/{game}/chat/table/read"))
        .as_user(&bert)
        .json(&json!({"up_to": last}))
        .send()
        .await
        .assert_ok();
    assert_eq!(
        next(&mut lobbies[1]).await.data["chat_unread"],
        json!(1),
        "the private message is still unread"
    );
    for (index, stream) in lobbies.iter_mut().enumerate() {
        assert_eq!(stream.drain(QUIET).await.len(), 0, "lobby {index}");
    }
}
