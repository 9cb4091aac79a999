//! Usernames are unique by their confusable skeleton (Unicode TR39): a lookalike of a taken
//! name, or of a deleted account's `deleted-player-N`, does not register; accounts made
//! before get their skeletons when the server migrates.

use crate::support::*;
use serde_json::json;

async fn register_as(app: &TestApp, name: &str, email: &str) -> Reply {
    app.post("/auth/register")
        .json(&json!({"username": name, "email": email, "password": password_of("anyone")}))
        .send()
        .await
}

#[tokio::test]
async fn lookalikes_of_a_name_or_of_a_deleted_player_do_not_register() {
    let app = spawn_app().await;
    app.register("admin").await;
    let before = app.fingerprint_except(&["login_failures"]).await;
    for (n, lookalike) in [
        "\u{430}dmin",       // Cyrillic а
        "\u{FF41}dmin",      // fullwidth ａ
        "\u{430}dm\u{456}n", // Cyrillic а and і, mixed with Latin
        "\u{1D41A}dmin",     // mathematical bold 𝐚
        "ADMIN",             // letter case, as before
    ]
    .into_iter()
    .enumerate()
    {
        let reply = register_as(&app, lookalike, &format!("look{n}@example.org")).await;
        let problem = reply.assert_problem(409, "username_taken");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("looks like it"),
            "{lookalike:?}: {}",
            reply.text
        );
    }
    // Names of deleted accounts, in any letters that look like theirs.
    for (n, lookalike) in [
        "\u{FF44}eleted-player-3", // fullwidth ｄ
        "d\u{435}leted-player-3",  // Cyrillic е
        "Deleted-Player-7",
        "deleted-p\u{4CF}ayer-12", // Cyrillic palochka ӏ
    ]
    .into_iter()
    .enumerate()
    {
        let reply = register_as(&app, lookalike, &format!("gone{n}@example.org")).await;
        let problem = reply.assert_problem(422, "invalid_field");
        assert_eq!(problem["field"], "username", "{lookalike:?}");
    }
    assert_eq!(
        app.fingerprint_except(&["login_failures"]).await,
        before,
        "a refused name stored something"
    );
    // Names that only share letters are others' to take.
    for (n, name) in ["admins", "adnim", "Дмитрий"].into_iter().enumerate() {
        let reply = register_as(&app, name, &format!("other{n}@example.org")).await;
        assert_eq!(reply.status, 201, "{name}: {}", reply.text);
    }

    // A deleted account's name is free again (its own look included), and its placeholder
    // taken in any look.
    let bert = app.register("bert").await;
    app.post("/me/delete")
        .as_user(&bert)
        .json(&json!({"password": password_of("bert")}))
        .send()
        .await
        .assert_ok();
    let placeholder: String = sqlx::query_scalar("SELECT username FROM users WHERE id = $1")
        .bind(bert.id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(placeholder.starts_with("deleted-player-"), "{placeholder}");
    let reply = register_as(&app, "b\u{435}rt", "bert2@example.org").await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    let fullwidth = placeholder.replacen('d', "\u{FF44}", 1);
    register_as(&app, &fullwidth, "bert3@example.org")
        .await
        .assert_problem(422, "invalid_field");
}

#[tokio::test]
async fn older_accounts_get_skeletons_when_migrating_and_the_oldest_keeps_a_shared_one() {
    let app = spawn_app().await;
    let password = "tall ship sails at midnight";
    let hash = kontor::auth::hash_password(password).unwrap();
    // Accounts as the server before migration 0011 made them (no skeleton); two of them
    // look alike, and the younger of those could register then.
    let accounts = [
        ("anna", 3),
        ("\u{430}nna", 2), // Cyrillic а
        ("carl", 1),
    ];
    let mut ids = Vec::new();
    for (n, (name, days_ago)) in accounts.into_iter().enumerate() {
        let id = uuid::Uuid::now_v7();
        sqlx::query(
            "INSERT INTO users (id, username, username_key, email, email_key, password_hash,
                                created_at, identity_keys_version)
             VALUES ($1, $2, $2, $3, $3, $4, now() - make_interval(days => $5), 1)",
        )
        .bind(id)
        .bind(name)
        .bind(format!("old{n}@example.org"))
        .bind(&hash)
        .bind(days_ago)
        .execute(&app.pool)
        .await
        .unwrap();
        ids.push(id);
    }
    // What the server runs at start.
    kontor::store::migrate(&app.pool).await.unwrap();
    let skeleton = |id: uuid::Uuid| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, Option<String>>(
                "SELECT username_skeleton FROM users WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
            .unwrap()
        }
    };
    assert_eq!(skeleton(ids[0]).await, "anna");
    assert!(skeleton(ids[1]).await.starts_with('\u{1}'));
    assert_eq!(skeleton(ids[2]).await, "carl");
    // Both keep their names and log in by them.
    for name in ["anna", "\u{430}nna"] {
        app.post("/auth/login")
            .json(&json!({"username": name, "password": password}))
            .send()
            .await
            .assert_ok();
    }
    // New lookalikes are refused, of the older account's look.
    register_as(&app, "\u{FF41}nna", "new@example.org")
        .await
        .assert_problem(409, "username_taken");
    // Once done, it does nothing.
    let again = kontor::store::users::backfill_username_skeletons(&app.pool)
        .await
        .unwrap();
    assert_eq!(again, (0, Vec::new()));
}

