"""A Python host driving `agenttool workspace` over stdio, as a desktop host would.

Usage: python workspace_host.py <mcp|fastmcp> <legacy|auto> <node> <cli> <root> [url]

Starts the built command from `/` over stdio (or, given a URL, connects to the workspace
served there over Streamable HTTP) with the client library named (the official `mcp`
SDK's `Client`, or `fastmcp`'s), in the era asked for (`legacy`: the 2025 initialize;
`auto`: 2026-07-28 where the server offers it), and prints one JSON object with what each
step saw, for the Jest test beside this file to check. A 2026-07-28 client over HTTP has
no session: it carries the `shell_id` a result gives, as a model would. A call is given
up on (cancelled) and another sent at once, as hosts do.
"""

import asyncio
import json
import sys
import time

from mcp import StdioServerParameters


def texts(result) -> str:
    return "".join(getattr(block, "text", "") for block in (result.content or []))


async def scenario(call, list_tools, server_capabilities, over_stdio: bool) -> dict:
    seen: dict = {}
    tools = await list_tools()
    seen["tools"] = sorted(tool.name for tool in tools)
    caps = server_capabilities()
    seen["list_changed"] = None if caps is None or caps.tools is None else caps.tools.list_changed

    first = await call("bash", {"command": "cd sub && export KEPT=yes && echo set"})
    seen["first"] = {"text": texts(first), "is_error": bool(first.is_error)}
    handle = {}
    structured = first.structured_content or {}
    if isinstance(structured.get("shell_id"), str):
        handle = {"shell_id": structured["shell_id"]}
    seen["handle"] = bool(handle)

    # Two calls sent together, as a model's parallel tool calls: both run, one at a time,
    # in the order they came. Each says when it started and ended, in the shell's clock.
    finished: list = []
    spans: dict = {}

    async def timed(label: str, command: str):
        spanned = f't0=$EPOCHREALTIME; {command}; echo "span $t0 $EPOCHREALTIME"'
        result = await call("bash", {"command": spanned, **handle})
        finished.append(label)
        return result

    def without_span(label: str, result) -> str:
        kept = []
        for line in texts(result).splitlines(keepends=True):
            if line.startswith("span "):
                spans[label] = [float(word) for word in line.split()[1:3]]
            else:
                kept.append(line)
        return "".join(kept)

    slow, quick = await asyncio.gather(
        timed("slow", "sleep 0.3; echo slow in $PWD"),
        timed("quick", "echo quick $KEPT"),
    )
    seen["parallel"] = {
        "slow": without_span("slow", slow),
        "quick": without_span("quick", quick),
        "errors": [bool(slow.is_error), bool(quick.is_error)],
        "finished": finished,
        "spans": spans,
    }

    if over_stdio:
        # A result longer than a stdio client reads at once: a tool error, and the shell
        # goes on.
        big = await call("read_file", {"path": "controls.txt", "max_bytes": 4 * 1024 * 1024})
        seen["big"] = {"is_error": bool(big.is_error), "text": texts(big)[:200]}

    after = await call("bash", {"command": "pwd; echo $KEPT", **handle})
    seen["after"] = {"text": texts(after), "is_error": bool(after.is_error)}

    # A call given up on (the host cancels it), then another at once: it runs as soon as
    # the cancelled command is gone, not once its 20 s are over.
    started = time.monotonic()
    try:
        await asyncio.wait_for(call("bash", {"command": "sleep 20; echo late", **handle}), 0.5)
    except (asyncio.TimeoutError, TimeoutError):
        pass
    retried = await call("bash", {"command": "echo retried $KEPT", **handle})
    seen["retried"] = {
        "text": texts(retried),
        "is_error": bool(retried.is_error),
        "before_the_sleep_ended": time.monotonic() - started < 20,
    }

    if handle:
        # Without the handle, a new shell; with another's, its own state.
        fresh = await call("bash", {"command": 'pwd; echo "[${KEPT-}]"'})
        other = (fresh.structured_content or {}).get("shell_id")
        seen["fresh"] = {"text": texts(fresh).split("\n[shell_id")[0], "other": other != handle["shell_id"]}
        again = await call("bash", {"command": "echo $KEPT", **handle})
        seen["again"] = texts(again)
    return seen


async def with_mcp(target, mode: str) -> dict:
    from mcp import Client

    async with Client(target, mode=mode, read_timeout_seconds=60) as client:
        seen = await scenario(
            lambda name, args: client.call_tool(name, args),
            lambda: _tools(client.list_tools()),
            lambda: client.server_capabilities,
            isinstance(target, StdioServerParameters),
        )
        seen["protocol"] = client.protocol_version
        return seen


async def _tools(listing):
    return (await listing).tools


async def with_fastmcp(target, mode: str) -> dict:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    over_stdio = isinstance(target, StdioServerParameters)
    transport = (
        StdioTransport(command=target.command, args=target.args, cwd=target.cwd, keep_alive=False)
        if over_stdio
        else target
    )
    async with Client(transport, mode=mode, timeout=60) as client:

        async def call(name, args):
            return await client.call_tool(name, args, raise_on_error=False)

        seen = await scenario(
            call, client.list_tools, lambda: client.server_capabilities, over_stdio
        )
        seen["protocol"] = client.protocol_version
        return seen


def main() -> None:
    library, mode, node, cli, root = sys.argv[1:6]
    url = sys.argv[6] if len(sys.argv) > 6 else None
    target = url or StdioServerParameters(command=node, args=[cli, "workspace", root], cwd="/")
    run = with_mcp if library == "mcp" else with_fastmcp
    print(json.dumps(asyncio.run(run(target, mode))))


if __name__ == "__main__":
    main()
