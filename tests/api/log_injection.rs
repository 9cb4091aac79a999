//! What a client sends cannot forge fields or lines of the text log: the real server's log,
//! read from its output, after requests whose agent, host, request id and body carry text
//! shaped like log fields.

use crate::secrets::LoggedServer;
use crate::support::*;
use std::collections::HashMap;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The `key=value` fields of a text log line, as a log reader splits them: at spaces and
/// braces outside double quotes (a backslash escapes the next character inside them).
fn fields(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut token = String::new();
    let mut quoted = false;
    let mut escaped = false;
    let mut flush = |token: &mut String| {
        if let Some((key, value)) = token.split_once('=') {
            out.push((key.to_string(), value.to_string()));
        }
        token.clear();
    };
    for c in line.chars() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if !quoted && (c == ' ' || c == '{' || c == '}') {
            flush(&mut token);
            continue;
        }
        token.push(c);
    }
    flush(&mut token);
    out
}

/// One raw HTTP/1.1 request, written as given (so that its headers hold what a crafted
/// client would send); returns the status line.
async fn raw_request(base: &str, request: &str) -> String {
    let address = base.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().unwrap_or_default().to_string()
}

const FORGED: &str = "http.client_ip=203.0.113.66 request_id=forged http.status_code=200";

#[tokio::test]
async fn client_text_is_quoted_in_the_text_log_and_forges_no_field_or_line() {
    let app = spawn_app().await;
    let (server, base) = LoggedServer::start(
        &app,
        &[
            ("KONTOR_LOG_FORMAT", "text"),
            ("RUST_LOG", "debug,sqlx=warn"),
            ("KONTOR_WORKERS", "false"),
        ],
    )
    .await;
    // An agent, a host and a request id shaped like fields (the id has no space, which a
    // sane id may not have, but quotes and equals signs it may).
    let status = raw_request(
        &base,
        &format!(
            "GET /api/v1/kinds HTTP/1.1\r\nHost: kontor.example {FORGED}\r\n\
             User-Agent: curl/8.0 {FORGED}\r\nX-Request-Id: agent-1\"request_id=forged\r\n\
             Connection: close\r\n\r\n"
        ),
    )
    .await;
    assert!(status.contains("200"), "{status}");
    // A body whose member name holds a line break and a forged line: the refusal's text,
    // logged at debug, quotes it.
    let body =
        format!("{{\"username\": \"x\", \"password\": \"y\", \"a\\n{FORGED} forged-line\": 1}}");
    let status = raw_request(
        &base,
        &format!(
            "POST /api/v1/auth/login HTTP/1.1\r\nHost: kontor.example\r\n\
             X-Request-Id: body-1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert!(status.contains("400"), "{status}");

    let access = |id: &'static str| {
        move |log: &str| {
            log.lines()
                .find(|line| line.contains("kontor::access") && line.contains(id))
                .map(str::to_string)
        }
    };
    let line = server.wait_for(access("agent-1")).await;
    let found = fields(&line);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (key, _) in &found {
        *counts.entry(key.as_str()).or_default() += 1;
    }
    for key in [
        "http.client_ip",
        "request_id",
        "http.user_agent",
        "http.host",
    ] {
        assert_eq!(counts.get(key), Some(&1), "{key} in {line}");
    }
    let value = |key: &str| {
        found
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(value("http.client_ip"), "127.0.0.1", "{line}");
    assert_eq!(
        value("http.user_agent"),
        format!("\"curl/8.0 {FORGED}\""),
        "{line}"
    );
    assert_eq!(
        value("http.host"),
        format!("\"kontor.example {FORGED}\""),
        "{line}"
    );
    assert_eq!(
        value("request_id"),
        "\"agent-1\\\"request_id=forged\"",
        "{line}"
    );

    server.wait_for(access("body-1")).await;
    let log = server.text();
    assert!(
        log.contains("client error"),
        "the refusal was not logged:\n{log}"
    );
    // The body's line break stayed inside its quoted field: no line begins with its text.
    for line in log.lines() {
        assert!(
            !line.trim_start().starts_with(FORGED),
            "a client forged a log line: {line}\n{log}"
        );
    }
}
