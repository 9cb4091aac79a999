//! A real SMTP receiver for the tests: a tokio TCP listener speaking enough SMTP for lettre
//! (EHLO/HELO, AUTH PLAIN/LOGIN, MAIL FROM, RCPT TO, DATA, RSET, NOOP, QUIT). It keeps every
//! message it accepts, and can be told to refuse (4xx/5xx) or to hang, message by message.
//! Also a small MIME reader to look into what arrived.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// What the sink answers to the end of one message's DATA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep it, answer 250.
    Accept,
    /// Drop it, answer this code (4xx: try later; 5xx: never).
    Reject(u16),
    /// Keep it, then never answer (until released): the sender cannot know it arrived.
    AcceptThenHang,
    /// Keep it, and answer only once this many messages with this verdict wait at once:
    /// arrives only if the client sends that many messages concurrently.
    AcceptWhenJoinedBy(usize),
}

/// A message the sink accepted.
#[derive(Clone, Debug)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    /// `user:password` if the client authenticated.
    pub auth: Option<String>,
    pub data: String,
}

impl Received {
    pub fn mail(&self) -> Mail {
        parse(&self.data)
    }
}

struct State {
    received: Vec<Received>,
    script: VecDeque<Verdict>,
    /// Every DATA the sink saw, accepted or not.
    attempts: usize,
    /// Connections accepted.
    sessions: usize,
    /// Messages waiting under `AcceptWhenJoinedBy` (or released from it).
    joined: usize,
}

#[derive(Clone)]
pub struct SmtpSink {
    pub port: u16,
    state: Arc<Mutex<State>>,
    release: Arc<Notify>,
    joined: Arc<Notify>,
}

