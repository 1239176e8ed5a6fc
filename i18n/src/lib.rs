//! The user interface in English and Simplified Chinese (docs/I18N.md).
//!
//! Every user-facing string of the converted surfaces is a message of the Fluent catalogues in
//! `locales/` (`en.ftl`, `zh-CN.ftl`), looked up with [`t!`]. The language is chosen once at
//! start ([`choose`]: the `language` config key, then `REASONIX_LANG`, then the locale
//! variables) and can be overridden on one thread ([`with_language`], for tests and previews).
//! A message missing from a catalogue falls back to English, and a test
//! (`tests/catalogue.rs`) fails when the two catalogues do not hold the same messages,
//! attributes and arguments.
#![forbid(unsafe_code)]

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

pub mod check;

/// The catalogues, as shipped: (file, English, Simplified Chinese).
pub const CATALOGUES: &[(&str, &str, &str)] = &[
    (
        "ui.ftl",
        include_str!("../locales/en/ui.ftl"),
        include_str!("../locales/zh-CN/ui.ftl"),
    ),
    (
        "cli.ftl",
        include_str!("../locales/en/cli.ftl"),
        include_str!("../locales/zh-CN/cli.ftl"),
    ),
    (
        "tui.ftl",
        include_str!("../locales/en/tui.ftl"),
        include_str!("../locales/zh-CN/tui.ftl"),
    ),
    (
        "commands.ftl",
        include_str!("../locales/en/commands.ftl"),
        include_str!("../locales/zh-CN/commands.ftl"),
    ),
    (
        "run.ftl",
        include_str!("../locales/en/run.ftl"),
        include_str!("../locales/zh-CN/run.ftl"),
    ),
    (
        "kernel.ftl",
        include_str!("../locales/en/kernel.ftl"),
        include_str!("../locales/zh-CN/kernel.ftl"),
    ),
];

/// A language of the user interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    En,
    ZhCn,
}

impl Language {
    /// Its tag, as `language` and `REASONIX_LANG` take it.
    pub fn tag(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::ZhCn => "zh-CN",
        }
    }

    /// A tag or locale (`zh`, `zh-CN`, `zh_CN.UTF-8`, `en_US`, `C`) as a language; `None` for
    /// a language without a catalogue. `C` and `POSIX` are English.
    pub fn parse(text: &str) -> Option<Language> {
        let base = text
            .split(['.', '@'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
            .replace('_', "-");
        if base == "c" || base == "posix" || base == "en" || base.starts_with("en-") {
            return Some(Language::En);
        }
        if base == "zh" || base.starts_with("zh-") {
            // Traditional Chinese has no catalogue yet: English rather than the wrong script.
            if ["zh-tw", "zh-hk", "zh-mo", "zh-hant"]
                .iter()
                .any(|t| base.starts_with(t))
            {
                return None;
            }
            return Some(Language::ZhCn);
        }
        None
    }

    fn index(self) -> u8 {
        match self {
            Language::En => 0,
            Language::ZhCn => 1,
        }
    }

    fn from_index(i: u8) -> Language {
        if i == 1 { Language::ZhCn } else { Language::En }
    }
}

/// Where the language came from, for `reasonix doctor` and messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub language: Language,
    /// `language` (config), `REASONIX_LANG`, `LC_ALL`, `LC_MESSAGES`, `LANG`, or `default`.
    pub source: &'static str,
    /// A value that named no supported language (it was skipped), with where it was.
    pub ignored: Vec<(&'static str, String)>,
}

/// The language from `config` (the `language` key), then `REASONIX_LANG`, then the locale
/// variables (`LC_ALL`, `LC_MESSAGES`, `LANG`, as POSIX orders them); English by default.
/// `env` looks a variable up (the process environment in the binary).
pub fn choose(config: Option<&str>, env: &dyn Fn(&str) -> Option<String>) -> Choice {
    let mut ignored = Vec::new();
    let candidates = [
        ("language", config.map(str::to_string)),
        ("REASONIX_LANG", env("REASONIX_LANG")),
        ("LC_ALL", env("LC_ALL")),
        ("LC_MESSAGES", env("LC_MESSAGES")),
        ("LANG", env("LANG")),
    ];
    for (source, value) in candidates {
        let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        match Language::parse(&value) {
            Some(language) => {
                return Choice {
                    language,
                    source,
                    ignored,
                };
            }
            // A locale of another language falls through to the next source only for the
            // explicit settings; `LANG=fr_FR` means "not one of ours": English.
            None if matches!(source, "language" | "REASONIX_LANG") => {
                ignored.push((source, value));
            }
            None => {
                return Choice {
                    language: Language::En,
                    source,
                    ignored,
                };
            }
        }
    }
    Choice {
        language: Language::En,
        source: "default",
        ignored,
    }
}

static GLOBAL: AtomicU8 = AtomicU8::new(0);

thread_local! {
    static OVERRIDE: Cell<Option<Language>> = const { Cell::new(None) };
}

/// Set the language of the process (once, at start).
pub fn set_language(language: Language) {
    GLOBAL.store(language.index(), Ordering::SeqCst);
}

/// The language in force on this thread.
pub fn language() -> Language {
    OVERRIDE
        .with(Cell::get)
        .unwrap_or_else(|| Language::from_index(GLOBAL.load(Ordering::SeqCst)))
}

/// Run `f` with `language` in force on this thread only.
pub fn with_language<R>(language: Language, f: impl FnOnce() -> R) -> R {
    let before = OVERRIDE.with(|o| o.replace(Some(language)));
    let out = f();
    OVERRIDE.with(|o| o.set(before));
    out
}

fn bundle(language: Language) -> &'static FluentBundle<FluentResource> {
    static EN_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    static ZH_BUNDLE: OnceLock<FluentBundle<FluentResource>> = OnceLock::new();
    let (cell, tag) = match language {
        Language::En => (&EN_BUNDLE, "en"),
        Language::ZhCn => (&ZH_BUNDLE, "zh-CN"),
    };
    cell.get_or_init(|| {
        let sources = CATALOGUES.iter().map(|(_, en, zh)| match language {
            Language::En => *en,
            Language::ZhCn => *zh,
        });
        build(sources, tag)
    })
}

