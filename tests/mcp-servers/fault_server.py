"""MCP servers that misbehave, for tests/e2e/mcp.rs: raw newline-delimited JSON-RPC on stdio,
no SDK, standard library only (any python3).

    python3 fault_server.py MODE [ARG]

Modes:
  never-init          reads stdin and never answers, not even `initialize`
  exit-mid-call FILE  tool `crash`: exits in the middle of the call while FILE does not exist
                      (creating it first), answers normally once it does (so a restart works)
  stderr-flood MB     floods stderr from the start; tool `flood_status` waits (up to 120 s)
                      until MB megabytes were written, then answers with the count
  huge-result MB      tool `huge` answers with a text of MB megabytes (argument `mb` overrides)
  malformed           tool `garbage` is answered with a line that is not JSON; tool
                      `wrong_shape` with a response whose `content` is not a list
  list-changed        tool `switch` answers, then sends notifications/tools/list_changed, and
                      `tools/list` offers `after_switch` instead of `before_switch` from then on
  named NAMES         tools with these comma-separated names; each answers `called <name>`
  endless-line MB     tool `endless` starts an answer and writes MB megabytes of it without
                      ending the line until the client sends something else; tool `after`
                      answers `after`
  cancel-log FILE     tool `wait` appends `started <id>` to FILE and waits (up to 120 s) for a
                      notifications/cancelled naming it, then appends `cancelled <id> <reason>`
                      and never answers (as the protocol asks)

With FAULT_SERVER_PIDFILE set, each start appends its process id to that file (so a test can
check that no server outlives the client).
"""

import json
import os
import sys
import threading
import time

PROTOCOL_VERSION = "2025-06-18"
MODE = sys.argv[1] if len(sys.argv) > 1 else ""
ARG = sys.argv[2] if len(sys.argv) > 2 else ""

out_lock = threading.Lock()
flooded = 0
switched = False
cancelled = {}  # request id -> threading.Event
line_may_end = threading.Event()


def log(line):
    with open(ARG, "a") as f:
        f.write(line + "\n")


def send(message):
    line = json.dumps(message) + "\n"
    with out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def send_raw(line):
    with out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def tool(name, description):
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}},
    }


def tools():
    if MODE == "exit-mid-call":
        return [tool("crash", "Exits mid-call on the first start.")]
    if MODE == "stderr-flood":
        return [tool("flood_status", "How much was written to stderr.")]
    if MODE == "huge-result":
        return [tool("huge", "Returns a very large text.")]
    if MODE == "malformed":
        return [
            tool("garbage", "Answered with a line that is not JSON."),
            tool("wrong_shape", "Answered with a result of the wrong shape."),
        ]
    if MODE == "cancel-log":
        return [tool("wait", "Waits until the call is cancelled.")]
    if MODE == "named":
        return [tool(name, "Named " + name + ".") for name in ARG.split(",") if name]
    if MODE == "endless-line":
        return [tool("endless", "Answers with a line that does not end."), tool("after", "Answers.")]
    if MODE == "list-changed":
        name = "after_switch" if switched else "before_switch"
        return [tool("switch", "Changes the tool list."), tool(name, "Present " + name.replace("_", " ") + ".")]
    return []


def text_result(request_id, text):
    send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}], "isError": False}})


def flood():
    global flooded
    chunk = ("x" * 1023 + "\n").encode() * 64
    while True:
        os.write(2, chunk)
        flooded += len(chunk)


def call(request_id, name, arguments):
    global switched
    if MODE == "exit-mid-call" and name == "crash":
        if not os.path.exists(ARG):
            open(ARG, "w").close()
            sys.stderr.write("fault_server: exiting in the middle of a call\n")
            sys.stderr.flush()
            os._exit(3)
        text_result(request_id, "crash survived: this is the restarted server")
    elif MODE == "stderr-flood" and name == "flood_status":
        wanted = int(ARG) * 1024 * 1024
        deadline = time.monotonic() + 120
        while flooded < wanted and time.monotonic() < deadline:
            time.sleep(0.01)
        text_result(request_id, f"stderr bytes written: {flooded}")
    elif MODE == "huge-result" and name == "huge":
        size = int(arguments.get("mb", ARG)) * 1024 * 1024
        line = "0123456789abcdef" * 4 + "\n"
        text_result(request_id, "HUGE-START\n" + line * (size // len(line)))
    elif MODE == "malformed" and name == "garbage":
        send_raw("this is {not json at all\n")
    elif MODE == "malformed" and name == "wrong_shape":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": "not a list", "isError": "maybe"}})
    elif MODE == "named" and name in ARG.split(","):
        text_result(request_id, "called " + name)
    elif MODE == "endless-line" and name == "endless":
        chunk = "x" * (1024 * 1024)
        with out_lock:
            sys.stdout.write('{"jsonrpc": "2.0", "id": %s, "result": {"content": [{"type": "text", "text": "' % json.dumps(request_id))
            for _ in range(int(ARG)):
                sys.stdout.write(chunk)
            sys.stdout.flush()
            # The line ends only once the client said something else (its next request).
            line_may_end.wait(120)
            sys.stdout.write('"}], "isError": false}}\n')
            sys.stdout.flush()
    elif MODE == "endless-line" and name == "after":
        text_result(request_id, "after")
    elif MODE == "cancel-log" and name == "wait":
        event = cancelled.setdefault(json.dumps(request_id), threading.Event())
        log(f"started {json.dumps(request_id)}")
        event.wait(120)
    elif MODE == "list-changed" and name == "switch":
        switched = True
        text_result(request_id, "switched")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": f"unknown tool {name}"}})


def handle(message):
    method = message.get("method")
    request_id = message.get("id")
    if request_id is None:
        if method == "notifications/cancelled" and MODE == "cancel-log":
            params = message.get("params") or {}
            key = json.dumps(params.get("requestId"))
            log(f"cancelled {key} {params.get('reason', '')}")
            cancelled.setdefault(key, threading.Event()).set()
        return  # a notification
    if method == "initialize":
        capabilities = {"tools": {"listChanged": MODE == "list-changed"}}
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": capabilities,
                    "serverInfo": {"name": "fault-" + MODE, "version": "0"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools()}})
    elif method == "tools/call":
        params = message.get("params") or {}
        # Off the reading thread, so a slow call (flood_status) does not stop the others.
        threading.Thread(
            target=call, args=(request_id, params.get("name"), params.get("arguments") or {}), daemon=True
        ).start()
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": request_id, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}})


def main():
    pidfile = os.environ.get("FAULT_SERVER_PIDFILE")
    if pidfile:
        with open(pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")
    if MODE == "never-init":
        for _ in sys.stdin:
            pass
        time.sleep(3600)
        return
    if MODE == "stderr-flood":
        threading.Thread(target=flood, daemon=True).start()
    for line in sys.stdin:
        line = line.strip()
        if line:
            message = json.loads(line)
            if MODE == "endless-line" and message.get("method") == "tools/call":
                line_may_end.set()
            handle(message)


if __name__ == "__main__":
    main()
