"""A form request opened and answered through forms-mcp's ask_* tools by the official MCP
Python SDK (PyPI `mcp`): the high-level `Client` as the requester and as the person, each a
`forms-mcp --asks DB --principal NAME` process over stdio.

Usage: python python_asks_client.py CONFIG

CONFIG is one JSON object:
  {"server": "/path/to/forms-mcp", "db": "/path/to/asks.db", "conversation": "chat-…",
   "requester": "agent-…", "person": "ana-…", "form": {...},
   "refused": {...}, "accepted": {...}, "mode": "auto" | "legacy"}

Steps: the requester opens a question carrying `form` (ask_open); the person answers with
`refused` (a host response the form's answer rules refuse), then with `accepted`
(ask_respond, the version read); the requester reads it back (ask_show).

Prints one JSON object: {"sdk", "protocol", "steps": {NAME: result}}, each result the tool
result as the SDK returned it, dumped with wire names.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


def server(config: dict[str, Any], who: str) -> Any:
    return stdio_client(
        StdioServerParameters(
            command=config["server"], args=["--asks", config["db"], "--principal", who]
        )
    )


async def main(config: dict[str, Any]) -> dict[str, Any]:
    steps: dict[str, Any] = {}
    out: dict[str, Any] = {"sdk": version("mcp"), "steps": steps}

    async def call(client: Client, name: str, step: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, arguments)
        steps[step] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return steps[step].get("structuredContent") or {}

    mode = config["mode"]
    async with Client(server(config, config["requester"]), mode=mode) as agent:
        out["protocol"] = agent.protocol_version
        opened = await call(
            agent,
            "ask_open",
            "open",
            {"conversation": config["conversation"], "body": "Your weekly report, please",
             "key": f"open-{mode}", "form": config["form"]},
        )
        async with Client(server(config, config["person"]), mode=mode) as person:
            base = {"id": opened.get("id"), "version": 1, "outcome": "answered"}
            await call(person, "ask_respond", "refused",
                       {**base, "key": f"bad-{mode}", "answer": config["refused"]})
            await call(person, "ask_respond", "accepted",
                       {**base, "key": f"good-{mode}", "answer": config["accepted"]})
        await call(agent, "ask_show", "show", {"id": opened.get("id")})
    return out


if __name__ == "__main__":
    report = anyio.run(main, json.loads(sys.argv[1]))
    print(json.dumps(report))
