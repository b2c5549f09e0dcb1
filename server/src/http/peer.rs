//! Who a request comes from, and whether it came over TLS: the socket's
//! peer, or behind a trusted reverse proxy (`--behind-proxy`) the client
//! the proxy names in `X-Forwarded-For` and `X-Forwarded-Proto`.
//!
//! Those headers are believed only from the proxies' own addresses: from
//! anyone else they are ignored, so a client cannot pick the address its
//! per-address limits count against, nor claim TLS it did not use.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use super::head::Head;

/// Whom a request comes from, as the rest of the server sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    /// The client's address: the per-address limits count against it.
    pub addr: IpAddr,
    /// Whether the request reached Parlor under TLS: over native TLS
    /// (`--tls-cert`), or from a trusted proxy that says
    /// `X-Forwarded-Proto: https`. Passwords and `Secure` cookies need it.
    pub secure: bool,
}

/// Addresses whose `X-Forwarded-*` headers are believed: single
/// addresses or CIDR blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    nets: Vec<Net>,
}

/// An address block: `addr` with its first `prefix` bits significant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    addr: IpAddr,
    prefix: u8,
}

/// Why `--behind-proxy` could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an address or a CIDR block (such as 127.0.0.1 or 10.0.0.0/8)")]
pub struct BadNet(String);

impl FromStr for Net {
    type Err = BadNet;

    fn from_str(s: &str) -> Result<Net, BadNet> {
        let bad = || BadNet(s.to_owned());
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = addr.trim().parse().map_err(|_| bad())?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p.trim().parse::<u8>().map_err(|_| bad())?,
        };
        if prefix > max {
            return Err(bad());
        }
        Ok(Net { addr, prefix })
    }
}

impl fmt::Display for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

// In a configuration file a block is written as on the command line.
impl serde::Serialize for Net {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Net {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Net, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Net {
    /// Whether `ip` lies in the block (an IPv4 address also matches as
    /// its IPv4-mapped IPv6 form, as a dual-stack socket reports it).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl Proxies {
    /// Trusts `nets`.
    pub fn new(nets: Vec<Net>) -> Proxies {
        Proxies { nets }
    }

    /// Whether no proxy is trusted (the headers are then never read).
    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    /// Whether `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.nets.iter().any(|n| n.contains(ip))
    }

    /// Whom the request `head`, which arrived from `socket` (under TLS if
    /// `tls`), comes from. From a trusted proxy: the rightmost address of
    /// `X-Forwarded-For` that is not itself a trusted proxy (entries to
    /// its left were written by the client and prove nothing), and secure
    /// if the rightmost `X-Forwarded-Proto` (the one the nearest proxy
    /// wrote) is `https`. A forwarded entry that is not an address stops
    /// the walk at the proxy that passed it on.
    pub fn peer(&self, socket: IpAddr, tls: bool, head: &Head) -> Peer {
        let mut peer = Peer {
            addr: socket,
            secure: tls,
        };
        if !self.trusts(socket) {
            return peer;
        }
        let forwarded = values(head, "x-forwarded-for");
        for entry in forwarded.iter().rev() {
            match parse_forwarded_addr(entry) {
                Some(ip) => {
                    peer.addr = ip;
                    if !self.trusts(ip) {
                        break;
                    }
                }
                None => break,
            }
        }
        if values(head, "x-forwarded-proto")
            .last()
            .is_some_and(|p| p.eq_ignore_ascii_case("https"))
        {
            peer.secure = true;
        }
        peer
    }
}

/// Every comma-separated value of the header `name`, over all its lines
/// in order, trimmed.
fn values<'h>(head: &'h Head, name: &str) -> Vec<&'h str> {
    head.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .flat_map(|(_, v)| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect()
}

