//! HTML to readable text: scripts, styles and other non-content dropped; headings as `#`,
//! links as `text (href)`, list items as `- `, `pre` blocks fenced with ```; whitespace
//! collapsed as a browser would. Built on the `html5gum` tokenizer (WHATWG tokenization, so
//! script and style bodies never leak out as text).

use html5gum::{DefaultEmitter, Token, Tokenizer};

/// Elements whose whole content is dropped.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object",
    "select",
];
/// Elements that start and end a paragraph.
const PARAGRAPHS: &[&str] = &[
    "p",
    "blockquote",
    "table",
    "ul",
    "ol",
    "dl",
    "figure",
    "form",
    "fieldset",
    "address",
    "details",
];
/// Elements that start and end a line.
const LINES: &[&str] = &[
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "tr",
    "dt",
    "dd",
    "figcaption",
    "summary",
    "caption",
    "hgroup",
    "center",
    "li",
];

/// Readable text of an HTML document (or fragment). Invalid UTF-8 is replaced.
pub fn html_to_text(html: &[u8]) -> String {
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    let mut w = Writer::default();
    let mut title = String::new();
    let mut in_title = false;
    let mut skip: Vec<String> = Vec::new();
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match token {
            Token::StartTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
                if name == "title" && !tag.self_closing {
                    in_title = true;
                    continue;
                }
                if !skip.is_empty() || SKIPPED.contains(&name.as_str()) {
                    if !tag.self_closing && !is_void(&name) {
                        skip.push(name);
                    }
                    continue;
                }
                let attr = |key: &str| {
                    tag.attributes
                        .get(key.as_bytes())
                        .map(|v| String::from_utf8_lossy(v).trim().to_string())
                };
                w.start(&name, attr("href"), attr("alt"));
            }
            Token::EndTag(tag) => {
                let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
                if name == "title" {
                    in_title = false;
                    continue;
                }
                if !skip.is_empty() {
                    if let Some(at) = skip.iter().rposition(|s| *s == name) {
                        skip.truncate(at);
                    }
                    continue;
                }
                w.end(&name);
            }
            Token::String(text) => {
                let text = String::from_utf8_lossy(&text);
                if in_title {
                    title.push_str(&text);
                } else if skip.is_empty() {
                    w.text(&text);
                }
            }
            _ => {}
        }
    }
    let body = tidy(&w.out);
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    match (title.is_empty(), body.is_empty()) {
        (true, _) => body,
        (false, true) => title,
        (false, false) => format!("{title}\n\n{body}"),
    }
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "source"
            | "track"
            | "wbr"
    )
}

#[derive(Default)]
struct Writer {
    out: String,
    /// Whitespace seen since the last word.
    space: bool,
    /// Line breaks owed before the next text (1 = new line, 2 = blank line).
    breaks: usize,
    /// Open `pre` elements; text inside is kept as is.
    pre: usize,
    /// A `pre` just opened: one leading newline of its text is dropped.
    pre_start: bool,
    /// Open lists: `None` for `ul`, the next number for `ol`.
    lists: Vec<Option<u32>>,
    /// Open links: their href and where their text starts.
    links: Vec<(Option<String>, usize)>,
    /// Cells written in the current table row.
    cells: usize,
}