#[tokio::test]
async fn the_separators_are_one_in_a_names_look() {
    let app = spawn_app().await;
    app.register("anna-b").await;
    register_as(&app, "anna_b", "annab@example.org")
        .await
        .assert_problem(409, "username_taken");
    // A deleted account's placeholder with an underscore for a hyphen: reserved as well.
    for (n, name) in [
        "deleted_player-891898",
        "deleted_player_3",
        "Deleted_Player-12",
    ]
    .into_iter()
    .enumerate()
    {
        let reply = register_as(&app, name, &format!("sep{n}@example.org")).await;
        assert_eq!(
            reply.assert_problem(422, "invalid_field")["field"],
            "username",
            "{name}"
        );
    }
    // Names that differ otherwise are still free.
    let reply = register_as(&app, "deleted_playful", "playful@example.org").await;
    assert_eq!(reply.status, 201, "{}", reply.text);
}

#[tokio::test]
async fn names_and_free_text_others_read_hold_nothing_invisible() {
    let app = spawn_app().await;
    let players = [
        app.register("tx_anna").await,
        app.register("tx_bert").await,
        app.register("tx_cleo").await,
    ];
    let anna = &players[0];
    let display = |name: &str| json!({"display_name": name});
    for hidden in [
        "an\u{200B}na", // ZWSP
        "an\u{200C}na", // ZWNJ
        "an\u{200D}na", // ZWJ
        "an\u{2060}na", // WJ
        "\u{FEFF}anna", // BOM
        "an\u{AD}na",   // soft hyphen
        "an\u{180E}na", // MVS
        "anna\u{E0041}\u{E007F}",
        "an\u{FFF9}na",
        "\u{3164}",         // Hangul filler: looks blank
        "\u{115F}\u{1160}", // Hangul choseong and jungseong fillers
        "an\u{34F}na",      // CGJ
        "\u{2800}",         // a blank Braille pattern
        "\u{200B}\u{200B}", // only invisible
        "anna\u{202E}",     // a bidi override
    ] {
        let reply = app
            .put("/me/profile")
            .as_user(anna)
            .json(&display(hidden))
            .send()
            .await;
        assert_eq!(
            reply.assert_problem(422, "invalid_field")["field"],
            "display_name",
            "{hidden:?}"
        );
    }
    // Emoji need their joiners and selectors, scripts theirs.
    for fine in [
        "Anna \u{1F468}\u{200D}\u{1F4BB}",
        "\u{2764}\u{FE0F}\u{200D}\u{1F525}",
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}",
    ] {
        let reply = app
            .put("/me/profile")
            .as_user(anna)
            .json(&display(fine))
            .send()
            .await;
        assert_eq!(reply.assert_ok()["display_name"], fine);
    }

    // Chat: the same policy.
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    for (n, hidden) in [
        "hello\u{200B}world",
        "\u{3164}",
        "see \u{202E}txt.exe",
        "\u{2800}",
    ]
    .into_iter()
    .enumerate()
    {
        app.post(&format!("/games/{game}/chat/table/messages"))
            .as_user(anna)
            .key(&format!("hidden-{n}"))
            .json(&json!({"text": hidden}))
            .send()
            .await
            .assert_problem(422, "invalid_chat_message");
    }
    let said = app
        .post(&format!("/games/{game}/chat/table/messages"))
        .as_user(anna)
        .key("fine")
        .json(&json!({"text": "gg \u{1F44D}\u{1F3FD}"}))
        .send()
        .await;
    assert_eq!(said.status, 201, "{}", said.text);

    // A tournament's name: no bidi override, nothing invisible.
    for hidden in ["Cup \u{202E}puc", "\u{3164}", "Winter\u{200B}cup"] {
        let reply = app
            .post("/tournaments")
            .as_user(anna)
            .json(&json!({
                "name": hidden, "kind": "steel-driver", "format": "swiss", "seats_per_table": 3,
                "rounds": 1, "max_players": 12,
                "entry_closes_at": (app.config.clock.now() + chrono::Duration::days(1)).to_rfc3339(),
            }))
            .send()
            .await;
        assert_eq!(
            reply.assert_problem(422, "invalid_field")["field"],
            "name",
            "{hidden:?}"
        );
    }
}
