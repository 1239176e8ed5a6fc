//! `reasonix plugin new <name> [--kind tool|provider|interceptor] [--dir PATH] [--sdk-path PATH]`:
//! scaffolds a plugin crate that builds with plain
//! `cargo build --release --target wasm32-wasip2` and works as generated.

use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::{Context, anyhow};
use std::path::{Path, PathBuf};

/// What the scaffolded plugin serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A tool (`word_count`, typed arguments).
    Tool,
    /// A provider kind (an echo model that needs no network).
    Provider,
    /// An interceptor (blocks `rm -rf` in `tool.before`).
    Interceptor,
}

/// The SDK this binary was built with. The SDK is not on crates.io yet, so the scaffold depends
/// on it by path; `--sdk-path` overrides this.
const BUILD_SDK_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk");

pub fn run(name: &str, kind: Kind, dir: Option<&Path>, sdk_path: Option<&Path>) -> Outcome {
    reasonix_host::component::validate_name(name).map_err(|e| Failure::usage(anyhow!(e)))?;
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(name));
    let sdk = sdk_dir(sdk_path).map_err(Failure::usage)?;
    check_target_dir(&dir).map_err(Failure::usage)?;
    let files = render(name, kind, &sdk);
    write_files(&dir, &files).map_err(Failure::runtime)?;
    let kind_word = match kind {
        Kind::Tool => "tool",
        Kind::Provider => "provider",
        Kind::Interceptor => "interceptor",
    };
    outln!("created {kind_word} plugin `{name}` in {}", dir.display());
    for (path, _) in &files {
        outln!("  {path}");
    }
    outln!();
    outln!("next:");
    outln!("  cd {}", dir.display());
    outln!("  cargo build --release --target wasm32-wasip2");
    outln!(
        "  reasonix plugin install target/wasm32-wasip2/release/{}.wasm",
        artifact_stem(name)
    );
    Ok(Code::Success)
}

/// The file name cargo gives the component: the crate name with `-` turned into `_`.
pub fn artifact_stem(name: &str) -> String {
    name.replace('-', "_")
}

fn sdk_dir(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    let (dir, origin) = match explicit {
        Some(dir) => (dir.to_path_buf(), "--sdk-path"),
        None => (
            PathBuf::from(BUILD_SDK_DIR),
            "the source tree this binary was built from",
        ),
    };
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| {
        anyhow!(
            "no Reasonix SDK at {} ({origin}): cannot read {}: {e}; pass --sdk-path <reasonix checkout>/sdk",
            dir.display(),
            manifest.display()
        )
    })?;
    if !text.contains("name = \"reasonix-sdk\"") {
        return Err(anyhow!(
            "{} is not the Reasonix SDK (its package is not `reasonix-sdk`); pass --sdk-path <reasonix checkout>/sdk",
            manifest.display()
        ));
    }
    dir.canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))
}

fn check_target_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(anyhow!(
                    "{} already exists and is not empty; choose another --dir or remove it",
                    dir.display()
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Err(anyhow!(
            "{} already exists and is a file; choose another --dir",
            dir.display()
        )),
        Err(e) => Err(anyhow!("cannot read {}: {e}", dir.display())),
    }
}

fn write_files(dir: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    for (relative, text) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The files of the new crate, relative to its directory.
pub fn render(name: &str, kind: Kind, sdk: &Path) -> Vec<(String, String)> {
    // TOML basic strings need `\` and `"` escaped (Windows paths).
    let sdk_toml = sdk
        .display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    let ident = name.replace('-', "_");
    let source = match kind {
        Kind::Tool => TOOL_TEMPLATE,
        Kind::Provider => PROVIDER_TEMPLATE,
        Kind::Interceptor => INTERCEPTOR_TEMPLATE,
    };
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{ident}}", &ident)
            .replace("{{sdk}}", &sdk_toml)
    };
    let mut manifest = fill(MANIFEST_TEMPLATE);
    if kind == Kind::Tool {
        manifest.push_str("schemars = \"1\"\n");
    }
    vec![
        ("Cargo.toml".to_string(), manifest),
        ("src/lib.rs".to_string(), fill(source)),
        ("README.md".to_string(), fill(&readme(kind))),
        (".gitignore".to_string(), "/target\n".to_string()),
    ]
}