/// A bundle of `sources`. A catalogue that does not parse keeps the messages that do (the
/// catalogue test fails on any error, so a shipped one has none).
fn build<'a>(sources: impl Iterator<Item = &'a str>, tag: &str) -> FluentBundle<FluentResource> {
    let id: unic_langid::LanguageIdentifier = tag.parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // Unicode isolation marks around arguments would reach the terminal as invisible bytes.
    bundle.set_use_isolating(false);
    for source in sources {
        let resource =
            FluentResource::try_new(source.to_string()).unwrap_or_else(|(partial, _)| partial);
        let _ = bundle.add_resource(resource);
    }
    bundle
}

/// `id` (a message, or `message.attribute`) in `language`, with `args`; English when the
/// language lacks it, and the id itself when no catalogue has it.
pub fn lookup(language: Language, id: &str, args: &[(&str, FluentValue<'_>)]) -> String {
    format_in(bundle(language), id, args)
        .or_else(|| {
            (language != Language::En)
                .then(|| format_in(bundle(Language::En), id, args))
                .flatten()
        })
        .unwrap_or_else(|| id.to_string())
}

/// Whether `language`'s own catalogue has `id`.
pub fn has(language: Language, id: &str) -> bool {
    let (message, attribute) = split(id);
    bundle(language)
        .get_message(message)
        .is_some_and(|m| match attribute {
            Some(a) => m.get_attribute(a).is_some(),
            None => m.value().is_some(),
        })
}

fn split(id: &str) -> (&str, Option<&str>) {
    match id.split_once('.') {
        Some((m, a)) => (m, Some(a)),
        None => (id, None),
    }
}

fn format_in(
    bundle: &FluentBundle<FluentResource>,
    id: &str,
    args: &[(&str, FluentValue<'_>)],
) -> Option<String> {
    let (message, attribute) = split(id);
    let message = bundle.get_message(message)?;
    let pattern = match attribute {
        Some(a) => message.get_attribute(a)?.value(),
        None => message.value()?,
    };
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(*name, value.clone());
    }
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
    Some(text.into_owned())
}

/// `id` in the language in force.
pub fn tr(id: &str) -> String {
    lookup(language(), id, &[])
}

/// `id` in the language in force, with arguments.
pub fn tr_args(id: &str, args: &[(&str, FluentValue<'_>)]) -> String {
    lookup(language(), id, args)
}

/// Re-exported for [`t!`] arguments.
pub use fluent_bundle::FluentValue as Value;

/// A message of the catalogue in the language in force: `t!("status-context")`,
/// `t!("approval-title", tool = name)`. Arguments are anything `FluentValue` is made from
/// (strings, numbers).
#[macro_export]
macro_rules! t {
    ($id:literal) => {
        $crate::tr($id)
    };
    ($id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::tr_args($id, &[$((stringify!($name), $crate::Value::from($value))),+])
    };
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn config_then_reasonix_lang_then_the_locale() {
        let c = choose(Some("zh-CN"), &env(&[("LANG", "en_US.UTF-8")]));
        assert_eq!((c.language, c.source), (Language::ZhCn, "language"));
        let c = choose(
            None,
            &env(&[("REASONIX_LANG", "en"), ("LANG", "zh_CN.UTF-8")]),
        );
        assert_eq!((c.language, c.source), (Language::En, "REASONIX_LANG"));
        let c = choose(None, &env(&[("LANG", "zh_CN.UTF-8")]));
        assert_eq!((c.language, c.source), (Language::ZhCn, "LANG"));
        let c = choose(None, &env(&[("LC_ALL", "C"), ("LANG", "zh_CN.UTF-8")]));
        assert_eq!((c.language, c.source), (Language::En, "LC_ALL"));
        let c = choose(Some("klingon"), &env(&[("LANG", "zh_CN.UTF-8")]));
        assert_eq!(c.language, Language::ZhCn);
        assert_eq!(c.ignored, [("language", "klingon".to_string())]);
        let c = choose(None, &env(&[("LANG", "zh_TW.UTF-8")]));
        assert_eq!(c.language, Language::En);
        assert_eq!(choose(None, &env(&[])).source, "default");
    }

    #[test]
    fn a_thread_can_use_another_language_and_arguments_are_not_isolated() {
        let zh = with_language(Language::ZhCn, || t!("language-name"));
        let en = with_language(Language::En, || t!("language-name"));
        assert_eq!((en.as_str(), zh.as_str()), ("English", "简体中文"));
        let text = with_language(Language::En, || t!("test-greeting", name = "Ada"));
        assert_eq!(text, "Hello, Ada!");
        assert!(!text.contains('\u{2068}'));
        // Unknown ids show themselves rather than nothing.
        assert_eq!(tr("no-such-message"), "no-such-message");
    }
}
