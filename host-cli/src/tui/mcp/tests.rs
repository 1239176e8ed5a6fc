use super::*;
use crate::tui::slash::{SlashRegistry, builtin_specs};
use crate::tui::status::Status;
use crate::tui::theme::{ColorLevel, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use reasonix_config::mcp::{Origin, SourceKind};
use reasonix_mcp::PromptArgumentInfo;
use std::path::PathBuf;

fn status(name: &str, state: ServerState) -> ServerStatus {
    let (file, kind) = match state {
        ServerState::NotApproved => ("/work/app/.mcp.json", SourceKind::ProjectMcpJson),
        _ => ("/home/me/.reasonix/mcp.json", SourceKind::UserMcpJson),
    };
    ServerStatus {
        name: name.into(),
        transport: format!("stdio: node /opt/mcp/{name}/index.js stdio"),
        origin: Origin {
            file: PathBuf::from(file),
            kind,
        },
        state,
        restarts: 0,
    }
}

fn ready(tools: usize) -> ServerState {
    ServerState::Ready {
        tools,
        prompts: 3,
        resources: 7,
    }
}

fn failed() -> ServerState {
    ServerState::Failed {
        reason: "the process exited (exit status: 1) before it answered `initialize`".into(),
        stderr: "loading config\n\nError: Cannot find module 'left-pad'\n    at require (node:internal)\n  code: 'MODULE_NOT_FOUND'\n".into(),
    }
}

fn texts(notes: &[Note]) -> Vec<String> {
    notes.iter().map(|n| n.text.clone()).collect()
}

#[test]
fn one_notice_per_transition() {
    let mut last = BTreeMap::new();
    let starting = [
        status("a", ServerState::Starting),
        status("b", ServerState::Starting),
        status("p", ServerState::NotApproved),
    ];
    assert!(transitions(&mut last, &starting).is_empty());
    let one_ready = [
        status("a", ready(12)),
        status("b", ServerState::Starting),
        status("p", ServerState::NotApproved),
    ];
    assert_eq!(
        texts(&transitions(&mut last, &one_ready)),
        ["MCP server `a` ready: 12 tools"]
    );
    // Polled again with nothing new: nothing said; a changed tool count is not a transition.
    assert!(transitions(&mut last, &one_ready).is_empty());
    let more_tools = [status("a", ready(13)), status("b", failed())];
    let notes = transitions(&mut last, &more_tools);
    assert_eq!(
        notes[0].text,
        "MCP server `b` failed: the process exited (exit status: 1) before it answered `initialize`"
    );
    assert!(notes[0].error);
    // The end of its stderr, blank lines left out.
    assert_eq!(
        texts(&notes[1..]),
        [
            "  │ loading config",
            "  │ Error: Cannot find module 'left-pad'",
            "  │     at require (node:internal)",
            "  │   code: 'MODULE_NOT_FOUND'"
        ]
    );
    assert!(transitions(&mut last, &more_tools).is_empty());
    // Reconnected: starting again, then ready again.
    let again = [status("a", ready(13)), status("b", ServerState::Starting)];
    assert!(transitions(&mut last, &again).is_empty());
    let again = [status("a", ready(13)), status("b", ready(1))];
    assert_eq!(
        texts(&transitions(&mut last, &again)),
        ["MCP server `b` ready: 1 tool"]
    );
    // A server already ready at the first look is announced too.
    let mut fresh = BTreeMap::new();
    assert_eq!(transitions(&mut fresh, &again).len(), 2);
}

#[test]
fn status_field_counts_ready_of_those_that_should_run() {
    assert_eq!(status_field(&[]), None);
    assert_eq!(
        status_field(&[
            status("a", ready(1)),
            status("b", ServerState::Starting),
            status("c", ServerState::NotApproved),
            status("d", ServerState::Disabled),
        ]),
        Some("MCP 1/3".into())
    );
    assert_eq!(status_field(&[status("d", ServerState::Disabled)]), None);
}

#[test]
fn the_mcp_field_is_dropped_first_on_a_narrow_status_line() {
    let theme = Theme::new(ColorLevel::Ansi16);
    let status = Status {
        model: "deepseek/deepseek-v4-flash".into(),
        mcp: Some("MCP 2/3".into()),
        ..Status::default()
    };
    let text = |w: u16| -> String {
        status
            .line(theme, w, None)
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect()
    };
    assert!(text(120).contains("MCP 2/3"), "{}", text(120));
    let narrow = text(50);
    assert!(!narrow.contains("MCP"), "{narrow}");
    assert!(narrow.contains("ctx"), "{narrow}");
}

fn prompt(server: &str, name: &str, description: &str, args: &[(&str, bool)]) -> PromptInfo {
    PromptInfo {
        server: server.into(),
        name: name.into(),
        description: description.into(),
        arguments: args
            .iter()
            .map(|(n, required)| PromptArgumentInfo {
                name: (*n).into(),
                description: String::new(),
                required: *required,
            })
            .collect(),
    }
}

#[test]
fn prompts_become_commands_only_when_their_name_is_one_word() {
    let prompts = [
        prompt(
            "everything",
            "args-prompt",
            "A prompt with two arguments\nsecond line",
            &[("city", true), ("state", false)],
        ),
        prompt("everything", "simple-prompt", "", &[]),
        prompt("evil", "has space", "x", &[]),
        prompt("evil", "a/b", "x", &[]),
        prompt("evil", "bell\u{7}", "x", &[]),
        prompt("evil", "", "x", &[]),
    ];
    let specs = prompt_specs(&prompts);
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "mcp__everything__args-prompt",
            "mcp__everything__simple-prompt"
        ]
    );
    assert_eq!(specs[0].description, "A prompt with two arguments");
    assert_eq!(specs[0].argument_hint.as_deref(), Some("<city> [state]"));
    assert_eq!(specs[1].description, "MCP prompt of everything");
    assert_eq!(specs[1].argument_hint, None);
    // Every listed name parses back as that command.
    for s in &specs {
        let line = format!("/{} x", s.name);
        assert_eq!(SlashRegistry::parse(&line).unwrap().name, s.name);
    }
}

