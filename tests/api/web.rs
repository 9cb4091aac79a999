//! The web client as the server serves it, and the browser's cookie session. (The page
//! itself is tested in a real browser: `web/e2e/`.)

use crate::support::{AppOptions, password_of, spawn_app, spawn_app_with};
use kontor::http::middleware::headers::WEB_CSP;
use serde_json::{Value, json};

fn session_cookie(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("kontor_session="))
        .map(str::to_string)
}

fn cookie_value(set_cookie: &str) -> &str {
    set_cookie
        .split(';')
        .next()
        .and_then(|pair| pair.split_once('='))
        .map(|(_, value)| value)
        .unwrap_or_default()
}

#[tokio::test]
async fn a_browser_session_keeps_its_refresh_token_in_an_http_only_cookie() {
    let app = spawn_app().await;
    app.register("anna").await;
    let url = |path: &str| format!("{}/api/v1/auth/session{path}", app.address);
    let login = app
        .client
        .post(url(""))
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200);
    let cookie = session_cookie(&login).expect("the login sets the session cookie");
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/api/v1/auth/session",
        "Max-Age=",
    ] {
        assert!(
            cookie.contains(attribute),
            "{attribute} missing in {cookie}"
        );
    }
    assert!(
        !cookie.contains("Secure"),
        "plain http base URL: not Secure"
    );
    let first = cookie_value(&cookie).to_string();
    assert!(first.starts_with("kontor_rt_"));
    let body: Value = login.json().await.unwrap();
    assert!(body.get("refresh_token").is_none(), "{body}");
    let access = body["access_token"].as_str().unwrap().to_string();
    let me = app
        .client
        .get(format!("{}/api/v1/me", app.address))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);

    // Refreshing spends the cookie's token and sets a new one.
    let refresh = |token: String| {
        app.client
            .post(url("/refresh"))
            .header("cookie", format!("kontor_session={token}"))
            .send()
    };
    let renewed = refresh(first.clone()).await.unwrap();
    assert_eq!(renewed.status(), 200);
    let second = cookie_value(&session_cookie(&renewed).unwrap()).to_string();
    assert_ne!(second, first);
    // Past the grace after its refresh, the spent one is refused, the cookie cleared, and
    // the whole login revoked.
    crate::accounts::age_rotations(&app, "1 minute").await;
    let reused = refresh(first).await.unwrap();
    assert_eq!(reused.status(), 401);
    let cleared = session_cookie(&reused).expect("a refused refresh clears the cookie");
    assert!(cleared.starts_with("kontor_session=;"), "{cleared}");
    assert_eq!(refresh(second).await.unwrap().status(), 401);

    // No cookie: no session to renew, which is no failure (a signed-out visitor's first
    // load asks); logging out without a session is no error either.
    let none = app.client.post(url("/refresh")).send().await.unwrap();
    assert_eq!(none.status(), 204);
    let out = app.client.post(url("/logout")).send().await.unwrap();
    assert_eq!(out.status(), 204);
}

#[tokio::test]
async fn logging_out_ends_the_browser_session() {
    let app = spawn_app().await;
    app.register("bert").await;
    let url = |path: &str| format!("{}/api/v1/auth/session{path}", app.address);
    let login = app
        .client
        .post(url(""))
        .json(&json!({"username": "bert", "password": password_of("bert")}))
        .send()
        .await
        .unwrap();
    let token = cookie_value(&session_cookie(&login).unwrap()).to_string();
    let out = app
        .client
        .post(url("/logout"))
        .header("cookie", format!("kontor_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 204);
    assert!(
        session_cookie(&out)
            .unwrap()
            .starts_with("kontor_session=;")
    );
    let after = app
        .client
        .post(url("/refresh"))
        .header("cookie", format!("kontor_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 401);
    // Wrong credentials are refused as at /auth/login.
    let wrong = app
        .client
        .post(url(""))
        .json(&json!({"username": "bert", "password": "not bert's password at all"}))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(session_cookie(&wrong).is_none());
}

/// Needs the built client (`npm run build` in web/, which deploy/test.sh runs first).
#[tokio::test]
async fn the_page_is_served_at_the_root_and_at_its_screens_with_a_strict_policy() {
    let app = spawn_app().await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.address)).send();
    let root = get("/").await.unwrap();
    assert_eq!(
        root.status(),
        200,
        "is the web client built? (npm ci && npm run build in web/)"
    );
    let headers = root.headers().clone();
    assert_eq!(headers["content-security-policy"], WEB_CSP);
    assert!(!WEB_CSP.contains("unsafe"), "{WEB_CSP}");
    assert_eq!(headers["cache-control"], "no-cache");
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = root.text().await.unwrap();
    // The screens answer the same page; the browser routes them.
    for screen in [
        "/games/0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
        "/settings",
        "/signin",
    ] {
        let response = get(screen).await.unwrap();
        assert_eq!(response.status(), 200, "{screen}");
        assert_eq!(response.text().await.unwrap(), page, "{screen}");
    }
    // The page's script is an asset, cached for good, with a tag that revalidates.
    let script = page
        .split('"')
        .find(|part| part.starts_with("/assets/") && part.ends_with(".js"))
        .expect("the page loads a script from /assets/")
        .to_string();
    let asset = get(&script).await.unwrap();
    assert_eq!(asset.status(), 200);
    assert!(
        asset.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    assert!(
        asset.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    let tag = asset.headers()["etag"].clone();
    let again = app
        .client
        .get(format!("{}{script}", app.address))
        .header("if-none-match", tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    // Paths that are neither a screen nor a file stay the API's 404.
    let nowhere = get("/nowhere").await.unwrap();
    assert_eq!(nowhere.status(), 404);
    let missing = get("/assets/missing.js").await.unwrap();
    assert_eq!(missing.status(), 404);
    let posted = app
        .client
        .post(format!("{}/settings", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 404);
}

#[tokio::test]
async fn a_web_folder_setting_serves_another_build_and_nothing_outside_it() {
    let root = std::env::temp_dir().join(format!("kontor-web-dir-{}", uuid::Uuid::now_v7()));
    let dir = root.join("client");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><p>custom client</p>",
    )
    .unwrap();
    std::fs::write(dir.join("assets/app-1.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join(".secret"), "hidden").unwrap();
    std::fs::write(root.join("outside.txt"), "outside the folder").unwrap();
    let mut options = AppOptions::default();
    options
        .settings
        .insert("KONTOR_WEB_DIR".into(), dir.to_string_lossy().into_owned());
    let app = spawn_app_with(options).await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.address)).send();
    let page = get("/games/x").await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("custom client"));
    let script = get("/assets/app-1.js").await.unwrap();
    assert_eq!(script.status(), 200);
    assert!(
        script.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    for path in [
        "/.secret",
        "/assets/../../outside.txt",
        "/assets/%2e%2e/%2e%2e/outside.txt",
        "/assets//app-1.js",
    ] {
        let response = get(path).await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
        let body = response.text().await.unwrap();
        assert!(!body.contains("outside the folder"), "{path}: {body}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}
