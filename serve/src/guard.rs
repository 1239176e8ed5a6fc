//! Who may talk to the server: the bearer token (header, or the cookie the page set), and the
//! Host and Origin checks that keep a web page elsewhere — including one that rebinds its own
//! name to 127.0.0.1 — from reaching the API through the user's browser. Pure functions.

/// The cookie the web page keeps the token in.
pub const COOKIE: &str = "reasonix_token";

/// Whether `given` is the token, compared in time independent of where they differ.
pub fn token_matches(given: &str, token: &str) -> bool {
    let (a, b) = (given.as_bytes(), token.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// How a request carried its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// `Authorization: Bearer …`: a program that holds the token.
    Header,
    /// The page's cookie, which the browser adds by itself.
    Cookie,
}

/// The token a request carries: `Authorization: Bearer …`, else the page's cookie.
pub fn presented<'a>(
    authorization: Option<&'a str>,
    cookie: Option<&'a str>,
) -> Option<(&'a str, Carrier)> {
    if let Some(value) = authorization
        && let Some(token) = value.strip_prefix("Bearer ")
    {
        return Some((token.trim(), Carrier::Header));
    }
    cookie?
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| (value.trim(), Carrier::Cookie))
}

/// Whether a request that carries the cookie came from this server's own page. A browser adds
/// the cookie by itself, also to requests another site's page makes (a page on another port
/// of this machine is the same *site*, so `SameSite` lets the cookie through); browsers say
/// who started a request in `Sec-Fetch-Site`, and only `same-origin` (our page) or `none` (the
/// user typed the address) may use it. Old browsers send no such header: the Origin check
/// still applies to them.
pub fn cookie_use_allowed(sec_fetch_site: Option<&str>) -> bool {
    match sec_fetch_site.map(|s| s.trim().to_ascii_lowercase()) {
        None => true,
        Some(site) => site == "same-origin" || site == "none",
    }
}

/// The `Set-Cookie` value that keeps `token` for the page: only the API gets it, scripts
/// cannot read it, and no other site's request carries it. `secure` when the page was reached
/// over TLS (a reverse proxy says so in `X-Forwarded-Proto`).
pub fn session_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={token}; Path=/api/; HttpOnly; SameSite=Strict; Max-Age=2592000{secure}")
}

/// The `Set-Cookie` value that removes the page's cookie.
pub fn cleared_cookie() -> String {
    format!("{COOKIE}=; Path=/api/; HttpOnly; SameSite=Strict; Max-Age=0")
}

/// Whether the `Host` header names this server: one of `allowed` (host or host:port, compared
/// without case). A name that is not ours is a rebound DNS name, or a mistake.
pub fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    allowed.contains(&host)
}

/// Whether a request's `Origin` is this server's own (a page it served, over HTTP or, behind
/// a TLS proxy, HTTPS). No `Origin` (curl, a script) is fine: the token still has to be there.
pub fn origin_allowed(origin: Option<&str>, allowed: &[String]) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let origin = origin.trim().to_ascii_lowercase();
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    allowed.iter().any(|a| *a == rest)
}

/// The Host values this server answers to when it listens on `addr`: the address itself and,
/// on loopback, `localhost` with the port.
pub fn hosts_for(addr: std::net::SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![format!("{addr}").to_ascii_lowercase()];
    if addr.ip().is_loopback() {
        hosts.push(format!("localhost:{port}"));
        hosts.push(format!("127.0.0.1:{port}"));
        hosts.push(format!("[::1]:{port}"));
    }
    hosts.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
    hosts.sort();
    hosts.dedup();
    hosts
}

