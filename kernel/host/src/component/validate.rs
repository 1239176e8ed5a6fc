//! Size and shape limits of a plugin's self-description (`describe`, `list-tools`,
//! `list-kinds`, `points`), and the range of interceptor priorities. A description is shown to users, sent to the model with every
//! request and kept in the cache: without limits one component listing 20 001 tools or a
//! 30 MiB description makes every start and every request pay for it.

use super::Description;

/// Most tools one plugin may list.
pub const MAX_TOOLS: usize = 256;
/// Most provider kinds one plugin may list.
pub const MAX_PROVIDER_KINDS: usize = 32;
/// Most interception points one plugin may ask for.
pub const MAX_INTERCEPTION_POINTS: usize = 32;
/// Longest tool, kind or point name (the model APIs' own limit for function names).
pub const MAX_NAME_LEN: usize = 64;
/// Longest description of the plugin, a tool or a kind.
pub const MAX_DESCRIPTION_BYTES: usize = 4 << 10;
/// Longest guidance of one tool: it enters the system prompt of every request.
pub const MAX_GUIDANCE_BYTES: usize = 1 << 10;
/// Interceptor priorities run from `-PRIORITY_BOUND` (first) to `PRIORITY_BOUND` (last).
pub const PRIORITY_BOUND: i32 = 1000;
/// Longest JSON schema of one tool's parameters.
pub const MAX_SCHEMA_BYTES: usize = 64 << 10;
/// Longest version string, credential header or prefix, network pattern or env name.
pub const MAX_SHORT_BYTES: usize = 256;
/// Most network patterns or env names a plugin may request.
pub const MAX_REQUESTED: usize = 64;
/// Most replacement slots one plugin may own.
pub const MAX_SLOTS: usize = 16;
/// Largest whole description (every string in it).
pub const MAX_TOTAL_BYTES: usize = 1 << 20;

/// Check every count and size of `d`; the error says which limit and where.
pub fn check(d: &Description) -> Result<(), String> {
    count("tools", d.tools.len(), MAX_TOOLS)?;
    count("provider kinds", d.provider_kinds.len(), MAX_PROVIDER_KINDS)?;
    count(
        "interception points",
        d.interception_points.len(),
        MAX_INTERCEPTION_POINTS,
    )?;
    count("slots", d.slots.len(), MAX_SLOTS)?;
    let total = total_bytes(d);
    if total > MAX_TOTAL_BYTES {
        return Err(format!(
            "its self-description is {total} bytes, over the limit of {MAX_TOTAL_BYTES} bytes"
        ));
    }
    let info = &d.info;
    size("its version", &info.version, MAX_SHORT_BYTES)?;
    size("its description", &info.description, MAX_DESCRIPTION_BYTES)?;
    count(
        "requested network patterns",
        info.requested.network.len(),
        MAX_REQUESTED,
    )?;
    count(
        "requested environment variables",
        info.requested.env.len(),
        MAX_REQUESTED,
    )?;
    for pattern in &info.requested.network {
        size("a requested network pattern", pattern, MAX_SHORT_BYTES)?;
    }
    for name in &info.requested.env {
        size(
            "a requested environment variable name",
            name,
            MAX_SHORT_BYTES,
        )?;
    }
    for tool in &d.tools {
        name("tool", &tool.name, false)?;
        let what = format!("tool `{}`", tool.name);
        size(
            &format!("{what}: description"),
            &tool.description,
            MAX_DESCRIPTION_BYTES,
        )?;
        size(
            &format!("{what}: parameter schema"),
            &tool.parameters,
            MAX_SCHEMA_BYTES,
        )?;
        if let Some(guidance) = &tool.guidance {
            size(&format!("{what}: guidance"), guidance, MAX_GUIDANCE_BYTES)?;
        }
    }
    for kind in &d.provider_kinds {
        name("provider kind", &kind.name, true)?;
        let what = format!("provider kind `{}`", kind.name);
        size(
            &format!("{what}: description"),
            &kind.description,
            MAX_DESCRIPTION_BYTES,
        )?;
        size(
            &format!("{what}: credential header"),
            &kind.credential_header,
            MAX_SHORT_BYTES,
        )?;
        size(
            &format!("{what}: credential prefix"),
            &kind.credential_prefix,
            MAX_SHORT_BYTES,
        )?;
    }
    let mut seen = std::collections::BTreeSet::new();
    for sub in &d.interception_points {
        name("interception point", &sub.point, true)?;
        // A misspelt point would never be called: a policy interceptor would silently guard
        // nothing.
        if !reasonix_core::slots::is_point(&sub.point) {
            return Err(format!(
                "interception point `{}` does not exist (known: {})",
                sub.point,
                reasonix_core::slots::POINTS.join(", ")
            ));
        }
        if !(-PRIORITY_BOUND..=PRIORITY_BOUND).contains(&sub.priority) {
            return Err(format!(
                "interception point `{}`: priority {} is out of range: use -{PRIORITY_BOUND} to {PRIORITY_BOUND} (lower runs first)",
                sub.point, sub.priority
            ));
        }
        if !seen.insert(&sub.point) {
            return Err(format!(
                "interception point `{}` is subscribed to twice",
                sub.point
            ));
        }
    }
    let mut owned = std::collections::BTreeSet::new();
    for slot in &d.slots {
        reasonix_core::slots::Slot::parse(slot).map_err(|e| format!("slot: {e}"))?;
        if !owned.insert(slot) {
            return Err(format!(
                "slot `{}` is claimed twice",
                crate::terminal::shown(slot)
            ));
        }
    }
    Ok(())
}

