//! The kernel knows the contract, never a concrete tool: a built-in tool's name written in the
//! non-test code of any kernel crate means knowledge that belongs in the tool's component.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The built-in tools, as the components serve them.
const TOOL_NAMES: &[&str] = &[
    "bash",
    "bash_output",
    "delete_range",
    "edit_file",
    "glob",
    "grep",
    "kill_shell",
    "ls",
    "move_file",
    "multi_edit",
    "notebook_edit",
    "read_file",
    "todo_write",
    "wait",
    "web_fetch",
    "write_file",
];

/// Literals that are the same word but not the tool, with the reason.
const NOT_A_TOOL: &[(&str, &str, &str)] = &[
    (
        "rules/src/shell/mod.rs",
        "\"bash\"",
        "the shell program in the list of interpreters that take inline code",
    ),
    (
        "rules/src/shell/unwrap.rs",
        "\"bash\"",
        "the shell program in the list of shells whose `-c` code a deny rule reads",
    ),
    (
        "config/src/check.rs",
        "\"bash\"",
        "the `[sandbox] bash` configuration key",
    ),
    (
        "config/src/trust.rs",
        "\"bash\"",
        "the `[sandbox] bash` configuration key",
    ),
    (
        "process/seatbelt.rs",
        "`wait`",
        "the `wait` shell builtin, in a comment of the Seatbelt profile text",
    ),
];

fn kernel_sources() -> Vec<PathBuf> {
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for krate in ["core", "host", "agent", "config", "rules"] {
        collect(&kernel.join(krate).join("src"), &mut out);
    }
    assert!(out.len() > 20, "found the kernel's sources");
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The lines of `text` outside `#[cfg(test)]` items (a `mod x;` line, or a `mod x {` block that
/// ends at the next `}` in column 0), with their numbers.
fn non_test_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            let Some((_, mut item)) = lines.next() else {
                break;
            };
            while item.trim_start().starts_with("#[") {
                let Some((_, next)) = lines.next() else {
                    break;
                };
                item = next;
            }
            if item.trim_end().ends_with('{') {
                for (_, inner) in lines.by_ref() {
                    if inner == "}" {
                        break;
                    }
                }
            }
            continue;
        }
        out.push((n + 1, line));
    }
    out
}

#[test]
fn no_kernel_code_names_a_built_in_tool() {
    let mut hits = Vec::new();
    for path in kernel_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        let shown = path.display().to_string();
        for (n, line) in non_test_lines(&text) {
            let code = line.split("//").next().unwrap_or("");
            for name in TOOL_NAMES {
                let literal = format!("\"{name}\"");
                let backticked = format!("`{name}`");
                let excused = |token: &str| {
                    NOT_A_TOOL
                        .iter()
                        .any(|(file, t, _)| shown.ends_with(file) && *t == token)
                };
                let names = |token: &String| code.contains(token.as_str()) && !excused(token);
                if names(&literal) || names(&backticked) {
                    hits.push(format!("{shown}:{n}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "the kernel names built-in tools (that knowledge belongs in the tool's component):\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scanner_skips_test_items_and_only_them() {
    let text = "a\n#[cfg(test)]\nmod tests;\nb\n#[cfg(test)]\n#[allow(x)]\nmod tests {\n    \"bash\"\n}\nc\n";
    let lines: Vec<&str> = non_test_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, ["a", "b", "c"]);
}
