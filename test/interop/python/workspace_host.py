"""A Python host driving `agenttool workspace` over stdio, as a desktop host would.

Usage: python workspace_host.py <mcp|fastmcp> <legacy|auto> <node> <cli> <root>

Starts the built command from `/` with the client library named (the official `mcp`
SDK's `Client`, or `fastmcp`'s), in the era asked for (`legacy`: the 2025 initialize;
`auto`: 2026-07-28 where the server offers it), and prints one JSON object with what each
step saw, for the Jest test beside this file to check.
"""

import asyncio
import json
import sys
import time

from mcp import StdioServerParameters


def texts(result) -> str:
    return "".join(getattr(block, "text", "") for block in (result.content or []))


async def scenario(call, list_tools, server_capabilities) -> dict:
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

    # Two calls sent together, as a model's parallel tool calls: both run, in order.
    finished: list = []

    async def timed(label: str, command: str):
        result = await call("bash", {"command": command, **handle})
        finished.append(label)
        return result

    slow, quick = await asyncio.gather(
        timed("slow", "sleep 0.3; echo slow in $PWD"),
        timed("quick", "echo quick $KEPT"),
    )
    seen["parallel"] = {
        "slow": texts(slow),
        "quick": texts(quick),
        "errors": [bool(slow.is_error), bool(quick.is_error)],
        "finished": finished,
    }

    # A result longer than a stdio client reads at once: a tool error, and the shell goes on.
    started = time.monotonic()
    big = await call("read_file", {"path": "controls.txt", "max_bytes": 4 * 1024 * 1024})
    seen["big"] = {"is_error": bool(big.is_error), "text": texts(big)[:200]}
    seen["big_seconds"] = round(time.monotonic() - started, 3)

    after = await call("bash", {"command": "pwd; echo $KEPT", **handle})
    seen["after"] = {"text": texts(after), "is_error": bool(after.is_error)}
    return seen


async def with_mcp(params: StdioServerParameters, mode: str) -> dict:
    from mcp import Client

    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        seen = await scenario(
            lambda name, args: client.call_tool(name, args),
            lambda: _tools(client.list_tools()),
            lambda: client.server_capabilities,
        )
        seen["protocol"] = client.protocol_version
        return seen


async def _tools(listing):
    return (await listing).tools


async def with_fastmcp(params: StdioServerParameters, mode: str) -> dict:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(
        command=params.command, args=params.args, cwd=params.cwd, keep_alive=False
    )
    async with Client(transport, mode=mode, timeout=60) as client:

        async def call(name, args):
            return await client.call_tool(name, args, raise_on_error=False)

        seen = await scenario(
            call,
            client.list_tools,
            lambda: client.server_capabilities,
        )
        seen["protocol"] = client.protocol_version
        return seen


def main() -> None:
    library, mode, node, cli, root = sys.argv[1:6]
    params = StdioServerParameters(command=node, args=[cli, "workspace", root], cwd="/")
    run = with_mcp if library == "mcp" else with_fastmcp
    print(json.dumps(asyncio.run(run(params, mode))))


if __name__ == "__main__":
    main()
