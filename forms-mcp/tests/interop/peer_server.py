"""An MCP server built on the published peer library `openai-mcp-extensions` and the official
MCP Python SDK, for testing `forms host` against software this project did not write.

Usage: python peer_server.py                 stdio
       python peer_server.py --http PORT      streamable HTTP at http://127.0.0.1:PORT/mcp

One tool, `choose_project`, asks one native form through the library: on protocol 2026-07-28
an input-required result (`OpenAIExtensions.request_input`), before it the mid-call
`openai/elicitation/create` request (`OpenAIExtensions.elicit_input_legacy`). The library
checks the answer against the form; the tool returns what it got as `structuredContent`
(and the same JSON as text): {"protocol", "action", "project"?}.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from openai_mcp_extensions import OpenAIExtensions
from pydantic import BaseModel, Field

MESSAGE = "Pick the project to bill"

extensions = OpenAIExtensions()
server = MCPServer("peer-forms", middleware=[extensions.middleware])


class ProjectForm(BaseModel):
    code: str = Field(title="Project code", min_length=1, max_length=20)
    priority: Literal["low", "high"] = Field(title="Priority")
    notes: str | None = Field(default=None, title="Notes")


def reply(payload: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(payload))], structured_content=payload)


@server.tool()
async def choose_project(context: Context[Any, Any]) -> CallToolResult | InputRequiredResult:
    """Asks the person which project to bill, as a native form."""
    protocol = context.protocol_version
    if protocol in MODERN_PROTOCOL_VERSIONS:
        result = extensions.request_input(context, key="project", message=MESSAGE, schema=ProjectForm)
        if isinstance(result, InputRequiredResult):
            return result
    else:
        result = await extensions.elicit_input_legacy(context, mode="form", message=MESSAGE, schema=ProjectForm)
    if result.action != "accept":
        return reply({"protocol": protocol, "action": result.action})
    return reply({"protocol": protocol, "action": "accept", "project": result.data.model_dump(exclude_none=True)})


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
