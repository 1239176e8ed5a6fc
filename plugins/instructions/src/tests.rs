use super::*;
use crate::sources::{collect, cut};
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn headings(found: &[Found]) -> Vec<String> {
    found.iter().map(|f| f.heading.clone()).collect()
}

#[test]
fn root_files_render_as_they_always_did() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    write(&ws.join("CLAUDE.md"), "claude rules");
    write(&ws.join("REASONIX.md"), "reasonix rules\n");
    write(&ws.join("AGENTS.md"), "   \n");
    write(&ws.join("sub/AGENTS.md"), "nested");
    let found = collect(&[], ws, None);
    assert_eq!(headings(&found), ["REASONIX.md", "CLAUDE.md"]);
    let prompt = append("Guidance.\n\n# Environment\n\n- x\n", &found);
    assert_eq!(
        prompt,
        "Guidance.\n\n# Environment\n\n- x\n\n# Project instructions\n\nThe project keeps these instructions for agents in its root directory. Follow them; they take precedence over the general guidance above when the two disagree.\n\n## REASONIX.md\n\nreasonix rules\n\n## CLAUDE.md\n\nclaude rules\n"
    );
    // Without the environment section, still one blank line between.
    assert!(append("Guidance.", &found).starts_with("Guidance.\n\n# Project instructions\n"));
}

#[test]
fn every_source_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let claude = dir.path().join("user/.claude");
    let ws = dir.path().join("ws");
    write(&home.join("REASONIX.md"), "home rules");
    write(&claude.join("CLAUDE.md"), "claude user rules");
    write(&claude.join("AGENTS.md"), "not read from ~/.claude");
    write(&ws.join("AGENTS.md"), "agents");
    write(&ws.join("AGENTS.local.md"), "agents local");
    write(&ws.join(".claude/CLAUDE.md"), "dot claude");
    let found = collect(&[home.clone(), claude.clone()], &ws, None);
    assert_eq!(
        headings(&found),
        [
            home.join("REASONIX.md").display().to_string(),
            claude.join("CLAUDE.md").display().to_string(),
            "AGENTS.md".to_string(),
            "AGENTS.local.md".to_string(),
            ".claude/CLAUDE.md".to_string(),
        ]
    );
    assert!(render(&found).contains("The user and the project keep"));
}

#[test]
fn files_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let line = "x".repeat(99) + "\n";
    write(&dir.path().join("AGENTS.md"), &line.repeat(1000));
    let found = collect(&[], dir.path(), None);
    assert!(found[0].truncated);
    assert!(found[0].text.len() <= MAX_FILE_BYTES);
    assert!(found[0].text.ends_with('x'), "cut at a line end");
    assert!(render(&found).contains("[AGENTS.md is longer"));
    for name in ["REASONIX.md", "CLAUDE.md", "CLAUDE.local.md"] {
        write(&dir.path().join(name), &line.repeat(1000));
    }
    let total: usize = collect(&[], dir.path(), None)
        .iter()
        .map(|f| f.text.len())
        .sum();
    assert!(total <= MAX_TOTAL_BYTES);
}

#[test]
fn cut_respects_char_boundaries() {
    let text = "é".repeat(10);
    assert_eq!(cut(&text, 5), ("éé", true));
}

#[test]
fn imports_expand_in_place_once() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    write(
        &ws.join("AGENTS.md"),
        "top\n@docs/style.md\nmid\n@docs/style.md\nend",
    );
    write(&ws.join("docs/style.md"), "style\n@more.md\n");
    write(&ws.join("docs/more.md"), "more");
    let found = collect(&[], ws, None);
    assert_eq!(found[0].text, "top\nstyle\nmore\nmid\nend");
}

#[test]
fn escaping_imports_are_refused_with_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    write(&dir.path().join("secret.md"), "SECRET");
    write(
        &ws.join("AGENTS.md"),
        "@../secret.md\n@/etc/passwd\n@missing.md\n@link.md\n@self.md\n@sub\nok",
    );
    write(&ws.join("self.md"), "@self.md");
    fs::create_dir_all(ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.md"), ws.join("link.md")).unwrap();
    let found = collect(&[], &ws, None);
    let text = &found[0].text;
    assert!(!text.contains("SECRET"), "{text}");
    for why in [
        "@../secret.md (AGENTS.md, line 1): the path leaves the importing file's directory",
        "@/etc/passwd (AGENTS.md, line 2): only paths relative",
        "@missing.md (AGENTS.md, line 3): the file cannot be read",
        "@link.md (AGENTS.md, line 4): the path goes through a symlink",
        "@self.md (self.md, line 1): it imports itself (a cycle)",
        "@sub (AGENTS.md, line 6): it is not a file",
    ] {
        assert!(
            text.contains(&format!("[Reasonix did not import {why}")),
            "{why}\n{text}"
        );
    }
    assert!(text.ends_with("ok"));
}

#[test]
fn imports_nest_five_levels() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    write(&ws.join("AGENTS.md"), "@l1.md");
    for i in 1..=6 {
        write(
            &ws.join(format!("l{i}.md")),
            &format!("level {i}\n@l{}.md", i + 1),
        );
    }
    let text = &collect(&[], ws, None)[0].text;
    assert!(text.contains("level 5"), "{text}");
    assert!(!text.contains("level 6"), "{text}");
    assert!(text.contains("nest at most 5 levels"), "{text}");
}