const MANIFEST_TEMPLATE: &str = r#"[package]
name = "{{name}}"
version = "0.1.0"
edition = "2024"
publish = false

# A standalone crate, even when created inside another Cargo workspace.
[workspace]

[lib]
crate-type = ["cdylib"]

[profile.release]
opt-level = "s"
lto = true
strip = true
codegen-units = 1

[dependencies]
# The SDK is not on crates.io yet: this is the copy `reasonix plugin new` was built from.
reasonix-sdk = { path = "{{sdk}}" }
serde = { version = "1", features = ["derive"] }
"#;

const TOOL_TEMPLATE: &str = r##"use reasonix_sdk::{CallContext, Error, Plugin, PluginInfo, Tool, ToolSet};

#[derive(serde::Deserialize, schemars::JsonSchema)] // the schema the model sees comes from here
#[serde(deny_unknown_fields)]
struct Args {
    /// The text whose words to count.
    text: String,
}

/// The tool `word_count`. Add more tools as more types like this one.
struct WordCount;
impl Tool for WordCount {
    const NAME: &'static str = "word_count";
    const READ_ONLY: bool = true;
    type Args = Args;
    fn description() -> String {
        "Count the words in a text.".into()
    }
    // Optional: a bullet for the agent's system prompt while this tool is offered.
    fn guidance() -> Option<String> {
        Some("Count words with `word_count` rather than by hand.".into())
    }
    fn run(args: Args, _cx: &CallContext) -> Result<String, Error> {
        Ok(args.text.split_whitespace().count().to_string())
    }
}