fn total_bytes(d: &Description) -> usize {
    let info = &d.info;
    let mut total = info.name.len() + info.version.len() + info.description.len();
    total += info
        .requested
        .network
        .iter()
        .map(String::len)
        .sum::<usize>();
    total += info.requested.env.iter().map(String::len).sum::<usize>();
    total += d
        .tools
        .iter()
        .map(|t| {
            t.name.len()
                + t.description.len()
                + t.parameters.len()
                + t.guidance.as_ref().map_or(0, String::len)
        })
        .sum::<usize>();
    total += d
        .provider_kinds
        .iter()
        .map(|k| {
            k.name.len()
                + k.description.len()
                + k.credential_header.len()
                + k.credential_prefix.len()
        })
        .sum::<usize>();
    total
        + d.interception_points
            .iter()
            .map(|s| s.point.len())
            .sum::<usize>()
}

fn count(what: &str, n: usize, max: usize) -> Result<(), String> {
    if n > max {
        return Err(format!("it lists {n} {what}, over the limit of {max}"));
    }
    Ok(())
}

fn size(what: &str, text: &str, max: usize) -> Result<(), String> {
    if text.len() > max {
        return Err(format!(
            "{what} is {} bytes, over the limit of {max} bytes",
            text.len()
        ));
    }
    Ok(())
}

