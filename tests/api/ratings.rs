//! Ratings (issue 24) through the real server and PostgreSQL: the `rated` table setting.

use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn a_table_is_unrated_unless_created_rated_and_never_rated_with_consent_undo() {
    let app = spawn_app().await;
    let ann = app.register("ann").await;
    let create = |options: serde_json::Value| json!({"kind": "steel-driver", "seats": 3, "options": options});

    // Default: unrated, stored explicitly.
    let plain = app
        .post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa"})))
        .send()
        .await;
    assert_eq!(plain.assert_ok()["options"]["rated"], false);
    let id = plain.body["id"].as_str().unwrap().to_string();
    let detail = app.get(&format!("/games/{id}")).as_user(&ann).send().await;
    assert_eq!(detail.assert_ok()["options"]["rated"], false);

    let rated = app
        .post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa", "rated": true, "undo": "own"})))
        .send()
        .await;
    assert_eq!(rated.assert_ok()["options"]["rated"], true);
    assert_eq!(rated.body["options"]["undo"], "own");

    // Consent undo on a rated table: refused (422 like every invalid option), nothing created.
    let before = app.fingerprint().await;
    let refused = app
        .post("/games")
        .as_user(&ann)
        .json(&create(
            json!({"map": "usa", "rated": true, "undo": "consent"}),
        ))
        .send()
        .await;
    let problem = refused.assert_problem(422, "invalid_options");
    assert_eq!(problem["field"], "rated");
    assert!(problem["detail"].as_str().unwrap().contains("consent"));
    // Not a boolean: refused too.
    app.post("/games")
        .as_user(&ann)
        .json(&create(json!({"map": "usa", "rated": "yes"})))
        .send()
        .await
        .assert_problem(422, "invalid_options");
    assert_eq!(app.fingerprint().await, before);

    // Unrated with consent is fine.
    let consent = app
        .post("/games")
        .as_user(&ann)
        .json(&create(
            json!({"map": "usa", "rated": false, "undo": "consent"}),
        ))
        .send()
        .await;
    assert_eq!(consent.assert_ok()["options"]["rated"], false);
}
