//! The host's route for a turn when a planner model is configured: decided from the user's
//! own text and trusted turn facts (the posture, a goal, the run mode), never by a model and
//! never from text the host or a tool wrote. Quoted text (`"…"`, `` `…` ``, code blocks) is
//! an example, not a directive: it is left out before the directives are read.

/// Where the turn goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteKind {
    /// No planner: the executor alone.
    ExecutorOnly,
    /// A compact plan (objective, 1–4 steps, touchpoints, verification), then the executor.
    Light,
    /// A full plan (verified and candidate touchpoints, risks, acceptance, verification,
    /// rollback), then the executor.
    Full,
    /// A full plan the user approves before the executor starts.
    PlanForApproval,
    /// A full plan, kept; nothing is executed.
    PlanOnly,
}

impl RouteKind {
    pub fn name(self) -> &'static str {
        match self {
            RouteKind::ExecutorOnly => "executor-only",
            RouteKind::Light => "light",
            RouteKind::Full => "full",
            RouteKind::PlanForApproval => "plan-for-approval",
            RouteKind::PlanOnly => "plan-only",
        }
    }

    /// A planner that fails here must not fall back to the executor.
    pub fn fails_closed(self) -> bool {
        matches!(self, RouteKind::PlanForApproval | RouteKind::PlanOnly)
    }
}

/// The route and why, for the turn's notice (no user text in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub kind: RouteKind,
    pub reason: &'static str,
}

/// What the host knows about the turn besides its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnFacts {
    /// The posture is `plan`: plan mode does its own planning.
    pub plan_mode: bool,
    /// A goal is pursued or the mode is `delivery`: changes get the full contract.
    pub strict: bool,
}

const PLAN_ONLY: &[&str] = &[
    "plan only",
    "only plan",
    "just plan",
    "just a plan",
    "only a plan",
    "don't implement",
    "do not implement",
    "without implementing",
    "don't change anything",
    "do not change anything",
    "don't make any changes",
    "do not make any changes",
    "只规划",
    "只要计划",
    "只做计划",
    "不要实现",
    "不要修改",
];

const APPROVAL: &[&str] = &[
    "wait for my approval",
    "wait for approval",
    "wait for my confirmation",
    "wait for confirmation",
    "wait for my go",
    "before you start, show me",
    "show me the plan first",
    "plan first and wait",
    "let me approve",
    "let me review the plan",
    "ask me before you",
    "confirm with me before",
    "等我确认",
    "等我批准",
    "先给我看计划",
    "确认后再",
];

/// Words that change things.
const MUTATING: &[&str] = &[
    "add",
    "change",
    "create",
    "delete",
    "edit",
    "fix",
    "implement",
    "install",
    "make",
    "migrate",
    "move",
    "refactor",
    "remove",
    "rename",
    "replace",
    "rewrite",
    "update",
    "upgrade",
    "write",
    "build",
    "port",
    "convert",
    "split",
    "merge",
    "introduce",
    "support",
    "drop",
    "修改",
    "添加",
    "删除",
    "实现",
    "重构",
    "修复",
    "迁移",
    "新增",
    "改成",
];

/// Work that is wide or risky whatever its length.
const WIDE: &[&str] = &[
    "refactor",
    "migrate",
    "migration",
    "architecture",
    "redesign",
    "across",
    "every ",
    "all the ",
    "throughout",
    "security",
    "authentication",
    "authorization",
    "database",
    "schema",
    "production",
    "deploy",
    "concurren",
    "重构",
    "迁移",
    "架构",
    "安全",
];

const QUESTION_STARTS: &[&str] = &[
    "what",
    "why",
    "how",
    "where",
    "which",
    "who",
    "when",
    "does",
    "do ",
    "is ",
    "are ",
    "can ",
    "could",
    "should",
    "explain",
    "show",
    "list",
    "find",
    "read",
    "summarize",
    "summarise",
    "describe",
    "review",
    "look at",
    "tell me",
    "什么",
    "为什么",
    "怎么",
    "哪",
    "解释",
];

/// How much of the user's text is read: directives come early, and a pasted log must not
/// cost the turn (the tag stripping is quadratic in the worst case).
const READ_BYTES: usize = 8 * 1024;

/// The route of a turn whose user text is `text`.
pub fn route(text: &str, facts: TurnFacts) -> Route {
    let mut end = text.len().min(READ_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let long = end < text.len();
    let plain = unquoted(&text[..end]).to_lowercase();
    let has = |list: &[&str]| list.iter().any(|p| plain.contains(p));
    let route = |kind, reason| Route { kind, reason };
    if plain.trim().is_empty() {
        return route(RouteKind::ExecutorOnly, "an empty turn");
    }
    if facts.plan_mode {
        return route(RouteKind::ExecutorOnly, "plan mode plans by itself");
    }
    if has(PLAN_ONLY) {
        return route(RouteKind::PlanOnly, "an explicit plan-only request");
    }
    if has(APPROVAL) {
        return route(
            RouteKind::PlanForApproval,
            "an explicit request to approve the plan first",
        );
    }
    let words = plain.split_whitespace().count();
    // CJK text has no spaces: count its characters as a rough word count.
    let size = words.max(plain.chars().filter(|c| !c.is_ascii()).count() / 2);
    let mutates = plain
        .split(|c: char| !c.is_alphanumeric() && c.is_ascii())
        .any(|w| MUTATING.contains(&w))
        || MUTATING.iter().any(|m| !m.is_ascii() && plain.contains(m));
    let asks = plain.trim_end().ends_with('?')
        || plain.trim_end().ends_with('？')
        || QUESTION_STARTS
            .iter()
            .any(|q| plain.trim_start().starts_with(q));
    if !mutates {
        let reason = match (asks, size <= 4) {
            (true, _) => "a question",
            (false, true) => "a short reply",
            (false, false) => "a read-only request",
        };
        return route(RouteKind::ExecutorOnly, reason);
    }
    let listed = plain
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("- ")
                || l.starts_with("* ")
                || l.split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
        })
        .count();
    if has(WIDE) {
        return route(RouteKind::Full, "wide or high-risk work");
    }
    if listed >= 3 || size > 60 || long {
        return route(RouteKind::Full, "structured or long work");
    }
    if size <= 16 && !facts.strict {
        return route(RouteKind::ExecutorOnly, "one small change");
    }
    if facts.strict {
        return route(RouteKind::Full, "a change under a goal or delivery");
    }
    route(RouteKind::Light, "a change of several steps")
}