/// An `X-Forwarded-For` entry's address: `1.2.3.4`, `1.2.3.4:5678`,
/// `::1` or `[::1]:5678`.
fn parse_forwarded_addr(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sock) = entry.parse::<std::net::SocketAddr>() {
        return Some(sock.ip());
    }
    entry
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .and_then(|(ip, _)| ip.parse().ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    fn head(headers: &[(&str, &str)]) -> Head {
        Head {
            method: "GET".into(),
            target: "/".into(),
            minor: 1,
            upgrade: false,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            bytes: Vec::new(),
            len: 0,
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn proxies(nets: &[&str]) -> Proxies {
        Proxies::new(
            nets.iter()
                .map(|n| n.parse().unwrap_or_else(|e| panic!("{e}")))
                .collect(),
        )
    }

    #[test]
    fn nets_parse_and_contain() {
        let lan: Net = "10.1.0.0/16".parse().unwrap_or_else(|e| panic!("{e}"));
        assert!(lan.contains(ip("10.1.200.3")));
        assert!(!lan.contains(ip("10.2.0.1")));
        assert!(lan.contains(ip("::ffff:10.1.0.9")));
        let one: Net = "127.0.0.1".parse().unwrap_or_else(|e| panic!("{e}"));
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let all: Net = "0.0.0.0/0".parse().unwrap_or_else(|e| panic!("{e}"));
        assert!(all.contains(ip("8.8.8.8")) && !all.contains(ip("::2")));
        let v6: Net = "fd00::/8".parse().unwrap_or_else(|e| panic!("{e}"));
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        for bad in ["", "10.0.0.0/33", "::/129", "example.com", "10.0.0.0/x"] {
            assert!(bad.parse::<Net>().is_err(), "{bad}");
        }
    }

    #[test]
    fn an_untrusted_peer_is_taken_as_it_is_whatever_it_claims() {
        let trusted = proxies(&["127.0.0.1"]);
        let spoof = head(&[
            ("X-Forwarded-For", "1.2.3.4"),
            ("X-Forwarded-Proto", "https"),
        ]);
        let peer = trusted.peer(ip("192.0.2.7"), false, &spoof);
        assert_eq!(
            peer,
            Peer {
                addr: ip("192.0.2.7"),
                secure: false
            }
        );
        // No proxy trusted at all: the same.
        assert_eq!(
            Proxies::default().peer(ip("127.0.0.1"), false, &spoof),
            Peer {
                addr: ip("127.0.0.1"),
                secure: false
            }
        );
        // Native TLS is secure whatever the headers say.
        assert!(trusted.peer(ip("192.0.2.7"), true, &head(&[])).secure);
    }

    #[test]
    fn a_trusted_proxy_names_the_client_and_the_scheme() {
        let trusted = proxies(&["127.0.0.1"]);
        let peer = trusted.peer(
            ip("127.0.0.1"),
            false,
            &head(&[
                ("X-Forwarded-For", "203.0.113.9"),
                ("X-Forwarded-Proto", "https"),
            ]),
        );
        assert_eq!(
            peer,
            Peer {
                addr: ip("203.0.113.9"),
                secure: true
            }
        );
        let plain = trusted.peer(
            ip("127.0.0.1"),
            false,
            &head(&[
                ("X-Forwarded-For", "203.0.113.9"),
                ("X-Forwarded-Proto", "http"),
            ]),
        );
        assert!(!plain.secure);
        // No header: the proxy itself.
        assert_eq!(
            trusted.peer(ip("127.0.0.1"), false, &head(&[])).addr,
            ip("127.0.0.1")
        );
    }

    #[test]
    fn the_rightmost_untrusted_entry_wins_over_what_the_client_wrote() {
        let trusted = proxies(&["127.0.0.1", "10.0.0.0/8"]);
        // The client wrote `6.6.6.6` itself; the proxies appended the
        // address they saw, 198.51.100.4, then 10.0.0.2 (a proxy).
        let h = head(&[("X-Forwarded-For", "6.6.6.6, 198.51.100.4, 10.0.0.2")]);
        assert_eq!(
            trusted.peer(ip("127.0.0.1"), false, &h).addr,
            ip("198.51.100.4")
        );
        // Split over two lines, with ports and brackets.
        let h = head(&[
            ("X-Forwarded-For", "6.6.6.6"),
            ("x-forwarded-for", "[2001:db8::5]:4433, 10.0.0.3:80"),
        ]);
        assert_eq!(
            trusted.peer(ip("127.0.0.1"), false, &h).addr,
            ip("2001:db8::5")
        );
        // Garbage to the right stops the walk at the proxy that passed it.
        let h = head(&[("X-Forwarded-For", "6.6.6.6, unknown")]);
        assert_eq!(
            trusted.peer(ip("127.0.0.1"), false, &h).addr,
            ip("127.0.0.1")
        );
        // Every entry a proxy: the leftmost of them.
        let h = head(&[("X-Forwarded-For", "10.0.0.5, 10.0.0.6")]);
        assert_eq!(
            trusted.peer(ip("127.0.0.1"), false, &h).addr,
            ip("10.0.0.5")
        );
    }

    #[test]
    fn only_the_nearest_proxys_scheme_counts() {
        let trusted = proxies(&["127.0.0.1"]);
        // A proxy that appends rather than replaces: the client's own
        // `https` is to the left of what the proxy saw.
        let h = head(&[("X-Forwarded-Proto", "https, http")]);
        assert!(!trusted.peer(ip("127.0.0.1"), false, &h).secure);
        let h = head(&[("X-Forwarded-Proto", "HTTPS")]);
        assert!(trusted.peer(ip("127.0.0.1"), false, &h).secure);
    }
}
