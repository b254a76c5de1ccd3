"""A host with core elicitation only, on the official MCP Python SDK (PyPI `mcp`), which
advertises `capabilities.elicitation` with both `form` and `url` when given an
`elicitation_callback`. A URL-mode `elicitation/create` is handed to the test: the driver
prints it as one JSON line `{"event": "url", "params": {...}}` on standard output and
answers the configured action (the person's consent); the test opens the URL in a browser.
Every notification the client gets is recorded (`notifications/elicitation/complete`
among them).

Usage: python python_url_client.py CONFIG

CONFIG is one JSON object:
  {"mode": "legacy" | "auto", "transport": "stdio" | "http",
   "command": [...] (stdio), "url": "http://127.0.0.1:P/mcp" (http),
   "tool": "send_data", "arguments": {...}, "consent": {"action": "accept"},
   "timeout": 60, "rounds": 10}            rounds: the input-required rounds allowed (2026-07-28)

Prints, last, {"event": "done", "sdk", "protocol", "requests": [params...],
"notifications": [{"method", "params"}...], "result", "error"}.
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


def line(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def transport(config: dict[str, Any]) -> Any:
    if config["transport"] == "stdio":
        command = config["command"]
        env = {"DATA_FORMS_TIMEOUT_MS": str(config.get("server_timeout_ms", 60000))}
        return stdio_client(StdioServerParameters(command=command[0], args=command[1:], env=env))
    return streamable_http_client(config["url"])


async def main() -> None:
    config = json.loads(sys.argv[1])
    out: dict[str, Any] = {"event": "done", "sdk": f"mcp {version('mcp')}", "protocol": None,
                           "requests": [], "notifications": [], "result": None, "error": None}

    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        dumped = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        out["requests"].append(dumped)
        line({"event": "url" if dumped.get("mode") == "url" else "form", "params": dumped})
        return types.ElicitResult.model_validate(config.get("consent", {"action": "accept"}))

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None)
        if method is not None:
            params = getattr(message, "params", None)
            dumped = params.model_dump(by_alias=True, mode="json", exclude_none=True) if params is not None else None
            out["notifications"].append({"method": method, "params": dumped})
        await anyio.lowlevel.checkpoint()

    try:
        with anyio.fail_after(config.get("timeout", 90)):
            async with Client(transport(config), mode=config["mode"], elicitation_callback=on_elicit,
                              message_handler=on_message,
                              input_required_max_rounds=config.get("rounds", 10)) as client:
                out["protocol"] = client.protocol_version
                result = await client.call_tool(config["tool"], config.get("arguments", {}))
                out["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
                # A moment for a notification sent right after the result.
                await anyio.sleep(0.3)
    except BaseException as error:
        if isinstance(error, anyio.get_cancelled_exc_class()):
            raise
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        out["error"] = f"{type(error).__name__}: {error}"
    line(out)


if __name__ == "__main__":
    anyio.run(main)
