//! `--help` in the user's language. The English text is the commands' doc comments; the
//! catalogue holds it too (`i18n/locales/en/cli.ftl`, kept equal to the doc comments by a test
//! that can regenerate it) with its translation beside it (`zh-CN/cli.ftl`). Each command is
//! one message (`cli-run`, its `about`), with attributes for its long text (`.long`) and each
//! argument's help (`.arg-<id>`, `.arg-<id>-long`).

use clap::{Arg, ArgAction, Command};
use reasonix_i18n::{Language, t};

/// The message id of the command at `path` (`[]` is `reasonix` itself).
fn message_id(path: &[String]) -> String {
    std::iter::once("cli".to_string())
        .chain(path.iter().map(|p| p.replace('_', "-")))
        .collect::<Vec<_>>()
        .join("-")
}

/// Every user-written text of `cmd` and its subcommands: (message id, attribute or `None`,
/// English text). Clap's own `help` and `version` flags are left to [`localize`].
#[cfg(test)]
fn texts(cmd: &Command, path: &mut Vec<String>, out: &mut Vec<(String, Option<String>, String)>) {
    let id = message_id(path);
    if let Some(about) = cmd.get_about() {
        out.push((id.clone(), None, about.to_string()));
    }
    if let Some(long) = cmd.get_long_about() {
        out.push((id.clone(), Some("long".into()), long.to_string()));
    }
    if let Some(after) = cmd.get_after_help() {
        out.push((id.clone(), Some("after".into()), after.to_string()));
    }
    for arg in cmd.get_arguments() {
        if arg.is_global_set() && !path.is_empty() {
            // A global argument is described where it is declared.
            continue;
        }
        let name = format!("arg-{}", arg.get_id().as_str().replace('_', "-"));
        if let Some(help) = arg.get_help() {
            out.push((id.clone(), Some(name.clone()), help.to_string()));
        }
        if let Some(long) = arg.get_long_help() {
            out.push((id.clone(), Some(format!("{name}-long")), long.to_string()));
        }
    }
    for sub in cmd.get_subcommands() {
        path.push(sub.get_name().to_string());
        texts(sub, path, out);
        path.pop();
    }
}

/// `text` as a Fluent pattern in block form (each line indented), with the characters Fluent
/// gives a meaning escaped.
#[cfg(test)]
fn pattern(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut escaped = String::with_capacity(line.len());
        for c in line.chars() {
            match c {
                '{' => escaped.push_str("{\"{\"}"),
                '}' => escaped.push_str("{\"}\"}"),
                _ => escaped.push(c),
            }
        }
        if escaped.trim().is_empty() {
            out.push('\n');
            continue;
        }
        out.push_str("    ");
        if escaped.starts_with(['.', '*', '[']) {
            out.push_str("{\"\"}");
        }
        out.push_str(&escaped);
        out.push('\n');
    }
    out
}

/// The English CLI catalogue, as the doc comments say it.
#[cfg(test)]
pub fn english_catalogue(cmd: &Command) -> String {
    let mut all = Vec::new();
    texts(cmd, &mut Vec::new(), &mut all);
    let mut out = String::from(
        "# `reasonix --help` in English: generated from the commands' doc comments (host-cli/src/cli_text.rs).\n# Do not edit by hand: change the doc comment, then run\n#   REASONIX_BLESS=1 cargo test -p reasonix cli_text\n# and translate what changed in ../zh-CN/cli.ftl.\n",
    );
    let mut current: Option<String> = None;
    for (id, attribute, text) in all {
        if current.as_deref() != Some(id.as_str()) {
            out.push('\n');
            current = Some(id.clone());
            match &attribute {
                None => {
                    out.push_str(&format!("{id} =\n{}", pattern(&text)));
                    continue;
                }
                Some(_) => out.push_str(&format!("{id} =\n")),
            }
        }
        if let Some(attribute) = attribute {
            out.push_str(&format!("    .{attribute} =\n"));
            for line in pattern(&text).lines() {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("    {line}\n"));
                }
            }
        }
    }
    out
}

/// The `language` key of the user's config, then of the project's (a UI language widens
/// nothing, so a project may set it). Read before the command line is parsed, for `--help`;
/// a file that does not parse is left to the normal load to report.
pub fn configured_language() -> Option<String> {
    let paths = reasonix_config::Paths::from_env();
    let read = |path: std::path::PathBuf| -> Option<String> {
        let text = std::fs::read_to_string(path).ok()?;
        let document: toml_edit::DocumentMut = text.parse().ok()?;
        document.get("language")?.as_str().map(str::to_string)
    };
    read(std::path::PathBuf::from("reasonix.toml")).or_else(|| read(paths.user_config()))
}