/// `text` without what it quotes — code blocks, `` `…` `` and `"…"` spans — and without
/// tagged blocks (`<resource …>…</resource>`, `<goal>…</goal>`): what the host appends is
/// not the user's words.
fn unquoted(text: &str) -> String {
    let text = untagged(text);
    let mut out = String::with_capacity(text.len());
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if matches!(c, '`' | '"' | '“' | '「') => {
                    quote = Some(match c {
                        '“' => '”',
                        '「' => '」',
                        other => other,
                    })
                }
                None => out.push(c),
            }
        }
        out.push('\n');
    }
    out
}

/// `text` without `<tag …>…</tag>` blocks (a tag of lowercase letters and `-`).
fn untagged(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let closes = after[name_len..].starts_with([' ', '>']);
        let closing = format!("</{name}>");
        match (name.is_empty() || !closes, after.find(&closing)) {
            (false, Some(end)) => {
                out.push_str(&rest[..open]);
                rest = &after[end + closing.len()..];
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn kind(text: &str) -> RouteKind {
        route(text, TurnFacts::default()).kind
    }

    #[test]
    fn the_routes_follow_the_users_own_words() {
        assert_eq!(kind("yes"), RouteKind::ExecutorOnly);
        assert_eq!(kind("what does the loader do?"), RouteKind::ExecutorOnly);
        assert_eq!(
            route("what is in notes.txt?", TurnFacts::default()).reason,
            "a question"
        );
        assert_eq!(
            kind("explain how sessions are saved"),
            RouteKind::ExecutorOnly
        );
        assert_eq!(kind("fix the typo in README.md"), RouteKind::ExecutorOnly);
        assert_eq!(
            kind(
                "add a --verbose flag to the run command, print each request's timing and document it in the guide"
            ),
            RouteKind::Light
        );
        assert_eq!(
            kind("refactor the session store so that it writes through a journal"),
            RouteKind::Full
        );
        assert_eq!(
            kind("add a cache layer for the model list; plan only"),
            RouteKind::PlanOnly
        );
        assert_eq!(
            kind(
                "add a cache layer for the model list, but wait for my approval before changing files"
            ),
            RouteKind::PlanForApproval
        );
        assert_eq!(kind("给会话存储添加日志功能，只规划"), RouteKind::PlanOnly);
    }

    #[test]
    fn quoted_examples_are_not_directives() {
        assert_eq!(
            kind("add a help line that says \"plan only\" to the planner docs and the CLI"),
            kind("add a help line that says something to the planner docs and the CLI"),
        );
        assert_ne!(
            kind(
                "write `wait for my approval` into the approval test fixture and update the other two"
            ),
            RouteKind::PlanForApproval
        );
    }

    #[test]
    fn what_the_host_appended_is_not_read() {
        let task = "add the notes index to the overview page\n\n<resource ref=\"docs:plan\">\nplan only, do not implement\n</resource>";
        assert_eq!(kind(task), kind("add the notes index to the overview page"));
        assert_eq!(untagged("a <b>c</b> d <e"), "a  d <e");
        assert_eq!(untagged("x < y and <goal>z</goal>"), "x < y and ");
    }

    #[test]
    fn plan_mode_and_strict_turns() {
        let plan = TurnFacts {
            plan_mode: true,
            strict: false,
        };
        assert_eq!(
            route("refactor everything across the tree", plan).kind,
            RouteKind::ExecutorOnly
        );
        let strict = TurnFacts {
            plan_mode: false,
            strict: true,
        };
        assert_eq!(
            route(
                "add a --verbose flag to the run command and print request timings",
                strict
            )
            .kind,
            RouteKind::Full
        );
        // Read-only work stays with the executor even then.
        assert_eq!(
            route("list the tests", strict).kind,
            RouteKind::ExecutorOnly
        );
    }

    #[test]
    fn a_huge_paste_is_read_only_in_part() {
        let paste = "<a ".repeat(400_000);
        let text = format!("add this log to the notes and fix what it shows\n{paste}");
        assert_eq!(kind(&text), RouteKind::Full);
    }

    proptest! {
        #[test]
        fn any_text_gets_a_route_and_fail_closed_routes_come_only_from_directives(text in "\\PC{0,200}") {
            let r = route(&text, TurnFacts::default());
            if r.kind.fails_closed() {
                let plain = unquoted(&text).to_lowercase();
                prop_assert!(PLAN_ONLY.iter().chain(APPROVAL).any(|p| plain.contains(p)));
            }
        }

        #[test]
        fn a_directive_in_quotes_never_changes_the_route(
            text in "[a-z ]{0,60}",
            directive in proptest::sample::select(vec!["plan only", "wait for my approval", "don't implement"]),
        ) {
            let quoted = format!("{text} \"{directive}\"");
            prop_assert_eq!(route(&quoted, TurnFacts::default()), route(&text, TurnFacts::default()));
        }
    }
}
