//! The SSRF-safe outbound client (`kontor::outbound`) against a real loopback listener: with
//! insecure targets off, every way of naming this machine is refused before a byte reaches
//! it; with them on (tests and development), a request arrives and at most 4 KB of the
//! answer is read.

use kontor::service::delivery::outbound::{BODY_LIMIT, Outbound};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A listener on 127.0.0.1 that counts connections and answers each with `answer`.
async fn receiver(answer: &'static [u8]) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut request = vec![0u8; 65536];
                let _ = socket.read(&mut request).await;
                let _ = socket.write_all(answer).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    (port, connections)
}

#[tokio::test]
async fn every_name_of_this_machine_is_refused_when_insecure_targets_are_off() {
    let (port, connections) = receiver(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await;
    let strict = Outbound::new(false).unwrap();
    for url in [
        format!("https://127.0.0.1:{port}/hook"),
        format!("https://[::ffff:127.0.0.1]:{port}/hook"),
        format!("https://[::1]:{port}/hook"),
        format!("https://0x7f000001:{port}/hook"),
        // A name the system resolver answers with 127.0.0.1 (and ::1): refused by the
        // resolver itself, as a public name that resolves to a private address would be.
        format!("https://localhost:{port}/hook"),
        "https://169.254.169.254/latest/meta-data/".to_string(),
    ] {
        let error = strict
            .post(&url, &[], b"{}".to_vec())
            .await
            .expect_err("must be refused");
        assert_eq!(error.code(), "blocked_address", "{url}: {error}");
    }
    let error = strict
        .post(&format!("http://localhost:{port}/hook"), &[], Vec::new())
        .await
        .unwrap_err();
    assert_eq!(error.code(), "insecure_url");
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "nothing reached the receiver"
    );
}

#[tokio::test]
async fn the_insecure_setting_reaches_loopback_and_reads_at_most_4_kb() {
    static BIG: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
        let body = "x".repeat(100_000);
        format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nretry-after: 7\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    });
    let (port, connections) = receiver(BIG.as_slice()).await;
    let insecure = Outbound::new(true).unwrap();
    let answer = insecure
        .post(
            &format!("http://localhost:{port}/hook"),
            &[],
            b"{}".to_vec(),
        )
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.headers["retry-after"], "7");
    assert_eq!(answer.body.len(), BODY_LIMIT);
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    // Still refused with the setting on: the rest of the non-global addresses.
    let error = insecure
        .post("http://10.0.0.1/hook", &[], Vec::new())
        .await
        .unwrap_err();
    assert_eq!(error.code(), "blocked_address");
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let (port, connections) = receiver(
        b"HTTP/1.1 307 Temporary Redirect\r\nlocation: http://127.0.0.1:9/\r\ncontent-length: 0\r\n\r\n",
    )
    .await;
    let insecure = Outbound::new(true).unwrap();
    let answer = insecure
        .post(&format!("http://127.0.0.1:{port}/"), &[], Vec::new())
        .await
        .unwrap();
    assert_eq!(answer.status, 307);
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_receiver_that_never_answers_is_given_up_at_the_first_byte_timeout() {
    use kontor::service::delivery::outbound::{FIRST_BYTE_TIMEOUT, TOTAL_TIMEOUT};
    let slow =
        crate::support::SlowReceiver::start("127.0.0.1", std::time::Duration::from_secs(60)).await;
    let insecure = Outbound::new(true).unwrap();
    let started = std::time::Instant::now();
    let error = insecure
        .post(&format!("{}/hook", slow.base), &[], b"{}".to_vec())
        .await
        .expect_err("no answer");
    let took = started.elapsed();
    assert_eq!(error.code(), "timeout", "{error}");
    assert_eq!(slow.paths(), ["/hook"], "the request arrived whole");
    // Given up once the head is late, well before the whole request's time is up.
    assert!(
        took >= FIRST_BYTE_TIMEOUT && took < TOTAL_TIMEOUT - std::time::Duration::from_secs(2),
        "{took:?}"
    );
}
