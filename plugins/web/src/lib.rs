//! The built-in `web` component: the `web_fetch` tool.
//!
//! It fetches one http or https URL through the host's `wasi:http` (which enforces the network
//! grant and refuses private, link-local and metadata addresses at connect time), follows up
//! to [`MAX_REDIRECTS`] redirects, waits at most [`TIMEOUT_SECS`] seconds in all, reads at most
//! [`MAX_BODY_BYTES`], and returns a header line followed by the content: HTML as readable
//! text, JSON and other text verbatim.

pub mod readable;
pub mod render;
pub mod url;

#[cfg(target_arch = "wasm32")]
mod fetch;

use reasonix_sdk::{CallContext, Error, Plugin, PluginInfo, Tool, ToolSet};
use schemars::JsonSchema;
use serde::Deserialize;

/// Name of the one tool served.
pub const WEB_FETCH: &str = "web_fetch";
/// Whole-call budget, redirects included.
pub const TIMEOUT_SECS: u64 = 15;
/// The most of a response body that is read.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;

/// The web tools plugin.
pub struct Web;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Absolute http:// or https:// URL to fetch
    url: String,
}

/// The `web_fetch` tool.
pub struct WebFetch;

impl Tool for WebFetch {
    const NAME: &'static str = WEB_FETCH;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/web_fetch.json"));

    fn description() -> String {
        "Fetch a URL over http or https and return its content: HTML as readable text \
         (scripts and styles dropped, headings as #, links as `text (href)`, preformatted \
         text fenced), JSON and plain text verbatim. The first line gives the status, \
         content type and size. Reads at most 1 MiB, gives up after 15 s, follows up to 5 \
         redirects. Addresses on this machine or a private network need the user's approval; \
         link-local and cloud-metadata addresses are refused."
            .into()
    }

    fn run(args: Args, _cx: &CallContext) -> Result<String, Error> {
        let url = url::Url::parse(&args.url).map_err(Error::InvalidInput)?;
        fetch_and_render(&url)
    }
}

impl Plugin for Web {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "web",
            "0.1.0",
            "Built-in web tool: web_fetch (http/https, public hosts and loopback)",
        );
        info.capabilities.network = vec!["*".to_string()];
        info
    }

    fn tools() -> ToolSet {
        ToolSet::new().with::<WebFetch>()
    }
}

#[cfg(target_arch = "wasm32")]
fn fetch_and_render(url: &url::Url) -> Result<String, Error> {
    let page = fetch::get(url)?;
    Ok(render::render(&page))
}

#[cfg(not(target_arch = "wasm32"))]
fn fetch_and_render(url: &url::Url) -> Result<String, Error> {
    Err(Error::Unsupported(format!(
        "web_fetch {url}: HTTP is only available inside the component"
    )))
}

reasonix_sdk::export!(Web);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pinned_schemas_match_the_argument_types() {
        Web::tools()
            .check_pinned_schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))
            .unwrap();
    }

    fn cx() -> CallContext {
        CallContext {
            call_id: "c".into(),
            workspace: String::new(),
        }
    }

    #[test]
    fn describes_itself() {
        let info = Web::info();
        assert_eq!(info.name, "web");
        assert_eq!(info.capabilities.network, vec!["*".to_string()]);
        let tools = Web::tools().specs();
        assert_eq!(tools.len(), 1);
        assert!(tools[0].read_only);
        let schema: serde_json::Value = serde_json::from_str(&tools[0].parameters).unwrap();
        assert_eq!(schema["required"], json!(["url"]));
    }

    #[test]
    fn bad_arguments_are_invalid_input() {
        for args in [
            r#"{}"#,
            r#"{"url": 3}"#,
            r#"{"url": "ftp://example.com/x"}"#,
            r#"{"url": "file:///etc/passwd"}"#,
            r#"{"url": "example.com"}"#,
            r#"{"url": "http://"}"#,
        ] {
            match Web::tools().invoke(WEB_FETCH, args, &cx()) {
                Err(Error::InvalidInput(m)) => {
                    assert!(
                        m.contains("url") || m.contains("expected a string"),
                        "{args}: {m}"
                    )
                }
                other => panic!("{args}: {other:?}"),
            }
        }
    }

    #[test]
    fn other_tools_are_not_served() {
        assert!(matches!(
            Web::tools().invoke("read_file", "{}", &cx()),
            Err(Error::NotFound(_))
        ));
    }
}
