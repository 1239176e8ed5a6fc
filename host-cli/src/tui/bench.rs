//! Frame-time figures for docs/PERFORMANCE.md, in-process (the pieces a frame is made of):
//! `cargo test --release -p reasonix --bin reasonix -- --ignored bench_frames --nocapture`.
//! Not a pass/fail test: it prints medians.

#![allow(clippy::unwrap_used, clippy::disallowed_macros)]

use super::card::{CardStatus, ToolCard};
use super::markdown::MarkdownStream;
use super::theme::{ColorLevel, Theme};
use super::wrap::wrap_lines;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::Paragraph;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

#[test]
#[ignore = "benchmark: prints figures"]
fn bench_frames() {
    let theme = Theme::new(ColorLevel::Full);
    let (w, h) = (120u16, 40u16);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();

    // A finished call with a 10,000-line result: committed once (collapsed), and shown in
    // full by Ctrl+E (capped).
    let output: String = (0..10_000)
        .map(|i| format!("line {i}: some output text\n"))
        .collect();
    let mut card = ToolCard::new("c1", "bash", r#"{"command":"seq 10000"}"#);
    card.status = CardStatus::Done;
    card.duration_ms = Some(1234);
    card.output = Some(output);
    let collapsed = time(50, || {
        let lines = wrap_lines(card.render_collapsed(theme, w), usize::from(w));
        std::hint::black_box(lines);
    });
    let expanded = time(50, || {
        let lines = wrap_lines(card.render_expanded(theme, w, 200), usize::from(w));
        std::hint::black_box(lines);
    });

    // A frame while a 5 KB single line is the open part of the answer.
    let mut stream = MarkdownStream::new(theme, w);
    stream.push(&"word ".repeat(1024));
    let open_line = time(200, || {
        terminal
            .draw(|f| {
                let lines = wrap_lines(stream.pending_within(12 * usize::from(w)), usize::from(w));
                let skip = lines.len().saturating_sub(usize::from(h) - 2);
                let lines: Vec<_> = lines.into_iter().skip(skip).collect();
                f.render_widget(Paragraph::new(lines), f.area());
            })
            .unwrap();
    });

    // Streaming a 2,000-token answer: one push plus one frame per token.
    let tokens: Vec<String> = (0..2000)
        .map(|i| {
            if i % 12 == 11 {
                "end.\n".to_string()
            } else {
                format!("tok{i} ")
            }
        })
        .collect();
    let per_token = {
        let mut stream = MarkdownStream::new(theme, w);
        let start = Instant::now();
        for t in &tokens {
            let committed = stream.push(t);
            std::hint::black_box(committed);
            terminal
                .draw(|f| {
                    let lines =
                        wrap_lines(stream.pending_within(12 * usize::from(w)), usize::from(w));
                    f.render_widget(Paragraph::new(lines), f.area());
                })
                .unwrap();
        }
        start.elapsed() / 2000
    };

    println!("| frame piece (120×40) | median |");
    println!("|---|---:|");
    println!(
        "| commit a 10,000-line tool result (collapsed card) | {:.1} µs |",
        collapsed.as_secs_f64() * 1e6
    );
    println!(
        "| Ctrl+E on it (expanded, 200 rows) | {:.1} µs |",
        expanded.as_secs_f64() * 1e6
    );
    println!(
        "| frame with a 5 KB single open line in view | {:.1} µs |",
        open_line.as_secs_f64() * 1e6
    );
    println!(
        "| push + frame per token, 2,000-token answer | {:.1} µs |",
        per_token.as_secs_f64() * 1e6
    );
}
