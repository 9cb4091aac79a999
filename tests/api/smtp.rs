//! A real SMTP receiver for the tests: a tokio TCP listener speaking enough SMTP for lettre
//! (EHLO/HELO, STARTTLS, AUTH PLAIN/LOGIN, MAIL FROM, RCPT TO, DATA, RSET, NOOP, QUIT), with
//! TLS by rustls under a certificate of a CA made for it (rcgen) when asked: offered through
//! STARTTLS, or from the first byte (implicit TLS). It keeps every message it accepts, every
//! login and everything it read in clear text, and can be told to refuse (4xx/5xx) or to hang,
//! message by message. Also a small MIME reader to look into what arrived.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// Whether and how the sink speaks TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinkTls {
    /// Plain text only; EHLO offers no STARTTLS.
    None,
    /// EHLO offers STARTTLS (until it is used).
    StartTls,
    /// TLS from the first byte (`smtps://`).
    Implicit,
}

/// The sink's TLS: its server configuration and the CA certificate a client must trust.
struct TlsSetup {
    acceptor: TlsAcceptor,
    ca_pem: String,
}

impl TlsSetup {
    /// A fresh CA and a certificate it issues for 127.0.0.1 and localhost.
    fn new() -> Self {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Kontor test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let certificate = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![certificate.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            ca_pem: ca.as_ref().pem(),
        }
    }
}

/// A connection, before or after TLS.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}
type Connection = BufReader<Box<dyn Io>>;

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
    /// Whether the message came over TLS.
    pub tls: bool,
    pub data: String,
}

/// A login the sink saw (whether or not a message followed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Login {
    /// `user:password`.
    pub credentials: String,
    /// Whether it came over TLS.
    pub tls: bool,
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
    logins: Vec<Login>,
    /// Every line the sink read before TLS began (or at all, without TLS), of every session.
    clear_text: String,
}

#[derive(Clone)]
pub struct SmtpSink {
    pub port: u16,
    state: Arc<Mutex<State>>,
    release: Arc<Notify>,
    joined: Arc<Notify>,
    mode: SinkTls,
    tls: Option<Arc<TlsSetup>>,
}

impl SmtpSink {
    /// A sink without TLS.
    pub async fn start() -> Self {
        Self::start_with(SinkTls::None).await
    }

