//! The tool role: one type per tool ([`Tool`]), gathered in a [`ToolSet`] that lists their
//! specs and dispatches calls by name.
//!
//! ```ignore
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct ShoutArgs {
//!     /// The text to shout.
//!     text: String,
//! }
//!
//! struct Shout;
//! impl reasonix_sdk::Tool for Shout {
//!     const NAME: &'static str = "shout";
//!     const READ_ONLY: bool = true;
//!     type Args = ShoutArgs;
//!     fn description() -> String { "Return `text` in upper case.".into() }
//!     fn run(args: ShoutArgs, _cx: &reasonix_sdk::CallContext) -> Result<String, reasonix_sdk::Error> {
//!         Ok(args.text.to_uppercase())
//!     }
//! }
//!
//! let tools = reasonix_sdk::ToolSet::new().with::<Shout>();
//! ```

use crate::{CallContext, Error, FileChange, ToolSpec, parse_args, schema_for};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::borrow::Cow;

/// One tool: its name, what the model is told about it, its arguments and what it does.
///
/// The parameter schema is derived from [`Args`](Tool::Args) ([`schema_for`]), and the
/// arguments of a call are parsed into it before [`run`](Tool::run) or
/// [`preview`](Tool::preview) is called; a call that does not fit is `invalid-input` naming
/// the field.
pub trait Tool {
    /// Unique tool name across the registry: ASCII letters, digits, `_` and `-`.
    const NAME: &'static str;
    /// True when the tool never changes anything: it may run in parallel and needs no
    /// approval, and it has nothing to preview.
    const READ_ONLY: bool;
    /// The arguments object.
    type Args: DeserializeOwned + JsonSchema;
    /// The parameter schema derived from [`Args`](Tool::Args), pinned as JSON text (usually
    /// `Some(include_str!("../schemas/<tool>.json"))`). Deriving a schema inside the component
    /// links `schemars` into it, which roughly doubles a small component's code and so its
    /// compile time on a cold start; a pinned schema leaves that code out of the wasm build.
    /// [`ToolSet::check_pinned_schemas`] (in a unit test) fails when the pin and `Args` drift,
    /// and rewrites the files with `REASONIX_BLESS=1`. `None`: derived when the plugin
    /// describes itself.
    const SCHEMA: Option<&'static str> = None;

    /// What the tool does, written for the model.
    fn description() -> String;

    /// How to use the tool well, for the agent's system prompt: one or more complete sentences
    /// (several separated by newlines), each a bullet of its "How to work" list. The agent
    /// includes it only while the tool is offered, so name only this tool. Keep it short: it
    /// is part of every request.
    fn guidance() -> Option<String> {
        None
    }

    /// Parse the JSON arguments of a call; the default is [`parse_args`]. Override it to check
    /// more, or to word the errors differently.
    fn parse(arguments: &str) -> Result<Self::Args, Error> {
        parse_args(Self::NAME, arguments)
    }

    /// Run the tool; the result is the text the model reads.
    fn run(args: Self::Args, cx: &CallContext) -> Result<String, Error>;

    /// The file changes [`run`](Tool::run) would make with the same arguments, without making
    /// them (for approval diffs and checkpoints). Only called for tools that are not
    /// [`READ_ONLY`](Tool::READ_ONLY); the default reports none.
    fn preview(args: Self::Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let _ = (args, cx);
        Ok(Vec::new())
    }
}

/// The [`ToolSpec`] of `T`, with its parameter schema (pinned, else derived).
pub fn spec<T: Tool>() -> ToolSpec {
    // `SCHEMA` is a constant: with a pin, the derivation is dead code and left out of the build.
    let parameters = match T::SCHEMA {
        Some(pinned) => pinned.trim().to_string(),
        None => schema_for::<T::Args>().to_string(),
    };
    ToolSpec {
        name: T::NAME.to_string(),
        description: T::description(),
        parameters,
        read_only: T::READ_ONLY,
        guidance: T::guidance(),
    }
}

/// Parse `arguments` for `T` and run it.
pub fn invoke<T: Tool>(arguments: &str, cx: &CallContext) -> Result<String, Error> {
    T::run(T::parse(arguments)?, cx)
}

/// Parse `arguments` for `T` and preview its changes; a read-only tool changes nothing.
pub fn preview<T: Tool>(arguments: &str, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
    if T::READ_ONLY {
        return Ok(Vec::new());
    }
    T::preview(T::parse(arguments)?, cx)
}

/// How a raw tool ([`ToolSet::with_raw`]) is run: with the tool's name, its JSON arguments and
/// the call context.
pub type RawInvoke = fn(&str, &str, &CallContext) -> Result<String, Error>;

type Invoke = fn(&str, &str, &CallContext) -> Result<String, Error>;
type Preview = fn(&str, &str, &CallContext) -> Result<Vec<FileChange>, Error>;

/// A pinned schema and the function deriving the schema it must equal.
#[cfg(not(target_arch = "wasm32"))]
type Pin = (&'static str, fn() -> serde_json::Value);

enum Spec {
    Typed {
        spec: fn() -> ToolSpec,
        /// The pinned schema and the one derived from the arguments type, for the drift check.
        #[cfg(not(target_arch = "wasm32"))]
        pin: Option<Pin>,
    },
    Raw(ToolSpec),
}

struct Entry {
    name: Cow<'static, str>,
    spec: Spec,
    invoke: Invoke,
    preview: Preview,
}

/// The tools a plugin serves, in the order they are listed: built once with
/// [`with`](ToolSet::with) per tool, then asked for the specs or to run a call by name.
/// Building one is cheap (no schema is generated until [`specs`](ToolSet::specs)).
#[derive(Default)]
pub struct ToolSet {
    entries: Vec<Entry>,
}

impl ToolSet {
    /// No tools.
    pub fn new() -> ToolSet {
        ToolSet::default()
    }

    /// Add the tool `T`.
    pub fn with<T: Tool>(mut self) -> ToolSet {
        self.entries.push(Entry {
            name: Cow::Borrowed(T::NAME),
            spec: Spec::Typed {
                spec: spec::<T>,
                #[cfg(not(target_arch = "wasm32"))]
                pin: T::SCHEMA.map(|pinned| (pinned, schema_for::<T::Args> as fn() -> _)),
            },
            invoke: |_, arguments, cx| invoke::<T>(arguments, cx),
            preview: |_, arguments, cx| preview::<T>(arguments, cx),
        });
        self
    }

    /// Add a tool from a spec written by hand (see [`tool_spec`](crate::tool_spec)) and a
    /// function that runs it with the raw JSON arguments. For tools whose list is only known
    /// at run time; a raw tool previews no changes. Prefer [`with`](ToolSet::with).
    pub fn with_raw(mut self, spec: ToolSpec, invoke: RawInvoke) -> ToolSet {
        self.entries.push(Entry {
            name: Cow::Owned(spec.name.clone()),
            spec: Spec::Raw(spec),
            invoke,
            preview: |_, _, _| Ok(Vec::new()),
        });
        self
    }

    /// Every tool's spec, in order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .map(|e| match &e.spec {
                Spec::Typed { spec, .. } => spec(),
                Spec::Raw(spec) => spec.clone(),
            })
            .collect()
    }

    /// Check every pinned schema ([`Tool::SCHEMA`]) against the one derived from the tool's
    /// arguments type; `dir` holds the pins as `<tool>.json`. With `REASONIX_BLESS` set, write
    /// the derived schemas there instead. For a unit test of the plugin crate:
    /// `Component::tools().check_pinned_schemas(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas"))`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn check_pinned_schemas(&self, dir: &str) -> Result<(), String> {
        let bless = std::env::var_os("REASONIX_BLESS").is_some();
        let mut drift = Vec::new();
        for entry in &self.entries {
            let Spec::Typed {
                pin: Some((pinned, derive)),
                ..
            } = &entry.spec
            else {
                continue;
            };
            let derived = derive();
            let file = std::path::Path::new(dir).join(format!("{}.json", entry.name));
            if bless {
                // serde_json maps are sorted: this is the canonical form the host sends.
                let text = derived.to_string() + "\n";
                std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
                continue;
            }
            let pinned: serde_json::Value = serde_json::from_str(pinned)
                .map_err(|e| format!("the pinned schema of `{}` is not JSON: {e}", entry.name))?;
            if pinned != derived {
                drift.push(format!(
                    "`{}`: {} differs from its arguments type; rerun the test with REASONIX_BLESS=1 to rewrite it",
                    entry.name,
                    file.display()
                ));
            }
        }
        if drift.is_empty() {
            Ok(())
        } else {
            Err(drift.join("\n"))
        }
    }

    /// The tool names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_ref())
    }

    /// Whether a tool of this name is in the set.
    pub fn contains(&self, name: &str) -> bool {
        self.entry(name).is_ok()
    }

    /// Run the tool `name` with its JSON `arguments`.
    pub fn invoke(&self, name: &str, arguments: &str, cx: &CallContext) -> Result<String, Error> {
        let entry = self.entry(name)?;
        (entry.invoke)(name, arguments, cx)
    }

    /// The file changes the tool `name` would make with these arguments.
    pub fn preview(
        &self,
        name: &str,
        arguments: &str,
        cx: &CallContext,
    ) -> Result<Vec<FileChange>, Error> {
        let entry = self.entry(name)?;
        (entry.preview)(name, arguments, cx)
    }

    fn entry(&self, name: &str) -> Result<&Entry, Error> {
        self.entries.iter().find(|e| e.name == name).ok_or_else(|| {
            let served: Vec<String> = self.names().map(|n| format!("`{n}`")).collect();
            let served = if served.is_empty() {
                "no tools".to_string()
            } else {
                served.join(", ")
            };
            Error::NotFound(format!(
                "tool `{name}` is not served by this plugin (it serves {served})"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChangeKind;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Text {
        /// The text.
        text: String,
    }

    struct Upper;
    impl Tool for Upper {
        const NAME: &'static str = "upper";
        const READ_ONLY: bool = true;
        type Args = Text;
        fn description() -> String {
            "Upper-case a text.".into()
        }
        fn guidance() -> Option<String> {
            Some("Use `upper` to shout.".into())
        }
        fn run(args: Text, _cx: &CallContext) -> Result<String, Error> {
            Ok(args.text.to_uppercase())
        }
        fn preview(_args: Text, _cx: &CallContext) -> Result<Vec<FileChange>, Error> {
            panic!("a read-only tool is never previewed")
        }
    }

    struct Note;
    impl Tool for Note {
        const NAME: &'static str = "note";
        const READ_ONLY: bool = false;
        type Args = Text;
        fn description() -> String {
            "Write note.txt.".into()
        }
        fn parse(arguments: &str) -> Result<Text, Error> {
            let args: Text = parse_args(Self::NAME, arguments)?;
            if args.text.is_empty() {
                return Err(Error::invalid("text", "must not be empty"));
            }
            Ok(args)
        }
        fn run(args: Text, _cx: &CallContext) -> Result<String, Error> {
            Ok(format!("wrote {} bytes", args.text.len()))
        }
        fn preview(args: Text, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
            Ok(vec![FileChange {
                path: format!("{}/note.txt", cx.workspace),
                kind: ChangeKind::Create,
                old_text: None,
                new_text: Some(args.text),
            }])
        }
    }

    fn cx() -> CallContext {
        CallContext {
            call_id: "c".into(),
            workspace: "/ws".into(),
        }
    }

    fn set() -> ToolSet {
        ToolSet::new().with::<Upper>().with::<Note>().with_raw(
            crate::tool_spec(
                "raw",
                "Echoes",
                &serde_json::json!({"type": "object"}),
                true,
            ),
            |name, arguments, _| Ok(format!("{name}: {arguments}")),
        )
    }

    #[test]
    fn specs_come_from_the_tools_in_order() {
        let specs = set().specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["upper", "note", "raw"]);
        assert_eq!(specs[0].description, "Upper-case a text.");
        assert!(specs[0].read_only && !specs[1].read_only);
        assert_eq!(specs[0].guidance.as_deref(), Some("Use `upper` to shout."));
        assert_eq!(specs[1].guidance, None);
        let schema: serde_json::Value = serde_json::from_str(&specs[0].parameters).unwrap();
        assert_eq!(schema, schema_for::<Text>());
        assert_eq!(specs[2].parameters, r#"{"type":"object"}"#);
    }

    #[test]
    fn calls_are_dispatched_by_name() {
        let set = set();
        assert_eq!(
            set.invoke("upper", r#"{"text":"hi"}"#, &cx()),
            Ok("HI".into())
        );
        assert_eq!(
            set.invoke("note", r#"{"text":"abc"}"#, &cx()),
            Ok("wrote 3 bytes".into())
        );
        assert_eq!(set.invoke("raw", "{}", &cx()), Ok("raw: {}".into()));
        assert!(set.contains("note") && !set.contains("nope"));
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let set = set();
        match set.invoke("upper", r#"{"txt":"hi"}"#, &cx()) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("upper") && m.contains("`txt`"), "{m}")
            }
            other => panic!("unexpected {other:?}"),
        }
        match set.invoke("upper", r#"{"text":3}"#, &cx()) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("field `text`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            set.invoke("note", r#"{"text":""}"#, &cx()),
            Err(Error::invalid("text", "must not be empty")),
            "a tool's own parse is used"
        );
    }

    #[test]
    fn preview_runs_only_for_mutating_tools() {
        let set = set();
        assert_eq!(set.preview("upper", "not even json", &cx()), Ok(vec![]));
        let changes = set.preview("note", r#"{"text":"x"}"#, &cx()).unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].path, "/ws/note.txt");
        assert!(matches!(
            set.preview("note", "{}", &cx()),
            Err(Error::InvalidInput(_))
        ));
        assert_eq!(set.preview("raw", "{}", &cx()), Ok(vec![]));
    }

    #[test]
    fn an_unknown_tool_is_not_found_and_names_the_served_ones() {
        match set().invoke("rm_rf", "{}", &cx()) {
            Err(Error::NotFound(m)) => {
                assert!(
                    m.contains("`rm_rf`") && m.contains("`upper`, `note`, `raw`"),
                    "{m}"
                )
            }
            other => panic!("unexpected {other:?}"),
        }
        match ToolSet::new().preview("x", "{}", &cx()) {
            Err(Error::NotFound(m)) => assert!(m.contains("serves no tools"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
