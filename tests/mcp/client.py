"""Drives `crew mcp` with the official MCP Python SDK, as an assistant would.

Usage: client.py CREW_BINARY VAULT < requests.json

Reads a JSON list of requests on stdin, opens one stdio session to
`CREW_BINARY mcp --vault VAULT`, sends each request in order and prints one JSON
document: the handshake's result and one result per request. A request that fails
at the protocol level gives {"error": "..."} and the session goes on, so a test
sees whether the server survived it. The Rust test (tests/mcp.rs) makes the
assertions; this script only speaks MCP.

Requests:
  {"op": "list_tools"}
  {"op": "call", "tool": NAME, "args": {...}}   -> {"isError", "text", "progress"}
  {"op": "list_resources"}
  {"op": "read_resource", "uri": URI}           -> {"text", "uri", "mimeType"}
  {"op": "list_prompts"}
  {"op": "get_prompt", "name": NAME, "args": {...}}
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# The server's environment: only what the test chose to pass on (the SDK adds PATH, HOME …).
PASSED_ON = (
    "CREW_LOCK_WAIT_SECS",
    "CREW_TODAY",
    "CREW_LANG",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)


def wire(obj):
    """A result as it looked on the wire (camelCase keys), whatever the SDK's version."""
    return obj.model_dump(mode="json", by_alias=True, exclude_none=True)


def texts(blocks):
    return "\n".join(b["text"] for b in blocks if b.get("type") == "text")


async def one(session, request):
    op = request["op"]
    if op == "list_tools":
        return wire(await session.list_tools())["tools"]
    if op == "call":
        progress = []

        async def on_progress(value, total, message):
            progress.append(message or "")

        result = wire(
            await session.call_tool(
                request["tool"], request.get("args", {}), progress_callback=on_progress
            )
        )
        return {
            "isError": bool(result.get("isError", False)),
            "text": texts(result.get("content", [])),
            "progress": progress,
        }
    if op == "list_resources":
        return wire(await session.list_resources())["resources"]
    if op == "read_resource":
        contents = wire(await session.read_resource(request["uri"]))["contents"]
        return contents[0] if len(contents) == 1 else contents
    if op == "list_prompts":
        return wire(await session.list_prompts())["prompts"]
    if op == "get_prompt":
        result = wire(await session.get_prompt(request["name"], request.get("args")))
        return {
            "description": result.get("description"),
            "messages": [
                {"role": m["role"], "text": m["content"].get("text", "")}
                for m in result["messages"]
            ],
        }
    raise ValueError(f"unknown op {op!r}")


async def run(crew, vault, requests):
    env = {k: os.environ[k] for k in PASSED_ON if k in os.environ}
    server = StdioServerParameters(command=crew, args=["mcp", "--vault", vault], env=env)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = wire(await session.initialize())
            results = []
            for request in requests:
                try:
                    results.append(await one(session, request))
                except Exception as e:  # a protocol error: recorded, and the session goes on
                    results.append({"error": f"{type(e).__name__}: {e}"})
            return {"initialize": init, "results": results}


def main():
    crew, vault = sys.argv[1], sys.argv[2]
    requests = json.load(sys.stdin)
    out = asyncio.run(asyncio.wait_for(run(crew, vault, requests), timeout=300))
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
