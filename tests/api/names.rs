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
