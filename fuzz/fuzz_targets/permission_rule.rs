//! A permission rule parsed from arbitrary text, matched against an arbitrary tool call (every
//! tool kind, as a grant and as a prohibition), and a policy built from it deciding the call.
//! Input: `rule \n tool-name \n arguments` (arguments as JSON if they parse, else used as the
//! command, path, pattern and URL). Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reasonix_agent::permissions::rule::Use;
use reasonix_agent::permissions::{Call, Policy, Rule, ToolKind};
use serde_json::{Value, json};
use std::path::Path;

const KINDS: [ToolKind; 5] = [
    ToolKind::Shell,
    ToolKind::FileWriter,
    ToolKind::FileReader,
    ToolKind::Fetcher,
    ToolKind::Other,
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\n');
    let rule_text = parts.next().unwrap_or_default();
    let tool = parts.next().unwrap_or("Bash");
    let raw = parts.next().unwrap_or_default();
    let args: Value = serde_json::from_str(raw).unwrap_or_else(
        |_| json!({"command": raw, "path": raw, "file_path": raw, "pattern": raw, "url": raw}),
    );
    let _ = reasonix_agent::permissions::shell::segments(raw);
    let _ = reasonix_agent::permissions::shell::is_dynamic(raw);
    let Ok(rule) = Rule::parse(rule_text) else {
        return;
    };
    let _ = rule.is_exact_command();
    let workspace = Path::new("/work/space");
    for kind in KINDS {
        for purpose in [Use::Grant, Use::Deny] {
            let _ = rule.matches(tool, kind, &args, workspace, purpose);
        }
        for list in 0..3 {
            let mut policy = Policy::default();
            match list {
                0 => policy.allow.push(rule.clone()),
                1 => policy.ask.push(rule.clone()),
                _ => policy.deny.push(rule.clone()),
            }
            let call = Call {
                tool,
                kind,
                read_only: kind == ToolKind::FileReader,
                args: &args,
                workspace,
                reach: None,
                own_rules: false,
            };
            let _ = policy.decide(&call);
            let _ = reasonix_agent::permissions::suggested_scopes(&call);
        }
    }
});
