"""A server on the Python MCP SDK (`mcp` 2.3.0, whose FastMCP is now `MCPServer`), as users
write them: tools, a prompt with arguments, a resource and a resource template.

    python fastmcp_server.py              # stdio
    python fastmcp_server.py --http PORT  # streamable HTTP on 127.0.0.1:PORT/mcp

Driven by tests/e2e/mcp.rs through `reasonix run`; installed by .ci/run (tests/mcp-servers/
requirements.txt).
"""

import argparse
import base64

import anyio

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("reasonix-fastmcp-test", version="1.0.0")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"sum={a + b}"


@server.tool()
async def count_with_progress(steps: int, ctx: Context) -> str:
    """Count to `steps`, reporting progress after each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await anyio.sleep(0.05)
    return f"counted to {steps}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def peek(key: str) -> str:
    """Read a value without changing anything."""
    return f"peeked {key}"


@server.prompt()
def review(language: str, focus: str = "bugs") -> str:
    """Ask for a code review."""
    # The reference is the server's text, not the user's: the client must not read it.
    return f"Review this {language} code, focusing on {focus}. Notes: @fastmcp:notes://greeting"


@server.prompt()
async def slow(seconds: str) -> str:
    """A prompt that takes `seconds` to build (for the request timeouts)."""
    await anyio.sleep(float(seconds))
    return "finally"


@server.resource("notes://greeting", mime_type="text/plain")
def greeting() -> str:
    """A fixed note."""
    return "hello from the fastmcp resource"


@server.resource("notes://topic/{name}", mime_type="text/plain")
def topic(name: str) -> str:
    """A note per topic."""
    return f"notes about {name}"


# A 1×1 PNG: a resource that is an image, served as a base64 blob.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@server.resource("notes://pixel.png", mime_type="image/png")
def pixel() -> bytes:
    """A one-pixel image."""
    return PIXEL_PNG


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on this port")
    options = parser.parse_args()
    if options.http is None:
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=options.http)


if __name__ == "__main__":
    main()
