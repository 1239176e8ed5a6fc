//! The catalogues checked against each other: the same messages, the same attributes, the same
//! arguments, and no syntax error. Used by the crate's test and by `reasonix doctor`-style
//! tooling; a contributor who adds a string to one language only is told which and where.

use fluent_syntax::ast;
use std::collections::{BTreeMap, BTreeSet};

/// What one catalogue holds: message id → (has a value, attribute names, argument names).
type Shape = BTreeMap<String, (bool, BTreeSet<String>, BTreeSet<String>)>;

fn shape(name: &str, source: &str, problems: &mut Vec<String>) -> Shape {
    let resource = match fluent_syntax::parser::parse(source) {
        Ok(r) => r,
        Err((r, errors)) => {
            for e in errors {
                let line = source[..e.pos.start.min(source.len())]
                    .lines()
                    .count()
                    .max(1);
                problems.push(format!("{name}:{line}: syntax error: {:?}", e.kind));
            }
            r
        }
    };
    let mut out = Shape::new();
    for entry in resource.body {
        if let ast::Entry::Message(message) = entry {
            let mut args = BTreeSet::new();
            if let Some(value) = &message.value {
                pattern_args(value, &mut args);
            }
            let mut attributes = BTreeSet::new();
            for attribute in &message.attributes {
                attributes.insert(attribute.id.name.to_string());
                pattern_args(&attribute.value, &mut args);
            }
            let id = message.id.name.to_string();
            if out
                .insert(id.clone(), (message.value.is_some(), attributes, args))
                .is_some()
            {
                problems.push(format!("{name}: `{id}` is defined twice"));
            }
        }
    }
    out
}

fn pattern_args(pattern: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
    for element in &pattern.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            expression_args(expression, out);
        }
    }
}

fn expression_args(expression: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
    match expression {
        ast::Expression::Inline(inline) => inline_args(inline, out),
        ast::Expression::Select { selector, variants } => {
            inline_args(selector, out);
            for variant in variants {
                pattern_args(&variant.value, out);
            }
        }
    }
}

fn inline_args(inline: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            out.insert(id.name.to_string());
        }
        ast::InlineExpression::Placeable { expression } => expression_args(expression, out),
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                inline_args(a, out);
            }
        }
        _ => {}
    }
}

/// Every difference between the English catalogue and another, in words naming the file and
/// the message; empty when they match.
pub fn compare(en: &str, other_name: &str, other: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let en_shape = shape("en", en, &mut problems);
    let other_shape = shape(other_name, other, &mut problems);
    for (id, (value, attributes, args)) in &en_shape {
        let Some((o_value, o_attributes, o_args)) = other_shape.get(id) else {
            problems.push(format!("`{id}` is in en.ftl but missing from {other_name}"));
            continue;
        };
        if value != o_value {
            problems.push(format!(
                "`{id}` has a value in {} only",
                if *value { "en.ftl" } else { other_name }
            ));
        }
        for a in attributes.symmetric_difference(o_attributes) {
            let side = if attributes.contains(a) {
                "en.ftl"
            } else {
                other_name
            };
            problems.push(format!("`{id}.{a}` is in {side} only"));
        }
        for a in args.symmetric_difference(o_args) {
            let side = if args.contains(a) {
                "en.ftl"
            } else {
                other_name
            };
            problems.push(format!("`{id}` uses `${a}` in {side} only"));
        }
    }
    for id in other_shape.keys() {
        if !en_shape.contains_key(id) {
            problems.push(format!("`{id}` is in {other_name} but missing from en.ftl"));
        }
    }
    problems
}

/// The message ids of a catalogue (attributes as `message.attribute`).
pub fn ids(source: &str) -> BTreeSet<String> {
    let mut problems = Vec::new();
    let mut out = BTreeSet::new();
    for (id, (value, attributes, _)) in shape("catalogue", source, &mut problems) {
        if value {
            out.insert(id.clone());
        }
        for a in attributes {
            out.insert(format!("{id}.{a}"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogues_match() {
        let mut problems = Vec::new();
        for (file, en, zh) in crate::CATALOGUES {
            for p in compare(en, &format!("zh-CN/{file}"), zh) {
                problems.push(format!("{file}: {p}"));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn a_string_planted_in_one_language_only_is_named() {
        let en = "a = A\nb = B { $n }\n    .title = T\n";
        let zh = "a = 甲\nb = 乙\nc = 丙\n";
        let problems = compare(en, "zh-CN.ftl", zh);
        assert!(
            problems.contains(&"`b.title` is in en.ftl only".to_string()),
            "{problems:?}"
        );
        assert!(
            problems.contains(&"`b` uses `$n` in en.ftl only".to_string()),
            "{problems:?}"
        );
        assert!(
            problems.contains(&"`c` is in zh-CN.ftl but missing from en.ftl".to_string()),
            "{problems:?}"
        );
        let problems = compare("a = A\nz = Z\n", "zh-CN.ftl", "a = 甲\n");
        assert_eq!(problems, ["`z` is in en.ftl but missing from zh-CN.ftl"]);
        let problems = compare("a = A\n", "zh-CN.ftl", "a = { \n");
        assert!(
            problems.iter().any(|p| p.contains("syntax error")),
            "{problems:?}"
        );
    }
}
