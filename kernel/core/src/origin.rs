//! Which origins a plugin may send HTTP requests to: its granted network patterns.
//!
//! A pattern is `*` (any http or https host on any port) or `scheme://host[:port]`:
//! - `scheme` is `http` or `https`;
//! - `host` is a name (`api.example.org`), `*.` followed by a name (any subdomain of it, not
//!   the name itself), an IPv4 address or a bracketed IPv6 address;
//! - `port` is a number or `*`; without one only the scheme's default port matches.
//!
//! Names compare case-insensitively; a trailing `/` is allowed, a path is not.

use std::fmt;
use std::net::IpAddr;

/// The origin of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub scheme: Scheme,
    /// Lowercase name, or an IP address without brackets.
    pub host: String,
    pub port: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    fn parse(text: &str) -> Option<Scheme> {
        match text.to_ascii_lowercase().as_str() {
            "http" => Some(Scheme::Http),
            "https" => Some(Scheme::Https),
            _ => None,
        }
    }

    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => format!("[{}]", self.host),
            _ => self.host.clone(),
        };
        write!(f, "{}://{host}:{}", self.scheme.as_str(), self.port)
    }
}

impl Origin {
    /// The origin of a request from its scheme and authority (`host[:port]`, userinfo ignored).
    pub fn new(scheme: &str, authority: &str) -> Result<Origin, String> {
        let scheme = Scheme::parse(scheme)
            .ok_or_else(|| format!("scheme `{scheme}` is not http or https"))?;
        let authority = authority.rsplit('@').next().unwrap_or(authority);
        let (host, port) = split_host_port(authority)?;
        let port = match port {
            Some(PortSpec::Number(n)) => n,
            Some(PortSpec::Any) => return Err(format!("`{authority}`: `*` is not a port")),
            None => scheme.default_port(),
        };
        if host.is_empty() {
            return Err("the request has no host".to_string());
        }
        Ok(Origin { scheme, host, port })
    }

    /// The origin of an absolute `http(s)://` URL, or `None` when it has none.
    pub fn of_url(url: &str) -> Option<Origin> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let authority = rest.split(['/', '?', '#', '\\']).next()?;
        Origin::new(scheme, authority).ok()
    }

    /// The origin of `url` when its host names a local address ([`Origin::names_local_address`]).
    pub fn local_of_url(url: &str) -> Option<Origin> {
        Origin::of_url(url).filter(Origin::names_local_address)
    }

    /// Whether the host names a local address by itself: `localhost` (and its subdomains,
    /// which resolvers answer with loopback), or an address literal in a local range
    /// ([`crate::netrange`]). A name that merely resolves to one is found only at connect time.
    pub fn names_local_address(&self) -> bool {
        match self.host.parse::<IpAddr>() {
            Ok(ip) => crate::netrange::range_of(ip).is_some_and(|r| r.local),
            Err(_) => is_localhost(&self.host),
        }
    }
}

