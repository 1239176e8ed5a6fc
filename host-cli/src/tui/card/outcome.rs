//! How a command ended, from the status line a command tool puts last in its output
//! (`[exit code: N]`, `[killed: reason]`): the card's glyph and summary follow it, and the
//! status line itself is not counted as output.

/// The command's end, as its output's last line reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    Exit(i64),
    Killed(String),
}

/// The output without its status line, and the status line read.
pub fn split(output: &str) -> (&str, Option<Ended>) {
    let trimmed = output.trim_end_matches(['\n', '\r']);
    let (body, last) = match trimmed.rfind('\n') {
        Some(i) => (&trimmed[..=i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    let ended = if let Some(code) = last
        .strip_prefix("[exit code: ")
        .and_then(|rest| rest.strip_suffix(']'))
    {
        code.trim().parse().ok().map(Ended::Exit)
    } else {
        last.strip_prefix("[killed: ")
            .and_then(|rest| rest.strip_suffix(']'))
            .map(|reason| Ended::Killed(reason.to_string()))
    };
    match ended {
        Some(ended) => (body, Some(ended)),
        None => (output, None),
    }
}

/// The output a command printed, without a tool's "nothing printed" placeholder.
pub fn printed(body: &str) -> &str {
    if body.trim() == "(no output)" {
        ""
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_is_read_and_left_out() {
        assert_eq!(
            split("a\nb\n[exit code: 0]"),
            ("a\nb\n", Some(Ended::Exit(0)))
        );
        assert_eq!(
            split("(no output)\n[exit code: 3]"),
            ("(no output)\n", Some(Ended::Exit(3)))
        );
        assert_eq!(
            split("x\n[killed: killed by request]\n"),
            ("x\n", Some(Ended::Killed("killed by request".into())))
        );
        assert_eq!(split("[exit code: 1]"), ("", Some(Ended::Exit(1))));
        // Anything else is output.
        assert_eq!(split("a\n[exit code: x]"), ("a\n[exit code: x]", None));
        assert_eq!(split("plain"), ("plain", None));
        assert_eq!(printed("(no output)\n"), "");
    }
}
