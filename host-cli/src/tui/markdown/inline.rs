//! Inline Markdown of one line (emphasis, strong, strikethrough, code, links, images) as
//! styled, escaped spans, by pulldown-cmark.

use super::spans::safe_span;
use crate::tui::theme::Theme;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// `text` (one line, block markers already removed) with its inline markup rendered over `base`.
pub fn inline(text: &str, base: Style, theme: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut stack: Vec<Style> = Vec::new();
    // Destination and collected text of the link or image being rendered.
    let mut links: Vec<(String, String, bool)> = Vec::new();
    let parser = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH);
    for event in parser {
        let cur = stack.last().copied().unwrap_or(base);
        match event {
            Event::Start(tag) => match tag {
                Tag::Emphasis => stack.push(cur.add_modifier(Modifier::ITALIC)),
                Tag::Strong => stack.push(cur.add_modifier(Modifier::BOLD)),
                Tag::Strikethrough => stack.push(cur.add_modifier(Modifier::CROSSED_OUT)),
                Tag::Link { dest_url, .. } => {
                    stack.push(cur.patch(theme.accent()).add_modifier(Modifier::UNDERLINED));
                    links.push((dest_url.into_string(), String::new(), false));
                }
                Tag::Image { dest_url, .. } => {
                    spans.push(safe_span("[image: ", theme.dim()));
                    stack.push(cur.add_modifier(Modifier::ITALIC));
                    links.push((dest_url.into_string(), String::new(), true));
                }
                _ => {}
            },
            Event::End(tag) => match tag {
                TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                    stack.pop();
                }
                TagEnd::Link | TagEnd::Image => {
                    stack.pop();
                    if let Some((url, shown, image)) = links.pop() {
                        if image {
                            spans.push(safe_span("]", theme.dim()));
                        }
                        let same = url == shown || url.strip_prefix("mailto:") == Some(&shown);
                        if !url.is_empty() && !same {
                            spans.push(safe_span(&format!(" ({url})"), theme.dim()));
                        }
                    }
                }
                _ => {}
            },
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => {
                if let Some(link) = links.last_mut() {
                    link.1.push_str(&t);
                }
                spans.push(safe_span(&t, cur));
            }
            Event::Code(t) => {
                if let Some(link) = links.last_mut() {
                    link.1.push_str(&t);
                }
                spans.push(safe_span(&t, cur.patch(theme.code())));
            }
            Event::SoftBreak | Event::HardBreak => spans.push(Span::styled(" ", cur)),
            Event::Rule => spans.push(safe_span("───", theme.dim())),
            Event::TaskListMarker(done) => {
                spans.push(safe_span(if done { "[x] " } else { "[ ] " }, cur));
            }
            _ => {}
        }
    }
    if spans.is_empty() && !text.trim().is_empty() {
        // Something pulldown-cmark consumed without output (a link reference definition):
        // show the line as written rather than nothing.
        spans.push(safe_span(text, base));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorLevel;

    fn shown(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn renders_inline_markup() {
        let theme = Theme::new(ColorLevel::Ansi16);
        let spans = inline(
            "a *b* **c** `d` [e](http://x) <http://y> ~~f~~",
            Style::default(),
            theme,
        );
        assert_eq!(shown(&spans), "a b c d e (http://x) http://y f");
        let b = spans.iter().find(|s| s.content == "b").expect("b");
        assert!(b.style.add_modifier.contains(Modifier::ITALIC));
        let c = spans.iter().find(|s| s.content == "c").expect("c");
        assert!(c.style.add_modifier.contains(Modifier::BOLD));
        let d = spans.iter().find(|s| s.content == "d").expect("d");
        assert_eq!(d.style.fg, theme.code().fg);
        let url = spans
            .iter()
            .find(|s| s.content == " (http://x)")
            .expect("url");
        assert!(url.style.add_modifier.contains(Modifier::DIM));
        assert_eq!(
            shown(&inline("[r]: http://z", Style::default(), theme)),
            "[r]: http://z"
        );
        assert_eq!(
            shown(&inline("![alt](p.png)", Style::default(), theme)),
            "[image: alt] (p.png)"
        );
    }
}
