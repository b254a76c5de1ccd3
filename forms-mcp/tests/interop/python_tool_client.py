"""The README's rmcp `#[tool]` example (forms-mcp/examples/rmcp_tool.rs) driven by the official
MCP Python SDK's `Client`, in its default mode (2026-07-28) or legacy mode (2025-11-25).

Usage: python python_tool_client.py CONFIG

CONFIG: {"server": "/path/to/rmcp_tool", "mode": "auto" | "legacy", "cases": {NAME: {"tool",
"arguments", "answer"}}}, where "answer" is what the person answers. Each case runs on its own
connection. Prints {"cases": {NAME: {"protocol", "result", "error", "host"}}}.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.client import Client, advertise
from mcp.client.stdio import StdioServerParameters, stdio_client

from python_client import EXTENSION, NativeFormRequests, innermost, native_of_input_request, one_line


async def run_case(case: dict[str, Any], config: dict[str, Any], out: dict[str, Any]) -> None:
    log = out["host"]

    async def answer(native: dict[str, Any]) -> dict[str, Any]:
        return case["answer"]

    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        native = native_of_input_request(params)
        log["requests"].append({"method": "elicitation/create", "params": native})
        return types.ElicitResult.model_validate(await answer(native))

    server = StdioServerParameters(command=config["server"], env={"DATA_FORMS_TIMEOUT_MS": "30000"})
    inner = NativeFormRequests(stdio_client(server), answer, log)
    extensions = [advertise(EXTENSION, {"form": {}})]
    try:
        with anyio.fail_after(30):
            async with Client(inner, mode=config["mode"], elicitation_callback=on_elicit, extensions=extensions) as client:
                out["protocol"] = client.protocol_version
                result = await client.call_tool(case["tool"], case.get("arguments") or {})
                out["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    except Exception as error:  # reported, not raised: the other cases go on
        out["error"] = one_line(innermost(error))


async def main() -> None:
    config = json.loads(sys.argv[1])
    results = {
        name: {"protocol": None, "result": None, "error": None, "host": {"requests": [], "cancelled": []}}
        for name in config["cases"]
    }
    async with anyio.create_task_group() as tg:
        for name, case in config["cases"].items():
            tg.start_soon(run_case, case, config, results[name])
    print(json.dumps({"cases": results}))


if __name__ == "__main__":
    anyio.run(main)