struct Component;
impl Plugin for Component {
    fn info() -> PluginInfo { reasonix_sdk::plugin_info("{{name}}", "0.1.0", "Counts words") }
    fn tools() -> ToolSet {
        ToolSet::new().with::<WordCount>()
    }
}
reasonix_sdk::export!(Component);

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> Result<String, Error> {
        let cx = CallContext { call_id: "t".into(), workspace: "/".into() };
        Component::tools().invoke("word_count", arguments, &cx)
    }

    #[test]
    fn counts_words() {
        assert_eq!(call(r#"{"text": "one two  three"}"#), Ok("3".to_string()));
    }

    #[test]
    fn a_missing_argument_is_named() {
        match call("{}") {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`text`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
"##;

const PROVIDER_TEMPLATE: &str = r##"//! A provider kind `{{ident}}`: an "echo" model that answers with the last user message, with
//! no network. Replace `open` with real HTTP (`reasonix_sdk::http`, `reasonix_sdk::sse`) and
//! request `network` in `info` to talk to a backend.
use reasonix_sdk::{
    CompletionRequest, CompletionStream, Error, FinishReason, Plugin, PluginInfo, ProviderKind,
    Role, StreamEvent, Usage,
};

struct Component;
impl Plugin for Component {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info("{{name}}", "0.1.0", "Echo model: answers with the prompt");
        // A provider must be granted network access to its `base_url`; the host narrows every
        // stream to the configured endpoint. (The echo model itself sends nothing.)
        info.capabilities.network = vec!["*".to_string()];
        info
    }
    fn provider_kinds() -> Vec<ProviderKind> {
        vec![reasonix_sdk::provider_kind("{{ident}}", "Echoes the last user message", "authorization", "Bearer ")]
    }
    fn open(request: CompletionRequest) -> Result<Box<dyn CompletionStream>, Error> {
        let prompt = request.messages.iter().rev().find(|m| m.role == Role::User);
        let Some(prompt) = prompt else {
            return Err(Error::invalid("messages", "there is no user message to echo"));
        };
        let words = prompt.content.split_whitespace().count() as u64;
        let events = vec![
            StreamEvent::Text(format!("echo: {}", prompt.content)),
            StreamEvent::Usage(Usage {
                prompt_tokens: words,
                completion_tokens: words + 1,
                cache_hit_tokens: 0,
                cache_miss_tokens: words,
                reasoning_tokens: 0,
            }),
            StreamEvent::Done(FinishReason::Stop),
        ];
        Ok(Box::new(Echo(Some(events))))
    }
}

/// Hands out every event in one batch, then an empty list (the end).
struct Echo(Option<Vec<StreamEvent>>);
impl CompletionStream for Echo {
    fn next(&mut self) -> Result<Vec<StreamEvent>, Error> {
        Ok(self.0.take().unwrap_or_default())
    }
}

reasonix_sdk::export!(Component);
"##;

const INTERCEPTOR_TEMPLATE: &str = r##"//! An interceptor that blocks tool calls whose arguments contain `rm -rf`.
use reasonix_sdk::{Decision, Error, Plugin, PluginInfo, Subscription};

struct Component;
impl Plugin for Component {
    fn info() -> PluginInfo {
        reasonix_sdk::plugin_info("{{name}}", "0.1.0", "Blocks tool calls containing rm -rf")
    }
    // Priority -1000..=1000 (default 0): lower runs first at the same point.
    fn subscriptions() -> Vec<Subscription> {
        vec![Subscription::new("tool.before")]
    }
    fn intercept(_point: &str, payload: &str) -> Result<Decision, Error> {
        if payload.contains("rm -rf") {
            Ok(Decision::Block("`rm -rf` is not allowed here; remove files one by one".to_string()))
        } else {
            Ok(Decision::Proceed)
        }
    }
}
reasonix_sdk::export!(Component);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_rm_rf_only() {
        assert!(matches!(Component::intercept("tool.before", r#"{"command":"rm -rf /"}"#), Ok(Decision::Block(_))));
        assert_eq!(Component::intercept("tool.before", r#"{"command":"ls"}"#), Ok(Decision::Proceed));
    }
}
"##;

fn readme(kind: Kind) -> String {
    match kind {
        Kind::Tool => {
            "# {{name}}\n\nA Reasonix tool plugin serving `word_count`.\n\n".to_string()
                + README_COMMON
        }
        Kind::Provider => {
            "# {{name}}\n\nA Reasonix provider plugin serving the kind `{{ident}}`. Use it with\n\n```toml\n[[providers]]\nname = \"{{name}}\"\nkind = \"{{ident}}\"\nbase_url = \"http://127.0.0.1:9\"   # not contacted by the echo model\nmodel = \"echo\"\n```\n\n"
                .to_string()
                + README_COMMON
        }
        Kind::Interceptor => {
            "# {{name}}\n\nA Reasonix interceptor plugin for the point `tool.before`.\n\n"
                .to_string()
                + README_COMMON
        }
    }
}

const README_COMMON: &str = "## Build, test, install

```sh
rustup target add wasm32-wasip2            # once
cargo test                                 # the logic, natively
cargo build --release --target wasm32-wasip2
reasonix plugin install target/wasm32-wasip2/release/{{ident}}.wasm
reasonix plugin list
```

Request what the plugin needs in `info()` (`capabilities`: workspace, network, env,
process); `reasonix plugin install` shows the request and asks for the grant (`--yes` grants
everything requested). See `docs/PLUGINS.md`
in the Reasonix repository.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_filled_in_everywhere() {
        for kind in [Kind::Tool, Kind::Provider, Kind::Interceptor] {
            let files = render("my-plugin", kind, Path::new("/opt/reasonix/sdk"));
            for (path, text) in &files {
                assert!(
                    !text.contains("{{"),
                    "{path} of {kind:?} has a placeholder left"
                );
            }
            let manifest = &files[0].1;
            assert!(manifest.contains("name = \"my-plugin\""), "{manifest}");
            assert!(
                manifest.contains("path = \"/opt/reasonix/sdk\""),
                "{manifest}"
            );
            assert!(files[2].1.contains("my_plugin.wasm"));
        }
    }

    #[test]
    fn a_non_empty_directory_is_refused() {
        let dir = std::env::temp_dir().join(format!("reasonix-plugin-new-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(check_target_dir(&dir).is_ok(), "an empty directory is fine");
        std::fs::write(dir.join("x"), "").unwrap();
        let e = check_target_dir(&dir).unwrap_err().to_string();
        assert!(e.contains("not empty"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
