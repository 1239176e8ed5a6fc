use super::*;
use crate::agent_loop::repair_history;
use crate::types::ToolCall;
use proptest::prelude::*;

fn user(text: &str) -> Message {
    Message::text(Role::User, text)
}

fn assistant(text: &str, calls: &[&str]) -> Message {
    Message {
        tool_calls: calls
            .iter()
            .map(|id| ToolCall {
                id: (*id).to_string(),
                name: "read_file".into(),
                arguments: "{}".into(),
            })
            .collect(),
        ..Message::text(Role::Assistant, text)
    }
}

fn result(id: &str, text: &str) -> Message {
    Message {
        tool_call_id: Some(id.to_string()),
        ..Message::text(Role::Tool, text)
    }
}

/// Every result answers a call of the assistant message before its run of results, and every
/// call is answered: `repair_history` then has nothing to insert or drop.
fn paired(history: &[Message]) -> bool {
    let mut copy = history.to_vec();
    repair_history(&mut copy).is_empty() && copy == history
}

#[test]
fn snip_keeps_head_and_tail_and_says_what_it_cut() {
    let text: String = (0..3000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let snipped = snip_text(&text).unwrap();
    assert!(snipped.starts_with(&text[..SNIP_HEAD_CHARS]));
    assert!(snipped.ends_with(&text[text.len() - SNIP_TAIL_CHARS..]));
    assert!(
        snipped.contains("[… 2100 of 3000 characters cut by compaction …]"),
        "{snipped}"
    );
    // Same input, same bytes; a snipped text is not snipped again.
    assert_eq!(snip_text(&text).unwrap(), snipped);
    assert_eq!(snip_text(&snipped), None);
    assert_eq!(snip_text("short"), None);
    // Multi-byte characters are cut on character boundaries.
    let wide = "é".repeat(2000);
    assert!(snip_text(&wide).unwrap().contains("cut by compaction"));
}

#[test]
fn prune_keeps_errors_and_short_results() {
    let long = "x".repeat(500);
    assert!(
        prune_text(&result("a", &long))
            .unwrap()
            .contains("500 characters")
    );
    assert_eq!(prune_text(&result("a", &format!("Error: {long}"))), None);
    assert_eq!(prune_text(&result("a", "ok")), None);
    // A pruned placeholder stays as it is; a snipped result can be pruned.
    let pruned = prune_text(&result("a", &long)).unwrap();
    assert_eq!(prune_text(&result("a", &pruned)), None);
    let snipped = snip_text(&"y".repeat(5000)).unwrap();
    assert!(prune_text(&result("a", &snipped)).is_some());
}

#[test]
fn images_count_as_tokens_and_pruning_drops_them_even_from_a_short_result() {
    let mut with_image = result("a", "[image: image/png, about 900 bytes]");
    with_image.images = vec![crate::types::Image {
        media_type: "image/png".into(),
        data: "A".repeat(1200),
    }];
    let text_only = result("a", "[image: image/png, about 900 bytes]");
    // The base64 is not counted as text; the image is counted as an image.
    assert_eq!(
        estimate_tokens(&with_image),
        estimate_tokens(&text_only) + IMAGE_TOKENS
    );
    let placeholder = prune_text(&with_image).expect("a result with an image is prunable");
    assert!(placeholder.contains("and 1 image(s)"), "{placeholder}");
    let mut history = vec![user("look"), assistant("", &["a"]), with_image];
    assert_eq!(rewrite_results(&mut history, 3, prune_text), vec![2]);
    assert!(history[2].images.is_empty());
    assert_eq!(history[2].content, placeholder);
}

#[test]
fn the_tail_never_starts_with_a_tool_result() {
    let history = vec![
        user("do it"),
        assistant("", &["c1", "c2"]),
        result("c1", &"r".repeat(400)),
        result("c2", &"r".repeat(400)),
        assistant("done", &[]),
    ];
    // A budget that ends inside the results moves back onto the assistant that called them.
    let start = tail_start(&history, estimate_all(&history[3..]));
    assert_eq!(start, 1);
    assert_eq!(tail_start(&history, 0), 4);
}

#[test]
fn a_fold_keeps_user_messages_and_digests_verbatim() {
    let digest = digest_message(1, "earlier: read a.rs");
    let big_paste = user(&"p".repeat(8000));
    let history = vec![
        digest.clone(),
        user("the port is 7311"),
        assistant("", &["c1"]),
        result("c1", "contents"),
        big_paste,
        assistant("noted", &[]),
        user("now fix it"),
        assistant("fixing", &[]),
    ];
    let plan = plan_fold(&history, 6, PIN_TOTAL_TOKENS);
    assert_eq!(plan.boundary, 6);
    assert_eq!(plan.kept, [0, 1]);
    // The oversized paste folds with the assistant/tool work.
    assert_eq!(plan.folded, [2, 3, 4, 5]);
    let head = folded_head(&history, &plan, digest_message(2, "summary"));
    assert_eq!(head[0], digest);
    assert_eq!(head[1].content, "the port is 7311");
    assert!(is_digest(&head[2]) && head[2].content.contains("#2]"));
}

fn arb_history() -> impl Strategy<Value = Vec<Message>> {
    // A session of turns: a user message, then steps of calls with results, then an answer.
    let turn = (
        "[a-z ]{1,60}",
        proptest::collection::vec((0usize..3, 0usize..3000), 0..4),
        0usize..2000,
    );
    proptest::collection::vec(turn, 1..8).prop_map(|turns| {
        let mut history = Vec::new();
        let mut n = 0;
        for (text, steps, answer) in turns {
            history.push(user(&text));
            for (calls, size) in steps {
                let ids: Vec<String> = (0..calls.max(1))
                    .map(|_| {
                        n += 1;
                        format!("call_{n}")
                    })
                    .collect();
                let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                history.push(assistant("", &refs));
                for id in &ids {
                    let body = if size % 7 == 0 {
                        format!("Error: {}", "e".repeat(size))
                    } else {
                        "z".repeat(size)
                    };
                    history.push(result(id, &body));
                }
            }
            history.push(assistant(&"w".repeat(answer), &[]));
        }
        history
    })
}

proptest! {
    #[test]
    fn tiers_never_break_pairing_and_keep_user_messages(
        history in arb_history(),
        budget in 0u64..3000,
    ) {
        prop_assert!(paired(&history));
        let tail = tail_start(&history, budget);
        prop_assert!(tail == history.len() || tail == 0 || history[tail].role != Role::Tool);

        // Snip and prune rewrite results in place: same messages, same pairing, and the tail
        // is untouched.
        let mut work = history.clone();
        let snipped = rewrite_results(&mut work, tail, snip_result);
        let again = {
            let mut w = history.clone();
            rewrite_results(&mut w, tail, snip_result);
            w
        };
        prop_assert_eq!(&again, &work);
        prop_assert!(snipped.iter().all(|&i| i < tail));
        rewrite_results(&mut work, tail, prune_text);
        prop_assert_eq!(work.len(), history.len());
        prop_assert_eq!(&work[tail..], &history[tail..]);
        prop_assert!(paired(&work));
        for (a, b) in work.iter().zip(&history) {
            prop_assert_eq!(a.role, b.role);
            prop_assert_eq!(&a.tool_call_id, &b.tool_call_id);
            if is_error_result(b) {
                prop_assert_eq!(&a.content, &b.content);
            }
        }

        // A fold: head (kept + digest) then the tail.
        let plan = plan_fold(&work, tail, u64::MAX);
        let mut folded = folded_head(&work, &plan, digest_message(1, "s"));
        folded.extend_from_slice(&work[plan.boundary..]);
        prop_assert!(paired(&folded));
        prop_assert!(folded.first().is_none_or(|m| m.role != Role::Tool));
        // Every user message of normal size is still there, verbatim and in order.
        let users = |h: &[Message]| -> Vec<String> {
            h.iter()
                .filter(|m| m.role == Role::User && !is_digest(m))
                .filter(|m| estimate_tokens(m) <= PIN_EACH_TOKENS)
                .map(|m| m.content.clone())
                .collect()
        };
        prop_assert_eq!(users(&folded), users(&history));
    }
}
