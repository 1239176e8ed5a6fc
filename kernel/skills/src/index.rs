//! The index the model sees: one line per skill it may use, `- name: description`, sorted by
//! name. Only text from the catalogue, so the same skills give the same bytes in every run
//! (the cached prompt prefix does not move until a skill is added, changed or removed).

use crate::Catalog;

/// The most bytes of index lines; the skills past it are counted, not listed (each still
/// loads by its exact name).
pub const MAX_INDEX_BYTES: usize = 24 * 1024;

/// The index lines, or `None` when no skill is offered to the model.
pub fn index(catalog: &Catalog) -> Option<String> {
    let mut out = String::new();
    let mut left_out = 0usize;
    for skill in catalog.indexed() {
        let mut line = format!("- {}: {}", skill.name, skill.description);
        if !skill.trusted {
            line.push_str(" (from this workspace, which is not trusted)");
        }
        line.push('\n');
        if left_out > 0 || out.len() + line.len() > MAX_INDEX_BYTES {
            left_out += 1;
            continue;
        }
        out.push_str(&line);
    }
    if out.is_empty() && left_out == 0 {
        return None;
    }
    if left_out > 0 {
        out.push_str(&format!(
            "- …and {left_out} more skills, not listed here; each loads by its exact name\n"
        ));
    }
    Some(out.trim_end().to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::{RunAs, Scope, Skill};
    use std::path::PathBuf;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            dir: PathBuf::from("/s").join(name),
            scope: Scope::User,
            trusted: true,
            model_invocable: true,
            user_invocable: true,
            run_as: RunAs::Inline,
            agent: None,
            allowed_tools: Vec::new(),
            argument_hint: None,
            model: None,
            effort: None,
            has_scripts: false,
        }
    }

    #[test]
    fn lines_marks_and_what_is_left_out() {
        let mut untrusted = skill("b", "B things");
        untrusted.trusted = false;
        let mut manual = skill("c", "C");
        manual.model_invocable = false;
        let catalog = Catalog {
            skills: vec![skill("a", "A things"), untrusted, manual],
            ..Catalog::default()
        };
        assert_eq!(
            index(&catalog).unwrap(),
            "- a: A things\n- b: B things (from this workspace, which is not trusted)"
        );
        let off = Catalog {
            no_index: true,
            ..catalog.clone()
        };
        assert_eq!(index(&off), None);
        assert_eq!(index(&Catalog::default()), None);
    }

    #[test]
    fn the_index_is_bounded() {
        let skills: Vec<Skill> = (0..200)
            .map(|i| skill(&format!("s{i:03}"), &"d".repeat(1000)))
            .collect();
        let text = index(&Catalog {
            skills,
            ..Catalog::default()
        })
        .unwrap();
        assert!(text.len() <= MAX_INDEX_BYTES + 100, "{}", text.len());
        assert!(text.ends_with("each loads by its exact name"), "{text}");
        assert!(text.contains("s000") && !text.contains("s199"));
    }
}
