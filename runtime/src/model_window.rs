//! The context window of a model nobody configured, as its endpoint's model list says
//! (issue #24 §3).
//!
//! Without a window compaction assumes a conservative one. Many endpoints say the real one in
//! their model list (`GET <base_url>/models`, or the provider's `models_url`): OpenRouter and
//! Together (`context_length`), vLLM (`max_model_len`), LM Studio (`max_context_length`),
//! Gemini (`inputTokenLimit`). The list is asked once per endpoint and model, with the key
//! requests to that endpoint carry, bounded in time and size, and the answer (a window or "not
//! said") is kept in `<state>/model-windows.json` for a week, so a start costs no request.

use reasonix_agent::completion::ProviderClient;
use reasonix_config::providers::{ModelOverride, ResolvedProvider};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The whole exchange: connect, send, read.
const TIMEOUT: Duration = Duration::from_secs(3);
/// The most of a model list read.
const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// How long an answer is kept.
const KEEP_SECS: u64 = 7 * 24 * 3600;
const CACHE_FILE: &str = "model-windows.json";
/// The largest window believed (tokens).
const MAX_WINDOW: u64 = 100_000_000;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    url: String,
    model: String,
    /// `None`: the list did not say (asked again after [`KEEP_SECS`] too).
    window: Option<u64>,
    asked_unix: u64,
}

/// When `client`'s model has no configured window: the one its endpoint's model list gives,
/// set as that model's override in `resolved` (so a client built from it again knows it).
/// `true` when it was set. Without an answer in the cache, `wait` asks now (a headless run,
/// which shows nothing meanwhile); otherwise the list is asked on a thread of its own and
/// the answer serves the next start, so the interactive session never waits for it on a
/// blank screen.
pub fn fill_in(
    client: &ProviderClient,
    resolved: &mut [ResolvedProvider],
    state: &Path,
    wait: bool,
) -> bool {
    let provider = client.provider();
    let model = client.model();
    if provider.context_window_for(model).is_some() {
        return false;
    }
    let url = provider
        .models_url
        .clone()
        .unwrap_or_else(|| format!("{}/models", provider.base_url));
    let path = state.join(CACHE_FILE);
    let credential = client.credential().cloned();
    let window = match cached(&path, &url, model) {
        Some(known) => known,
        None if wait => ask_and_keep(&path, &url, model, credential),
        None => {
            let model = model.to_string();
            let _ = std::thread::Builder::new()
                .name("reasonix-model-list".into())
                .spawn(move || ask_and_keep(&path, &url, &model, credential));
            None
        }
    };
    let Some(window) = window else {
        return false;
    };
    let Some(entry) = resolved.iter_mut().find(|p| p.name == provider.name) else {
        return false;
    };
    entry
        .model_overrides
        .entry(model.to_string())
        .or_insert_with(ModelOverride::default)
        .context_window = Some(window);
    true
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

type Credential = Option<(reqwest::header::HeaderName, reqwest::header::HeaderValue)>;

fn read_cache(path: &Path) -> Cache {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// What the cache says, when it has a fresh answer: `Some(None)` for "the list did not say".
fn cached(path: &Path, url: &str, model: &str) -> Option<Option<u64>> {
    read_cache(path)
        .entries
        .into_iter()
        .find(|e| {
            e.url == url && e.model == model && now().saturating_sub(e.asked_unix) < KEEP_SECS
        })
        .map(|e| e.window)
}

/// Ask the list and keep the answer, "not said" included.
fn ask_and_keep(path: &Path, url: &str, model: &str, credential: Credential) -> Option<u64> {
    // An endpoint without a readable list (404, a timeout) is common and not the user's
    // problem: the session's "window not known" notice says what to set.
    let window = ask(url, credential)
        .ok()
        .and_then(|list| window_in(&list, model));
    let mut cache = read_cache(path);
    cache
        .entries
        .retain(|e| !(e.url == url && e.model == model));
    cache.entries.push(Entry {
        url: url.to_string(),
        model: model.to_string(),
        window,
        asked_unix: now(),
    });
    // Only a cache: a failed write costs one more request next time.
    let _ = reasonix_core::state_file::write_json(path, &cache);
    window
}

/// `GET url` with the provider's credential header; no redirects (the key must not follow
/// one), through a proxy as the process's one proxy decision says.
fn ask(url: &str, credential: Credential) -> Result<Value, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.into(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| format!("TLS setup failed: {e}"))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let parsed = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
    let (builder, _) = reasonix_mcp::http::route::apply(
        reqwest::Client::builder(),
        &parsed,
        reasonix_core::proxy::ProxyConfig::global(),
    )?;
    let http = builder
        .use_preconfigured_tls(tls)
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let mut request = http.get(url);
    if let Some((name, value)) = credential {
        request = request.header(name, value);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let mut response = request
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status().as_u16()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| e.without_url().to_string())?
        {
            body.extend_from_slice(&chunk);
            if body.len() as u64 > MAX_BYTES {
                return Err(format!("larger than {} MiB", MAX_BYTES >> 20));
            }
        }
        serde_json::from_slice(&body).map_err(|e| format!("not JSON: {e}"))
    })
}

/// The window the list gives `model`: the entry whose `id`/`name`/`model` is the model (or
/// ends in `/<model>`), its first positive window field.
fn window_in(list: &Value, model: &str) -> Option<u64> {
    const IDS: [&str; 3] = ["id", "name", "model"];
    const WINDOWS: [&str; 7] = [
        "context_length",
        "context_window",
        "max_model_len",
        "max_context_length",
        "inputTokenLimit",
        "input_token_limit",
        "max_input_tokens",
    ];
    let entries = [&list["data"], &list["models"], list]
        .into_iter()
        .find_map(Value::as_array)?;
    let entry = entries.iter().find(|e| {
        IDS.iter().any(|key| {
            e[*key]
                .as_str()
                .is_some_and(|id| id == model || id.ends_with(&format!("/{model}")))
        })
    })?;
    // A list saying more than any model has would switch compaction off in effect.
    let plausible = |n: &u64| (1..=MAX_WINDOW).contains(n);
    WINDOWS
        .iter()
        .find_map(|key| entry[*key].as_u64().filter(plausible))
        .or_else(|| {
            entry["top_provider"]["context_length"]
                .as_u64()
                .filter(plausible)
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::window_in;
    use serde_json::json;

    #[test]
    fn the_window_fields_of_the_usual_model_lists() {
        let openrouter = json!({"data": [{"id": "a/b", "context_length": 131072}]});
        assert_eq!(window_in(&openrouter, "a/b"), Some(131072));
        let vllm = json!({"object": "list", "data": [{"id": "m", "max_model_len": 32768}]});
        assert_eq!(window_in(&vllm, "m"), Some(32768));
        let gemini = json!({"models": [{"name": "models/gemini-x", "inputTokenLimit": 1048576}]});
        assert_eq!(window_in(&gemini, "gemini-x"), Some(1048576));
        let openai = json!({"data": [{"id": "gpt-x", "owned_by": "openai"}]});
        assert_eq!(window_in(&openai, "gpt-x"), None);
        assert_eq!(window_in(&openrouter, "other"), None);
        assert_eq!(window_in(&json!("nonsense"), "m"), None);
        let absurd = json!({"data": [{"id": "m", "context_length": u64::MAX}]});
        assert_eq!(window_in(&absurd, "m"), None);
    }
}
