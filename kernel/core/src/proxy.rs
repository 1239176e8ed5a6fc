//! Which outbound connections go through an HTTP proxy: the one decision of the process, taken
//! by every HTTP client in it (plugin requests and provider streams in `reasonix-host`, MCP
//! servers over HTTP in `reasonix-mcp`, the model list of `host-cli`), read once per process
//! from the standard environment variables:
//!
//! - `HTTPS_PROXY`/`https_proxy` for https URLs, `HTTP_PROXY`/`http_proxy` for http URLs,
//!   `ALL_PROXY`/`all_proxy` for either when its own variable is unset; the uppercase name wins
//!   and an empty value counts as unset;
//! - `NO_PROXY`/`no_proxy`: hosts reached directly, a comma (or space) separated list of
//!   `*` (every host), names (`example.org` matches it and its subdomains, `.example.org` only
//!   its subdomains, `*.example.org` likewise), IP addresses, CIDR ranges (`10.0.0.0/8`), each
//!   optionally with `:port`.
//!
//! When neither `NO_PROXY` nor `no_proxy` is set, loopback (`localhost`, `127.0.0.0/8`, `::1`)
//! is reached directly, as Go's `net/http` does; a set `NO_PROXY` (even an empty one) replaces
//! that default, as curl's list does, so list loopback in it when local servers must stay
//! direct. (Library defaults differ here: reqwest's own environment proxy sends loopback to the
//! proxy, so no client may use it.)
//!
//! A proxy is `http://[user:password@]host[:port]` (port 80 by default) or a bare `host:port`.
//! Other schemes (`https://`, `socks5://`) are not supported: requests that would use such a
//! proxy fail with an error naming the variable, rather than silently bypassing a proxy the
//! user asked for.

use crate::origin::{Origin, Scheme};
use http::HeaderValue;
use std::fmt;
use std::net::IpAddr;
use std::sync::OnceLock;

/// The proxy settings of this process.
#[derive(Debug, Clone, Default)]
pub struct ProxyConfig {
    http: Option<Setting>,
    https: Option<Setting>,
    no_proxy: NoProxy,
}

/// A proxy variable's value: the proxy, or why it cannot be used.
type Setting = Result<Proxy, String>;

/// One usable HTTP proxy.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    /// Lowercase name, or an IP address without brackets.
    pub host: String,
    pub port: u16,
    /// `Basic …` from the URL's userinfo.
    pub authorization: Option<HeaderValue>,
    /// The environment variable it came from, for messages.
    pub variable: &'static str,
}

impl Proxy {
    /// `proxy http://host:port (from VARIABLE)`, for error messages.
    pub fn describe(&self) -> String {
        format!("proxy {self} (from {})", self.variable)
    }
}

impl fmt::Display for Proxy {
    /// Without the credentials: this goes into error messages and logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(_)) => write!(f, "http://[{}]:{}", self.host, self.port),
            _ => write!(f, "http://{}:{}", self.host, self.port),
        }
    }
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Proxy({self})")
    }
}

/// How one request leaves the machine.
#[derive(Debug, PartialEq, Eq)]
pub enum Route<'a> {
    Direct,
    Via(&'a Proxy),
    /// A proxy is configured for this request but cannot be used; the message says why.
    Unusable(&'a str),
}

impl Route<'_> {
    /// What idle connections to `origin` on this route are pooled under: a connection through
    /// a proxy is never reused for a direct request or another proxy, nor the other way.
    pub fn pool_key(&self, origin: &Origin) -> String {
        match self {
            Route::Via(proxy) => format!("{origin} via {proxy}"),
            Route::Direct | Route::Unusable(_) => origin.to_string(),
        }
    }
}

