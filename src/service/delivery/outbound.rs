//! Outbound HTTP to addresses that users give (webhook URLs, Web Push endpoints), safe against
//! server-side request forgery by construction:
//!
//! * the client's resolver resolves a name with the system resolver and refuses the whole
//!   answer when any address in it is not global ([`is_global`]); the connection goes to the
//!   addresses it vetted (the resolver hands them to the connector: there is no second
//!   lookup for a rebinding name to change);
//! * a URL naming an IP address (which no resolver sees) is checked by the same rule before
//!   anything is sent;
//! * HTTPS only, no proxy, redirects not followed, a URL naming `localhost` (which resolves to
//!   loopback by definition, RFC 6761) refused before any lookup;
//! * short timeouts for a slow start: [`CONNECT_TIMEOUT`] to connect, [`FIRST_BYTE_TIMEOUT`]
//!   until the answer's head, [`TOTAL_TIMEOUT`] for the whole request, and at most
//!   [`BODY_LIMIT`] bytes of an answer read;
//! * a refusal never says what a name resolved to (users could map internal names with it).
//!
//! `KONTOR_OUTBOUND_ALLOW_INSECURE` (tests and development only) also allows `http://` and
//! loopback addresses; every other non-global address stays refused.

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use url::{Host, Url};

/// How long connecting (TLS included) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long the answer's head may take to arrive once the request is sent: a receiver that
/// holds a connection open without answering gives up its slot this soon.
pub const FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a whole request may take, the answer's body included.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of an answer's body is read at most; the rest is never read.
pub const BODY_LIMIT: usize = 4096;

/// Whether `ip` is an ordinary address on the public internet. Everything else is refused:
/// loopback, unspecified, private, link-local (the cloud metadata address 169.254.169.254
/// among them), shared (CGNAT), multicast, broadcast, reserved, documentation and benchmark
/// ranges, IPv6 unique-local and site-local, the IPv4-mapped and IPv4-compatible forms, the
/// local-use NAT64 prefix, Teredo and the other IETF protocol assignments, discard-only, and
/// 6to4 and well-known NAT64 addresses whose embedded IPv4 address is not global. IPv6 must
/// be global unicast (2000::/3) or well-known NAT64 (64:ff9b::/96).
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => is_global_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

fn is_global_v4(ip: Ipv4Addr) -> bool {
    const REFUSED: &[([u8; 4], u32)] = &[
        ([0, 0, 0, 0], 8),       // "this network", unspecified
        ([10, 0, 0, 0], 8),      // private
        ([100, 64, 0, 0], 10),   // shared address space (CGNAT)
        ([127, 0, 0, 0], 8),     // loopback
        ([169, 254, 0, 0], 16),  // link-local, cloud metadata
        ([172, 16, 0, 0], 12),   // private
        ([192, 0, 0, 0], 24),    // IETF protocol assignments
        ([192, 0, 2, 0], 24),    // documentation (TEST-NET-1)
        ([192, 88, 99, 0], 24),  // 6to4 relay anycast (deprecated)
        ([192, 168, 0, 0], 16),  // private
        ([198, 18, 0, 0], 15),   // benchmarking
        ([198, 51, 100, 0], 24), // documentation (TEST-NET-2)
        ([203, 0, 113, 0], 24),  // documentation (TEST-NET-3)
        ([224, 0, 0, 0], 4),     // multicast
        ([240, 0, 0, 0], 4),     // reserved, broadcast
    ];
    !REFUSED.iter().any(|&(net, prefix)| in_v4(ip, net, prefix))
}

fn is_global_v6(ip: Ipv6Addr) -> bool {
    let well_known_nat64 = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0);
    if in_v6(ip, well_known_nat64, 96) {
        // The IPv4 address it translates to is what would be reached.
        return is_global_v4(Ipv4Addr::from(u128::from(ip) as u32));
    }
    if !in_v6(ip, Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3) {
        // Loopback, unspecified, IPv4-mapped and -compatible, discard-only (100::/64), the
        // local-use NAT64 prefix (64:ff9b:1::/48), SRv6 (5f00::/16), unique-local
        // (fc00::/7), link-local (fe80::/10), site-local, multicast: all outside 2000::/3.
        return false;
    }
    const REFUSED: &[(Ipv6Addr, u32)] = &[
        // IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID…
        (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23),
        (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation
        (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20),     // documentation (RFC 9637)
    ];
    if REFUSED.iter().any(|&(net, prefix)| in_v6(ip, net, prefix)) {
        return false;
    }
    let six_to_four = Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0);
    if in_v6(ip, six_to_four, 16) {
        // 6to4 reaches the IPv4 address in bits 16..48.
        return is_global_v4(Ipv4Addr::from((u128::from(ip) >> 80) as u32));
    }
    true
}