/// Names reach the model's function list, config keys and terminals: 1–64 of `[A-Za-z0-9_-]`
/// (and `.` for kinds and points, which are namespaced like `tool.before`).
fn name(what: &str, text: &str, dots: bool) -> Result<(), String> {
    let ok = !text.is_empty()
        && text.len() <= MAX_NAME_LEN
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (dots && c == '.'));
    if ok {
        return Ok(());
    }
    let allowed = if dots {
        "`-`, `_` or `.`"
    } else {
        "`-` or `_`"
    };
    let shown: String = text
        .chars()
        .take(MAX_NAME_LEN)
        .flat_map(char::escape_debug)
        .collect();
    Err(format!(
        "{what} name \"{shown}\" is invalid: use 1–{MAX_NAME_LEN} ASCII letters, digits, {allowed}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::Capabilities;
    use crate::component::PluginInfo;
    use crate::types::{ProviderKind, Subscription, ToolSpec};
    use proptest::prelude::*;

    fn description() -> Description {
        Description {
            info: PluginInfo {
                name: "p".into(),
                version: "1.0.0".into(),
                description: "d".into(),
                requested: Capabilities::default(),
                requested_memory_mib: None,
                requested_call_timeout_ms: None,
            },
            tools: vec![tool("read_file")],
            provider_kinds: vec![],
            interception_points: vec![Subscription {
                point: "tool.before".into(),
                priority: 0,
            }],
            slots: vec![],
        }
    }

    fn tool(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "reads".into(),
            parameters: "{}".into(),
            read_only: true,
            guidance: None,
        }
    }

    #[test]
    fn an_ordinary_description_passes() {
        assert_eq!(check(&description()), Ok(()));
    }

    #[test]
    fn priorities_at_the_bounds_pass() {
        for priority in [-PRIORITY_BOUND, PRIORITY_BOUND] {
            let mut d = description();
            d.interception_points[0].priority = priority;
            d.interception_points.push(Subscription {
                point: "tool.after".into(),
                priority: -priority,
            });
            assert_eq!(check(&d), Ok(()), "{priority}");
        }
    }

    #[test]
    fn each_limit_is_enforced_and_named() {
        type Mutate = fn(&mut Description);
        let cases: [(Mutate, &str); 17] = [
            (
                |d| d.tools = (0..=MAX_TOOLS).map(|i| tool(&format!("t{i}"))).collect(),
                "257 tools",
            ),
            (
                |d| d.info.description = "x".repeat(MAX_TOTAL_BYTES + 1),
                "self-description is",
            ),
            (
                |d| d.info.description = "x".repeat(MAX_DESCRIPTION_BYTES + 1),
                "its description is",
            ),
            (
                |d| d.tools[0].name = "a b".into(),
                "tool name \"a b\" is invalid",
            ),
            (|d| d.tools[0].name = "x".repeat(65), "tool name"),
            (|d| d.tools[0].name = "tool.x".into(), "tool name"),
            (
                |d| d.tools[0].parameters = " ".repeat(MAX_SCHEMA_BYTES + 1),
                "parameter schema",
            ),
            (
                |d| d.interception_points[0].point = "\u{1b}[2J".into(),
                "interception point name",
            ),
            (
                |d| d.interception_points[0].point = "tool.befor".into(),
                "interception point `tool.befor` does not exist (known: input.receive,",
            ),
            (
                |d| d.slots = vec!["prompt".into()],
                "slot: `prompt` is not a replacement slot",
            ),
            (
                |d| d.slots = vec!["context".into(), "context".into()],
                "slot `context` is claimed twice",
            ),
            (
                |d| d.interception_points[0].priority = PRIORITY_BOUND + 1,
                "priority 1001 is out of range: use -1000 to 1000",
            ),
            (
                |d| d.interception_points[0].priority = i32::MIN,
                "priority -2147483648 is out of range",
            ),
            (
                |d| {
                    let again = d.interception_points[0].clone();
                    d.interception_points.push(again)
                },
                "`tool.before` is subscribed to twice",
            ),
            (
                |d| d.tools[0].guidance = Some("x".repeat(MAX_GUIDANCE_BYTES + 1)),
                "tool `read_file`: guidance is 1025 bytes",
            ),
            (
                |d| d.info.requested.env = vec!["E".into(); MAX_REQUESTED + 1],
                "environment variables",
            ),
            (
                |d| {
                    d.provider_kinds = vec![ProviderKind {
                        name: "k".into(),
                        description: String::new(),
                        credential_header: "h".repeat(MAX_SHORT_BYTES + 1),
                        credential_prefix: String::new(),
                    }]
                },
                "credential header",
            ),
        ];
        for (mutate, expected) in cases {
            let mut d = description();
            mutate(&mut d);
            let err = check(&d).unwrap_err();
            assert!(err.contains(expected), "{expected}: {err}");
        }
    }

    proptest! {
        #[test]
        fn accepted_names_are_plain(name in "\\PC{0,80}") {
            let mut d = description();
            d.tools[0].name = name.clone();
            if check(&d).is_ok() {
                prop_assert!(!name.is_empty() && name.len() <= MAX_NAME_LEN);
                prop_assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
            }
        }

        #[test]
        fn accepted_descriptions_are_bounded(tools in 0usize..300, len in 0usize..6000) {
            let mut d = description();
            d.tools = (0..tools).map(|i| ToolSpec { description: "x".repeat(len), ..tool(&format!("t{i}")) }).collect();
            if check(&d).is_ok() {
                prop_assert!(tools <= MAX_TOOLS && (tools == 0 || len <= MAX_DESCRIPTION_BYTES));
                prop_assert!(total_bytes(&d) <= MAX_TOTAL_BYTES);
            }
        }
    }
}
