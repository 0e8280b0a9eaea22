"""Drives `grounded mcp` with the MCP Python SDK (PyPI `mcp`), as an agent's client does.

Usage: client.py GROUNDED_BIN PROJECT_DIR PLAN_JSON

PLAN_JSON is a list of sessions: {"roots": [dir...] | null, "calls": [[tool, args], ...]}.
Each session starts the server (stdio, cwd = PROJECT_DIR), initializes (declaring roots
when the plan gives some), lists the tools and makes the calls. Prints one JSON object
on stdout: {"sessions": [{"initialize", "tools", "results": [...]}]}; the Rust test
(tests/mcp/mcp_client.rs) judges it. A protocol error of a call is recorded as
{"protocol_error": message}, never raised.
"""

import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def one_session(binary, project, session_plan):
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=project)
    roots = session_plan.get("roots")
    callback = None
    if roots is not None:

        async def callback(context):
            return types.ListRootsResult(
                roots=[types.Root(uri=Path(r).resolve().as_uri(), name=Path(r).name) for r in roots]
            )

    out = {"results": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=callback) as session:
            init = await session.initialize()
            out["initialize"] = dump(init)
            tools = await session.list_tools()
            out["tools"] = [dump(t) for t in tools.tools]
            for name, args in session_plan["calls"]:
                try:
                    r = await session.call_tool(name, args)
                    out["results"].append(dump(r))
                except Exception as e:  # a JSON-RPC error: recorded, the session goes on
                    out["results"].append({"protocol_error": str(e)})
            # The server is still there after everything above.
            await session.send_ping()
            out["alive"] = True
    return out


async def main():
    binary, project, plan_file = sys.argv[1], sys.argv[2], sys.argv[3]
    plan = json.loads(Path(plan_file).read_text())
    sessions = []
    for s in plan:
        sessions.append(await one_session(binary, project, s))
    print(json.dumps({"sessions": sessions}))


asyncio.run(main())
