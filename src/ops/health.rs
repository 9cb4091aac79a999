//! `kontor health`: asks a running server's `/readyz` whether it can serve, for a container's
//! health check (the image has no curl). Plain HTTP/1.1 over a socket, nothing more: the
//! probes are on the server's own address, never behind TLS.

use anyhow::{Context, bail};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long the check waits to connect, and then for the answer.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an answer that is read (the probe's answers are small).
const MOST_READ: u64 = 16 * 1024;

/// The URL to ask when none is given: `/readyz` on the address the server binds, through the
/// loopback interface when it binds every interface (0.0.0.0 or [::]).
pub fn default_url(bind: SocketAddr) -> String {
    let mut address = bind;
    if address.ip().is_unspecified() {
        address.set_ip(match address {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    format!("http://{address}/readyz")
}

/// GETs `url` (`http://host:port/path`; a URL without a path asks `/readyz`): `Ok` with the
/// status line if the answer is 200, else an error that says why (not reachable, or the
/// status and the start of the body, which names what is not ready).
pub fn check(url: &str) -> anyhow::Result<String> {
    let mut parsed = url::Url::parse(url).with_context(|| format!("{url:?} is not a URL"))?;
    if parsed.scheme() != "http" {
        bail!("{url}: only http:// URLs are checked (the probes are on the server's own address)");
    }
    if matches!(parsed.path(), "" | "/") {
        parsed.set_path("/readyz");
    }
    let host = parsed
        .host_str()
        .with_context(|| format!("{url} names no host"))?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    let url = parsed.as_str();
    let path = &parsed[url::Position::BeforePath..url::Position::AfterQuery];
    let addresses: Vec<SocketAddr> = (host.trim_matches(['[', ']']), port)
        .to_socket_addrs()
        .with_context(|| format!("{host} cannot be resolved"))?
        .collect();
    let mut stream = connect(&addresses).with_context(|| format!("{url} cannot be reached"))?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: kontor-health\r\nConnection: close\r\n\r\n"
    )
    .with_context(|| format!("sending the request to {url}"))?;
    let mut answer = Vec::new();
    stream
        .take(MOST_READ)
        .read_to_end(&mut answer)
        .with_context(|| format!("reading the answer of {url}"))?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status_line = head.lines().next().unwrap_or("").trim();
    let status = status_line.split_whitespace().nth(1).unwrap_or("");
    if status == "200" {
        return Ok(format!("{url}: {status_line}"));
    }
    if status_line.is_empty() {
        bail!("{url} closed the connection without an answer");
    }
    let body: String = body.trim().chars().take(300).collect();
    bail!("{url} answered {status_line}: {body}")
}

fn connect(addresses: &[SocketAddr]) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    for address in addresses {
        match TcpStream::connect_timeout(address, TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(error) => last = error,
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_url_reaches_every_interface_through_loopback() {
        assert_eq!(
            default_url("0.0.0.0:8080".parse().unwrap()),
            "http://127.0.0.1:8080/readyz"
        );
        assert_eq!(
            default_url("[::]:80".parse().unwrap()),
            "http://[::1]:80/readyz"
        );
        assert_eq!(
            default_url("10.0.0.5:9000".parse().unwrap()),
            "http://10.0.0.5:9000/readyz"
        );
    }

    #[test]
    fn only_plain_http_is_asked() {
        let refused = check("https://127.0.0.1:1/readyz").unwrap_err();
        assert!(refused.to_string().contains("only http://"), "{refused}");
    }
}
