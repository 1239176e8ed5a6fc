#!/usr/bin/env python3
"""A consumer of Claude Code's headless output, written against Claude Code's documented
`--output-format json` and `--output-format stream-json` (the Agent SDK message types), using
only the standard library. `tests/e2e/claude_compat.rs` runs it on a real `reasonix run`.

Usage: claude_consumer.py json|stream-json < output

It checks the shapes a Claude Code consumer relies on and prints one JSON summary line:
{"session_id", "result", "total_cost_usd", "usage", "num_turns", "subtype", "is_error",
 "permission_denials", "init", "tool_pairs", "texts", "thinking"}. Any missing field or broken
pairing exits 1 with the reason on stderr.
"""

import json
import sys


def fail(reason):
    sys.stderr.write("consumer: " + reason + "\n")
    sys.exit(1)


def check_result(r):
    if r.get("type") != "result":
        fail("the result object has type %r" % r.get("type"))
    if r.get("subtype") not in ("success", "error_max_turns", "error_during_execution"):
        fail("unexpected subtype %r" % r.get("subtype"))
    for key in ("is_error", "result", "session_id", "num_turns", "duration_ms", "usage"):
        if key not in r:
            fail("the result has no %r" % key)
    usage = r["usage"]
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens"):
        if not isinstance(usage.get(key), int):
            fail("usage.%s is not an integer" % key)
    cost = r.get("total_cost_usd")
    if cost is not None and not isinstance(cost, (int, float)):
        fail("total_cost_usd is not a number")
    denials = r.get("permission_denials", [])
    for d in denials:
        for key in ("tool_name", "tool_use_id", "tool_input"):
            if key not in d:
                fail("a permission denial has no %r" % key)
    return {
        "session_id": r["session_id"],
        "result": r["result"],
        "subtype": r["subtype"],
        "is_error": r["is_error"],
        "num_turns": r["num_turns"],
        "total_cost_usd": cost,
        "usage": usage,
        "permission_denials": denials,
    }


def consume_json(text):
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) != 1:
        fail("json output is %d lines, expected 1" % len(lines))
    return check_result(json.loads(lines[0]))


def consume_stream(text):
    messages = [json.loads(l) for l in text.splitlines() if l.strip()]
    if not messages:
        fail("no output")
    init = messages[0]
    if init.get("type") != "system" or init.get("subtype") != "init":
        fail("the first line is not system/init")
    for key in ("session_id", "model", "tools", "cwd", "permissionMode"):
        if key not in init:
            fail("init has no %r" % key)
    session = init["session_id"]
    pending = {}
    pairs = []
    texts = []
    thinking = []
    for m in messages:
        if m.get("session_id") != session:
            fail("a %r line has another session_id" % m.get("type"))
        kind = m.get("type")
        if kind == "assistant":
            for block in m["message"]["content"]:
                if block["type"] == "text":
                    texts.append(block["text"])
                elif block["type"] == "thinking":
                    thinking.append(block["thinking"])
                elif block["type"] == "tool_use":
                    pending[block["id"]] = (block["name"], block["input"])
        elif kind == "user":
            content = m["message"]["content"]
            if isinstance(content, str):
                continue
            for block in content:
                if block.get("type") == "tool_result":
                    use_id = block["tool_use_id"]
                    if use_id not in pending:
                        fail("tool_result %r has no earlier tool_use" % use_id)
                    name, tool_input = pending.pop(use_id)
                    pairs.append({"id": use_id, "name": name, "input": tool_input,
                                  "is_error": bool(block.get("is_error", False)),
                                  "content": block["content"]})
        # Any other type (Reasonix's turn, text, usage, notice …) is ignored, as Claude
        # Code's own consumers ignore message types they do not know.
    if pending:
        fail("tool_use without a tool_result: %s" % sorted(pending))
    if messages[-1].get("type") != "result":
        fail("the last line is not the result")
    summary = check_result(messages[-1])
    summary["init"] = {k: init[k] for k in ("session_id", "model", "tools", "cwd",
                                             "permissionMode")}
    summary["tool_pairs"] = pairs
    summary["texts"] = texts
    summary["thinking"] = thinking
    return summary


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("json", "stream-json"):
        fail("usage: claude_consumer.py json|stream-json < output")
    text = sys.stdin.read()
    summary = consume_json(text) if sys.argv[1] == "json" else consume_stream(text)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
