//! Syntax highlighting of code blocks (syntect), loaded lazily and off the UI thread.
//!
//! [`warm_up`] starts loading the default syntaxes and the colour theme on a background thread;
//! until they are there, a [`CodeHighlighter`] created for a block renders it in the plain code
//! style rather than blocking the UI (the choice is made once per block, so a block never
//! changes style half-way). Highlighting keeps syntect's parse state from line to line, so code
//! arriving line by line is coloured exactly as the whole block would be.
//!
//! Colours come from Solarized, whose accent colours were designed to read on both dark and
//! light backgrounds; the theme's own foreground and background are never used (the terminal's
//! stay). They are degraded to the terminal: 256 indexed colours for `Full` (truecolor is not
//! assumed: macOS Terminal says `xterm-256color` and has no RGB), the six chromatic ANSI colours
//! by hue for `Ansi16` (greys become dim: black, white and bright variants vanish on one of the
//! backgrounds), nothing for `None`.

use super::markdown::spans::{expand_tabs, safe_span};
use super::theme::{ColorLevel, Theme};
use ratatui::style::{Color, Modifier, Style};
#[cfg(test)]
use ratatui::text::Line;
use ratatui::text::Span;
use std::sync::{Once, OnceLock};
use syntect::highlighting::{
    self as sh, FontStyle, HighlightIterator, HighlightState, Highlighter, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};

/// Longer lines are not highlighted (fancy-regex time grows with them): the rest of the block
/// is plain.
const MAX_LINE: usize = 4096;

struct Assets {
    syntaxes: SyntaxSet,
    highlighter: Highlighter<'static>,
    /// Read by the tests, which compare with syntect's own highlighting.
    #[cfg_attr(not(test), allow(dead_code))]
    theme: &'static sh::Theme,
    /// The theme's default foreground: tokens in it keep the terminal's own colour.
    foreground: Option<sh::Color>,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();
static WARM_UP: Once = Once::new();

/// Starts loading the syntaxes and theme on a background thread (once; later calls do nothing).
pub fn warm_up() {
    WARM_UP.call_once(|| {
        // If the thread cannot be spawned, code simply stays plain.
        let _ = std::thread::Builder::new()
            .name("reasonix-syntect".into())
            .spawn(|| {
                ASSETS.get_or_init(load);
            });
    });
}

#[cfg(test)]
/// Loads on the calling thread if needed (tests, and rendering a resumed transcript before
/// the first frame is not a concern). Blocks for the load (~tens of ms).
pub fn load_now() {
    ASSETS.get_or_init(load);
}

fn load() -> Assets {
    let syntaxes = SyntaxSet::load_defaults_newlines();
    let mut themes = ThemeSet::load_defaults();
    let theme = themes.themes.remove("Solarized (dark)").unwrap_or_default();
    let foreground = theme.settings.foreground;
    // Loaded once per process and kept for its life; the highlighter borrows it.
    let theme: &'static sh::Theme = Box::leak(Box::new(theme));
    Assets {
        syntaxes,
        highlighter: Highlighter::new(theme),
        theme,
        foreground,
    }
}

/// Names models use for languages the default syntaxes know under another token.
fn alias(lang: &str) -> &str {
    match lang {
        "shell" | "console" | "zsh" | "shellscript" | "bash-session" => "sh",
        "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" => "js",
        "jsonc" | "json5" => "json",
        "yml" => "yaml",
        "py3" | "python3" => "py",
        "c++" | "hpp" | "cxx" => "cpp",
        "golang" => "go",
        "rs" => "rust",
        other => other,
    }
}

/// The highlighter of one code block; feed it the block's lines in order.
#[derive(Clone)]
pub struct CodeHighlighter {
    live: Option<Live>,
    level: ColorLevel,
    plain: Style,
}

#[derive(Clone)]
struct Live {
    assets: &'static Assets,
    parse: ParseState,
    highlight: HighlightState,
}

impl CodeHighlighter {
    /// For a block in `lang` (the fence's info word). Plain when the terminal has no colours,
    /// the syntaxes are not loaded yet, or the language is unknown.
    pub fn new(lang: &str, theme: Theme) -> CodeHighlighter {
        Self::with_assets(lang, theme, ASSETS.get())
    }

    fn with_assets(lang: &str, theme: Theme, assets: Option<&'static Assets>) -> CodeHighlighter {
        let live = match (theme.level, assets) {
            (ColorLevel::None, _) | (_, None) => None,
            (_, Some(assets)) => Self::live(assets, lang),
        };
        CodeHighlighter {
            live,
            level: theme.level,
            plain: theme.code(),
        }
    }

    fn live(assets: &'static Assets, lang: &str) -> Option<Live> {
        let lang = lang.trim().to_ascii_lowercase();
        if lang.is_empty() {
            return None;
        }
        let syntax = assets.syntaxes.find_syntax_by_token(alias(&lang))?;
        Some(Live {
            assets,
            parse: ParseState::new(syntax),
            highlight: HighlightState::new(&assets.highlighter, ScopeStack::new()),
        })
    }