impl Writer {
    fn start(&mut self, name: &str, href: Option<String>, alt: Option<String>) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = usize::from(name.as_bytes()[1] - b'0');
                self.block(2);
                self.marker(&format!("{} ", "#".repeat(level)));
            }
            "pre" => {
                self.block(2);
                self.marker("```\n");
                self.pre += 1;
                self.pre_start = true;
            }
            "code" | "kbd" | "samp" if self.pre == 0 => self.marker("`"),
            "br" => {
                if self.pre > 0 {
                    self.out.push('\n');
                } else {
                    self.breaks = self.breaks.max(1);
                    if self.out.ends_with('\n') || self.out.is_empty() {
                        self.out.push('\n');
                    }
                }
            }
            "hr" => {
                self.block(2);
                self.marker("---");
                self.block(2);
            }
            "ul" => {
                self.block(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push(None);
            }
            "ol" => {
                self.block(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push(Some(1));
            }
            "li" => {
                self.block(1);
                let depth = self.lists.len().saturating_sub(1);
                let bullet = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let text = format!("{n}. ");
                        *n += 1;
                        text
                    }
                    _ => "- ".to_string(),
                };
                self.marker(&format!("{}{bullet}", "  ".repeat(depth)));
            }
            "tr" => {
                self.block(1);
                self.cells = 0;
            }
            "td" | "th" => {
                if self.cells > 0 {
                    self.marker(" | ");
                }
                self.cells += 1;
            }
            "a" => {
                self.links.push((href, self.out.len()));
            }
            "img" => {
                if let Some(alt) = alt.filter(|a| !a.is_empty()) {
                    self.text(&format!("[image: {alt}]"));
                }
            }
            _ if PARAGRAPHS.contains(&name) => self.block(2),
            _ if LINES.contains(&name) => self.block(1),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.block(2),
            "pre" if self.pre > 0 => {
                self.pre -= 1;
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                self.out.push_str("```");
                self.block(2);
            }
            "code" | "kbd" | "samp" if self.pre == 0 => self.out.push('`'),
            "ul" | "ol" => {
                self.lists.pop();
                self.block(if self.lists.is_empty() { 2 } else { 1 });
            }
            "a" => {
                if let Some((href, at)) = self.links.pop() {
                    self.close_link(href, at);
                }
            }
            _ if PARAGRAPHS.contains(&name) => self.block(2),
            _ if LINES.contains(&name) => self.block(1),
            _ => {}
        }
    }

    fn close_link(&mut self, href: Option<String>, at: usize) {
        let Some(href) = href.filter(|h| useful_href(h)) else {
            return;
        };
        let text = self.out.get(at..).unwrap_or("").trim().to_string();
        if text.is_empty() {
            self.text(&href);
        } else if text != href {
            self.out.push_str(&format!(" ({href})"));
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            let text = if self.pre_start {
                text.strip_prefix('\n').unwrap_or(text)
            } else {
                text
            };
            self.pre_start = false;
            self.out.push_str(text);
            return;
        }
        for word in text.split_inclusive(char::is_whitespace) {
            let trimmed = word.trim_end_matches(char::is_whitespace);
            if !trimmed.is_empty() {
                self.flush();
                self.out.push_str(trimmed);
            }
            if trimmed.len() != word.len() {
                self.space = true;
            }
        }
    }

    /// Text written as is (list bullets, fences, heading marks), after owed breaks.
    fn marker(&mut self, text: &str) {
        self.flush();
        self.out.push_str(text);
    }

    fn block(&mut self, breaks: usize) {
        self.breaks = self.breaks.max(breaks);
    }

    /// Pay owed line breaks, or the pending space between words.
    fn flush(&mut self) {
        if self.breaks > 0 {
            if !self.out.is_empty() {
                let have = self.out.len() - self.out.trim_end_matches('\n').len();
                for _ in have..self.breaks {
                    self.out.push('\n');
                }
            }
            self.breaks = 0;
        } else if self.space && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        self.space = false;
    }
}

fn useful_href(href: &str) -> bool {
    let lower = href.to_ascii_lowercase();
    !href.is_empty() && !href.starts_with('#') && !lower.starts_with("javascript:")
}

/// Trim line ends and squeeze runs of blank lines, outside fenced blocks.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    let mut blank = 0;
    for line in text.lines() {
        let line = if fenced { line } else { line.trim_end() };
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if line.is_empty() && !fenced {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        html_to_text(html.as_bytes())
    }

    #[test]
    fn converts_documents() {
        let cases = [
            ("<p>Hello   <b>bold</b>\n world</p>", "Hello bold world"),
            ("<h1>Title</h1><p>Body</p>", "# Title\n\nBody"),
            ("<h3>Deep</h3>", "### Deep"),
            (
                "<p>See <a href=\"https://x.io/d\">the docs</a>.</p>",
                "See the docs (https://x.io/d).",
            ),
            ("<a href=\"https://x.io\">https://x.io</a>", "https://x.io"),
            ("<a href=\"#top\">Top</a>", "Top"),
            ("<a href=\"javascript:void(0)\">Go</a>", "Go"),
            ("<a href=\"/img\"></a>", "/img"),
            ("<ul><li>one</li><li>two</li></ul>", "- one\n- two"),
            ("<ol><li>a<li>b</ol>", "1. a\n2. b"),
            ("<ul><li>x<ul><li>y</li></ul></li></ul>", "- x\n  - y"),
            (
                "<pre>\nfn main() {\n    go();\n}\n</pre>",
                "```\nfn main() {\n    go();\n}\n```",
            ),
            (
                "<p>Use <code>cargo test</code> now</p>",
                "Use `cargo test` now",
            ),
            ("line<br>next", "line\nnext"),
            (
                "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
                "a | b\n1 | 2",
            ),
            ("a &amp; b &lt;c&gt; &nbsp;", "a & b <c>"),
            ("<img src=x alt=\"A cat\">", "[image: A cat]"),
        ];
        for (html, expected) in cases {
            assert_eq!(text(html), expected, "{html}");
        }
    }

    #[test]
    fn drops_scripts_styles_and_head() {
        let html = r#"<!DOCTYPE html><html><head><title>My  Page</title>
            <style>body { color: red } p < q</style>
            <script>if (a < b && c > d) { document.write("<p>evil</p>") }</script>
            <meta charset="utf-8"></head>
            <body><noscript>enable js</noscript><p>Visible</p>
            <svg><text>chart</text></svg><script src="x.js"></script><p>After</p></body></html>"#;
        assert_eq!(text(html), "My Page\n\nVisible\n\nAfter");
    }

    #[test]
    fn survives_tag_soup() {
        let out = text("<div><p>unclosed <b>bold<div>next</p></i>tail");
        assert!(out.contains("unclosed bold"), "{out}");
        assert!(out.contains("tail"), "{out}");
        assert_eq!(text(""), "");
        assert_eq!(text("<script>never closed"), "");
    }
}
