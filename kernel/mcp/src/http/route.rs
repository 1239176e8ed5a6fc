//! How a reqwest client reaches its server: the process's one proxy decision
//! ([`reasonix_core::proxy`]), never reqwest's own reading of the environment (which sends
//! loopback through `HTTP_PROXY` and reads `NO_PROXY` its own way).

use reasonix_core::origin::Origin;
use reasonix_core::proxy::{ProxyConfig, Route};

/// `builder` set to reach `url` as `config` decides: directly, or through its proxy. With the
/// proxy comes its description for messages (`proxy http://host:port (from HTTPS_PROXY)`, never
/// its credentials). Clients built here must only follow redirects within `url`'s origin, where
/// the decision holds.
pub fn apply(
    builder: reqwest::ClientBuilder,
    url: &reqwest::Url,
    config: &ProxyConfig,
) -> Result<(reqwest::ClientBuilder, Option<String>), String> {
    let origin = origin_of(url)?;
    match config.route(&origin) {
        Route::Direct => Ok((builder.no_proxy(), None)),
        Route::Via(proxy) => {
            let mut through = reqwest::Proxy::all(proxy.to_string())
                .map_err(|e| format!("{}: {e}", proxy.describe()))?;
            if let Some(credentials) = &proxy.authorization {
                through = through.custom_http_auth(credentials.clone());
            }
            Ok((builder.proxy(through), Some(proxy.describe())))
        }
        Route::Unusable(why) => Err(why.to_string()),
    }
}

fn origin_of(url: &reqwest::Url) -> Result<Origin, String> {
    let host = url.host_str().ok_or("the URL has no host")?;
    let port = url.port_or_known_default().ok_or("the URL has no port")?;
    Origin::new(url.scheme(), &format!("{host}:{port}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> ProxyConfig {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ProxyConfig::from_env(|name| vars.get(name).cloned())
    }

    fn via(config: &ProxyConfig, url: &str) -> Result<Option<String>, String> {
        let url = reqwest::Url::parse(url).unwrap();
        apply(reqwest::Client::builder(), &url, config).map(|(_, via)| via)
    }

    #[test]
    fn loopback_is_direct_and_other_hosts_use_the_proxy_of_their_scheme() {
        let c = config(&[
            ("HTTP_PROXY", "http://127.0.0.1:9"),
            ("HTTPS_PROXY", "http://u:secret@proxy.corp:3128"),
        ]);
        for url in [
            "http://127.0.0.1:3001/mcp",
            "http://localhost:8080/sse",
            "http://[::1]:9000/mcp",
        ] {
            assert_eq!(via(&c, url), Ok(None), "{url}");
        }
        assert_eq!(
            via(&c, "http://mcp.example.com/mcp"),
            Ok(Some("proxy http://127.0.0.1:9 (from HTTP_PROXY)".into()))
        );
        let https = via(&c, "https://mcp.example.com/mcp").unwrap().unwrap();
        assert_eq!(https, "proxy http://proxy.corp:3128 (from HTTPS_PROXY)");
    }

    #[test]
    fn no_proxy_is_honoured_and_replaces_the_loopback_default() {
        let c = config(&[("HTTP_PROXY", "proxy:3128"), ("NO_PROXY", "mcp.internal")]);
        assert_eq!(via(&c, "http://mcp.internal:8000/mcp"), Ok(None));
        assert!(via(&c, "http://127.0.0.1:3001/mcp").unwrap().is_some());
        assert_eq!(via(&config(&[]), "https://mcp.example.com/"), Ok(None));
    }

    #[test]
    fn an_unusable_proxy_is_an_error_naming_its_variable_not_a_direct_connection() {
        let c = config(&[("HTTPS_PROXY", "socks5://me:secret@10.0.0.1:1080")]);
        let why = via(&c, "https://mcp.example.com/mcp").unwrap_err();
        assert!(
            why.contains("HTTPS_PROXY") && why.contains("not supported"),
            "{why}"
        );
        assert!(!why.contains("secret"), "{why}");
    }
}