#[test]
fn the_registry_swaps_its_prompt_commands_and_help_lists_them() {
    let base = SlashRegistry::new(builtin_specs(), Default::default());
    let one = base.with_mcp_prompts(prompt_specs(&[prompt("s", "p1", "first", &[])]));
    assert!(one.get("mcp__s__p1").is_some());
    assert_eq!(one.complete("mcp__").len(), 1);
    let two = one.with_mcp_prompts(prompt_specs(&[prompt("s", "p2", "second", &[])]));
    assert!(two.get("mcp__s__p1").is_none());
    assert!(two.get("mcp__s__p2").is_some());
    // A prompt cannot take the place of a built-in.
    let clash = base.with_mcp_prompts(vec![CommandSpec {
        name: "help".into(),
        description: "evil".into(),
        argument_hint: None,
        kind: CommandKind::McpPrompt { server: "s".into() },
    }]);
    assert!(clash.get("help").unwrap().is_builtin());
    let help: Vec<String> = two
        .help_lines(&Theme::new(ColorLevel::None))
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
        .collect();
    let at = help
        .iter()
        .position(|l| l == "MCP prompts")
        .expect("section");
    assert!(help[at + 1].contains("/mcp__s__p2"), "{help:?}");
    assert!(
        help.iter()
            .any(|l| l.contains("/mcp [reconnect <name> | approve]"))
    );
}

/// `lines` in a `w`×`h` terminal with the status line at the bottom, as the session shows them.
fn draw(w: u16, h: u16, lines: Vec<Line<'static>>) -> String {
    let theme = Theme::new(ColorLevel::Ansi16);
    let status = Status {
        model: "deepseek/deepseek-v4-flash".into(),
        mcp: Some("MCP 1/3".into()),
        ..Status::default()
    };
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            let area = f.area();
            f.render_widget(
                Paragraph::new(crate::tui::wrap::wrap_lines(lines, usize::from(w))),
                Rect {
                    height: area.height - 1,
                    ..area
                },
            );
            f.render_widget(
                Paragraph::new(status.line(theme, w, None)),
                Rect {
                    y: area.height - 1,
                    height: 1,
                    ..area
                },
            );
        })
        .unwrap();
    format!("{}", terminal.backend())
}

fn servers() -> Vec<ServerStatus> {
    let mut restarted = status("everything", ready(13));
    restarted.restarts = 2;
    vec![
        restarted,
        status("broken", failed()),
        status("project-db", ServerState::NotApproved),
    ]
}

fn question() -> Question {
    let mut remote = status("remote", ServerState::NotApproved);
    remote.transport = "http: https://mcp.example.com/v1/mcp?team=reasonix".into();
    Question::for_statuses(&[
        status("project-db", ServerState::NotApproved),
        remote,
        status("everything", ready(1)),
    ])
    .unwrap()
}

