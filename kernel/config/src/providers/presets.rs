//! Built-in provider presets, kept as data in `presets.toml` (embedded in the binary). An entry
//! `[[providers]] preset = "<id>"` takes every key it leaves unset from the preset; the name
//! defaults to the preset id. The data may name backends and hosts; the code does not.

use serde::Deserialize;
use std::sync::OnceLock;

const PRESETS_TOML: &str = include_str!("presets.toml");

/// One preset.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub id: String,
    pub kind: String,
    pub base_url: String,
    pub models: Vec<String>,
    pub default: String,
    /// `None` for local servers that need no key.
    pub api_key_env: Option<String>,
    /// `None` = detected by the component from the base URL and model.
    pub reasoning_protocol: Option<String>,
    pub context_window: Option<u64>,
    pub description: String,
}

/// A model alias of the original Reasonix (data in `presets.toml`): a short name for
/// `<preset>/<model>`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelAlias {
    pub name: String,
    pub preset: String,
    pub model: String,
}

impl ModelAlias {
    /// The reference the alias stands for: `<preset>/<model>`.
    pub fn target(&self) -> String {
        format!("{}/{}", self.preset, self.model)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetFile {
    preset: Vec<Preset>,
    #[serde(default)]
    alias: Vec<ModelAlias>,
}

fn parse_file(text: &str) -> Result<PresetFile, toml::de::Error> {
    toml::from_str::<PresetFile>(text)
}

#[cfg(test)]
fn parse(text: &str) -> Result<Vec<Preset>, toml::de::Error> {
    parse_file(text).map(|file| file.preset)
}

fn data() -> &'static (Vec<Preset>, Vec<ModelAlias>) {
    static DATA: OnceLock<(Vec<Preset>, Vec<ModelAlias>)> = OnceLock::new();
    DATA.get_or_init(|| match parse_file(PRESETS_TOML) {
        Ok(file) => (file.preset, file.alias),
        Err(_) => (Vec::new(), Vec::new()),
    })
}

/// Every built-in preset, in file order. The file is our own data and a unit test parses it,
/// so a parse failure cannot ship; should it happen anyway, there are simply no presets.
pub fn presets() -> &'static [Preset] {
    &data().0
}

/// The original Reasonix's model aliases, in file order.
pub fn aliases() -> &'static [ModelAlias] {
    &data().1
}

/// The alias with this name (case-insensitive).
pub fn alias(name: &str) -> Option<&'static ModelAlias> {
    let name = name.trim();
    aliases().iter().find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The preset with this id (case-insensitive).
pub fn preset(id: &str) -> Option<&'static Preset> {
    let id = id.trim();
    presets().iter().find(|p| p.id.eq_ignore_ascii_case(id))
}

/// The ids of every preset, for error messages.
pub fn preset_ids() -> Vec<&'static str> {
    presets().iter().map(|p| p.id.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_presets_parse_and_are_consistent() {
        let parsed = parse(PRESETS_TOML).unwrap();
        assert_eq!(presets(), parsed.as_slice());
        let ids: Vec<_> = parsed.iter().map(|p| p.id.as_str()).collect();
        for wanted in [
            "deepseek",
            "openai",
            "anthropic",
            "kimi",
            "qwen",
            "glm",
            "minimax",
            "openrouter",
            "ollama",
            "llamacpp",
        ] {
            assert!(ids.contains(&wanted), "missing preset {wanted}");
        }
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "duplicate preset ids");
        for p in &parsed {
            assert!(!p.models.is_empty(), "{}: no models", p.id);
            assert!(
                p.models.contains(&p.default),
                "{}: default not in models",
                p.id
            );
            assert!(
                p.base_url.starts_with("https://") || p.base_url.starts_with("http://localhost"),
                "{}: {}",
                p.id,
                p.base_url
            );
            assert!(!p.base_url.ends_with('/'), "{}: trailing slash", p.id);
            // Whether the built-in component knows the protocol (and detects the rest) is
            // checked end to end: tests/e2e/provider_config.rs, every preset is profiled.
        }
    }

    #[test]
    fn preset_keys_and_protocols() {
        let deepseek = preset("DeepSeek").unwrap();
        assert_eq!(deepseek.base_url, "https://api.deepseek.com");
        assert_eq!(deepseek.api_key_env.as_deref(), Some("DEEPSEEK_API_KEY"));
        assert_eq!(preset("anthropic").unwrap().kind, "anthropic");
        assert_eq!(preset("ollama").unwrap().api_key_env, None);
        assert_eq!(
            preset("llamacpp").unwrap().base_url,
            "http://localhost:8080/v1"
        );
        assert!(preset("nope").is_none());
        // These leave the protocol to the component's detection.
        assert_eq!(preset("kimi").unwrap().reasoning_protocol, None);
        assert_eq!(preset("qwen").unwrap().reasoning_protocol, None);
        assert_eq!(
            preset("deepseek").unwrap().reasoning_protocol.as_deref(),
            Some("deepseek")
        );
    }

    #[test]
    fn aliases_name_a_preset_model() {
        assert!(!aliases().is_empty());
        for a in aliases() {
            let p = preset(&a.preset).unwrap_or_else(|| panic!("{}: no preset", a.name));
            assert!(p.models.contains(&a.model), "{}: {}", a.name, a.model);
            assert!(preset(&a.name).is_none(), "{} shadows a preset", a.name);
        }
        assert_eq!(
            alias("DeepSeek-Flash").unwrap().target(),
            "deepseek/deepseek-v4-flash"
        );
        assert_eq!(
            alias("deepseek-pro").unwrap().target(),
            "deepseek/deepseek-v4-pro"
        );
        assert!(alias("deepseek").is_none());
    }

    #[test]
    fn bad_preset_text_is_an_error() {
        assert!(parse("[[preset]]\nid = \"x\"\n").is_err());
        assert!(parse("[[preset]]\nid=\"x\"\nkind=\"o\"\nbase_url=\"u\"\nmodels=[]\ndefault=\"d\"\ndescription=\"\"\nbogus=1\n").is_err());
    }
}
