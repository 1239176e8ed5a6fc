#!/usr/bin/env python3
"""A configurable Reasonix sidecar for tests (standard library only).

Usage: probe.py CONFIG.json   (or the path in the environment variable PROBE_CONFIG)

The config (every key optional):
  {
    "points": {                      # what to answer at each interception point
      "tool.before": {"action": "block", "reason": "..."},
      "input.receive": {"action": "replace", "replacement": {"text": "..."}},
      "tool.after": {"action": "replace", "merge": {"result": "..."}},  # payload deep-merged with changes
      "session.start": {"action": "continue"}       # the default for subscribed points
    },
    "subscribe": ["tool.before"],    # declared subscriptions (default: the keys of "points")
    "tools": {"echo": {"content": "...", "isError": false}},   # tool answers; "content" may
                                     # contain {arguments}, replaced by the arguments as JSON
    "declare": {...},                # extra members merged into the initialize result
    "log": "/path/log.jsonl",        # every message received, one JSON object a line
    "fault": "crash-on-initialize" | "hang" | "hang-on-initialize" | "oversized-frame" |
             "early-frame" | "exit-mid-call" | "unknown-id" | "garbage" | "stderr-flood" |
             "request-flood",
    "fault_point": "tool.before",    # where hang / exit-mid-call / oversized-frame / unknown-id
                                     # / garbage strike (default: any intercept or tool call)
    "stderr": "text written to stderr at start",
    "provider": {"ref": "echo",      # serve provider `echo`: one script entry per stream/open,
      "script": [{"chunks": [[1, {"type": "text", "text": "hi"}]], "end": {"lastSeq": 1},
                  "crash_after": 1}]},   # chunks as [seq, chunk], sent in the order given
    "log_env": true,                 # log {"env": ..., "cwd": ...} first
    "read_content": true,            # read every externalised field (host/content/read) and
                                     # log {"content_read": {bytes, pages, sha256_ok}}
    "try_read": ["/path"], "try_write": ["/path"]   # at start; log {"fs", "path", "ok"}
  }
"""
import base64
import hashlib
import json
import os
import sys
import time

config_path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PROBE_CONFIG")
config = {}
if config_path:
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)

points = config.get("points", {})
subscribe = config.get("subscribe", list(points.keys()))
tools = config.get("tools", {})
fault = config.get("fault")
fault_point = config.get("fault_point")
log_path = config.get("log")


def deep_merge(into, changes):
    """`into` with `changes` merged in: objects member by member, anything else replaced."""
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            into[key] = deep_merge(dict(into[key]), value)
        else:
            into[key] = value
    return into


def log(message):
    if log_path:
        with open(log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(message) + "\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def strikes(where):
    return fault_point is None or fault_point == where


if config.get("log_env"):
    log({"env": dict(os.environ), "cwd": os.getcwd()})

for path in config.get("try_read", []):
    try:
        with open(path, "rb") as f:
            f.read(16)
        log({"fs": "read", "path": path, "ok": True})
    except OSError as e:
        log({"fs": "read", "path": path, "ok": False, "error": str(e)})
for path in config.get("try_write", []):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("written by the probe\n")
        log({"fs": "write", "path": path, "ok": True})
    except OSError as e:
        log({"fs": "write", "path": path, "ok": False, "error": str(e)})

if config.get("stderr"):
    sys.stderr.write(config["stderr"] + "\n")
    sys.stderr.flush()

if fault == "early-frame":
    send({"jsonrpc": "2.0", "method": "host/ui/publish", "params": {"kind": "status"}})

next_id = [1]


def read_content(field):
    """Read one externalised field through host/content/read, page by page."""
    data = b""
    offset = 0
    pages = 0
    while True:
        request_id = 1000000 + next_id[0]
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": request_id, "method": "host/content/read",
              "params": {"contentRef": field["contentRef"], "offset": offset}})
        while True:
            answer = json.loads(sys.stdin.readline())
            if answer.get("id") == request_id:
                break
        if "error" in answer:
            return {"error": answer["error"]}
        page = answer["result"]
        data += base64.b64decode(page["dataBase64"])
        pages += 1
        offset = page["nextOffset"]
        if offset >= page["totalBytes"]:
            break
    return {"contentRef": field["contentRef"], "bytes": len(data), "pages": pages,
            "sha256_ok": hashlib.sha256(data).hexdigest() == field["sha256"]}


