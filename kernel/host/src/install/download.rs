//! A small blocking HTTPS download for `reasonix plugin install <url>`, on the HTTP stack the
//! kernel already has (hyper 1 + rustls with Mozilla's roots + tokio), so no new dependency.
//! Plain `http://` is accepted only for loopback hosts (local testing). Proxies as the process's
//! one proxy decision says ([`reasonix_core::proxy`]). At most 5 redirects,
//! [`super::MAX_COMPONENT_BYTES`] bytes and 5 minutes.

use super::{InstallError, MAX_COMPONENT_BYTES};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use reasonix_core::proxy::{ProxyConfig, Route};
use std::sync::Arc;
use std::time::Duration;
use wasmtime_wasi_http::io::TokioIo;

const MAX_REDIRECTS: usize = 5;
const TOTAL_TIMEOUT: Duration = Duration::from_secs(300);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

fn fail(url: &str, why: impl std::fmt::Display) -> InstallError {
    InstallError::Source(format!("{url}: {why}"))
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Check the scheme and host of a URL before any connection.
pub fn check_url(url: &str) -> Result<http::Uri, InstallError> {
    let uri: http::Uri = url
        .parse()
        .map_err(|e| fail(url, format!("not a URL: {e}")))?;
    let host = uri.host().ok_or_else(|| fail(url, "the URL has no host"))?;
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(fail(
            url,
            "plain http is refused (only loopback hosts may use it); use an https:// URL",
        )),
        _ => Err(fail(url, "only https:// URLs can be installed")),
    }
}

/// Download `url`, following redirects, into memory.
pub fn download(url: &str) -> Result<Vec<u8>, InstallError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(url, format!("cannot start the download: {e}")))?;
    runtime.block_on(async {
        tokio::time::timeout(TOTAL_TIMEOUT, fetch(url))
            .await
            .map_err(|_| fail(url, "the download took longer than 5 minutes"))?
    })
}

async fn fetch(url: &str) -> Result<Vec<u8>, InstallError> {
    let mut current = check_url(url)?;
    for _ in 0..=MAX_REDIRECTS {
        let response = get(url, &current).await?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| fail(url, format!("HTTP {status} without a Location")))?;
            let next = resolve(&current, location);
            if current.scheme_str() == Some("https") && !next.starts_with("https://") {
                return Err(fail(url, format!("redirect from https to {next} refused")));
            }
            current = check_url(&next)?;
            continue;
        }
        if status != http::StatusCode::OK {
            return Err(fail(url, format!("HTTP {status}")));
        }
        let mut body = response.into_body();
        let mut data = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| fail(url, format!("reading the body: {e}")))?;
            if let Ok(chunk) = frame.into_data() {
                data.extend_from_slice(&chunk);
                if data.len() as u64 > MAX_COMPONENT_BYTES {
                    return Err(fail(
                        url,
                        format!("larger than the {MAX_COMPONENT_BYTES}-byte limit for a component"),
                    ));
                }
            }
        }
        return Ok(data);
    }
    Err(fail(url, format!("more than {MAX_REDIRECTS} redirects")))
}

/// An absolute Location as is; a path relative to the current origin.
fn resolve(current: &http::Uri, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme = current.scheme_str().unwrap_or("https");
    let authority = current.authority().map(|a| a.as_str()).unwrap_or("");
    if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let path = current.path();
        let dir = &path[..path.rfind('/').map(|i| i + 1).unwrap_or(0)];
        format!("{scheme}://{authority}{dir}{location}")
    }
}

trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T> Stream for T where T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}

