//! `[agent] reasoning_language`: the language the model writes its reasoning in, as one line
//! appended to the system prompt. The line depends on the configuration only, so the prompt's
//! bytes stay the same from turn to turn (the provider's prefix cache holds).

/// The instruction for `setting`; `None` for `auto` (the model follows the conversation) or
/// nothing set.
pub fn instruction(setting: Option<&str>) -> Option<String> {
    let value = setting?.trim();
    let language = match value.to_ascii_lowercase().replace('_', "-").as_str() {
        "" | "auto" => return None,
        "zh" | "zh-cn" | "zh-hans" | "chinese" | "简体中文" | "中文" => {
            "Simplified Chinese".to_string()
        }
        "zh-tw" | "zh-hk" | "zh-hant" => "Traditional Chinese".to_string(),
        "en" | "en-us" | "en-gb" | "english" => "English".to_string(),
        _ => {
            // A language's name, as the user wrote it: one short printable line.
            let name: String = value.chars().filter(|c| !c.is_control()).take(40).collect();
            name.trim().to_string()
        }
    };
    Some(format!(
        "Write your reasoning (thinking) in {language}. Answer in the language the user writes in."
    ))
}

/// `append` with the reasoning-language line added at its end.
pub fn appended(append: Option<String>, setting: Option<&str>) -> Option<String> {
    match (append, instruction(setting)) {
        (Some(a), Some(line)) => Some(format!("{a}\n\n{line}")),
        (None, Some(line)) => Some(line),
        (a, None) => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_says_nothing_and_names_become_one_line() {
        assert_eq!(instruction(None), None);
        assert_eq!(instruction(Some("auto")), None);
        let zh = instruction(Some("zh_CN")).unwrap_or_default();
        assert!(zh.contains("in Simplified Chinese."), "{zh}");
        let odd = instruction(Some("Deutsch\n\u{1b}[31m")).unwrap_or_default();
        assert!(odd.contains("in Deutsch[31m."), "{odd}");
        assert!(!odd.contains('\n'));
        assert_eq!(
            appended(Some("persona".into()), Some("en")).as_deref(),
            Some(
                "persona\n\nWrite your reasoning (thinking) in English. Answer in the language the user writes in."
            )
        );
    }
}