impl ProxyConfig {
    /// The settings from the process environment, read on first use.
    pub fn global() -> &'static ProxyConfig {
        static CONFIG: OnceLock<ProxyConfig> = OnceLock::new();
        CONFIG.get_or_init(|| ProxyConfig::from_env(|name| std::env::var(name).ok()))
    }

    /// The settings from environment variables as `lookup` returns them.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> ProxyConfig {
        let first_set = |names: &[&'static str]| {
            names.iter().find_map(|name| {
                lookup(name)
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .map(|v| (*name, v))
            })
        };
        let setting = |names: &[&'static str]| {
            first_set(names).map(|(name, value)| {
                Proxy::parse(&value)
                    .map(|proxy| Proxy {
                        variable: name,
                        ..proxy
                    })
                    .map_err(|why| {
                        format!(
                            "{name}=`{}` cannot be used: {why}",
                            without_credentials(&value)
                        )
                    })
            })
        };
        let no_proxy = match lookup("NO_PROXY").or_else(|| lookup("no_proxy")) {
            Some(list) => NoProxy::parse(&list),
            None => NoProxy::loopback(),
        };
        ProxyConfig {
            http: setting(&["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]),
            https: setting(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]),
            no_proxy,
        }
    }

    pub fn route(&self, origin: &Origin) -> Route<'_> {
        let setting = match origin.scheme {
            Scheme::Http => &self.http,
            Scheme::Https => &self.https,
        };
        match setting {
            None => Route::Direct,
            Some(_) if self.no_proxy.matches(&origin.host, origin.port) => Route::Direct,
            Some(Ok(proxy)) => Route::Via(proxy),
            Some(Err(why)) => Route::Unusable(why),
        }
    }
}

impl Proxy {
    /// `http://[user:password@]host[:port][/]` or `host:port`.
    pub fn parse(text: &str) -> Result<Proxy, String> {
        let rest = match text.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
            Some((scheme, _)) => {
                return Err(format!(
                    "`{scheme}://` proxies are not supported, only `http://` ones"
                ));
            }
            None => text,
        };
        // A path after the authority means nothing to a proxy (Go ignores it too).
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, authority),
        };
        let (host, port) = split_host_port(hostport)?;
        let authorization = userinfo
            .map(|userinfo| {
                let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
                let credentials =
                    format!("{}:{}", percent_decode(user)?, percent_decode(password)?);
                HeaderValue::try_from(format!(
                    "Basic {}",
                    crate::base64::encode(credentials.as_bytes())
                ))
                .map_err(|_| "the credentials do not fit in a header".to_string())
            })
            .transpose()?;
        Ok(Proxy {
            host,
            port: port.unwrap_or(80),
            authorization,
            variable: "",
        })
    }
}