    #[cfg(test)]
    pub fn is_highlighting(&self) -> bool {
        self.live.is_some()
    }

    /// The next line of the block (without its newline), as safe spans.
    pub fn line(&mut self, code: &str) -> Vec<Span<'static>> {
        let code = expand_tabs(code);
        if code.len() > MAX_LINE {
            self.live = None;
        }
        let Some(live) = self.live.as_mut() else {
            return vec![safe_span(&code, self.plain)];
        };
        let mut with_newline = String::with_capacity(code.len() + 1);
        with_newline.push_str(&code);
        with_newline.push('\n');
        let Ok(ops) = live.parse.parse_line(&with_newline, &live.assets.syntaxes) else {
            self.live = None;
            return vec![safe_span(&code, self.plain)];
        };
        let pieces = HighlightIterator::new(
            &mut live.highlight,
            &ops,
            &with_newline,
            &live.assets.highlighter,
        );
        let foreground = live.assets.foreground;
        let mut spans = Vec::new();
        for (style, piece) in pieces {
            let piece = piece.strip_suffix('\n').unwrap_or(piece);
            if piece.is_empty() {
                continue;
            }
            spans.push(safe_span(piece, to_style(style, foreground, self.level)));
        }
        spans
    }
}

#[cfg(test)]
/// A whole snippet (each line of `code`) highlighted as one block; plain if not loaded yet.
pub fn highlight_lines(code: &str, lang: &str, theme: Theme) -> Vec<Line<'static>> {
    let mut h = CodeHighlighter::new(lang, theme);
    code.lines().map(|l| Line::from(h.line(l))).collect()
}