fn is_localhost(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    host == "localhost" || host.ends_with(".localhost")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSpec {
    Exact(String),
    /// `*.suffix`: any name ending in `.suffix`.
    Subdomains(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortSpec {
    Number(u16),
    Any,
}

/// One parsed network pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// `*`: any http or https origin.
    Any,
    Origin {
        scheme: Scheme,
        host: HostSpec,
        port: PortSpec,
    },
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let text = text.trim();
        if text == "*" {
            return Ok(Pattern::Any);
        }
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| format!("`{text}`: expected `*` or `scheme://host[:port]`"))?;
        let scheme = Scheme::parse(scheme)
            .ok_or_else(|| format!("`{text}`: scheme `{scheme}` is not http or https"))?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#', '@']) {
            return Err(format!("`{text}`: a pattern names an origin, not a path"));
        }
        let (host, port) = split_host_port(rest).map_err(|e| format!("`{text}`: {e}"))?;
        let host = match host.strip_prefix("*.") {
            Some(suffix) if valid_name(suffix) => HostSpec::Subdomains(suffix.to_string()),
            Some(_) => return Err(format!("`{text}`: `*.` must be followed by a host name")),
            None if host.parse::<IpAddr>().is_ok() || valid_name(&host) => HostSpec::Exact(host),
            None => return Err(format!("`{text}`: `{host}` is not a host name")),
        };
        Ok(Pattern::Origin {
            scheme,
            host,
            port: port.unwrap_or(PortSpec::Number(scheme.default_port())),
        })
    }

    pub fn matches(&self, origin: &Origin) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Origin { scheme, host, port } => {
                let host_ok = match host {
                    HostSpec::Exact(name) => same_host(name, &origin.host),
                    HostSpec::Subdomains(suffix) => origin
                        .host
                        .strip_suffix(suffix.as_str())
                        .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
                };
                let port_ok = match port {
                    PortSpec::Any => true,
                    PortSpec::Number(n) => *n == origin.port,
                };
                *scheme == origin.scheme && host_ok && port_ok
            }
        }
    }

    /// Whether this pattern matches `origin` by naming its host itself as an address literal
    /// or `localhost`: only such a grant reaches local addresses (never `*`, `*.name` or a
    /// name, which DNS could point anywhere).
    pub fn names_local(&self, origin: &Origin) -> bool {
        match self {
            Pattern::Origin {
                host: HostSpec::Exact(name),
                ..
            } => {
                self.matches(origin)
                    && (name.parse::<IpAddr>().is_ok() || is_localhost(name))
                    && origin.names_local_address()
            }
            _ => false,
        }
    }
}

/// The granted patterns of one plugin. Patterns that do not parse match nothing.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    patterns: Vec<Pattern>,
}