impl SmtpSink {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let sink = Self {
            port,
            state: Arc::new(Mutex::new(State {
                received: Vec::new(),
                script: VecDeque::new(),
                attempts: 0,
                sessions: 0,
                joined: 0,
            })),
            release: Arc::new(Notify::new()),
            joined: Arc::new(Notify::new()),
        };
        let server = sink.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let sink = server.clone();
                tokio::spawn(async move {
                    let _ = sink.session(stream).await;
                });
            }
        });
        sink
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The verdicts for the next messages, in order; after them, every message is accepted.
    pub fn script(&self, verdicts: impl IntoIterator<Item = Verdict>) {
        self.state.lock().unwrap().script.extend(verdicts);
    }

    /// Ends every hanging session (without an answer).
    pub fn release_hangs(&self) {
        self.release.notify_waiters();
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// SMTP connections opened to the sink so far.
    pub fn sessions(&self) -> usize {
        self.state.lock().unwrap().sessions
    }

    pub fn attempts(&self) -> usize {
        self.state.lock().unwrap().attempts
    }

    /// Waits until at least `n` messages have arrived.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let received = self.received();
            if received.len() >= n {
                return received;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "expected {n} messages within {within:?}, got {}",
                received.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn session(&self, stream: tokio::net::TcpStream) -> std::io::Result<()> {
        self.state.lock().unwrap().sessions += 1;
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read);
        write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
        let mut from = String::new();
        let mut to = Vec::new();
        let mut auth = None;
        loop {
            let Some(line) = read_line(&mut lines).await? else {
                return Ok(());
            };
            let upper = line.to_ascii_uppercase();
            let reply: String = if upper.starts_with("EHLO") {
                "250-sink.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME".into()
            } else if upper.starts_with("HELO") {
                "250 sink.test".into()
            } else if upper.starts_with("AUTH PLAIN") {
                let mut response = line[10..].trim().to_string();
                if response.is_empty() {
                    write.write_all(b"334 \r\n").await?;
                    response = read_line(&mut lines).await?.unwrap_or_default();
                }
                let decoded = STANDARD.decode(response.trim()).unwrap_or_default();
                let parts: Vec<String> = decoded
                    .split(|b| *b == 0)
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect();
                auth = Some(format!(
                    "{}:{}",
                    parts.get(1).cloned().unwrap_or_default(),
                    parts.get(2).cloned().unwrap_or_default()
                ));
                "235 2.7.0 authenticated".into()
            } else if upper.starts_with("AUTH LOGIN") {
                write.write_all(b"334 VXNlcm5hbWU6\r\n").await?;
                let user = read_line(&mut lines).await?.unwrap_or_default();
                write.write_all(b"334 UGFzc3dvcmQ6\r\n").await?;
                let pass = read_line(&mut lines).await?.unwrap_or_default();
                let decode = |s: &str| {
                    String::from_utf8_lossy(&STANDARD.decode(s.trim()).unwrap_or_default())
                        .into_owned()
                };
                auth = Some(format!("{}:{}", decode(&user), decode(&pass)));
                "235 2.7.0 authenticated".into()
            } else if upper.starts_with("MAIL FROM:") {
                from = angle(&line);
                to.clear();
                "250 2.1.0 ok".into()
            } else if upper.starts_with("RCPT TO:") {
                to.push(angle(&line));
                "250 2.1.5 ok".into()
            } else if upper == "DATA" {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = String::new();
                loop {
                    let Some(line) = read_line(&mut lines).await? else {
                        return Ok(());
                    };
                    if line == "." {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                    data.push_str("\r\n");
                }
                let received = Received {
                    from: from.clone(),
                    to: to.clone(),
                    auth: auth.clone(),
                    data,
                };
                let verdict = {
                    let mut state = self.state.lock().unwrap();
                    state.attempts += 1;
                    let verdict = state.script.pop_front().unwrap_or(Verdict::Accept);
                    if !matches!(verdict, Verdict::Reject(_)) {
                        state.received.push(received);
                    }
                    verdict
                };
                match verdict {
                    Verdict::Accept => "250 2.0.0 queued".into(),
                    Verdict::Reject(code) if code < 500 => {
                        format!("{code} 4.3.0 try again later")
                    }
                    Verdict::Reject(code) => format!("{code} 5.1.1 mailbox unavailable"),
                    Verdict::AcceptThenHang => {
                        self.release.notified().await;
                        return Ok(());
                    }
                    Verdict::AcceptWhenJoinedBy(n) => {
                        self.state.lock().unwrap().joined += 1;
                        loop {
                            let joined = self.joined.notified();
                            tokio::pin!(joined);
                            joined.as_mut().enable();
                            if self.state.lock().unwrap().joined >= n {
                                self.joined.notify_waiters();
                                break;
                            }
                            joined.await;
                        }
                        "250 2.0.0 queued".into()
                    }
                }
            } else if upper == "RSET" {
                from.clear();
                to.clear();
                "250 2.0.0 ok".into()
            } else if upper == "NOOP" {
                "250 2.0.0 ok".into()
            } else if upper == "QUIT" {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            } else {
                "500 5.5.2 unknown command".into()
            };
            write.write_all(format!("{reply}\r\n").as_bytes()).await?;
        }
    }
}

async fn read_line(
    lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
) -> std::io::Result<Option<String>> {
    let mut line = String::new();
    if lines.read_line(&mut line).await? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
}

/// The address between `<` and `>`.
fn angle(line: &str) -> String {
    line.split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(address, _)| address.to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// Reading MIME messages

/// A message: its headers (unfolded) and its parts (decoded), one part if not multipart.
#[derive(Debug)]
pub struct Mail {
    pub headers: Vec<(String, String)>,
    pub content_type: String,
    pub parts: Vec<Part>,
}

#[derive(Debug)]
pub struct Part {
    pub content_type: String,
    pub body: String,
}

impl Mail {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn part(&self, media: &str) -> &str {
        &self
            .parts
            .iter()
            .find(|p| p.content_type.starts_with(media))
            .unwrap_or_else(|| panic!("no {media} part in {:?}", self.parts))
            .body
    }

    pub fn text(&self) -> &str {
        self.part("text/plain")
    }

    pub fn html(&self) -> &str {
        self.part("text/html")
    }
}

/// Splits headers from body and unfolds the headers.
fn split_headers(text: &str) -> (Vec<(String, String)>, &str) {
    let (head, body) = text
        .split_once("\r\n\r\n")
        .or_else(|| text.split_once("\n\n"))
        .unwrap_or((text, ""));
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    let headers = unfolded
        .lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect();
    (headers, body)
}

fn find<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn decode(encoding: Option<&str>, body: &str) -> String {
    match encoding.map(|e| e.to_ascii_lowercase()) {
        Some(e) if e == "base64" => {
            let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
            String::from_utf8(STANDARD.decode(compact).expect("valid base64")).unwrap()
        }
        Some(e) if e == "quoted-printable" => {
            let joined = body.replace("=\r\n", "").replace("=\n", "");
            let bytes = joined.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'=' && i + 2 < bytes.len() {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                    if let Ok(byte) = u8::from_str_radix(hex, 16) {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                }
                out.push(bytes[i]);
                i += 1;
            }
            String::from_utf8(out).unwrap()
        }
        _ => body.to_string(),
    }
}

/// Parses a message as lettre writes it (one level of multipart).
pub fn parse(text: &str) -> Mail {
    let (headers, body) = split_headers(text);
    let content_type = find(&headers, "Content-Type")
        .unwrap_or("text/plain")
        .to_string();
    let parts = if content_type.to_ascii_lowercase().starts_with("multipart/") {
        let boundary = content_type
            .split(';')
            .find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim().eq_ignore_ascii_case("boundary")).then(|| v.trim().trim_matches('"'))
            })
            .expect("a multipart message has a boundary")
            .to_string();
        body.split(&format!("--{boundary}"))
            .skip(1)
            .filter(|part| !part.starts_with("--"))
            .map(|part| {
                let part = part.trim_start_matches(['\r', '\n']);
                let (part_headers, part_body) = split_headers(part);
                Part {
                    content_type: find(&part_headers, "Content-Type")
                        .unwrap_or("text/plain")
                        .to_string(),
                    body: decode(
                        find(&part_headers, "Content-Transfer-Encoding"),
                        part_body.trim_end_matches(['\r', '\n']),
                    ),
                }
            })
            .collect()
    } else {
        vec![Part {
            content_type: content_type.clone(),
            body: decode(find(&headers, "Content-Transfer-Encoding"), body),
        }]
    };
    Mail {
        headers,
        content_type,
        parts,
    }
}

/// Every `http…` link in a text (up to whitespace, a quote or `<`/`>`), with `&amp;` undone.
pub fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("http") {
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>'))
            .unwrap_or(tail.len());
        found.push(tail[..end].replace("&amp;", "&"));
        rest = &tail[end..];
    }
    found
}
