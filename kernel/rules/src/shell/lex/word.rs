//! The words of a command line: quotes, escapes and expansions, and the substitutions inside
//! them, which are lexed as commands of their own.

use super::{Lexed, Lexer, Undecidable, Value, Word, ends_word};

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `NAME=`, `NAME+=` or `NAME[subscript]=` at the start of `text`, within its first
/// `unquoted` characters.
fn starts_with_assignment(text: &str, unquoted: usize) -> bool {
    let chars: Vec<char> = text.chars().take(unquoted).collect();
    let Some(first) = chars.first() else {
        return false;
    };
    if !is_name_start(*first) {
        return false;
    }
    let mut k = 1;
    while k < chars.len() && is_name_char(chars[k]) {
        k += 1;
    }
    if chars.get(k) == Some(&'[') {
        while k < chars.len() && chars[k] != ']' {
            k += 1;
        }
        k += 1;
    }
    if chars.get(k) == Some(&'+') {
        k += 1;
    }
    chars.get(k) == Some(&'=')
}

impl Lexer<'_> {
    /// One word, and whether any of it was quoted or escaped.
    pub(super) fn word(&mut self) -> Lexed<(Word, bool)> {
        let mut text = String::new();
        let mut value = Value::Known;
        let mut quoted = false;
        // Characters read before the first quote or expansion (for `NAME=`).
        let mut unquoted_len: Option<usize> = None;
        let mut bracket_open = false;
        let mut brace_open = false;
        let mut brace_list = false;
        let mut pattern = false;
        let mark = |text: &String, unquoted_len: &mut Option<usize>| {
            if unquoted_len.is_none() {
                *unquoted_len = Some(text.chars().count());
            }
        };
        while let Some(c) = self.peek() {
            if ends_word(c) {
                break;
            }
            match c {
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.i += 2,
                    Some(next) => {
                        mark(&text, &mut unquoted_len);
                        text.push(next);
                        quoted = true;
                        self.i += 2;
                    }
                    None => {
                        text.push('\\');
                        self.i += 1;
                    }
                },
                '\'' => {
                    mark(&text, &mut unquoted_len);
                    quoted = true;
                    self.i += 1;
                    loop {
                        match self.peek() {
                            None => return Err(Undecidable),
                            Some('\'') => break,
                            Some(c) => text.push(c),
                        }
                        self.i += 1;
                    }
                    self.i += 1;
                }
                '"' => {
                    mark(&text, &mut unquoted_len);
                    quoted = true;
                    value = value.max(self.double_quoted(&mut text)?);
                }
                '$' => {
                    mark(&text, &mut unquoted_len);
                    if matches!(self.peek_at(1), Some('\'' | '"')) {
                        quoted = true;
                    }
                    value = value.max(self.dollar(&mut text, false)?);
                }
                '`' => {
                    mark(&text, &mut unquoted_len);
                    self.backtick()?;
                    value = Value::Splits;
                }
                _ => {
                    match c {
                        '*' | '?' => pattern = true,
                        '[' => bracket_open = true,
                        ']' if bracket_open => pattern = true,
                        '{' => brace_open = true,
                        ',' if brace_open => brace_list = true,
                        '.' if brace_open && self.peek_at(1) == Some('.') => brace_list = true,
                        '}' if brace_list => pattern = true,
                        _ => {}
                    }
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        let unquoted = unquoted_len.unwrap_or_else(|| text.chars().count());
        let assignment = starts_with_assignment(&text, unquoted);
        // An assignment is one word, never split or glob-expanded.
        if pattern && !assignment {
            value = Value::Splits;
        }
        Ok((
            Word {
                text,
                known: value == Value::Known,
                splits: value == Value::Splits && !assignment,
                assignment,
            },
            quoted,
        ))
    }

    /// A `"…"` string (at its opening quote), appended to `text`.
    fn double_quoted(&mut self, text: &mut String) -> Lexed<Value> {
        self.enter()?;
        self.i += 1;
        let mut value = Value::Known;
        loop {
            match self.peek() {
                None => return Err(Undecidable),
                Some('"') => {
                    self.i += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some('\n') => self.i += 2,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        text.push(next);
                        self.i += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.i += 1;
                    }
                },
                Some('$') => value = value.max(self.dollar(text, true)?),
                Some('`') => {
                    self.backtick()?;
                    value = value.max(Value::OneWord);
                }
                Some(c) => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        self.leave();
        Ok(value)
    }

    /// Whatever starts with `$` (at the `$`): a literal `$`, ANSI-C or locale quoting, a
    /// parameter, a substitution or arithmetic.
    pub(super) fn dollar(&mut self, text: &mut String, in_double: bool) -> Lexed<Value> {
        match self.peek_at(1) {
            Some('\'') if !in_double => {
                self.i += 1;
                Ok(match self.ansi_c(text)? {
                    true => Value::Known,
                    false => Value::OneWord,
                })
            }
            Some('"') if !in_double => {
                self.i += 1;
                self.double_quoted(text)
            }
            Some('(') if self.peek_at(2) == Some('(') => {
                let (at, nesting) = (self.i, self.nesting);
                let (commands, docs) = (self.out.len(), self.heredocs.len());
                if self.arithmetic().is_err() {
                    // Not arithmetic after all: the shell reads `$( (…) )`. Retries are
                    // budgeted, or nested failures would rescan exponentially.
                    self.retries = self.retries.checked_sub(1).ok_or(Undecidable)?;
                    self.i = at + 2;
                    self.nesting = nesting;
                    self.out.truncate(commands);
                    self.heredocs.truncate(docs);
                    self.list(true)?;
                }
                Ok(Value::expanded(in_double))
            }
            Some('(') => {
                self.i += 2;
                self.list(true)?;
                Ok(Value::expanded(in_double))
            }
            Some('{') => {
                self.i += 2;
                let all_arguments = self.braced(in_double)?;
                Ok(match all_arguments {
                    true => Value::Splits,
                    false => Value::expanded(in_double),
                })
            }
            Some('[') => {
                self.i += 2;
                self.until_close('[', ']')?;
                Ok(Value::expanded(in_double))
            }
            Some(c) if is_name_start(c) => {
                self.i += 1;
                while self.peek().is_some_and(is_name_char) {
                    self.i += 1;
                }
                Ok(Value::expanded(in_double))
            }
            // `"$@"` is one word per argument, even quoted.
            Some('@') => {
                self.i += 2;
                Ok(Value::Splits)
            }
            Some(c) if c.is_ascii_digit() || "*#?$!-".contains(c) => {
                self.i += 2;
                Ok(Value::expanded(in_double))
            }
            _ => {
                text.push('$');
                self.i += 1;
                Ok(Value::Known)
            }
        }
    }

    /// `$(( … ))` at the `$`.
    fn arithmetic(&mut self) -> Lexed<()> {
        self.enter()?;
        self.i += 3;
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None | Some('\'') => return Err(Undecidable),
                Some('(') => depth += 1,
                Some(')') if depth > 0 => depth -= 1,
                Some(')') => {
                    if self.peek_at(1) != Some(')') {
                        return Err(Undecidable);
                    }
                    self.i += 2;
                    self.leave();
                    return Ok(());
                }
                Some('\\') => self.i += 1,
                Some('$') => {
                    self.dollar(&mut String::new(), true)?;
                    continue;
                }
                Some('`') => {
                    self.backtick()?;
                    continue;
                }
                Some('"') => {
                    self.double_quoted(&mut String::new())?;
                    continue;
                }
                Some(_) => {}
            }
            self.i += 1;
        }
    }

    /// The rest of a `${…}` (after the brace), running the substitutions inside it. Whether
    /// it names all arguments or array elements (an `@`), which split even when quoted.
    fn braced(&mut self, in_double: bool) -> Lexed<bool> {
        self.enter()?;
        let mut depth = 1usize;
        let mut all_arguments = false;
        loop {
            match self.peek() {
                None => return Err(Undecidable),
                Some('\\') => self.i += 2,
                Some('\'') if !in_double => {
                    self.i += 1;
                    while self.peek().is_some_and(|c| c != '\'') {
                        self.i += 1;
                    }
                    if self.peek().is_none() {
                        return Err(Undecidable);
                    }
                    self.i += 1;
                }
                Some('"') => {
                    self.double_quoted(&mut String::new())?;
                }
                Some('$') => {
                    self.dollar(&mut String::new(), in_double)?;
                }
                Some('`') => self.backtick()?,
                Some('{') => {
                    depth += 1;
                    self.i += 1;
                }
                Some('}') => {
                    self.i += 1;
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Some(c) => {
                    all_arguments |= c == '@';
                    self.i += 1;
                }
            }
        }
        self.leave();
        Ok(all_arguments)
    }

    /// Skip to the `close` matching an `open` already read, running substitutions inside.
    fn until_close(&mut self, open: char, close: char) -> Lexed<()> {
        let mut depth = 1usize;
        loop {
            match self.peek() {
                None => return Err(Undecidable),
                Some('$') => {
                    self.dollar(&mut String::new(), true)?;
                }
                Some('`') => self.backtick()?,
                Some(c) => {
                    self.i += 1;
                    if c == open {
                        depth += 1;
                    } else if c == close {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// A `` `…` `` substitution (at the backquote): its body is lexed like a command line.
    pub(super) fn backtick(&mut self) -> Lexed<()> {
        self.i += 1;
        let mut body = String::new();
        loop {
            match self.peek() {
                None => return Err(Undecidable),
                Some('`') => {
                    self.i += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some(next @ ('$' | '`' | '\\')) => {
                        body.push(next);
                        self.i += 2;
                    }
                    _ => {
                        body.push('\\');
                        self.i += 1;
                    }
                },
                Some(c) => {
                    body.push(c);
                    self.i += 1;
                }
            }
        }
        let chars: Vec<char> = body.chars().collect();
        let mut inner = Lexer::new(&chars, self.nesting + 1);
        inner.retries = self.retries;
        inner.list(false)?;
        self.retries = inner.retries;
        self.out.append(&mut inner.out);
        Ok(())
    }

    /// The rest of a `$'…'` string (at its opening quote), escapes decoded. A value the
    /// decoding cannot pin down (a NUL, `\c`) counts as unknown.
    fn ansi_c(&mut self, text: &mut String) -> Lexed<bool> {
        self.i += 1;
        let mut known = true;
        loop {
            let Some(c) = self.peek() else {
                return Err(Undecidable);
            };
            self.i += 1;
            match c {
                '\'' => return Ok(known),
                '\\' => {
                    let Some(e) = self.peek() else {
                        return Err(Undecidable);
                    };
                    self.i += 1;
                    let simple = match e {
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'e' | 'E' => Some('\u{1b}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        'v' => Some('\u{b}'),
                        '\\' | '\'' | '"' | '?' => Some(e),
                        _ => None,
                    };
                    if let Some(ch) = simple {
                        text.push(ch);
                        continue;
                    }
                    let (radix, max) = match e {
                        '0'..='7' => {
                            self.i -= 1;
                            (8, 3)
                        }
                        'x' => (16, 2),
                        'u' => (16, 4),
                        'U' => (16, 8),
                        'c' => {
                            known = false;
                            self.i += 1;
                            continue;
                        }
                        other => {
                            text.push('\\');
                            text.push(other);
                            continue;
                        }
                    };
                    let mut value = 0u32;
                    let mut digits = 0;
                    while digits < max {
                        match self.peek().and_then(|d| d.to_digit(radix)) {
                            Some(d) => {
                                value = value.saturating_mul(radix).saturating_add(d);
                                digits += 1;
                                self.i += 1;
                            }
                            None => break,
                        }
                    }
                    match char::from_u32(value) {
                        _ if digits == 0 => {
                            text.push('\\');
                            text.push(e);
                        }
                        Some(ch) if ch != '\0' => text.push(ch),
                        _ => known = false,
                    }
                }
                c => text.push(c),
            }
        }
    }
}
