//! The user interface in Simplified Chinese (docs/I18N.md), as a user gets it: `--help` from
//! the locale, `REASONIX_LANG` over it, `language` in the config over both, and the interactive
//! session at 80×24 in a real terminal (the banner, the status line, `/help`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use crate::tui::{Session, WAIT};

fn help(env: &Env, vars: &[(&str, &str)]) -> String {
    let mut command = env.command(&["run", "--help"]);
    command
        .env_remove("REASONIX_LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES");
    for (k, v) in vars {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn run_help_follows_lang_then_reasonix_lang_then_the_config() {
    let env = Env::new();
    let zh = help(&env, &[("LANG", "zh_CN.UTF-8")]);
    assert!(zh.contains("用法： reasonix run"), "{zh}");
    assert!(zh.contains("以无头模式"), "{zh}");
    assert!(zh.contains("选项"), "{zh}");
    assert!(zh.contains("显示帮助"), "{zh}");
    for english in ["Usage:", "Options:", "Print help", "Run one task headless"] {
        assert!(!zh.contains(english), "`{english}` left in:\n{zh}");
    }
    // Flags and code stay as they are.
    assert!(zh.contains("--model"), "{zh}");

    let en = help(&env, &[("LANG", "zh_CN.UTF-8"), ("REASONIX_LANG", "en")]);
    assert!(en.contains("Usage: reasonix run"), "{en}");
    assert!(en.contains("Run one task headless"), "{en}");

    std::fs::write(env.home().join("config.toml"), "language = \"zh-CN\"\n").unwrap();
    let configured = help(&env, &[("LANG", "C.UTF-8")]);
    assert!(configured.contains("用法："), "{configured}");
    let top = {
        let mut command = env.command(&["--help"]);
        command.env_remove("REASONIX_LANG");
        stdout(&command.output().unwrap())
    };
    assert!(top.contains("命令"), "{top}");
    assert!(!top.contains("Commands:"), "{top}");
}

#[test]
fn the_session_speaks_chinese_at_80x24() {
    let s = Session::new();
    s.mock.enqueue(reasonix_mock_llm::Reply::text(&["好的。"]));
    let mut pty = s.env.pty(
        &[],
        80,
        24,
        &[("REASONIX_LANG", ""), ("LANG", "zh_CN.UTF-8")],
    );
    pty.wait_for("/help 查看命令", WAIT);
    let screen = pty.wait_on_screen("询问", WAIT);
    assert!(screen.contains("上下文"), "{screen}");
    pty.type_text("/help");
    pty.send("\r");
    // The listing itself (the completion menu shows the first description already).
    let screen = pty.wait_for("开始新会话", WAIT);
    assert!(screen.contains("列出命令与按键"), "{screen}");
    // Nothing spills past the right edge: every row of the emulated screen is 80 columns.
    for row in pty.screen().lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(row) <= 80,
            "a row wider than the terminal: {row:?}"
        );
    }
    pty.type_text("你好");
    pty.send("\r");
    pty.wait_for("好的。", WAIT);
    pty.send("\x04");
    assert_eq!(pty.wait_exit(WAIT), Some(0));
}

#[test]
fn a_run_reports_its_tool_activity_in_chinese() {
    let env = Env::new();
    let mock = reasonix_mock_llm::MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(env.project().join("notes.txt"), "one\ntwo\n").unwrap();
    let read = serde_json::json!({"path": "notes.txt"}).to_string();
    let write = serde_json::json!({"path": "x.txt", "content": "x"}).to_string();
    mock.enqueue(reasonix_mock_llm::Reply::tool_calls(
        &[("r1", "read_file", &read), ("w1", "write_file", &write)],
        1,
    ));
    mock.enqueue(reasonix_mock_llm::Reply::text(&["读完了。"]));
    let mut command = env.command(&["run", "读一下 notes.txt"]);
    command
        .env_remove("REASONIX_LANG")
        .env("LANG", "zh_CN.UTF-8");
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("→ read_file"), "{err}");
    assert!(err.contains("成功，"), "{err}");
    // The headless run asks nobody: the write is refused, said in Chinese.
    assert!(err.contains("未运行"), "{err}");
    assert!(!err.contains(" not run:"), "{err}");
    assert_eq!(stdout(&out).trim(), "读完了。");
    // Tool results for the model stay as the tools wrote them.
    let body: serde_json::Value = serde_json::from_str(&mock.requests()[1].body).unwrap();
    assert!(body.to_string().contains("one"), "{body}");
}

#[test]
fn reasoning_language_is_one_stable_line_of_the_system_prompt() {
    let env = Env::new();
    let mock = reasonix_mock_llm::MockLlm::start().unwrap();
    env.project_config(&format!(
        "{}\n[agent]\nreasoning_language = \"zh\"\n",
        env.mock_provider("openai", &mock.base_url(), "sk-test", "")
    ));
    mock.enqueue(reasonix_mock_llm::Reply::text(&["一"]));
    mock.enqueue(reasonix_mock_llm::Reply::text(&["二"]));
    for prompt in ["first", "second"] {
        let out = env.reasonix(&["run", prompt]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let system = |n: usize| {
        let body: serde_json::Value = serde_json::from_str(&mock.requests()[n].body).unwrap();
        body["messages"][0]["content"].to_string()
    };
    assert!(
        system(0).contains("Write your reasoning (thinking) in Simplified Chinese."),
        "{}",
        system(0)
    );
    assert_eq!(system(0), system(1));
    // No warning that the key is ignored any more.
    let out = env.reasonix(&["doctor"]);
    assert!(
        !stderr(&out).contains("reasoning_language"),
        "{}",
        stderr(&out)
    );
}