/// `host[:port]` with `[v6]` hosts; the host comes back lowercase and without brackets.
fn split_host_port(text: &str) -> Result<(String, Option<u16>), String> {
    let port_number = |p: &str| {
        p.parse::<u16>()
            .ok()
            .filter(|n| *n != 0)
            .ok_or_else(|| format!("`{p}` is not a port number"))
    };
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("`{text}` has an unclosed `[`"))?;
        if host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{host}` is not an IPv6 address"));
        }
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (host, Some(port_number(port)?)),
                None => return Err(format!("unexpected text after `]` in `{text}`")),
            },
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port_number(port)?)),
            None => (text, None),
        }
    };
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    if !valid {
        return Err(format!("`{host}` is not a host name"));
    }
    Ok((host.to_ascii_lowercase(), port))
}

/// The hosts reached without a proxy.
#[derive(Debug, Clone, Default)]
struct NoProxy {
    all: bool,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
enum Entry {
    /// `.suffix` (subdomains only) or `name` (itself and subdomains, `exact` set).
    Domain {
        suffix: String,
        exact: bool,
        port: Option<u16>,
    },
    Ip {
        ip: IpAddr,
        port: Option<u16>,
    },
    Cidr {
        network: IpAddr,
        bits: u8,
    },
}

impl NoProxy {
    fn loopback() -> NoProxy {
        NoProxy::parse("localhost,127.0.0.0/8,::1")
    }

    /// Entries that are neither an address, a range nor a name are skipped: they could match
    /// no request anyway.
    fn parse(list: &str) -> NoProxy {
        let mut no_proxy = NoProxy::default();
        for entry in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
        {
            let entry = entry.to_ascii_lowercase();
            if entry == "*" {
                no_proxy.all = true;
            } else if let Some(parsed) = Entry::parse(&entry) {
                no_proxy.entries.push(parsed);
            }
        }
        no_proxy
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        if self.all {
            return true;
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let ip = host.parse::<IpAddr>().ok().map(canonical);
        self.entries.iter().any(|entry| match entry {
            Entry::Domain {
                suffix,
                exact,
                port: want,
            } => {
                want.is_none_or(|p| p == port)
                    && (host.ends_with(suffix.as_str()) || (*exact && host == suffix[1..]))
            }
            Entry::Ip { ip: want, port: p } => ip == Some(*want) && p.is_none_or(|p| p == port),
            Entry::Cidr { network, bits } => ip.is_some_and(|ip| in_range(ip, *network, *bits)),
        })
    }
}

impl Entry {
    fn parse(entry: &str) -> Option<Entry> {
        if let Some((network, bits)) = entry.split_once('/') {
            let network = canonical(network.parse::<IpAddr>().ok()?);
            let bits = bits.parse::<u8>().ok()?;
            let max = if network.is_ipv4() { 32 } else { 128 };
            return (bits <= max).then_some(Entry::Cidr { network, bits });
        }
        if let Ok(ip) = entry.parse::<IpAddr>() {
            return Some(Entry::Ip {
                ip: canonical(ip),
                port: None,
            });
        }
        let (host, port) = split_host_port(entry.strip_prefix('*').unwrap_or(entry)).ok()?;
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Some(Entry::Ip {
                ip: canonical(ip),
                port,
            });
        }
        let host = host.trim_end_matches('.');
        if host.is_empty() || host == "." || host.contains(':') {
            return None;
        }
        Some(match host.strip_prefix('.') {
            Some(_) => Entry::Domain {
                suffix: host.to_string(),
                exact: false,
                port,
            },
            None => Entry::Domain {
                suffix: format!(".{host}"),
                exact: true,
                port,
            },
        })
    }
}

/// IPv4-mapped IPv6 addresses compare as the IPv4 address they carry.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

fn in_range(ip: IpAddr, network: IpAddr, bits: u8) -> bool {
    let prefix = |value: u128, width: u32| {
        let bits = u32::from(bits);
        if bits == 0 {
            0
        } else {
            value >> (width - bits)
        }
    };
    match (ip, network) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            prefix(u128::from(u32::from(a)), 32) == prefix(u128::from(u32::from(n)), 32)
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => prefix(u128::from(a), 128) == prefix(u128::from(n), 128),
        _ => false,
    }
}

/// `%XX` escapes decoded; the result must be UTF-8.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("the credentials contain a `%` that is not followed by two hex digits")?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded credentials are not UTF-8".to_string())
}

/// A proxy variable's value with any `user:password@` replaced, for messages.
fn without_credentials(value: &str) -> String {
    let (scheme, rest) = match value.split_once("://") {
        Some((scheme, rest)) => (format!("{scheme}://"), rest),
        None => (String::new(), value),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((_, hostport)) => format!("{scheme}***@{hostport}{}", &rest[end..]),
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> ProxyConfig {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ProxyConfig::from_env(|name| vars.get(name).cloned())
    }

    fn origin(url: &str) -> Origin {
        let (scheme, authority) = url.split_once("://").unwrap();
        Origin::new(scheme, authority).unwrap()
    }

    fn via(config: &ProxyConfig, url: &str) -> Option<String> {
        match config.route(&origin(url)) {
            Route::Direct => None,
            Route::Via(proxy) => Some(proxy.to_string()),
            Route::Unusable(why) => Some(format!("unusable: {why}")),
        }
    }

    #[test]
    fn picks_the_variable_for_the_scheme() {
        let c = config(&[
            ("HTTP_PROXY", "http://plain:3128"),
            ("HTTPS_PROXY", "secure:8080"),
        ]);
        assert_eq!(
            via(&c, "http://example.com").as_deref(),
            Some("http://plain:3128")
        );
        assert_eq!(
            via(&c, "https://example.com").as_deref(),
            Some("http://secure:8080")
        );

        let c = config(&[("https_proxy", "http://lower:1"), ("ALL_PROXY", "all:2")]);
        assert_eq!(
            via(&c, "https://example.com").as_deref(),
            Some("http://lower:1")
        );
        assert_eq!(
            via(&c, "http://example.com").as_deref(),
            Some("http://all:2")
        );

        let c = config(&[
            ("HTTPS_PROXY", "http://upper:1"),
            ("https_proxy", "http://lower:2"),
        ]);
        assert_eq!(
            via(&c, "https://example.com").as_deref(),
            Some("http://upper:1")
        );
        let c = config(&[
            ("http_proxy", "http://lower:2"),
            ("HTTP_PROXY", "http://upper:1"),
        ]);
        assert_eq!(
            via(&c, "http://example.com").as_deref(),
            Some("http://upper:1")
        );
        let Route::Via(proxy) = c.route(&origin("http://example.com")) else {
            panic!("no proxy");
        };
        assert_eq!(proxy.describe(), "proxy http://upper:1 (from HTTP_PROXY)");

        // Empty counts as unset; nothing set means direct.
        let c = config(&[("HTTPS_PROXY", "  "), ("all_proxy", "fallback:9")]);
        assert_eq!(
            via(&c, "https://example.com").as_deref(),
            Some("http://fallback:9")
        );
        assert_eq!(via(&config(&[]), "https://example.com"), None);
    }

    #[test]
    fn parses_proxy_urls() {
        let p = Proxy::parse("http://proxy.corp:3128/").unwrap();
        assert_eq!(
            (p.host.as_str(), p.port, p.authorization),
            ("proxy.corp", 3128, None)
        );
        let p = Proxy::parse("HTTP://Proxy.Corp").unwrap();
        assert_eq!((p.host.as_str(), p.port), ("proxy.corp", 80));
        let p = Proxy::parse("[::1]:8080").unwrap();
        assert_eq!((p.host.as_str(), p.port), ("::1", 8080));
        assert_eq!(p.to_string(), "http://[::1]:8080");
        let p = Proxy::parse("10.1.2.3:3128").unwrap();
        assert_eq!(p.to_string(), "http://10.1.2.3:3128");
    }

    #[test]
    fn userinfo_becomes_basic_credentials_percent_decoded() {
        let p = Proxy::parse("http://alice:p%40ss%3Aw0rd@proxy:3128").unwrap();
        // base64("alice:p@ss:w0rd")
        assert_eq!(
            p.authorization.unwrap().to_str().unwrap(),
            "Basic YWxpY2U6cEBzczp3MHJk"
        );
        let p = Proxy::parse("http://bob@proxy:3128").unwrap();
        assert_eq!(p.authorization.unwrap().to_str().unwrap(), "Basic Ym9iOg==");
        // Credentials never show in how the proxy is named.
        let p = Proxy::parse("http://alice:secret@proxy:3128").unwrap();
        assert_eq!(
            format!("{p} {p:?}"),
            "http://proxy:3128 Proxy(http://proxy:3128)"
        );
    }

    #[test]
    fn pool_keys_separate_routes() {
        let target = origin("http://api.example.com:8080");
        let one = Proxy::parse("http://u:p@one:3128").unwrap();
        let other = Proxy::parse("other:3128").unwrap();
        let keys = [
            Route::Direct.pool_key(&target),
            Route::Via(&one).pool_key(&target),
            Route::Via(&other).pool_key(&target),
        ];
        assert_eq!(keys[0], "http://api.example.com:8080");
        assert_eq!(keys[1], "http://api.example.com:8080 via http://one:3128");
        assert_ne!(keys[1], keys[2]);
        assert_ne!(
            Route::Via(&one).pool_key(&target),
            Route::Via(&one).pool_key(&origin("https://api.example.com:8080"))
        );
    }

    #[test]
    fn unusable_values_name_the_variable_and_hide_credentials() {
        let c = config(&[("HTTPS_PROXY", "socks5://user:secret@10.0.0.1:1080")]);
        let Route::Unusable(why) = c.route(&origin("https://example.com")) else {
            panic!("socks5 proxy accepted");
        };
        assert!(why.contains("HTTPS_PROXY"), "{why}");
        assert!(why.contains("socks5://***@10.0.0.1:1080"), "{why}");
        assert!(why.contains("not supported"), "{why}");
        assert!(!why.contains("secret"), "{why}");

        let c = config(&[("http_proxy", "https://proxy:443")]);
        let Route::Unusable(why) = c.route(&origin("http://example.com")) else {
            panic!("https proxy accepted");
        };
        assert!(why.contains("http_proxy=`https://proxy:443`"), "{why}");

        for bad in [
            "proxy:99999",
            "proxy:",
            "http://:8080",
            "pro xy:1",
            "[oops]:1",
            "%zz@p:1",
        ] {
            assert!(Proxy::parse(bad).is_err(), "{bad} parsed");
        }
        // NO_PROXY still wins over an unusable proxy.
        let c = config(&[("HTTPS_PROXY", "socks5://p:1"), ("NO_PROXY", "example.com")]);
        assert_eq!(via(&c, "https://example.com"), None);
    }

    #[test]
    fn loopback_is_direct_unless_no_proxy_is_set() {
        let c = config(&[("HTTP_PROXY", "proxy:3128")]);
        for url in [
            "http://127.0.0.1:8080",
            "http://127.9.9.9",
            "http://[::1]:80",
            "http://localhost:11434",
            "http://[::ffff:127.0.0.1]",
        ] {
            assert_eq!(via(&c, url), None, "{url}");
        }
        assert!(via(&c, "http://8.8.8.8").is_some());

        // An explicit list replaces the default, as curl's does; empty means "proxy everything".
        let c = config(&[("HTTP_PROXY", "proxy:3128"), ("NO_PROXY", "")]);
        assert!(via(&c, "http://127.0.0.1:8080").is_some());
        let c = config(&[("HTTP_PROXY", "proxy:3128"), ("no_proxy", "example.com")]);
        assert!(via(&c, "http://localhost").is_some());
        assert_eq!(via(&c, "http://example.com"), None);
    }

    #[test]
    fn no_proxy_matching() {
        let list = NoProxy::parse(
            "example.com, .corp.internal, bad;entry *.wild.org,10.0.0.0/8 192.168.1.5, ::1, [fd00::1]:8443,api.x.io:8080,fe80::/10",
        );
        let cases = [
            ("example.com", 443, true),
            ("EXAMPLE.com.", 443, true),
            ("www.example.com", 80, true),
            ("notexample.com", 80, false),
            ("example.com.org", 80, false),
            ("corp.internal", 80, false),
            ("git.corp.internal", 80, true),
            ("wild.org", 80, false),
            ("a.b.wild.org", 80, true),
            ("10.1.2.3", 80, true),
            ("11.0.0.1", 80, false),
            ("::ffff:10.9.9.9", 80, true),
            ("192.168.1.5", 1, true),
            ("192.168.1.6", 1, false),
            ("::1", 80, true),
            ("fd00::1", 8443, true),
            ("fd00::1", 443, false),
            ("api.x.io", 8080, true),
            ("api.x.io", 443, false),
            ("fe80::abcd", 80, true),
            ("fec0::1", 80, false),
            // Names are not resolved for ranges.
            ("ten.example.org", 80, false),
        ];
        for (host, port, direct) in cases {
            assert_eq!(list.matches(host, port), direct, "{host}:{port}");
        }
        // Mapped and plain IPv4 are the same address either way round.
        assert!(NoProxy::parse("::ffff:10.1.1.1").matches("10.1.1.1", 80));
        assert!(NoProxy::parse("10.1.1.1").matches("::ffff:10.1.1.1", 80));
        assert!(NoProxy::parse(" * ").matches("anything.at.all", 1));
        assert!(NoProxy::parse("0.0.0.0/0").matches("8.8.8.8", 1));
        assert!(!NoProxy::parse("0.0.0.0/0").matches("2001:db8::1", 1));
        assert!(!NoProxy::parse("10.0.0.0/33,.,*.,:80").matches("10.0.0.1", 80));
        assert!(!NoProxy::parse("").matches("localhost", 80));
    }

    proptest! {
        #[test]
        fn parsing_never_panics(value in "\\PC*", host in "\\PC*", port: u16) {
            let c = config(&[("HTTP_PROXY", &value), ("HTTPS_PROXY", &value), ("NO_PROXY", &value)]);
            let _ = NoProxy::parse(&value).matches(&host, port);
            let _ = without_credentials(&value);
            if let Ok(origin) = Origin::new("https", &host) {
                let _ = c.route(&origin);
            }
        }

        #[test]
        fn parsing_never_panics_on_url_like_text(
            value in "(https?://|socks5://)?([a-z%0-9:]{0,8}@)?(\\[[0-9a-f:]{0,8}\\]|[a-z0-9.]{0,10})(:[0-9]{0,6})?(/.{0,4})?",
        ) {
            let _ = Proxy::parse(&value);
            let _ = NoProxy::parse(&value);
        }
    }
}