/// Why an outbound request was not made or did not get an answer. [`code`](Self::code) is
/// stable: the delivery logs and the API show it.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("not a usable URL: {0}")]
    InvalidUrl(String),
    #[error("only https:// URLs are allowed")]
    InsecureScheme,
    #[error("{0} is not a public internet address")]
    BlockedAddress(String),
    #[error("the host name could not be resolved: {0}")]
    Unresolvable(String),
    #[error("no answer in time")]
    Timeout,
    #[error("could not connect: {0}")]
    Connect(String),
    #[error("the request failed: {0}")]
    Request(String),
}

impl OutboundError {
    /// What the error names (the address, the parser's reason…), without the sentence.
    pub fn detail(&self) -> &str {
        match self {
            OutboundError::InvalidUrl(detail)
            | OutboundError::BlockedAddress(detail)
            | OutboundError::Unresolvable(detail)
            | OutboundError::Connect(detail)
            | OutboundError::Request(detail) => detail,
            OutboundError::InsecureScheme | OutboundError::Timeout => "",
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            OutboundError::InvalidUrl(_) => "invalid_url",
            OutboundError::InsecureScheme => "insecure_url",
            OutboundError::BlockedAddress(_) => "blocked_address",
            OutboundError::Unresolvable(_) => "unresolvable",
            OutboundError::Timeout => "timeout",
            OutboundError::Connect(_) => "connect_failed",
            OutboundError::Request(_) => "request_failed",
        }
    }
}

/// The resolver's refusal, found again in reqwest's error chain.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not a public internet address")]
struct Refused(String);

/// The resolver's failure to resolve at all.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct NotResolved(String);

/// Resolves with the system resolver and refuses the whole answer if any address in it may
/// not be reached.
struct VettingResolver {
    allow_loopback: bool,
}

impl Resolve for VettingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_loopback = self.allow_loopback;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let answer: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|error| NotResolved(format!("{host}: {error}")))?
                .collect();
            if answer.is_empty() {
                return Err(NotResolved(format!("{host}: no addresses")).into());
            }
            if let Some(bad) = answer
                .iter()
                .find(|addr| !allowed(addr.ip(), allow_loopback))
            {
                // The name only: what it resolved to is the server's business (a user could
                // map internal names with it).
                tracing::debug!(%host, address = %bad.ip(), "a host name resolved to a refused address");
                return Err(Refused(host).into());
            }
            let vetted: Addrs = Box::new(answer.into_iter());
            Ok(vetted)
        })
    }
}

fn allowed(ip: IpAddr, allow_loopback: bool) -> bool {
    is_global(ip) || (allow_loopback && ip.is_loopback())
}

/// An answer: its status, headers and at most [`BODY_LIMIT`] bytes of its body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// The outbound client (cheap to clone).
#[derive(Clone)]
pub struct Outbound {
    client: reqwest::Client,
    allow_insecure: bool,
}

impl Outbound {
    /// `allow_insecure` = `KONTOR_OUTBOUND_ALLOW_INSECURE`.
    pub fn new(allow_insecure: bool) -> anyhow::Result<Self> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .dns_resolver(VettingResolver {
                allow_loopback: allow_insecure,
            })
            // A proxy from the environment would resolve and connect for us, unvetted.
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(TOTAL_TIMEOUT)
            .https_only(!allow_insecure)
            .user_agent(concat!("Kontor/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            client,
            allow_insecure,
        })
    }

    /// Whether plain HTTP and loopback targets are allowed (tests and development).
    pub fn allows_insecure(&self) -> bool {
        self.allow_insecure
    }

    /// [`check_url`] with this client's setting.
    pub fn check_url(&self, text: &str) -> Result<Url, OutboundError> {
        check_url(text, self.allow_insecure)
    }

    /// POSTs `body` to `url` with `headers`; the answer, whatever its status, or why there is
    /// none.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(HeaderName, HeaderValue)],
        body: Vec<u8>,
    ) -> Result<Answer, OutboundError> {
        let url = self.check_url(url)?;
        let mut request = self.client.post(url).body(body);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let mut response = tokio::time::timeout(FIRST_BYTE_TIMEOUT, request.send())
            .await
            .map_err(|_| OutboundError::Timeout)?
            .map_err(describe)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let mut body = Vec::new();
        while body.len() < BODY_LIMIT {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                // The status is the answer; a body cut short takes nothing from it.
                Ok(None) | Err(_) => break,
            }
        }
        body.truncate(BODY_LIMIT);
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