/// A new token: 32 random bytes, hex.
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_header_or_the_cookie_and_must_match_exactly() {
        assert_eq!(
            presented(Some("Bearer abc"), None),
            Some(("abc", Carrier::Header))
        );
        assert_eq!(
            presented(Some("Basic abc"), Some("x=1; reasonix_token=t")),
            Some(("t", Carrier::Cookie))
        );
        assert_eq!(
            presented(None, Some("reasonix_token=t2")),
            Some(("t2", Carrier::Cookie))
        );
        assert_eq!(presented(None, Some("other=1")), None);
        assert!(token_matches("abc", "abc"));
        assert!(!token_matches("abd", "abc"));
        assert!(!token_matches("ab", "abc"));
        assert!(!token_matches("", "abc"));
        assert_eq!(new_token().unwrap().len(), 64);
        assert_ne!(new_token().unwrap(), new_token().unwrap());
    }

    #[test]
    fn only_our_own_host_and_origin_pass() {
        let hosts = hosts_for("127.0.0.1:8080".parse().unwrap(), &[]);
        assert!(host_allowed(Some("127.0.0.1:8080"), &hosts));
        assert!(host_allowed(Some("LOCALHOST:8080"), &hosts));
        // A rebound name resolves to us but is not our name.
        assert!(!host_allowed(Some("evil.example:8080"), &hosts));
        assert!(!host_allowed(Some("localhost:9999"), &hosts));
        assert!(!host_allowed(None, &hosts));
        assert!(origin_allowed(None, &hosts));
        assert!(origin_allowed(Some("http://localhost:8080"), &hosts));
        assert!(!origin_allowed(Some("http://evil.example:8080"), &hosts));
        assert!(origin_allowed(Some("https://localhost:8080"), &hosts));
        assert!(!origin_allowed(Some("ftp://localhost:8080"), &hosts));
        assert!(!origin_allowed(Some("http://localhost:8081"), &hosts));
        assert!(!origin_allowed(Some("null"), &hosts));
        let public = hosts_for(
            "0.0.0.0:80".parse().unwrap(),
            &["agents.example.com".into()],
        );
        assert!(host_allowed(Some("agents.example.com"), &public));
        assert!(!host_allowed(Some("localhost:80"), &public));
    }

    #[test]
    fn the_cookie_serves_only_our_own_page() {
        assert!(cookie_use_allowed(Some("same-origin")));
        assert!(cookie_use_allowed(Some("none")));
        assert!(cookie_use_allowed(None));
        // Another port of 127.0.0.1 is the same site, not the same origin.
        assert!(!cookie_use_allowed(Some("same-site")));
        assert!(!cookie_use_allowed(Some("cross-site")));
        let cookie = session_cookie("t0k", false);
        for part in [
            "reasonix_token=t0k",
            "HttpOnly",
            "SameSite=Strict",
            "Path=/api/",
        ] {
            assert!(cookie.contains(part), "{cookie}");
        }
        assert!(!cookie.contains("Secure"));
        assert!(session_cookie("t0k", true).ends_with("; Secure"));
        assert!(cleared_cookie().contains("Max-Age=0"));
    }

    proptest::proptest! {
        /// Whatever a client sends, the checks answer without panicking, a token is only
        /// accepted when it is exactly the one, and a Host that is not listed never passes.
        #[test]
        fn hostile_headers_never_pass_by_accident(
            auth in proptest::option::of(".{0,80}"),
            cookie in proptest::option::of(".{0,80}"),
            host in ".{0,40}",
            origin in proptest::option::of(".{0,40}"),
        ) {
            let token = "0123456789abcdef0123456789abcdef";
            if let Some((given, _)) = presented(auth.as_deref(), cookie.as_deref()) {
                proptest::prop_assert_eq!(token_matches(given, token), given == token);
            }
            let hosts = hosts_for("127.0.0.1:7345".parse().unwrap(), &[]);
            if host_allowed(Some(&host), &hosts) {
                proptest::prop_assert!(hosts.contains(&host.trim().to_ascii_lowercase()));
            }
            if let Some(o) = &origin && origin_allowed(Some(o), &hosts) {
                let rest = o.trim().to_ascii_lowercase();
                let own = hosts
                    .iter()
                    .any(|h| rest == format!("http://{h}") || rest == format!("https://{h}"));
                proptest::prop_assert!(own);
            }
        }
    }
}
