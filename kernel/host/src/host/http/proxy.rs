//! The `CONNECT` tunnel through an HTTP proxy. Which requests go through which proxy is decided
//! once for every outgoing connection of the process, in [`reasonix_core::proxy`].

pub use reasonix_core::proxy::{Proxy, ProxyConfig, Route};

use reasonix_core::origin::Origin;
use std::io;
use std::net::IpAddr;
use tokio::net::TcpStream;
use tokio::time::Instant;
use wasmtime_wasi_http::Error;

/// Longest `CONNECT` answer head read from a proxy.
const MAX_CONNECT_HEAD: usize = 8 * 1024;

/// Ask `proxy`, connected on `stream`, for a tunnel to `origin`. Failures other than timeouts
/// are `InternalError`s whose message names the proxy (never its credentials).
pub async fn tunnel(
    stream: &TcpStream,
    proxy: &Proxy,
    origin: &Origin,
    checked: Option<std::net::SocketAddr>,
    by: Instant,
) -> Result<(), Error> {
    // A plugin's tunnel goes to the address the host checked, not to the name: a proxy that
    // resolved the name again could be handed a private address by a rebinding DNS server.
    // TLS inside the tunnel still verifies the certificate against the name.
    let target = match (checked, origin.host.parse::<IpAddr>()) {
        (Some(addr), _) => addr.to_string(),
        (None, Ok(IpAddr::V6(_))) => format!("[{}]:{}", origin.host, origin.port),
        (None, _) => format!("{}:{}", origin.host, origin.port),
    };
    let fail = |why: String| Error::InternalError(Some(format!("{}: {why}", proxy.describe())));
    let mut request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n").into_bytes();
    if let Some(credentials) = &proxy.authorization {
        request.extend_from_slice(b"Proxy-Authorization: ");
        request.extend_from_slice(credentials.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    tokio::time::timeout_at(by, write_all(stream, &request))
        .await
        .map_err(|_| Error::ConnectionTimeout)?
        .map_err(|e| fail(format!("sending CONNECT {target} failed: {e}")))?;

    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    let end = loop {
        let n = tokio::time::timeout_at(by, read_some(stream, &mut buf))
            .await
            .map_err(|_| Error::ConnectionTimeout)?
            .map_err(|e| {
                fail(format!(
                    "reading the answer to CONNECT {target} failed: {e}"
                ))
            })?;
        if n == 0 {
            return Err(fail(format!(
                "closed the connection without answering CONNECT {target}"
            )));
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        if head.len() > MAX_CONNECT_HEAD {
            return Err(fail(format!(
                "its answer to CONNECT {target} is longer than {MAX_CONNECT_HEAD} bytes"
            )));
        }
    };
    let status_line = String::from_utf8_lossy(&head[..end]);
    let status_line = status_line.lines().next().unwrap_or_default();
    let shown: String = status_line.chars().take(120).collect();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let code = parts.next().and_then(|c| c.parse::<u16>().ok());
    let Some(code) = code.filter(|_| version.starts_with("HTTP/1.")) else {
        return Err(fail(format!(
            "answered CONNECT {target} with `{shown}`, which is not HTTP"
        )));
    };
    if !(200..300).contains(&code) {
        let hint = if code == 407 {
            "; the proxy wants credentials: put them in the proxy URL as http://user:password@host:port"
        } else {
            ""
        };
        return Err(fail(format!("refused CONNECT {target}: `{shown}`{hint}")));
    }
    // The target speaks only after the TLS ClientHello, so nothing may follow the head yet.
    if end != head.len() {
        return Err(fail(format!(
            "sent data after its answer to CONNECT {target}"
        )));
    }
    Ok(())
}

async fn write_all(stream: &TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        stream.writable().await?;
        match stream.try_write(data) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

async fn read_some(stream: &TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        stream.readable().await?;
        match stream.try_read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        let (scheme, authority) = url.split_once("://").unwrap();
        Origin::new(scheme, authority).unwrap()
    }

    /// Run `tunnel` against a one-connection server that answers the CONNECT with `answer`;
    /// the result and the request the server read.
    fn tunnel_against(answer: &'static [u8]) -> (Result<(), Error>, String) {
        tunnel_to(answer, "https://[2001:db8::1]:8443", None)
    }

    /// Like [`tunnel_against`] for `url`, with the address the host checked.
    fn tunnel_to(
        answer: &'static [u8],
        url: &str,
        checked: Option<std::net::SocketAddr>,
    ) -> (Result<(), Error>, String) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 512];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut buf).unwrap();
                assert!(n > 0, "client hung up mid-request");
                request.extend_from_slice(&buf[..n]);
            }
            stream.write_all(answer).unwrap();
            String::from_utf8(request).unwrap()
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let proxy = Proxy {
            variable: "HTTPS_PROXY",
            ..Proxy::parse(&format!("http://me:pw@{addr}")).unwrap()
        };
        let result = runtime.block_on(async {
            let stream = TcpStream::connect(addr).await.unwrap();
            let by = Instant::now() + std::time::Duration::from_secs(5);
            tunnel(&stream, &proxy, &origin(url), checked, by).await
        });
        (result, server.join().unwrap())
    }

    fn message(result: Result<(), Error>) -> String {
        match result {
            Err(Error::InternalError(Some(why))) => why,
            other => panic!("expected a proxy error, got {other:?}"),
        }
    }

    #[test]
    fn tunnel_goes_to_the_checked_address_not_the_name() {
        let checked = "93.184.216.34:443".parse().unwrap();
        let (result, request) = tunnel_to(
            b"HTTP/1.1 200 OK\r\n\r\n",
            "https://rebinding.example:443",
            Some(checked),
        );
        assert!(result.is_ok(), "{result:?}");
        assert!(
            request.starts_with("CONNECT 93.184.216.34:443 HTTP/1.1\r\n"),
            "{request}"
        );
        assert!(!request.contains("rebinding.example"), "{request}");
    }

    #[test]
    fn tunnel_sends_connect_with_credentials_and_accepts_2xx() {
        let (result, request) =
            tunnel_against(b"HTTP/1.0 200 Connection established\r\nVia: test\r\n\r\n");
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            request,
            "CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\nProxy-Authorization: Basic bWU6cHc=\r\n\r\n"
        );
    }

    #[test]
    fn tunnel_failures_are_clear() {
        let why = message(tunnel_against(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n").0);
        assert!(
            why.starts_with("proxy http://127.0.0.1:") && why.contains("(from HTTPS_PROXY)"),
            "{why}"
        );
        assert!(
            why.contains(
                "refused CONNECT [2001:db8::1]:8443: `HTTP/1.1 407 Proxy Authentication Required`"
            ),
            "{why}"
        );
        assert!(why.contains("http://user:password@host:port"), "{why}");
        assert!(!why.contains("pw"), "{why}");

        let why = message(tunnel_against(b"SSH-2.0-OpenSSH\r\n\r\n").0);
        assert!(why.contains("which is not HTTP"), "{why}");
        let why = message(tunnel_against(b"HTTP/1.1 200 OK\r\n\r\nearly").0);
        assert!(why.contains("sent data after its answer"), "{why}");
        let why = message(tunnel_against(b"").0);
        assert!(
            why.contains("closed the connection without answering"),
            "{why}"
        );
        static HUGE: [u8; 9000] = [b'a'; 9000];
        let why = message(tunnel_against(&HUGE).0);
        assert!(why.contains("longer than 8192 bytes"), "{why}");
    }
}
