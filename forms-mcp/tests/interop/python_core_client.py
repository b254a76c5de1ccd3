"""A host with core elicitation only (no openai/elicitation extension), on the official MCP
Python SDK (PyPI `mcp`): its `elicitation_callback` answers the core `elicitation/create`
requests, which arrive mid-call on 2025-11-25 and as the input requests of an
input-required result on 2026-07-28.

Usage: python python_core_client.py CONFIG

CONFIG is one JSON object:
  {"mode": "legacy" | "auto",                the Client's protocol mode
   "transport": "stdio" | "http",
   "command": [...],                         stdio: the server command line
   "url": "http://127.0.0.1:P/mcp",          http
   "tool": "weekly_report", "arguments": {...},
   "answers": {CASE: ANSWER}}                each case runs on its own connection

Prints {"sdk", "cases": {CASE: {"protocol", "requests": [params…], "result", "error"}}}.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any

import anyio
import mcp_types as types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def transport(config: dict[str, Any]) -> Any:
    if config["transport"] == "stdio":
        command = config["command"]
        env = {"DATA_FORMS_TIMEOUT_MS": "30000"}
        return stdio_client(StdioServerParameters(command=command[0], args=command[1:], env=env))
    return streamable_http_client(config["url"])


async def run_case(answer: dict[str, Any], config: dict[str, Any], out: dict[str, Any]) -> None:
    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        out["requests"].append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
        return types.ElicitResult.model_validate(answer)

    try:
        with anyio.fail_after(30):
            async with Client(transport(config), mode=config["mode"], elicitation_callback=on_elicit) as client:
                out["protocol"] = client.protocol_version
                result = await client.call_tool(config["tool"], config["arguments"])
                out["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    except BaseException as error:  # reported: the other cases go on
        if isinstance(error, anyio.get_cancelled_exc_class()):
            raise
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        out["error"] = f"{type(error).__name__}: {error}"


async def main() -> None:
    config = json.loads(sys.argv[1])
    cases = {name: {"protocol": None, "requests": [], "result": None, "error": None} for name in config["answers"]}
    async with anyio.create_task_group() as tg:
        for name, answer in config["answers"].items():
            tg.start_soon(run_case, answer, config, cases[name])
    print(json.dumps({"sdk": f"mcp {version('mcp')}", "cases": cases}))


if __name__ == "__main__":
    anyio.run(main)