#[test]
fn mcp_listing_80x24() {
    let theme = Theme::new(ColorLevel::Ansi16);
    insta::assert_snapshot!(draw(80, 24, listing::lines(&servers(), theme)));
}

#[test]
fn mcp_listing_120x40() {
    let theme = Theme::new(ColorLevel::Ansi16);
    insta::assert_snapshot!(draw(120, 40, listing::lines(&servers(), theme)));
}

#[test]
fn mcp_listing_zh_cn_80x24() {
    let theme = Theme::new(ColorLevel::Ansi16);
    let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || {
        draw(80, 24, listing::lines(&servers(), theme))
    });
    assert!(screen.contains("MCP 服务器：3 个中 1 个已就绪"), "{screen}");
    assert!(screen.contains("已重启 2 次"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn mcp_question_zh_cn_80x24() {
    let screen = reasonix_i18n::with_language(reasonix_i18n::Language::ZhCn, || {
        let mut q = question();
        q.confirm_always = true;
        q.selected = 1;
        draw(80, 24, q.lines(Theme::new(ColorLevel::Ansi16)))
    });
    assert!(
        screen.contains("启动此项目中的 2 个 MCP 服务器吗？"),
        "{screen}"
    );
    assert!(screen.contains("再按一次 a"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn mcp_question_80x24() {
    insta::assert_snapshot!(draw(
        80,
        24,
        question().lines(Theme::new(ColorLevel::Ansi16))
    ));
}

#[test]
fn mcp_question_120x40() {
    let mut q = question();
    q.selected = 2;
    insta::assert_snapshot!(draw(120, 40, q.lines(Theme::new(ColorLevel::Ansi16))));
}

#[test]
fn the_question_lists_only_servers_waiting_for_approval() {
    let q = question();
    let names: Vec<&str> = q.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["project-db", "remote"]);
    assert!(Question::for_statuses(&[status("a", ready(1))]).is_none());
    // A project reasonix.toml's servers follow workspace trust: not this question's to start.
    let mut toml = status("from-toml", ServerState::NotApproved);
    toml.origin.kind = SourceKind::ProjectToml;
    assert!(Question::for_statuses(&[toml.clone()]).is_none());
    assert!(listing::state_text(&toml).contains("reasonix trust"));
}

#[test]
fn hostile_names_reasons_and_stderr_are_escaped() {
    let theme = Theme::new(ColorLevel::Ansi16);
    let mut evil = status(
        "ev\u{1b}]0;pwned\u{7}il",
        ServerState::Failed {
            reason: "boom\u{1b}[2J".into(),
            stderr: "\u{1b}]52;c;aGk=\u{7}\n\u{202e}gnp.exe".into(),
        },
    );
    evil.transport = "stdio: sh -c \u{1b}[31mred".into();
    let mut waiting = evil.clone();
    waiting.state = ServerState::NotApproved;
    waiting.origin.kind = SourceKind::ProjectMcpJson;
    let mut lines = listing::lines(&[evil.clone()], theme);
    lines.extend(Question::for_statuses(&[waiting]).unwrap().lines(theme));
    let mut last = BTreeMap::new();
    for note in transitions(&mut last, &[evil]) {
        lines.push(Line::from(
            crate::tui::text::safe_line(&note.text).into_owned(),
        ));
    }
    for line in &lines {
        for span in &line.spans {
            assert!(
                !span
                    .content
                    .chars()
                    .any(|c| c.is_control() || c == '\u{202e}'),
                "unescaped: {:?}",
                span.content
            );
        }
    }
}

/// A prompt the server answered is sent as its own text (no `@` reference read); an empty one
/// or a failure is an error naming the command.
#[test]
fn a_prompt_report_becomes_a_server_prompt_or_an_error() {
    let report = |result: Result<&str, &str>| {
        handle(Event::Prompt {
            command: "mcp__s__review".into(),
            result: result.map(str::to_string).map_err(str::to_string),
        })
    };
    let sent = report(Ok("Review @s:file:///x"));
    assert!(matches!(sent.list(), [Effect::ServerPrompt(t)] if t == "Review @s:file:///x"));
    let empty = report(Ok("  \n"));
    assert!(matches!(empty.list(),
        [Effect::Error(e)] if e == "/mcp__s__review: the server returned an empty prompt"));
    let failed = report(Err("server gone"));
    assert!(matches!(failed.list(), [Effect::Error(e)] if e == "/mcp__s__review: server gone"));
}
