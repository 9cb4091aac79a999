//! The admin role: stored with the account, granted and revoked only by the operator through
//! `kontor admin`, never obtained by registering a name.

use crate::support::*;
use kontor::app::Application;
use kontor::config::Config;
use std::collections::HashMap;

#[tokio::test]
async fn a_name_once_listed_in_kontor_admin_users_is_refused_not_trusted() {
    // The retired setting: a server refuses to start with it and says what to run instead,
    // rather than handing admin rights to whoever registers a listed name first.
    let app = spawn_app().await;
    let mut settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0"),
        ("KONTOR_JWT_SECRET", JWT_SECRET),
        ("KONTOR_WORKERS", "false"),
        ("KONTOR_ADMIN_USERS", "Root, other"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    settings.insert(
        "KONTOR_DATA_DIR".into(),
        app.config.data_dir.display().to_string(),
    );
    let config = Config::from_map(&settings).unwrap();
    let error = match Application::build(config, app.pool.clone()) {
        Ok(_) => panic!("a server started with KONTOR_ADMIN_USERS set"),
        Err(error) => error.to_string(),
    };
    assert!(
        error.contains("KONTOR_ADMIN_USERS")
            && error.contains("`kontor admin grant Root`")
            && error.contains("`kontor admin grant other`"),
        "{error}"
    );
    // The binary refuses too, with the same advice and a failing exit status.
    let (ok, output) = app
        .kontor_with(&["serve"], &[("KONTOR_ADMIN_USERS", "root")])
        .await;
    assert!(
        !ok,
        "kontor serve started with KONTOR_ADMIN_USERS: {output}"
    );
    assert!(output.contains("kontor admin grant root"), "{output}");

    // Registering one of those names, in any letter case, makes nobody an admin.
    for name in ["root", "Other"] {
        let user = app.register(name).await;
        app.get("/admin/mail/failed")
            .as_user(&user)
            .send()
            .await
            .assert_problem(403, "admin_required");
        app.post("/admin/mail/retry-failed")
            .as_user(&user)
            .json(&serde_json::json!({}))
            .send()
            .await
            .assert_problem(403, "admin_required");
    }
}

#[tokio::test]
async fn the_operator_grants_revokes_and_lists_admins() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let (ok, output) = app.kontor(&["admin", "list"]).await;
    assert!(ok && output.contains("no admins"), "{output}");

    // Any letter case names the account; the role applies to the next request.
    let (ok, output) = app.kontor(&["admin", "grant", "ANNA"]).await;
    assert!(ok && output.contains("anna is an admin now"), "{output}");
    app.get("/admin/mail/failed")
        .as_user(&anna)
        .send()
        .await
        .assert_ok();
    app.get("/admin/mail/failed")
        .as_user(&bert)
        .send()
        .await
        .assert_problem(403, "admin_required");
    let (ok, output) = app.kontor(&["admin", "grant", "anna"]).await;
    assert!(
        ok && output.contains("anna was an admin already"),
        "{output}"
    );
    let (ok, output) = app.kontor(&["admin", "list"]).await;
    assert!(ok, "{output}");
    assert!(
        output.contains("anna") && output.contains(&anna.id.to_string()),
        "{output}"
    );
    assert!(!output.contains("bert"), "{output}");

    // Revoked: refused again at once.
    let (ok, output) = app.kontor(&["admin", "revoke", "anna"]).await;
    assert!(
        ok && output.contains("anna is no longer an admin"),
        "{output}"
    );
    app.get("/admin/mail/failed")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(403, "admin_required");
    let (ok, output) = app.kontor(&["admin", "revoke", "bert"]).await;
    assert!(ok && output.contains("bert was not an admin"), "{output}");
    let (ok, output) = app.kontor(&["admin", "list"]).await;
    assert!(ok && output.contains("no admins"), "{output}");

    // A missing account is an error that says so, and changes nothing.
    let before = app.fingerprint().await;
    for command in ["grant", "revoke"] {
        let (ok, output) = app.kontor(&["admin", command, "nobody"]).await;
        assert!(!ok, "admin {command} of a missing user succeeded: {output}");
        assert!(
            output.contains("there is no user \"nobody\""),
            "admin {command}: {output}"
        );
    }
    assert_eq!(app.fingerprint().await, before);
    // A later registration of that name does not inherit anything.
    let nobody = app.register("nobody").await;
    app.get("/admin/mail/failed")
        .as_user(&nobody)
        .send()
        .await
        .assert_problem(403, "admin_required");
}
