//! `--include-partial-messages`: the model's answer as it streams, in the `stream_event` lines
//! of Claude Code (`{"type":"stream_event","event":{…}}`, the events of Anthropic's streaming
//! Messages API): `message_start`, then per text or thinking block `content_block_start`,
//! `content_block_delta`s and `content_block_stop`, then `message_delta` and `message_stop`
//! before the complete `assistant` line. Tool calls arrive whole (they are in the `assistant`
//! line), so they have no partial events.

use reasonix_protocol::EventKind;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
}

/// Where the message being streamed stands.
#[derive(Debug, Default)]
pub struct Partial {
    /// A `message_start` was sent and its `message_stop` not yet.
    in_message: bool,
    /// The open block and its index.
    open: Option<(Block, u32)>,
    next_index: u32,
}

impl Partial {
    /// The stream events `event` adds (the inner `event` objects), in order.
    pub fn events(&mut self, event: &EventKind, model: &str) -> Vec<Value> {
        let mut out = Vec::new();
        match event {
            EventKind::TextDelta { text } => self.delta(Block::Text, text, model, &mut out),
            EventKind::ReasoningDelta { text } => {
                self.delta(Block::Thinking, text, model, &mut out)
            }
            EventKind::AssistantMessage { tool_calls, .. } => {
                self.close_block(&mut out);
                if self.in_message {
                    let stop = if tool_calls.is_empty() {
                        "end_turn"
                    } else {
                        "tool_use"
                    };
                    out.push(json!({
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": null},
                    }));
                    out.push(json!({"type": "message_stop"}));
                }
                *self = Partial::default();
            }
            // A replayed stream starts its answer again: the open message is abandoned.
            EventKind::StreamRestarted { .. } | EventKind::RequestStarted { .. } => {
                self.close_block(&mut out);
                if self.in_message {
                    out.push(json!({"type": "message_stop"}));
                }
                *self = Partial::default();
            }
            _ => {}
        }
        out
    }

    fn delta(&mut self, block: Block, text: &str, model: &str, out: &mut Vec<Value>) {
        if !self.in_message {
            self.in_message = true;
            out.push(json!({
                "type": "message_start",
                "message": {
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": null,
                },
            }));
        }
        let index = match self.open {
            Some((open, index)) if open == block => index,
            _ => {
                self.close_block(out);
                let index = self.next_index;
                self.next_index += 1;
                self.open = Some((block, index));
                let content_block = match block {
                    Block::Text => json!({"type": "text", "text": ""}),
                    Block::Thinking => json!({"type": "thinking", "thinking": ""}),
                };
                out.push(json!({
                    "type": "content_block_start",
                    "index": index,
                    "content_block": content_block,
                }));
                index
            }
        };
        let delta = match block {
            Block::Text => json!({"type": "text_delta", "text": text}),
            Block::Thinking => json!({"type": "thinking_delta", "thinking": text}),
        };
        out.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
    }

    fn close_block(&mut self, out: &mut Vec<Value>) {
        if let Some((_, index)) = self.open.take() {
            out.push(json!({"type": "content_block_stop", "index": index}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_become_blocks_of_one_message() {
        let mut p = Partial::default();
        let mut all = Vec::new();
        let text = |t: &str| EventKind::TextDelta { text: t.into() };
        all.extend(p.events(&EventKind::ReasoningDelta { text: "hm".into() }, "m"));
        all.extend(p.events(&text("Hel"), "m"));
        all.extend(p.events(&text("lo"), "m"));
        all.extend(p.events(
            &EventKind::AssistantMessage {
                text: "Hello".into(),
                reasoning: None,
                tool_calls: Vec::new(),
            },
            "m",
        ));
        let types: Vec<&str> = all.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(all[2]["delta"]["thinking"], "hm");
        assert_eq!(all[5]["index"], 1);
        assert_eq!(all[6]["delta"]["text"], "lo");
        assert_eq!(all[8]["delta"]["stop_reason"], "end_turn");
    }
}
