//! `reasonix mcp add`: one server into this workspace's local servers, `<home>/mcp.json` or
//! the project's `.mcp.json`.

use super::{Scope, command_line, save_entry};
use crate::exit::{Failure, Outcome};
use anyhow::anyhow;
use reasonix_config::mcp_files::{self, Remote};
use reasonix_core::terminal::shown;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TransportArg {
    /// A local process speaking MCP on stdin/stdout (the default).
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The 2024-11-05 HTTP+SSE transport.
    Sse,
}

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// How to reach the server.
    #[arg(long, short = 't', value_enum, default_value = "stdio")]
    transport: TransportArg,
    /// Where to add it: `local` (yours, this workspace only; the default, as in Claude Code),
    /// `user` (yours, every workspace) or `project` (the workspace's .mcp.json).
    #[arg(long, short = 's', value_enum, default_value = "local")]
    scope: Scope,
    /// An environment variable of the server process (stdio), repeatable. `${VAR}` in the
    /// value is expanded when the server starts.
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// A header sent with every request (http, sse), repeatable, e.g.
    /// `-H "Authorization: Bearer ${API_TOKEN}"`.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Replace a server of the same name in that file.
    #[arg(long)]
    force: bool,
    /// Server name: letters, digits, `-` and `_` (tools become `mcp__<name>__<tool>`).
    name: String,
    /// stdio: the command and its arguments, after `--` (so that their options are not read
    /// as ours); http and sse: the URL.
    #[arg(required = true)]
    target: Vec<String>,
}

pub fn run(args: AddArgs) -> Outcome {
    let entry = match args.transport {
        TransportArg::Stdio => {
            if !args.headers.is_empty() {
                return Err(Failure::usage(anyhow!(
                    "-H/--header is for http and sse servers; a stdio server takes -e KEY=VALUE"
                )));
            }
            let (command, rest) = args
                .target
                .split_first()
                .ok_or_else(|| Failure::usage(anyhow!("name the command to run after `--`")))?;
            if command.starts_with("http://") || command.starts_with("https://") {
                return Err(Failure::usage(anyhow!(
                    "`{}` is a URL: add a remote server with `--transport http` (or `sse`)",
                    shown(command)
                )));
            }
            mcp_files::stdio_entry(command, rest, &pairs(&args.env)?)
        }
        TransportArg::Http | TransportArg::Sse => {
            if !args.env.is_empty() {
                return Err(Failure::usage(anyhow!(
                    "-e/--env sets a process's environment: only for stdio servers"
                )));
            }
            let [url] = args.target.as_slice() else {
                return Err(Failure::usage(anyhow!(
                    "a remote server takes one URL after its name, got {} words",
                    args.target.len()
                )));
            };
            let remote = if args.transport == TransportArg::Http {
                Remote::Http
            } else {
                Remote::Sse
            };
            mcp_files::remote_entry(remote, url, &headers(&args.headers)?)
        }
    };
    let what = match args.transport {
        TransportArg::Stdio => format!(
            "stdio server `{}`: {}",
            shown(&args.name),
            command_line(args.target.iter().map(String::as_str))
        ),
        TransportArg::Http | TransportArg::Sse => format!(
            "{} server `{}`: {}",
            if args.transport == TransportArg::Http {
                "http"
            } else {
                "sse"
            },
            shown(&args.name),
            shown(&args.target[0])
        ),
    };
    save_entry(args.scope, &args.name, entry, args.force, &what)
}

/// `KEY=VALUE` words.
fn pairs(words: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    for word in words {
        let (key, value) = word
            .split_once('=')
            .filter(|(k, _)| !k.is_empty() && !k.contains('\0'))
            .ok_or_else(|| {
                Failure::usage(anyhow!(
                    "-e `{}`: write KEY=VALUE (a variable name, `=`, its value)",
                    shown(word)
                ))
            })?;
        out.insert(key.to_string(), value.to_string());
    }
    Ok(out)
}

/// `Name: value` words; the name must be an HTTP token.
fn headers(words: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    for word in words {
        let parsed = word.split_once(':').and_then(|(name, value)| {
            let name = name.trim();
            let token = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
            let value = value.trim();
            let clean = !value.chars().any(|c| c == '\r' || c == '\n' || c == '\0');
            (token && clean).then(|| (name.to_string(), value.to_string()))
        });
        let (name, value) = parsed.ok_or_else(|| {
            Failure::usage(anyhow!(
                "-H `{}`: write \"Name: value\" (a header name, `:`, its value on one line)",
                shown(word)
            ))
        })?;
        out.insert(name, value);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn headers_and_pairs_parse_and_refuse_malformed_words() {
        let h = headers(&["Authorization: Bearer ${T}".into(), "X-A:b:c".into()]).unwrap();
        assert_eq!(h["Authorization"], "Bearer ${T}");
        assert_eq!(h["X-A"], "b:c");
        for bad in ["NoColon", ": v", "Bad Name: v", "X: a\nb"] {
            assert!(headers(&[bad.into()]).is_err(), "{bad:?}");
        }
        let e = pairs(&["A=1".into(), "B==2".into(), "C=".into()]).unwrap();
        assert_eq!(
            (e["A"].as_str(), e["B"].as_str(), e["C"].as_str()),
            ("1", "=2", "")
        );
        for bad in ["A", "=1"] {
            assert!(pairs(&[bad.into()]).is_err(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn parsed_headers_never_carry_a_line_break(word in "\\PC{0,30}|.{0,30}") {
            if let Ok(h) = headers(&[word]) {
                for (k, v) in h {
                    prop_assert!(!k.is_empty() && !k.contains(':'));
                    prop_assert!(!v.contains('\n') && !v.contains('\r'));
                }
            }
        }
    }
}
