//! Another site's page cannot sign a browser in, refresh its session or sign it out: the
//! browser session's endpoints refuse what the browser marks as cross-site
//! (`Sec-Fetch-Site`), and a logout that carried no cookie clears none.

use crate::support::*;
use serde_json::json;

/// The `kontor_session` cookie an answer sets (or clears), if any.
fn session_cookie(reply: &Reply) -> Option<String> {
    reply
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("kontor_session="))
        .map(str::to_string)
}

fn cookie_value(set_cookie: &str) -> String {
    let pair = set_cookie.split(';').next().unwrap_or_default();
    pair.split_once('=')
        .map(|(_, v)| v)
        .unwrap_or_default()
        .to_string()
}

/// The ids of the caller's logins.
async fn logins(app: &TestApp, access: &str) -> Vec<String> {
    let list = app.get("/me/sessions").token(access).send().await;
    list.assert_ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn cross_site_requests_neither_sign_in_nor_refresh_nor_sign_out() {
    let app = spawn_app().await;
    app.register("anna").await;
    let credentials = json!({"username": "anna", "password": password_of("anna")});
    let login = app
        .post("/auth/session")
        .header("Sec-Fetch-Site", "same-origin")
        .json(&credentials)
        .send()
        .await;
    let access = login.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let token = cookie_value(&session_cookie(&login).expect("the login sets the cookie"));
    let cookie = format!("kontor_session={token}");
    // The registration's login and this one.
    let before = logins(&app, &access).await;
    assert_eq!(before.len(), 2);

    // Another site's form posts to the logout: SameSite=Strict keeps the cookie back, and
    // the browser says where the request came from.
    for site in ["cross-site", "same-site", "none"] {
        let out = app
            .post("/auth/session/logout")
            .header("Sec-Fetch-Site", site)
            .send()
            .await;
        out.assert_problem(403, "cross_site_request");
        assert_eq!(session_cookie(&out), None, "{site}: the cookie was touched");
        // Even with the cookie (a same-site sibling's page would send it), nothing ends.
        let out = app
            .post("/auth/session/logout")
            .header("Sec-Fetch-Site", site)
            .header("cookie", &cookie)
            .send()
            .await;
        out.assert_problem(403, "cross_site_request");
        assert_eq!(session_cookie(&out), None, "{site}: the cookie was touched");
        let refresh = app
            .post("/auth/session/refresh")
            .header("Sec-Fetch-Site", site)
            .header("cookie", &cookie)
            .send()
            .await;
        refresh.assert_problem(403, "cross_site_request");
        assert_eq!(session_cookie(&refresh), None);
        let signed_in = app
            .post("/auth/session")
            .header("Sec-Fetch-Site", site)
            .json(&credentials)
            .send()
            .await;
        signed_in.assert_problem(403, "cross_site_request");
        assert_eq!(session_cookie(&signed_in), None);
    }
    // A logout without the header (an old browser's form) but without the cookie: nothing to
    // end and nothing cleared.
    let out = app.post("/auth/session/logout").send().await;
    assert_eq!(out.status, 204, "{}", out.text);
    assert_eq!(
        session_cookie(&out),
        None,
        "a logout without a cookie cleared it"
    );

    // The login is still there, and its cookie still works (it was not spent either).
    assert_eq!(logins(&app, &access).await, before);
    let refresh = app
        .post("/auth/session/refresh")
        .header("Sec-Fetch-Site", "same-origin")
        .header("cookie", &cookie)
        .send()
        .await;
    refresh.assert_ok();
    let cookie = format!(
        "kontor_session={}",
        cookie_value(&session_cookie(&refresh).unwrap())
    );

    // The server's own page signs out: the login ends and the cookie is cleared.
    let out = app
        .post("/auth/session/logout")
        .header("Sec-Fetch-Site", "same-origin")
        .header("cookie", &cookie)
        .send()
        .await;
    assert_eq!(out.status, 204, "{}", out.text);
    let cleared = session_cookie(&out).expect("a logout with the cookie clears it");
    assert!(cleared.starts_with("kontor_session=;"), "{cleared}");
    let after = app
        .post("/auth/session/refresh")
        .header("cookie", &cookie)
        .send()
        .await;
    after.assert_problem(401, "invalid_token");
}

/// A page opened in a browser where nobody is signed in asks the session once: without the
/// cookie that is no failure (204, nothing set), so the page's first load logs no failed
/// request. A cookie that no longer works is still a 401, and is cleared.
#[tokio::test]
async fn a_refresh_without_a_session_cookie_is_no_failure() {
    let app = spawn_app().await;
    let nobody = app
        .post("/auth/session/refresh")
        .header("Sec-Fetch-Site", "same-origin")
        .send()
        .await;
    assert_eq!(nobody.status, 204, "{}", nobody.text);
    assert!(nobody.text.is_empty());
    assert_eq!(session_cookie(&nobody), None);
    let stale = app
        .post("/auth/session/refresh")
        .header("Sec-Fetch-Site", "same-origin")
        .header(
            "cookie",
            "kontor_session=kontor_rt_0000000000000000000000000000000000000000000",
        )
        .send()
        .await;
    stale.assert_problem(401, "invalid_token");
    let cleared = session_cookie(&stale).expect("a bad cookie is cleared");
    assert!(cleared.starts_with("kontor_session=;"), "{cleared}");
}