#[test]
fn the_interceptor_appends_and_stays_quiet_without_files() {
    let dir = tempfile::tempdir().unwrap();
    let payload = |ws: &Path| {
        serde_json::json!({
            "prompt": "P", "workspaceRoot": ws.display().to_string(),
            "os": "linux", "arch": "x86_64", "shell": null
        })
        .to_string()
    };
    assert_eq!(
        Instructions::intercept(POINT, &payload(dir.path())).unwrap(),
        Decision::Proceed
    );
    write(&dir.path().join("AGENTS.md"), "Use tabs.");
    match Instructions::intercept(POINT, &payload(dir.path())).unwrap() {
        Decision::Replace(json) => {
            let v: Value = serde_json::from_str(&json).unwrap();
            assert!(
                v["prompt"]
                    .as_str()
                    .unwrap()
                    .ends_with("## AGENTS.md\n\nUse tabs.\n")
            );
        }
        other => panic!("{other:?}"),
    }
}

/// Claude Code's own example (its memory guide): imports inside prose, a home import, and
/// `@` words that are not imports.
#[test]
fn inline_imports_as_in_claude_codes_example() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    write(
        &ws.join("CLAUDE.md"),
        "See @README for project overview and @package.json for available npm commands for this project.\n\
         \n\
         # Additional Instructions\n\
         - git workflow @docs/git-instructions.md\n\
         - @~/.claude/my-project-instructions.md\n\
         \n\
         Ask @alice, mail bob@example.com, see `@not-an-import.md`.\n\
         ```\n\
         @README\n\
         ```\n\
         Also (@docs/git-instructions.md).\n",
    );
    write(&ws.join("README"), "README BODY");
    write(&ws.join("package.json"), "{\"scripts\": {}}");
    write(&ws.join("docs/git-instructions.md"), "GIT BODY");
    write(&ws.join("not-an-import.md"), "NOPE");
    let found = collect(&[], ws, None);
    let text = &found[0].text;
    assert!(
        text.starts_with("See @README for project overview"),
        "{text}"
    );
    // Each imported once, right after the line that names it.
    let readme = text.find("README BODY").expect(text);
    let package = text.find("{\"scripts\": {}}").expect(text);
    let git = text.find("GIT BODY").expect(text);
    assert!(
        readme < package && package < text.find("# Additional").unwrap(),
        "{text}"
    );
    assert!(git > text.find("- git workflow").unwrap(), "{text}");
    assert_eq!(text.matches("GIT BODY").count(), 1, "{text}");
    assert_eq!(text.matches("README BODY").count(), 1, "{text}");
    // Without a `~/.claude`, the home import is refused, visibly; mentions and code are left
    // alone.
    assert!(
        text.contains("[Reasonix did not import @~/.claude/my-project-instructions.md (CLAUDE.md, line 5): there is no `~/.claude`"),
        "{text}"
    );
    assert!(!text.contains("NOPE"), "{text}");
    assert!(!text.contains("did not import @alice"), "{text}");
    assert!(text.contains("```\n@README\n```"), "{text}");
}

#[test]
fn home_imports_come_from_the_users_files_and_a_trusted_workspace_only() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("user/.claude");
    let ws = dir.path().join("ws");
    write(&claude.join("my-project-instructions.md"), "MY PREFERENCES");
    write(&claude.join("notes/deep.md"), "DEEP NOTE");
    write(&claude.join(".credentials.json"), "CREDENTIAL");
    write(&dir.path().join("user/secret.md"), "HOME SECRET");
    std::os::unix::fs::symlink(dir.path().join("user/secret.md"), claude.join("link.md")).unwrap();
    write(
        &ws.join("CLAUDE.md"),
        "- @~/.claude/my-project-instructions.md
         @~/.claude/notes/deep.md
         @~/.claude/.credentials.json
         @~/.claude/link.md
         @~/.claude/../secret.md
         @~/secret.md
",
    );
    let users = [claude.clone()];

    // An untrusted workspace: every home import refused, visibly.
    let text = &collect(&users, &ws, None)[0].text;
    assert!(
        !text.contains("MY PREFERENCES") && !text.contains("DEEP NOTE"),
        "{text}"
    );
    assert!(
        text.contains("[Reasonix did not import @~/.claude/my-project-instructions.md (CLAUDE.md, line 1): a workspace's file imports from your home only once you trust the workspace"),
        "{text}"
    );

    // Trusted: Markdown files of `~/.claude` come in; nothing else of the home does.
    let text = &collect(&users, &ws, Some(&ws))[0].text;
    assert!(
        text.contains("- @~/.claude/my-project-instructions.md\nMY PREFERENCES"),
        "{text}"
    );
    assert!(text.contains("DEEP NOTE"), "{text}");
    for (line, why) in [
        (
            3,
            "only Markdown files (`.md`) are imported from `~/.claude`",
        ),
        (4, "the path goes through a symlink"),
        (5, "the path leaves the importing file's directory"),
        (
            6,
            "only paths relative to the importing file, and `~/.claude/…` Markdown files",
        ),
    ] {
        assert!(
            text.contains(&format!("(CLAUDE.md, line {line}): {why}")),
            "{line}: {text}"
        );
    }
    assert!(
        !text.contains("CREDENTIAL") && !text.contains("HOME SECRET"),
        "{text}"
    );

    // The user's own files may always import from `~/.claude`.
    write(&claude.join("CLAUDE.md"), "@~/.claude/notes/deep.md\nUSER");
    let found = collect(&users, &dir.path().join("empty"), None);
    assert!(found[0].text.contains("DEEP NOTE"), "{}", found[0].text);
}

proptest::proptest! {
    /// Any text expands without panicking, and text without `@` comes back unchanged.
    #[test]
    fn expansion_never_panics(text in "[ -~\n`@./a-z~]{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("AGENTS.md"), &text);
        write(&dir.path().join("a.md"), "A");
        let found = collect(&[], dir.path(), None);
        if !text.contains('@') && !text.trim().is_empty() {
            proptest::prop_assert_eq!(found[0].text.trim(), text.trim());
        }
    }
}