/// `cmd` with its texts in `language` (unchanged in English), clap's own words included.
pub fn localize(cmd: Command, language: Language) -> Command {
    if language == Language::En {
        return cmd;
    }
    reasonix_i18n::with_language(language, || localize_at(cmd, &mut Vec::new(), true))
}

fn localize_at(mut cmd: Command, path: &mut Vec<String>, root: bool) -> Command {
    let id = message_id(path);
    let lookup = |attribute: Option<&str>| {
        let key = match attribute {
            Some(a) => format!("{id}.{a}"),
            None => id.clone(),
        };
        reasonix_i18n::has(reasonix_i18n::language(), &key).then(|| reasonix_i18n::tr(&key))
    };
    if cmd.get_about().is_some()
        && let Some(about) = lookup(None)
    {
        cmd = cmd.about(about.trim_end().to_string());
    }
    if cmd.get_long_about().is_some()
        && let Some(long) = lookup(Some("long"))
    {
        cmd = cmd.long_about(long.trim_end().to_string());
    }
    if cmd.get_after_help().is_some()
        && let Some(after) = lookup(Some("after"))
    {
        cmd = cmd.after_help(after.trim_end().to_string());
    }
    let ids: Vec<String> = cmd
        .get_arguments()
        .map(|a| a.get_id().as_str().to_string())
        .collect();
    for arg_id in ids {
        let name = format!("arg-{}", arg_id.replace('_', "-"));
        let help = lookup(Some(&name));
        let long = lookup(Some(&format!("{name}-long")));
        let options = t!("cli-heading-options");
        let arguments = t!("cli-heading-arguments");
        cmd = cmd.mut_arg(arg_id.as_str(), |mut arg: Arg| {
            if arg.get_help().is_some()
                && let Some(help) = &help
            {
                arg = arg.help(help.trim_end().to_string());
            }
            if arg.get_long_help().is_some()
                && let Some(long) = &long
            {
                arg = arg.long_help(long.trim_end().to_string());
            }
            if arg.get_help_heading().is_none() {
                let heading = if arg.is_positional() {
                    arguments.clone()
                } else {
                    options.clone()
                };
                arg = arg.help_heading(heading);
            }
            arg
        });
    }
    // Clap's own flags and words.
    cmd = cmd
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help(t!("cli-flag-help"))
                .help_heading(t!("cli-heading-options")),
        )
        .subcommand_help_heading(t!("cli-heading-commands"))
        .help_template(format!(
            "{{before-help}}{{about-with-newline}}\n{} {{usage}}\n\n{{all-args}}{{after-help}}",
            t!("cli-heading-usage")
        ));
    if root && cmd.get_version().is_some() {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(t!("cli-flag-version"))
                .help_heading(t!("cli-heading-options")),
        );
    }
    if cmd.has_subcommands() {
        cmd = cmd.disable_help_subcommand(true);
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        path.push(name.clone());
        let mut taken = None;
        cmd = cmd.mut_subcommand(name.as_str(), |sub| {
            let localized = localize_at(sub, path, false);
            taken = Some(());
            localized
        });
        let _ = taken;
        path.pop();
    }
    cmd
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    const EN_CLI: &str = "../i18n/locales/en/cli.ftl";

    #[test]
    fn the_english_cli_catalogue_is_the_doc_comments() {
        let generated = english_catalogue(&crate::Cli::command());
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(EN_CLI);
        if std::env::var_os("REASONIX_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            shipped == generated,
            "{} differs from the doc comments; run REASONIX_BLESS=1 cargo test -p reasonix cli_text, then translate the change in zh-CN/cli.ftl",
            path.display()
        );
    }

    #[test]
    fn each_english_text_reads_back_exactly_from_the_catalogue() {
        let mut all = Vec::new();
        texts(&crate::Cli::command(), &mut Vec::new(), &mut all);
        assert!(all.len() > 50, "{}", all.len());
        for (id, attribute, text) in all {
            let key = match attribute {
                Some(a) => format!("{id}.{a}"),
                None => id,
            };
            let back = reasonix_i18n::lookup(Language::En, &key, &[]);
            assert_eq!(back.trim_end(), text.trim_end(), "{key}");
        }
    }

    #[test]
    fn the_chinese_help_covers_every_command_and_clap_s_own_words() {
        let cmd = localize(crate::Cli::command(), Language::ZhCn);
        let mut cmd = cmd;
        let help = cmd.render_help().to_string();
        assert!(help.contains("用法"), "{help}");
        assert!(help.contains("命令"), "{help}");
        assert!(!help.contains("Usage:"), "{help}");
        assert!(!help.contains("Print help"), "{help}");
        let run = cmd.find_subcommand_mut("run").unwrap();
        let text = run.render_long_help().to_string();
        assert!(!text.contains("Options:"), "{text}");
    }
}
