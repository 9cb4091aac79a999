//! The client's address behind reverse proxies.
//!
//! A proxy appends the address it was reached from to `X-Forwarded-For`, so the header reads
//! `client, proxy1, proxy2` and the peer is the last proxy. Anything left of what a trusted
//! proxy appended may have been written by the client itself, so the header is read from the
//! right: starting at the peer, each address that is a trusted proxy hands over to the one it
//! names, and the first address that is not trusted is the client (the standard algorithm;
//! what a client prepends is never reached). A peer that is not trusted is the client, whatever
//! the header says.

use crate::http::state::AppState;
use actix_web::{HttpRequest, web};
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// The client's address, given the peer's, the `X-Forwarded-For` values in the order they
/// came (each may list several addresses) and the trusted proxies.
pub fn client_ip<'a>(
    peer: IpAddr,
    forwarded_for: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| is_trusted_proxy(*ip, trusted);
    let mut client = peer.to_canonical();
    if trusted.is_empty() {
        return client;
    }
    let hops: Vec<&str> = forwarded_for.flat_map(|value| value.split(',')).collect();
    for hop in hops.into_iter().rev() {
        if !is_trusted(&client) {
            break;
        }
        // A hop that is not an address (`unknown`, garbage): the trusted proxy that wrote it
        // is as far as anyone can tell.
        match parse_hop(hop.trim()) {
            Some(ip) => client = ip,
            None => break,
        }
    }
    client
}

/// Whether `peer` is one of the trusted proxies.
pub fn is_trusted_proxy(peer: IpAddr, trusted: &[IpNet]) -> bool {
    let peer = peer.to_canonical();
    trusted.iter().any(|net| net.contains(&peer))
}

/// One address of `X-Forwarded-For`: `192.0.2.1`, `2001:db8::1`, or either with a port
/// (`192.0.2.1:4711`, `[2001:db8::1]:4711`), as some proxies write them.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let ip = hop
        .parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| {
            hop.strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .and_then(|h| h.parse().ok())
        })?;
    Some(ip.to_canonical())
}

/// The client's address: the peer's, or, when the peer is one of `KONTOR_TRUSTED_PROXIES`,
/// the address its `X-Forwarded-For` names (see [`forwarded`]). Whatever keys on the client
/// (the login throttle, the request log) asks here.
pub fn client_address(req: &HttpRequest) -> Option<String> {
    let peer = req.peer_addr()?.ip();
    let forwarded_for = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok());
    Some(client_ip(peer, forwarded_for, trusted_proxies(req)).to_string())
}

/// `KONTOR_TRUSTED_PROXIES` (none when the request has no app state).
fn trusted_proxies(req: &HttpRequest) -> &[ipnet::IpNet] {
    req.app_data::<web::Data<AppState>>()
        .map(|state| state.config.trusted_proxies.as_slice())
        .unwrap_or_default()
}

/// The scheme and host the client asked for, for the log: a trusted proxy's
/// `Forwarded`/`X-Forwarded-Proto`/`X-Forwarded-Host` say them; from anyone else those
/// headers are ignored (the server itself speaks plain HTTP, and the host is the `Host`
/// header's).
pub fn requested_scheme_and_host(req: &HttpRequest) -> (String, String) {
    let from_trusted_proxy = req
        .peer_addr()
        .is_some_and(|peer| is_trusted_proxy(peer.ip(), trusted_proxies(req)));
    if from_trusted_proxy {
        let info = req.connection_info();
        return (info.scheme().to_string(), info.host().to_string());
    }
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    ("http".to_string(), host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter()
            .map(|n| {
                n.parse()
                    .unwrap_or_else(|_| IpNet::from(n.parse::<IpAddr>().unwrap()))
            })
            .collect()
    }

    fn client(peer: &str, headers: &[&str], trusted: &[&str]) -> String {
        client_ip(
            peer.parse().unwrap(),
            headers.iter().copied(),
            &nets(trusted),
        )
        .to_string()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        assert_eq!(client("203.0.113.9", &["198.51.100.1"], &[]), "203.0.113.9");
        assert_eq!(
            client("203.0.113.9", &["198.51.100.1"], &["10.0.0.0/8"]),
            "203.0.113.9"
        );
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        assert_eq!(
            client("10.0.0.2", &["198.51.100.1"], &["10.0.0.0/8"]),
            "198.51.100.1"
        );
        // Without the header the proxy itself is all there is.
        assert_eq!(client("10.0.0.2", &[], &["10.0.0.0/8"]), "10.0.0.2");
    }

    #[test]
    fn what_the_client_prepends_is_never_reached() {
        // The client sent `X-Forwarded-For: 1.2.3.4`; the proxy appended the client's address.
        assert_eq!(
            client("10.0.0.2", &["1.2.3.4, 198.51.100.1"], &["10.0.0.0/8"]),
            "198.51.100.1"
        );
        // Two proxies in a row, one of them listed as a single address; headers sent twice
        // count in order.
        assert_eq!(
            client(
                "10.0.0.2",
                &["1.2.3.4, 198.51.100.1", "192.168.1.7"],
                &["10.0.0.0/8", "192.168.1.7"]
            ),
            "198.51.100.1"
        );
        // Every hop trusted: the left-most is the best known.
        assert_eq!(
            client("10.0.0.2", &["10.0.0.3,10.0.0.4"], &["10.0.0.0/8"]),
            "10.0.0.3"
        );
    }

    #[test]
    fn garbage_stops_at_the_proxy_that_wrote_it_and_ports_and_ipv6_are_read() {
        assert_eq!(
            client("10.0.0.2", &["198.51.100.1, unknown"], &["10.0.0.0/8"]),
            "10.0.0.2"
        );
        assert_eq!(
            client("10.0.0.2", &["198.51.100.1:4711"], &["10.0.0.0/8"]),
            "198.51.100.1"
        );
        assert_eq!(
            client("::1", &["[2001:db8::7]:4711"], &["::1"]),
            "2001:db8::7"
        );
        assert_eq!(client("::1", &["2001:db8::7"], &["::1"]), "2001:db8::7");
        // An IPv4 peer seen through an IPv6 socket is still the IPv4 address.
        assert_eq!(
            client("::ffff:127.0.0.1", &["198.51.100.1"], &["127.0.0.1/32"]),
            "198.51.100.1"
        );
    }
}