async fn get(
    url: &str,
    uri: &http::Uri,
) -> Result<http::Response<hyper::body::Incoming>, InstallError> {
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let https = uri.scheme_str() == Some("https");
    let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
    let origin = reasonix_core::origin::Origin::new(
        if https { "https" } else { "http" },
        uri.authority().map(|a| a.as_str()).unwrap_or(host),
    )
    .map_err(|e| fail(url, e))?;
    let proxy = match ProxyConfig::global().route(&origin) {
        Route::Direct => None,
        Route::Via(proxy) => Some(proxy),
        Route::Unusable(why) => return Err(fail(url, why)),
    };
    let (to_host, to_port) = match proxy {
        Some(proxy) => (proxy.host.as_str(), proxy.port),
        None => (host, port),
    };
    let through = |what: String| match proxy {
        Some(proxy) => format!("{what} (through {})", proxy.describe()),
        None => what,
    };
    let tcp = tokio::time::timeout(
        CONNECT_TIMEOUT,
        tokio::net::TcpStream::connect((to_host, to_port)),
    )
    .await
    .map_err(|_| {
        fail(
            url,
            through(format!("connecting to {to_host}:{to_port} timed out")),
        )
    })?
    .map_err(|e| {
        fail(
            url,
            through(format!("cannot connect to {to_host}:{to_port}: {e}")),
        )
    })?;
    if let (Some(proxy), true) = (proxy, https) {
        let by = tokio::time::Instant::now() + CONNECT_TIMEOUT;
        crate::host::http::proxy::tunnel(&tcp, proxy, &origin, None, by)
            .await
            .map_err(|e| match e {
                wasmtime_wasi_http::Error::InternalError(Some(why)) => fail(url, why),
                other => fail(url, through(format!("CONNECT: {other}"))),
            })?;
    }
    let io: Box<dyn Stream> = if https {
        let name = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => rustls::pki_types::ServerName::from(ip),
            Err(_) => rustls::pki_types::ServerName::try_from(host.to_string())
                .map_err(|e| fail(url, format!("invalid host name: {e}")))?,
        };
        let tls = tls_connector().map_err(|e| fail(url, e))?;
        let stream = tokio::time::timeout(CONNECT_TIMEOUT, tls.connect(name, tcp))
            .await
            .map_err(|_| fail(url, "the TLS handshake timed out"))?
            .map_err(|e| fail(url, format!("TLS: {e}")))?;
        Box::new(stream)
    } else {
        Box::new(tcp)
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| fail(url, format!("HTTP handshake: {e}")))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let authority = uri.authority().map(|a| a.as_str()).unwrap_or(host);
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    // Through a proxy (plain http only: https went through the tunnel), the request line
    // carries the whole URL and the proxy's credentials ride along.
    let (target, credentials) = match proxy {
        Some(proxy) if !https => (
            format!("http://{authority}{path}"),
            proxy.authorization.clone(),
        ),
        _ => (path.to_string(), None),
    };
    let mut request = http::Request::get(target);
    if let Some(credentials) = credentials {
        request = request.header(http::header::PROXY_AUTHORIZATION, credentials);
    }
    let request = request
        .header(http::header::HOST, authority)
        .header(
            http::header::USER_AGENT,
            concat!("reasonix/", env!("CARGO_PKG_VERSION")),
        )
        .body(Empty::<Bytes>::new())
        .map_err(|e| fail(url, format!("bad request: {e}")))?;
    sender
        .send_request(request)
        .await
        .map_err(|e| fail(url, through(format!("request failed: {e}"))))
}

fn tls_connector() -> Result<tokio_rustls::TlsConnector, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.into(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS setup failed: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_hosts_are_checked() {
        assert!(check_url("https://example.com/x.wasm").is_ok());
        assert!(check_url("http://127.0.0.1:8080/x.wasm").is_ok());
        assert!(check_url("http://localhost/x.wasm").is_ok());
        let err = check_url("http://example.com/x.wasm")
            .unwrap_err()
            .to_string();
        assert!(err.contains("plain http is refused"), "{err}");
        assert!(check_url("ftp://example.com/x").is_err());
    }

    #[test]
    fn relative_redirects_resolve_against_the_current_url() {
        let cur: http::Uri = "https://a.example/d/x.wasm".parse().unwrap();
        assert_eq!(resolve(&cur, "/y"), "https://a.example/y");
        assert_eq!(resolve(&cur, "z.wasm"), "https://a.example/d/z.wasm");
        assert_eq!(resolve(&cur, "https://b.example/q"), "https://b.example/q");
    }
}