impl AllowedHosts {
    pub fn new<S: AsRef<str>>(granted: &[S]) -> AllowedHosts {
        AllowedHosts {
            patterns: granted
                .iter()
                .filter_map(|p| Pattern::parse(p.as_ref()).ok())
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn allows(&self, origin: &Origin) -> bool {
        self.patterns.iter().any(|p| p.matches(origin))
    }

    /// Whether a granted pattern names `origin`'s local host itself ([`Pattern::names_local`]).
    pub fn names_local(&self, origin: &Origin) -> bool {
        self.patterns.iter().any(|p| p.names_local(origin))
    }
}

/// `host[:port]` with `[v6]` hosts; the host comes back lowercase and without brackets.
fn split_host_port(text: &str) -> Result<(String, Option<PortSpec>), String> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("`{text}`: unclosed `[`"))?;
        if host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{host}` is not an IPv6 address"));
        }
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return Err(format!("`{text}`: unexpected text after `]`")),
            },
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    let port = match port {
        None => None,
        Some("*") => Some(PortSpec::Any),
        Some(p) => Some(PortSpec::Number(
            p.parse::<u16>()
                .ok()
                .filter(|n| *n != 0)
                .ok_or_else(|| format!("`{p}` is not a port number"))?,
        )),
    };
    Ok((host.to_ascii_lowercase(), port))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

fn same_host(pattern: &str, host: &str) -> bool {
    match (pattern.parse::<IpAddr>(), host.parse::<IpAddr>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => pattern == host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        let (scheme, authority) = url.split_once("://").unwrap();
        Origin::new(scheme, authority).unwrap()
    }

    #[test]
    fn only_an_address_literal_or_localhost_names_a_local_host() {
        // (url, names a local address by itself)
        for (url, local) in [
            ("http://127.0.0.1:8080/x", true),
            ("http://LOCALHOST/", true),
            ("http://api.localhost./", true),
            ("http://[::1]:9/", true),
            ("http://10.0.0.1/admin", true),
            ("http://user@192.168.1.1/", true),
            ("http://169.254.169.254/", false),
            ("https://example.com/", false),
            ("http://2130706433/", false),
            ("http://localhost.example.com/", false),
        ] {
            let found = Origin::local_of_url(url);
            assert_eq!(found.is_some(), local, "{url}: {found:?}");
        }
        // Only a grant that names the local host itself reaches it; `*` and names do not.
        let loopback = origin("http://127.0.0.1:8080");
        for (pattern, names) in [
            ("*", false),
            ("http://127.0.0.1:*", true),
            ("http://127.0.0.1:8080", true),
            ("http://127.0.0.1:9", false),
            ("https://127.0.0.1:8080", false),
        ] {
            let granted = AllowedHosts::new(&[pattern]);
            assert_eq!(granted.names_local(&loopback), names, "{pattern}");
        }
        assert!(
            AllowedHosts::new(&["http://localhost:*"])
                .names_local(&origin("http://localhost:3000"))
        );
        assert!(
            !AllowedHosts::new(&["http://*.localhost"]).names_local(&origin("http://a.localhost"))
        );
    }

    #[test]
    fn patterns_match_origins() {
        // (pattern, request origin, allowed)
        let cases = [
            ("*", "https://api.example.com", true),
            ("*", "http://127.0.0.1:8080", true),
            ("https://api.example.com", "https://api.example.com", true),
            (
                "https://api.example.com",
                "https://API.Example.com:443",
                true,
            ),
            ("https://api.example.com/", "https://api.example.com", true),
            ("https://api.example.com", "http://api.example.com", false),
            (
                "https://api.example.com",
                "https://api.example.com:8443",
                false,
            ),
            ("https://api.example.com", "https://example.com", false),
            (
                "https://api.example.com",
                "https://api.example.com.evil.io",
                false,
            ),
            (
                "https://api.example.com",
                "https://evil.io@api.example.com",
                true,
            ),
            ("https://*.example.com", "https://a.example.com", true),
            ("https://*.example.com", "https://a.b.example.com", true),
            ("https://*.example.com", "https://example.com", false),
            ("https://*.example.com", "https://badexample.com", false),
            (
                "https://*.example.com",
                "https://a.example.com.evil.io",
                false,
            ),
            ("http://localhost:8080", "http://localhost:8080", true),
            ("http://localhost:8080", "http://localhost:8081", false),
            ("http://localhost:*", "http://localhost:9", true),
            ("http://localhost:*", "https://localhost:9", false),
            ("http://127.0.0.1:11434", "http://127.0.0.1:11434", true),
            ("http://[::1]:8080", "http://[::1]:8080", true),
            ("http://[::1]:8080", "http://[0:0:0:0:0:0:0:1]:8080", true),
            ("http://[::1]", "http://[::1]:8080", false),
        ];
        for (pattern, url, allowed) in cases {
            let parsed = Pattern::parse(pattern).unwrap();
            assert_eq!(parsed.matches(&origin(url)), allowed, "{pattern} vs {url}");
        }
    }

    #[test]
    fn bad_patterns_are_rejected_and_match_nothing() {
        for bad in [
            "",
            "example.com",
            "ftp://example.com",
            "file:///etc",
            "https://example.com/path",
            "https://user@example.com",
            "https://*.",
            "https://*",
            "https://exa mple.com",
            "https://example.com:0",
            "https://example.com:99999",
            "https://[::1",
            "https://[nope]:80",
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad:?} parsed");
        }
        let hosts = AllowedHosts::new(&["ftp://example.com", "example.com"]);
        assert!(hosts.is_empty());
        assert!(!hosts.allows(&origin("https://example.com")));
    }

    #[test]
    fn no_grant_allows_nothing() {
        let none: [&str; 0] = [];
        assert!(!AllowedHosts::new(&none).allows(&origin("http://127.0.0.1")));
        let some = AllowedHosts::new(&["https://a.io", "https://*.b.io"]);
        assert!(some.allows(&origin("https://x.b.io")));
        assert!(!some.allows(&origin("https://c.io")));
    }

    #[test]
    fn request_origins_parse() {
        assert_eq!(
            origin("http://Example.COM").to_string(),
            "http://example.com:80"
        );
        assert_eq!(origin("https://[::1]:9").to_string(), "https://[::1]:9");
        assert!(Origin::new("ftp", "example.com").is_err());
        assert!(Origin::new("https", "").is_err());
        assert!(Origin::new("https", "x:*").is_err());
    }
}
