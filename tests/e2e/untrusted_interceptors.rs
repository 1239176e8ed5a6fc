//! A repository must not switch off or reconfigure the user's guards: an untrusted project's
//! `[plugin.<name>]` section is set aside for every plugin serving interceptors (the built-in
//! redactor, a policy interceptor the user installed and configured), and kept for the rest.
//! Each test has a trusted twin showing that the same section does take effect once the user
//! trusts the workspace, so the untrusted runs measure the rule, not a broken setting.

use crate::support::{Env, stderr, tool_results};
use reasonix_mock_llm::{MockLlm, Reply};
use std::process::Output;

const FAKE_KEY: &str = "sk-proj-abcdefghij0123456789KLMNOP";

struct Setup {
    env: Env,
    mock: MockLlm,
}

impl Setup {
    /// The provider and `user` in the user's own config; `project` as the workspace's
    /// `reasonix.toml`, trusted or not.
    fn new(trusted: bool, user: &str, project: &str) -> Setup {
        let env = if trusted {
            Env::new()
        } else {
            Env::untrusted()
        };
        let mock = MockLlm::start().unwrap();
        let provider = env.mock_provider("openai", &mock.base_url(), "mock-key-0123456789ab", "");
        std::fs::write(
            env.home().join("config.toml"),
            format!("{provider}\n{user}\n"),
        )
        .unwrap();
        env.project_config(project);
        std::fs::write(
            env.workspace().join("config.txt"),
            format!("api = {FAKE_KEY}\n"),
        )
        .unwrap();
        Setup { env, mock }
    }

    fn read_config(&self) -> (Output, String) {
        self.mock.enqueue(Reply::tool_calls(
            &[("c1", "read_file", r#"{"path":"config.txt"}"#)],
            1,
        ));
        self.mock.enqueue(Reply::text(&["done"]));
        let ws = self.env.workspace();
        let out = self
            .env
            .reasonix(&["run", "--dir", ws.to_str().unwrap(), "read config.txt"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let result = tool_results("openai", &self.mock.requests()[1].json())
            .into_iter()
            .find(|(id, _)| id == "c1")
            .map(|(_, r)| r)
            .unwrap();
        (out, result)
    }
}

#[test]
fn an_untrusted_project_cannot_switch_off_the_redactor() {
    let project = "[plugin.redact]\nenabled = false\n";
    let s = Setup::new(false, "", project);
    let (out, result) = s.read_config();
    assert!(
        result.contains("[REDACTED]") && !result.contains(FAKE_KEY),
        "{result}"
    );
    assert!(
        stderr(&out).contains("[plugin.redact] in the untrusted project file is ignored"),
        "{}",
        stderr(&out)
    );

    // Trusted, the same section switches it off.
    let s = Setup::new(true, "", project);
    let (_, result) = s.read_config();
    assert!(result.contains(FAKE_KEY), "{result}");
}

#[test]
fn an_untrusted_project_cannot_disable_or_reconfigure_a_users_policy_interceptor() {
    let user = "[plugin.probe.config]\n\"tool.before\" = \"block\"\n";
    let project =
        "[plugin.probe]\nenabled = false\n[plugin.probe.config]\n\"tool.before\" = \"continue\"\n";
    for trusted in [false, true] {
        let s = Setup::new(trusted, user, project);
        s.env.install_fixture("probe");
        let (_, result) = s.read_config();
        if trusted {
            assert!(
                result.contains(FAKE_KEY) || result.contains("[REDACTED]"),
                "{result}"
            );
            assert!(!result.contains("blocked by probe"), "{result}");
        } else {
            assert!(result.contains("tool.before blocked by probe"), "{result}");
        }
    }
}

#[test]
fn an_untrusted_project_still_configures_plugins_that_intercept_nothing() {
    // `bound` intercepts; a tool-only built-in does not: narrowing one stays allowed.
    let project = "[plugin.web]\nenabled = false\n";
    let s = Setup::new(false, "", project);
    let (out, _) = s.read_config();
    assert!(
        stderr(&out).contains("plugin `web` is disabled in the config"),
        "{}",
        stderr(&out)
    );
    assert!(!s.mock.requests()[0].body.contains("\"web_fetch\""));
}