/// Checks what can be checked of a URL without a request: that it parses, is absolute
/// `https://` (or `http://` when insecure targets are allowed) with a host and no user or
/// password, and that an IP address in it is one that may be reached.
pub fn check_url(text: &str, allow_insecure: bool) -> Result<Url, OutboundError> {
    let url = Url::parse(text).map_err(|error| OutboundError::InvalidUrl(error.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure => {}
        "http" => return Err(OutboundError::InsecureScheme),
        other => {
            return Err(OutboundError::InvalidUrl(format!(
                "the scheme must be https, not {other}"
            )));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(OutboundError::InvalidUrl(
            "a user name or password in the URL is not allowed".into(),
        ));
    }
    let literal = match url.host() {
        None => return Err(OutboundError::InvalidUrl("the URL has no host".into())),
        Some(Host::Domain(name)) => {
            if is_localhost(name) && !allow_insecure {
                // Every lookup of it answers loopback: refused now rather than at every send.
                return Err(OutboundError::BlockedAddress(name.to_string()));
            }
            None
        }
        Some(Host::Ipv4(v4)) => Some(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Some(IpAddr::V6(v6)),
    };
    if let Some(ip) = literal
        && !allowed(ip, allow_insecure)
    {
        return Err(OutboundError::BlockedAddress(ip.to_string()));
    }
    Ok(url)
}

/// Whether a host name is `localhost` or under it (RFC 6761: always loopback), in any case and
/// with or without the root's trailing dot.
fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// Turns reqwest's error into ours, finding the resolver's refusal in its chain.
fn describe(error: reqwest::Error) -> OutboundError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<Refused>() {
            return OutboundError::BlockedAddress(refused.0.clone());
        }
        if let Some(unresolved) = cause.downcast_ref::<NotResolved>() {
            return OutboundError::Unresolvable(unresolved.0.clone());
        }
        source = cause.source();
    }
    if error.is_timeout() {
        OutboundError::Timeout
    } else if error.is_connect() {
        OutboundError::Connect(error_chain(&error))
    } else {
        OutboundError::Request(error_chain(&error))
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(text: &str) -> bool {
        is_global(text.parse().unwrap())
    }

    #[test]
    fn public_addresses_are_global() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "198.20.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:82b::200e",
            "64:ff9b::808:808",     // NAT64 of 8.8.8.8
            "2002:808:808::1",      // 6to4 of 8.8.8.8
            "2001:4860:4860::8888", // outside 2001::/23
        ] {
            assert!(global(ip), "{ip} should be global");
        }
    }

    #[test]
    fn every_non_global_class_is_refused() {
        let cases = [
            ("loopback", "127.0.0.1"),
            ("loopback (whole /8)", "127.255.0.9"),
            ("unspecified", "0.0.0.0"),
            ("this network", "0.1.2.3"),
            ("private 10/8", "10.1.2.3"),
            ("private 172.16/12", "172.16.0.1"),
            ("private 172.16/12 end", "172.31.255.255"),
            ("private 192.168/16", "192.168.1.1"),
            ("link-local", "169.254.1.1"),
            ("cloud metadata", "169.254.169.254"),
            ("CGNAT", "100.64.0.1"),
            ("CGNAT end", "100.127.255.254"),
            ("multicast", "224.0.0.1"),
            ("multicast end", "239.255.255.255"),
            ("broadcast", "255.255.255.255"),
            ("reserved 240/4", "240.0.0.1"),
            ("IETF 192.0.0/24", "192.0.0.8"),
            ("documentation 192.0.2/24", "192.0.2.1"),
            ("benchmark 198.18/15", "198.19.255.1"),
            ("documentation 198.51.100/24", "198.51.100.7"),
            ("documentation 203.0.113/24", "203.0.113.9"),
            ("6to4 relay", "192.88.99.1"),
            ("v6 loopback", "::1"),
            ("v6 unspecified", "::"),
            ("v6 unique-local", "fc00::1"),
            ("v6 unique-local fd", "fd12:3456::1"),
            ("v6 link-local", "fe80::1"),
            ("v6 site-local", "fec0::1"),
            ("v6 multicast", "ff02::1"),
            ("IPv4-mapped loopback", "::ffff:127.0.0.1"),
            ("IPv4-mapped public", "::ffff:8.8.8.8"),
            ("IPv4-compatible", "::127.0.0.1"),
            ("NAT64 of loopback", "64:ff9b::7f00:1"),
            ("NAT64 of metadata", "64:ff9b::a9fe:a9fe"),
            ("NAT64 of private", "64:ff9b::a00:1"),
            ("local-use NAT64", "64:ff9b:1::808:808"),
            ("6to4 of loopback", "2002:7f00:1::1"),
            ("6to4 of private", "2002:c0a8:101::1"),
            ("Teredo", "2001::1"),
            (
                "Teredo with a public-looking tail",
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            ),
            ("benchmark v6", "2001:2::1"),
            ("discard-only", "100::1"),
            ("documentation v6", "2001:db8::1"),
            ("documentation 3fff::/20", "3fff::1"),
            ("SRv6", "5f00::1"),
        ];
        for (class, ip) in cases {
            assert!(!global(ip), "{class}: {ip} must be refused");
        }
    }

    #[test]
    fn urls_are_checked_before_any_request() {
        let strict = Outbound::new(false).unwrap();
        let code = |url: &str| strict.check_url(url).map(|_| ()).map_err(|e| e.code());
        assert_eq!(code("https://example.com/hook"), Ok(()));
        assert_eq!(code("http://example.com/hook"), Err("insecure_url"));
        assert_eq!(code("ftp://example.com/"), Err("invalid_url"));
        assert_eq!(code("not a url"), Err("invalid_url"));
        assert_eq!(code("https://user:pw@example.com/"), Err("invalid_url"));
        assert_eq!(code("https://127.0.0.1/"), Err("blocked_address"));
        // The URL parser reads the other spellings of IPv4 addresses as the address.
        assert_eq!(code("https://0x7f.1/"), Err("blocked_address"));
        assert_eq!(code("https://2130706433/"), Err("blocked_address"));
        assert_eq!(code("https://[::ffff:127.0.0.1]/"), Err("blocked_address"));
        assert_eq!(code("https://[::1]/"), Err("blocked_address"));
        assert_eq!(code("https://169.254.169.254/"), Err("blocked_address"));
        // localhost resolves to loopback by definition: refused before any lookup.
        assert_eq!(code("https://localhost/hook"), Err("blocked_address"));
        assert_eq!(code("https://LOCALHOST./hook"), Err("blocked_address"));
        assert_eq!(
            code("https://api.localhost:8443/hook"),
            Err("blocked_address")
        );
        assert_eq!(code("https://notlocalhost.example/hook"), Ok(()));
        let insecure = Outbound::new(true).unwrap();
        assert!(insecure.check_url("http://127.0.0.1:8080/").is_ok());
        assert!(insecure.check_url("http://localhost:8080/").is_ok());
        // Loopback only: the rest stays refused.
        assert_eq!(
            insecure.check_url("http://10.0.0.1/").unwrap_err().code(),
            "blocked_address"
        );
    }

    #[tokio::test]
    async fn a_refused_lookup_names_the_host_never_the_address() {
        let resolver = VettingResolver {
            allow_loopback: false,
        };
        let name: Name = "localhost".parse().unwrap();
        let Err(error) = resolver.resolve(name).await else {
            panic!("localhost resolved to an allowed address");
        };
        let refused = error.downcast_ref::<Refused>().expect("a refusal");
        let text = OutboundError::BlockedAddress(refused.0.clone()).to_string();
        assert_eq!(text, "localhost is not a public internet address");
        assert!(
            !text.contains("127.0.0.1") && !text.contains("::1"),
            "{text}"
        );
    }
}