while True:
    line = sys.stdin.readline()
    if not line:
        break
    line = line.strip()
    if not line:
        continue
    message = json.loads(line)
    log(message)
    method = message.get("method")
    params = message.get("params", {})

    if method == "extension/initialize":
        if fault == "crash-on-initialize":
            sys.stderr.write("probe: crashing on initialize as configured\n")
            sys.stderr.flush()
            sys.exit(3)
        if fault == "hang-on-initialize":
            time.sleep(3600)
        result = {
            "name": "probe",
            "version": "0.1.0",
            "protocolVersion": "2",
            "stateSchemaVersion": 1,
            "subscriptions": subscribe,
            "tools": list(tools.keys()),
        }
        if config.get("provider"):
            result["providers"] = [{"ref": config["provider"]["ref"]}]
        result.update(config.get("declare", {}))
        reply(message, result)
    elif method == "extension/initialized":
        pass
    elif method == "extension/intercept":
        event = params.get("event")
        if strikes(event):
            if fault == "hang":
                time.sleep(3600)
            if fault == "exit-mid-call":
                sys.stderr.write("probe: exiting in the middle of " + str(event) + "\n")
                sys.stderr.flush()
                os._exit(4)
            if fault == "oversized-frame":
                sys.stdout.write('{"jsonrpc":"2.0","id":%d,"result":"' % message["id"])
                chunk = "x" * (1024 * 1024)
                for _ in range(10):
                    sys.stdout.write(chunk)
                sys.stdout.write('"}\n')
                sys.stdout.flush()
                continue
            if fault == "unknown-id":
                send({"jsonrpc": "2.0", "id": 999999, "result": {"decision": "continue"}})
                continue
            if fault == "request-flood":
                # Ask and ask, never reading the answers.
                for i in range(20000):
                    try:
                        send({"jsonrpc": "2.0", "id": 5000000 + i, "method": "host/content/read",
                              "params": {"contentRef": "nope", "offset": 0}})
                    except BrokenPipeError:
                        break
                time.sleep(3600)
            if fault == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            if fault == "stderr-flood":
                sys.stderr.write("\x1b[31mflood\x1b[0m sk-abcdefghijklmnopqrstuvwx " * 20000)
                sys.stderr.flush()
        if config.get("read_content"):
            for field in params.get("externalized", []):
                log({"content_read": read_content(field), "event": event})
        answer = points.get(event, {"action": "continue"})
        result = {"decision": answer.get("action", "continue")}
        if "reason" in answer:
            result["reason"] = answer["reason"]
        if "replacement" in answer:
            result["replacement"] = answer["replacement"]
        if "merge" in answer:
            # The payload as received, with these members changed (keeps ids and names).
            replacement = deep_merge(dict(params.get("payload") or {}), answer["merge"])
            result["replacement"] = replacement
            # Fields the host externalised and the merge left alone come back unchanged.
            kept = [f for f in params.get("externalized", [])
                    if f["jsonPointer"].split("/")[1] not in answer["merge"]]
            if kept:
                result["externalized"] = kept
        reply(message, result)
    elif method == "extension/tool/call":
        name = params.get("name")
        if strikes("tool:" + str(name)):
            if fault == "hang":
                time.sleep(3600)
            if fault == "exit-mid-call":
                sys.stderr.write("probe: exiting in the middle of tool " + str(name) + "\n")
                sys.stderr.flush()
                os._exit(4)
        answer = tools.get(name, {"content": "no such tool", "isError": True})
        content = answer.get("content", "").replace("{arguments}", json.dumps(params.get("arguments"), sort_keys=True))
        reply(message, {"content": content, "isError": answer.get("isError", False)})
    elif method == "extension/provider/catalog":
        provider = config.get("provider", {})
        reply(message, {"providers": [{"ref": provider.get("ref", "none"),
                                        "displayName": "Probe provider", "efforts": ["low", "high"]}]})
    elif method == "extension/provider/stream/open":
        script = config.get("provider", {}).get("script", [])
        stream_count = config.setdefault("_streams", 0)
        config["_streams"] = stream_count + 1
        if stream_count >= len(script):
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32000, "message": "no scripted stream left",
                            "data": {"reason": "provider_failed", "retryable": False}}})
            continue
        reply(message, {"accepted": True})
        step = script[stream_count]
        stream_id = params["streamId"]
        for seq, chunk in step.get("chunks", []):
            send({"jsonrpc": "2.0", "method": "extension/provider/stream/chunk",
                  "params": {"streamId": stream_id, "seq": seq, "chunk": chunk,
                             "generation": 1, "epoch": 1}})
            if step.get("crash_after") == seq:
                sys.stderr.write("probe: provider crashing after chunk %d\n" % seq)
                sys.stderr.flush()
                os._exit(5)
        if "end" in step:
            end = {"streamId": stream_id}
            end.update(step["end"])
            send({"jsonrpc": "2.0", "method": "extension/provider/stream/end", "params": end})
    elif method == "extension/provider/stream/cancel":
        reply(message, {"cancelled": True})
    elif method == "extension/shutdown":
        reply(message, {"accepted": True})
        break
    elif "id" in message:
        send({"jsonrpc": "2.0", "id": message["id"],
              "error": {"code": -32601, "message": "unknown method " + str(method),
                        "data": {"reason": "unknown_method", "retryable": False}}})