/// A syntect style in what the terminal can show.
fn to_style(style: sh::Style, foreground: Option<sh::Color>, level: ColorLevel) -> Style {
    let mut out = Style::default();
    if level == ColorLevel::None {
        return out;
    }
    let fg = style.foreground;
    if Some(fg) != foreground {
        out = match (level, map_color(fg, level)) {
            (_, Some(c)) => out.fg(c),
            (ColorLevel::Ansi16, None) => out.add_modifier(Modifier::DIM),
            _ => out,
        };
    }
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// An RGB colour at the terminal's level: `Full` → the nearest of the 256 indexed colours,
/// `Ansi16` → the nearest chromatic named colour by hue (`None` for greys), `None` → nothing.
pub fn map_color(c: sh::Color, level: ColorLevel) -> Option<Color> {
    match level {
        ColorLevel::None => None,
        ColorLevel::Full => Some(Color::Indexed(rgb_to_256(c.r, c.g, c.b))),
        ColorLevel::Ansi16 => ansi_by_hue(c.r, c.g, c.b),
    }
}

fn ansi_by_hue(r: u8, g: u8, b: u8) -> Option<Color> {
    let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    if max - min < 40.0 {
        return None;
    }
    let d = max - min;
    let hue = if max == r {
        60.0 * ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    // Boundaries placed between the Solarized accents (yellow 45°, green 68°, cyan 175°,
    // blue 205°, magenta 331°); orange, at 18°, reads as red.
    Some(match hue {
        h if h < 20.0 => Color::Red,
        h if h < 57.0 => Color::Yellow,
        h if h < 150.0 => Color::Green,
        h if h < 195.0 => Color::Cyan,
        h if h < 270.0 => Color::Blue,
        h if h < 345.0 => Color::Magenta,
        _ => Color::Red,
    })
}

/// The nearest xterm-256 colour: the 6×6×6 cube or the grey ramp, whichever is closer.
fn rgb_to_256(r: u8, g: u8, b: u8) -> u8 {
    const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let nearest = |v: u8| -> usize {
        let mut best = 0;
        for (i, s) in STEPS.iter().enumerate() {
            if v.abs_diff(*s) < v.abs_diff(STEPS[best]) {
                best = i;
            }
        }
        best
    };
    let (ri, gi, bi) = (nearest(r), nearest(g), nearest(b));
    let cube = (STEPS[ri], STEPS[gi], STEPS[bi]);
    let avg = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
    let grey_i = (avg.saturating_sub(8) / 10).min(23) as u8;
    let grey = 8 + 10 * grey_i;
    let dist = |(x, y, z): (u8, u8, u8)| -> u32 {
        let d = |a: u8, b: u8| u32::from(a.abs_diff(b)).pow(2);
        d(x, r) + d(y, g) + d(z, b)
    };
    if dist((grey, grey, grey)) < dist(cube) {
        232 + grey_i
    } else {
        16 + 36 * ri as u8 + 6 * gi as u8 + bi as u8
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn rgb(r: u8, g: u8, b: u8) -> sh::Color {
        sh::Color { r, g, b, a: 255 }
    }

    #[test]
    fn colours_degrade_to_the_terminal_level() {
        assert_eq!(map_color(rgb(255, 0, 0), ColorLevel::None), None);
        assert_eq!(
            map_color(rgb(255, 0, 0), ColorLevel::Full),
            Some(Color::Indexed(196))
        );
        assert_eq!(
            map_color(rgb(128, 128, 128), ColorLevel::Full),
            Some(Color::Indexed(244))
        );
        // Solarized accents.
        assert_eq!(
            map_color(rgb(0xb5, 0x89, 0x00), ColorLevel::Ansi16),
            Some(Color::Yellow)
        );
        assert_eq!(
            map_color(rgb(0xcb, 0x4b, 0x16), ColorLevel::Ansi16),
            Some(Color::Red)
        );
        assert_eq!(
            map_color(rgb(0x26, 0x8b, 0xd2), ColorLevel::Ansi16),
            Some(Color::Blue)
        );
        assert_eq!(
            map_color(rgb(0x2a, 0xa1, 0x98), ColorLevel::Ansi16),
            Some(Color::Cyan)
        );
        assert_eq!(
            map_color(rgb(0x85, 0x99, 0x00), ColorLevel::Ansi16),
            Some(Color::Green)
        );
        assert_eq!(
            map_color(rgb(0xd3, 0x36, 0x82), ColorLevel::Ansi16),
            Some(Color::Magenta)
        );
        // Greys (comments) get no colour: the caller dims them.
        assert_eq!(map_color(rgb(0x58, 0x6e, 0x75), ColorLevel::Ansi16), None);
    }

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn state_carries_across_lines() {
        load_now();
        let theme = Theme::new(ColorLevel::Full);
        let mut h = CodeHighlighter::new("rust", theme);
        assert!(h.is_highlighting());
        let first = h.line("/* a comment");
        let inside = h.line("still comment */");
        let after = h.line("fn main() {}");
        assert_eq!(text(&first), "/* a comment");
        assert_eq!(text(&inside), "still comment */");
        // The second line is styled as the comment it continues, not as plain code.
        assert_eq!(inside[0].style, first[0].style);
        assert!(inside[0].style.fg.is_some());
        let mut fresh = CodeHighlighter::new("rust", theme);
        assert_ne!(fresh.line("still comment */")[0].style, inside[0].style);
        assert!(
            after.len() > 1,
            "fn main() {{}} is split into tokens: {after:?}"
        );
    }

    #[test]
    fn line_by_line_matches_syntect_on_the_whole_block() {
        load_now();
        let assets = ASSETS.get().unwrap();
        let code = "let s = r#\"\nfn not_code() {}\n\"#;\n/* open\nstill */ fn x() -> u8 { 1 }\n";
        let syntax = assets.syntaxes.find_syntax_by_token("rust").unwrap();
        let mut reference = syntect::easy::HighlightLines::new(syntax, assets.theme);
        let mut ours = CodeHighlighter::new("rust", Theme::new(ColorLevel::Full));
        for line in code.lines() {
            let expected: Vec<(String, Style)> = reference
                .highlight_line(&format!("{line}\n"), &assets.syntaxes)
                .unwrap()
                .into_iter()
                .map(|(st, t)| {
                    (
                        t.trim_end_matches('\n').to_string(),
                        to_style(st, assets.foreground, ColorLevel::Full),
                    )
                })
                .filter(|(t, _)| !t.is_empty())
                .collect();
            let got: Vec<(String, Style)> = ours
                .line(line)
                .into_iter()
                .map(|s| (s.content.into_owned(), s.style))
                .collect();
            assert_eq!(got, expected, "line {line:?}");
        }
    }

    #[test]
    fn a_snippet_highlights_line_by_line() {
        load_now();
        let lines = highlight_lines("/*\nx\n*/\n", "c", Theme::new(ColorLevel::Ansi16));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].spans[0].style, lines[0].spans[0].style);
    }

    #[test]
    fn not_loaded_yet_means_plain_code_style() {
        let theme = Theme::new(ColorLevel::Ansi16);
        let mut h = CodeHighlighter::with_assets("rust", theme, None);
        assert!(!h.is_highlighting());
        assert_eq!(
            h.line("fn x() {}"),
            vec![Span::styled("fn x() {}", theme.code())]
        );
    }

    #[test]
    fn plain_without_colours_or_language_and_escaped() {
        load_now();
        let mut none = CodeHighlighter::new("rust", Theme::new(ColorLevel::None));
        assert!(!none.is_highlighting());
        let spans = none.line("let x = \"\x1b[2J\";");
        assert!(
            spans
                .iter()
                .all(|s| s.style.fg.is_none() && s.style.bg.is_none())
        );
        assert!(!text(&spans).contains('\x1b'));
        let mut unknown = CodeHighlighter::new("no-such-language", Theme::new(ColorLevel::Full));
        assert!(!unknown.is_highlighting());
        assert_eq!(text(&unknown.line("\tx")), "    x");
        let mut rust = CodeHighlighter::new("rust", Theme::new(ColorLevel::Full));
        let spans = rust.line("let s = \"\x1b]0;title\x07\";");
        assert!(!text(&spans).contains('\x1b') && !text(&spans).contains('\x07'));
    }
}