    /// A sink speaking TLS as `mode` says.
    pub async fn start_with(mode: SinkTls) -> Self {
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
                logins: Vec::new(),
                clear_text: String::new(),
            })),
            release: Arc::new(Notify::new()),
            joined: Arc::new(Notify::new()),
            mode,
            tls: (mode != SinkTls::None).then(|| Arc::new(TlsSetup::new())),
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

    pub fn has_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The PEM of the CA whose certificate the sink shows (a sink with TLS only).
    pub fn ca_pem(&self) -> &str {
        &self.tls.as_ref().expect("a sink with TLS").ca_pem
    }

    /// Every login the sink saw.
    pub fn logins(&self) -> Vec<Login> {
        self.state.lock().unwrap().logins.clone()
    }

    /// Everything the sink read outside TLS, every session's lines in order.
    pub fn clear_text(&self) -> String {
        self.state.lock().unwrap().clear_text.clone()
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
        let mut secure = self.mode == SinkTls::Implicit;
        let mut lines: Connection = if secure {
            BufReader::new(Box::new(self.accept_tls(Box::new(stream)).await?))
        } else {
            BufReader::new(Box::new(stream))
        };
        lines.write_all(b"220 sink.test ESMTP ready\r\n").await?;
        lines.flush().await?;
        let mut from = String::new();
        let mut to = Vec::new();
        let mut auth = None;
        loop {
            let Some(line) = self.read(&mut lines, secure).await? else {
                return Ok(());
            };
            let upper = line.to_ascii_uppercase();
            let reply: String = if upper.starts_with("EHLO") {
                let starttls = if self.mode == SinkTls::StartTls && !secure {
                    "250-STARTTLS\r\n"
                } else {
                    ""
                };
                format!("250-sink.test\r\n{starttls}250-AUTH PLAIN LOGIN\r\n250 8BITMIME")
            } else if upper == "STARTTLS" && self.mode == SinkTls::StartTls && !secure {
                lines.write_all(b"220 2.0.0 ready to start TLS\r\n").await?;
                lines.flush().await?;
                // The client says nothing more before its handshake: nothing is buffered.
                lines = BufReader::new(Box::new(self.accept_tls(lines.into_inner()).await?));
                secure = true;
                // RFC 3207: what came before TLS is forgotten.
                (from, to, auth) = (String::new(), Vec::new(), None);
                continue;
            } else if upper == "STARTTLS" {
                "454 4.7.0 TLS not available".into()
            } else if upper.starts_with("HELO") {
                "250 sink.test".into()
            } else if upper.starts_with("AUTH PLAIN") {
                let mut response = line[10..].trim().to_string();
                if response.is_empty() {
                    lines.write_all(b"334 \r\n").await?;
                    lines.flush().await?;
                    response = self.read(&mut lines, secure).await?.unwrap_or_default();
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
                self.logged_in(&auth, secure);
                "235 2.7.0 authenticated".into()
            } else if upper.starts_with("AUTH LOGIN") {
                lines.write_all(b"334 VXNlcm5hbWU6\r\n").await?;
                lines.flush().await?;
                let user = self.read(&mut lines, secure).await?.unwrap_or_default();
                lines.write_all(b"334 UGFzc3dvcmQ6\r\n").await?;
                lines.flush().await?;
                let pass = self.read(&mut lines, secure).await?.unwrap_or_default();
                let decode = |s: &str| {
                    String::from_utf8_lossy(&STANDARD.decode(s.trim()).unwrap_or_default())
                        .into_owned()
                };
                auth = Some(format!("{}:{}", decode(&user), decode(&pass)));
                self.logged_in(&auth, secure);
                "235 2.7.0 authenticated".into()
            } else if upper.starts_with("MAIL FROM:") {
                from = angle(&line);
                to.clear();
                "250 2.1.0 ok".into()
            } else if upper.starts_with("RCPT TO:") {
                to.push(angle(&line));
                "250 2.1.5 ok".into()
            } else if upper == "DATA" {
                lines.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                lines.flush().await?;
                let mut data = String::new();
                loop {
                    let Some(line) = self.read(&mut lines, secure).await? else {
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
                    tls: secure,
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
                lines.write_all(b"221 2.0.0 bye\r\n").await?;
                lines.flush().await?;
                return Ok(());
            } else {
                "500 5.5.2 unknown command".into()
            };
            lines.write_all(format!("{reply}\r\n").as_bytes()).await?;
            lines.flush().await?;
        }
    }

    async fn accept_tls(
        &self,
        stream: Box<dyn Io>,
    ) -> std::io::Result<tokio_rustls::server::TlsStream<Box<dyn Io>>> {
        let tls = self.tls.as_ref().expect("a sink with TLS");
        tls.acceptor.accept(stream).await
    }

    /// Reads a line, keeping it in the clear-text transcript unless it came over TLS.
    async fn read(&self, lines: &mut Connection, secure: bool) -> std::io::Result<Option<String>> {
        let line = read_line(lines).await?;
        if let (Some(line), false) = (&line, secure) {
            let mut state = self.state.lock().unwrap();
            state.clear_text.push_str(line);
            state.clear_text.push_str("\r\n");
        }
        Ok(line)
    }

    fn logged_in(&self, auth: &Option<String>, tls: bool) {
        let credentials = auth.clone().unwrap_or_default();
        self.state
            .lock()
            .unwrap()
            .logins
            .push(Login { credentials, tls });
    }
}

async fn read_line(lines: &mut Connection) -> std::io::Result<Option<String>> {
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

    /// The subject as written: RFC 2047 base64 words (`=?utf-8?b?…?=`) decoded, the space
    /// between two encoded words dropped as the RFC says.
    pub fn subject(&self) -> String {
        let mut out = String::new();
        let mut last_encoded = false;
        for word in self
            .header("Subject")
            .unwrap_or_default()
            .split_whitespace()
        {
            let decoded = word
                .to_ascii_lowercase()
                .strip_prefix("=?utf-8?b?")
                .and_then(|_| word.get(10..word.len() - 2))
                .map(|b64| String::from_utf8(STANDARD.decode(b64).unwrap()).unwrap());
            let joins_encoded = last_encoded && decoded.is_some();
            if !out.is_empty() && !joins_encoded {
                out.push(' ');
            }
            last_encoded = decoded.is_some();
            out.push_str(&decoded.unwrap_or_else(|| word.to_string()));
        }
        out
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
