"""The peer reference server of the MCP benchmark: the PyPI package openai-mcp-extensions
0.2.1, its `elicit_form` over stdio, asking the benchmark's form (a text question and a
two-option single select) in a tool named like the Data tool."""

from typing import Any, Literal, Optional

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from openai_mcp_extensions.form import elicit_form


class Setup(BaseModel):
    goal: Optional[str] = Field(default=None, title="What would you like to understand?", max_length=4000)
    format: Literal["pdf", "html"] = Field(title="Report format")


server = MCPServer("peer-forms")


@server.tool(name="form_elicitation_v2_request")
async def form_elicitation_v2_request(message: str, questions: list[dict[str, Any]], ctx: Context) -> dict:
    result = await elicit_form(ctx, message=message, schema=Setup)
    if result.action == "accept":
        return {"action": "accept", "content": result.data.model_dump(exclude_none=True)}
    return {"action": result.action}


if __name__ == "__main__":
    server.run("stdio")
