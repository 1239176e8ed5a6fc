//! `--setting-sources` and `--settings`: which `settings.json` files a run reads, and one more
//! settings document from the command line (docs/HOOKS.md, docs/CONFIG.md).

use crate::exit::Failure;
use anyhow::anyhow;
use reasonix_config::{SettingScope, SettingsChoice};
use std::path::PathBuf;

/// A `--settings` file larger than this is refused.
const MAX_FILE: u64 = 256 * 1024;

/// The choice the two flags make.
pub fn choose(sources: Option<&str>, settings: Option<&str>) -> Result<SettingsChoice, Failure> {
    let sources = match sources {
        None => None,
        Some(list) => Some(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|name| {
                    SettingScope::parse(name).ok_or_else(|| {
                        Failure::usage(anyhow!(
                            "--setting-sources: `{}` is not a source; name user, project or local \
                             (comma-separated)",
                            reasonix_core::terminal::shown(name)
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let extra = match settings {
        None => None,
        Some(value) if value.trim_start().starts_with('{') => {
            Some((PathBuf::from("--settings (inline)"), value.to_string()))
        }
        Some(file) => {
            let shown = reasonix_core::terminal::shown(file).to_string();
            let fail = |e: std::io::Error| {
                Failure::usage(anyhow!("--settings {shown}: cannot read it: {e}"))
            };
            let size = std::fs::metadata(file).map_err(fail)?.len();
            if size > MAX_FILE {
                return Err(Failure::usage(anyhow!(
                    "--settings {shown}: {size} bytes, more than the {} KiB a settings file may have",
                    MAX_FILE / 1024
                )));
            }
            Some((
                PathBuf::from(file),
                std::fs::read_to_string(file).map_err(fail)?,
            ))
        }
    };
    Ok(SettingsChoice { sources, extra })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_scopes() {
        let c = choose(Some("user, local"), None).unwrap();
        assert_eq!(
            c.sources,
            Some(vec![SettingScope::User, SettingScope::Local])
        );
        assert_eq!(choose(Some(""), None).unwrap().sources, Some(vec![]));
        assert_eq!(choose(None, None).unwrap(), SettingsChoice::default());
        let e = choose(Some("user,global"), None).unwrap_err().to_string();
        assert!(e.contains("`global` is not a source"), "{e}");
        let c = choose(None, Some(r#"{"permissions":{}}"#)).unwrap();
        assert!(c.extra.is_some());
        let e = choose(None, Some("/nonexistent/s.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--settings /nonexistent/s.json: cannot read it"),
            "{e}"
        );
    }
}
