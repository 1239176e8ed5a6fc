//! `reasonix sessions list`: the saved sessions of one workspace, most recently updated first.
//! Loads no plugins.

use crate::context::resolve_workspace;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, outln};
use anyhow::anyhow;
use reasonix_agent::session::{SessionStore, Summary};
use reasonix_config::Paths;
use reasonix_core::terminal::shown;
use serde_json::json;
use std::path::Path;

pub fn list(as_json: bool, dir: Option<&Path>) -> Outcome {
    let paths = Paths::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow!("cannot read the current directory: {e}")))?;
    let config = crate::context::load_config(&paths, &cwd)?;
    let workspace = resolve_workspace(dir, config.sandbox.workspace_root.as_deref())?;
    let store = SessionStore::new(&paths.state, &workspace);
    let sessions = store.list().map_err(Failure::runtime)?;
    if as_json {
        let value = json!({
            "workspace": workspace.display().to_string(),
            "sessions": sessions,
        });
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    if sessions.is_empty() {
        outln!(
            "no sessions for {}; `reasonix run` starts one",
            shown(&workspace.display().to_string())
        );
        if let Some(hint) = reasonix_agent::session::go::hint(&paths.state) {
            outln!("{}", shown(&hint));
        }
        return Ok(Code::Success);
    }
    outln!("{}", table(&sessions));
    Ok(Code::Success)
}

/// `ID  UPDATED  MESSAGES  MODEL  TITLE`, columns padded.
fn table(sessions: &[Summary]) -> String {
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|s| {
            [
                s.id.clone(),
                utc(s.updated_ms),
                s.messages.to_string(),
                // Read from session files: one line each, escaped (see crate::term).
                shown(&format!("{}/{}", s.provider, s.model)).to_string(),
                shown(&s.title).to_string(),
            ]
        })
        .collect();
    let header = [
        "ID".to_string(),
        "UPDATED (UTC)".to_string(),
        "MESSAGES".to_string(),
        "MODEL".to_string(),
        "TITLE".to_string(),
    ];
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    std::iter::once(&header)
        .chain(&rows)
        .map(|row| {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                match widths.get(i) {
                    Some(w) => line.push_str(&format!("{cell:<w$}  ")),
                    None => line.push_str(cell),
                }
            }
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `YYYY-MM-DD HH:MM` in UTC.
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        // 2026-11-30 03:57 UTC
        assert_eq!(utc(1_796_011_020_000), "2026-11-30 03:57");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00");
    }

    #[test]
    fn table_columns_line_up() {
        let s = |id: &str, title: &str| Summary {
            id: id.into(),
            title: title.into(),
            parent: None,
            parent_turn: None,
            provider: "mock".into(),
            model: "m".into(),
            messages: 3,
            created_ms: 0,
            updated_ms: 0,
            path: PathBuf::from("/x"),
            composition: None,
        };
        let text = table(&[s("a-long-id", "first"), s("b", "second")]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("ID         UPDATED"));
        assert!(lines[2].starts_with("b          1970-01-01 00:00"));
        assert!(lines[2].ends_with("mock/m  second"));
    }
}
