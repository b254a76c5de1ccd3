"""forms-mcp driven by the official MCP Python SDK (PyPI `mcp`) as the client and host.

Usage: python python_client.py CONFIG

CONFIG is one JSON object:
  {"api": "client" | "client-legacy" | "session-2025-11-25" | "session-2026-07-28",
   "transport": "stdio" | "http",
   "server": "/path/to/forms-mcp",         stdio: the binary, started once per case
   "url": "http://127.0.0.1:P/mcp",         http: a server with the normal timeout
   "timeout_url": "http://127.0.0.1:Q/mcp", http: a server with DATA_FORMS_TIMEOUT_MS=timeout_ms
   "timeout_ms": 1500,
   "arguments": {...}}                      the form_elicitation_v2_request arguments

- api "client": the high-level `mcp.Client` in its default protocol mode ("auto"); the host
  answers through `elicitation_callback`, which the SDK calls for the input requests of a
  2026-07-28 input-required result (the native schema is read from
  `params.meta["openai/elicitation"]["requestedSchema"]`).
- api "client-legacy": the same `Client` with `mode="legacy"` (the 2025-11-25 handshake);
  the server sends `openai/elicitation/create` mid-call. The SDK has no public hook for a
  custom server request (`ClientSession` answers any method it does not know with -32601),
  so the host wraps the transport: `NativeFormRequests` answers that method before the
  session sees it.
- api "session-2025-11-25": `ClientSession.initialize()`, with the same transport wrapper.
- api "session-2026-07-28": `ClientSession.discover()` (2026-07-28), and the host drives
  the rounds itself: `call_tool(..., allow_input_required=True)`, then the same call with
  `input_responses` and the echoed `request_state`.

Every case runs concurrently, each on its own connection:
  accept, decline, cancel  the host answers so;
  invalid                  the host accepts an option the form does not offer;
  unsupported              a client with the core elicitation but without the
                           openai/elicitation extension;
  timeout                  a server with a short timeout; on 2025-11-25 the host never
                           answers, on 2026-07-28 it answers after the request state expired.

Prints one JSON object: {"sdk", "api", "transport", "cases": {NAME: {"protocol", "result",
"error", "host"}}}, where "result" is the tool result as the SDK returned it (dumped with
wire names) and "error" the exception the SDK raised instead, if any.
"""

from __future__ import annotations

import json
import sys
import traceback
from contextlib import AsyncExitStack
from importlib.metadata import version
from typing import Any, Awaitable, Callable

import anyio
import mcp_types as types
from mcp.client import Client, ClientSession, advertise
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import (
    INTERNAL_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)
from pydantic import ValidationError

TOOL = "form_elicitation_v2_request"
EXTENSION = "openai/elicitation"
NATIVE_METHOD = "openai/elicitation/create"

Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""The person: given the native request (message and requestedSchema), the answer, or None
for never."""


class NativeFormRequests:
    """A client transport that answers the server's `openai/elicitation/create` requests
    (protocol 2025-11-25) before the session sees them, and honours
    `notifications/cancelled` for them. Every other message passes through unchanged.

    `answer` gets the request's params; it returns the result to send, or None to never
    answer (the request then waits until the server cancels it or the connection ends).
    """

    def __init__(self, inner: Any, answer: Answer, log: dict[str, list[Any]]) -> None:
        self.inner = inner
        self.answer = answer
        self.log = log
        self.stack = AsyncExitStack()

    async def __aenter__(self):
        read, write = await self.stack.enter_async_context(self.inner)
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        tg = await self.stack.enter_async_context(anyio.create_task_group())
        self.stack.callback(tg.cancel_scope.cancel)
        tg.start_soon(self.pump, tg, read, write, send)
        return receive, write

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self.stack.__aexit__(*exc)

    async def pump(self, tg, read, write, send) -> None:
        pending: dict[Any, anyio.CancelScope] = {}
        async with send:
            async for item in read:
                message = item.message if isinstance(item, SessionMessage) else None
                if isinstance(message, JSONRPCRequest) and message.method == NATIVE_METHOD:
                    scope = anyio.CancelScope()
                    pending[message.id] = scope
                    tg.start_soon(self.respond, message, write, scope, pending)
                    continue
                if (
                    isinstance(message, JSONRPCNotification)
                    and message.method == "notifications/cancelled"
                    and (message.params or {}).get("requestId") in pending
                ):
                    request_id = (message.params or {}).get("requestId")
                    self.log["cancelled"].append(request_id)
                    pending.pop(request_id).cancel()
                    continue
                await send.send(item)

    async def respond(self, request: JSONRPCRequest, write, scope, pending) -> None:
        self.log["requests"].append({"method": request.method, "params": request.params})
        with scope:
            try:
                result = await self.answer(request.params or {})
            except Exception as error:  # the host failed: the server hears a JSON-RPC error
                pending.pop(request.id, None)
                error_data = ErrorData(code=INTERNAL_ERROR, message=str(error)[:200])
                await write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request.id, error=error_data)))
                return
            if result is None:
                await anyio.sleep_forever()
            pending.pop(request.id, None)
            await write.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=request.id, result=result)))


def native_of_input_request(params: types.ElicitRequestFormParams) -> dict[str, Any]:
    """The native request carried by a 2026-07-28 `elicitation/create` input request."""
    meta = params.meta or {}
    native = meta.get(EXTENSION) or {}
    return {"message": params.message, "requestedSchema": native.get("requestedSchema")}


def answers(case: str, config: dict[str, Any]) -> Answer:
    """The person of one case."""

    async def answer(native: dict[str, Any]) -> dict[str, Any] | None:
        if case == "accept":
            return {"action": "accept", "content": {"format": "html", "goal": "churn"}}
        if case in ("decline", "cancel"):
            return {"action": case}
        if case == "invalid":
            return {"action": "accept", "content": {"format": "docx"}}
        if case == "timeout":
            if config["api"] in ("client-legacy", "session-2025-11-25"):
                return None
            # 2026-07-28: the request state lives as long as the server's timeout.
            await anyio.sleep(config["timeout_ms"] / 1000 + 1.0)
            return {"action": "accept", "content": {"format": "pdf"}}
        return {"action": "accept", "content": {"format": "pdf"}}

    return answer


def transport(case: str, config: dict[str, Any]) -> Any:
    if config["transport"] == "stdio":
        env = {"DATA_FORMS_TIMEOUT_MS": str(config["timeout_ms"] if case == "timeout" else 30000)}
        return stdio_client(StdioServerParameters(command=config["server"], env=env))
    url = config["timeout_url"] if case == "timeout" else config["url"]
    return streamable_http_client(url)


async def run_client(case: str, config: dict[str, Any], out: dict[str, Any]) -> None:
    """The high-level Client, in its default mode or in legacy mode."""
    log = out["host"]
    answer = answers(case, config)

    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        native = native_of_input_request(params)
        log["requests"].append({"method": "elicitation/create", "params": native})
        result = await answer(native)
        return types.ElicitResult.model_validate(result)

    extensions = [] if case == "unsupported" else [advertise(EXTENSION, {"form": {}})]
    inner = NativeFormRequests(transport(case, config), answer, log)
    mode = "legacy" if config["api"] == "client-legacy" else "auto"
    async with Client(inner, mode=mode, elicitation_callback=on_elicit, extensions=extensions) as client:
        out["protocol"] = client.protocol_version
        result = await client.call_tool(TOOL, config["arguments"])
        out["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def run_session(case: str, config: dict[str, Any], out: dict[str, Any]) -> None:
    """ClientSession pinned to one protocol generation."""
    log = out["host"]
    answer = answers(case, config)
    modern = config["api"] == "session-2026-07-28"

    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        # Advertises elicitation.form; on this path the host answers the rounds itself.
        return types.ErrorData(code=types.INVALID_REQUEST, message="not used")

    extensions = None if case == "unsupported" else {EXTENSION: {"form": {}}}
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(
            NativeFormRequests(transport(case, config), answer, log)
        )
        session = await stack.enter_async_context(
            ClientSession(read, write, elicitation_callback=on_elicit, extensions=extensions)
        )
        if modern:
            await session.discover()
        else:
            await session.initialize()
        out["protocol"] = session.protocol_version
        result = await session.call_tool(TOOL, config["arguments"], allow_input_required=modern)
        rounds = 0
        while isinstance(result, types.InputRequiredResult):
            rounds += 1
            if rounds > 3:
                raise RuntimeError("more than 3 input-required rounds")
            responses: dict[str, Any] = {}
            for key, request in (result.input_requests or {}).items():
                if not isinstance(request, types.ElicitRequest):
                    raise RuntimeError(f"unexpected input request {request.method}")
                native = native_of_input_request(request.params)
                log["requests"].append({"method": request.method, "key": key, "params": native})
                responses[key] = types.ElicitResult.model_validate(await answer(native))
            result = await session.call_tool(
                TOOL,
                config["arguments"],
                input_responses=responses,
                request_state=result.request_state,
                allow_input_required=True,
            )
        out["rounds"] = rounds
        out["result"] = result.model_dump(by_alias=True, mode="json", exclude_none=True)


def one_line(error: BaseException) -> str:
    if isinstance(error, ValidationError):
        # pydantic's text repeats the whole input; the location and the message say it.
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        return f"ValidationError ({error.title}): {problems}"
    text = f"{type(error).__name__}: {error}"
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


def innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def run_case(case: str, config: dict[str, Any], out: dict[str, Any]) -> None:
    runner = run_client if config["api"].startswith("client") else run_session
    try:
        with anyio.fail_after(config.get("case_timeout_s", 30)):
            await runner(case, config, out)
    except BaseException as error:  # reported, not raised: the other cases go on
        if isinstance(error, anyio.get_cancelled_exc_class()):
            raise
        error = innermost(error)
        out["error"] = one_line(error)
        out["traceback"] = "".join(traceback.format_exception(error))[-2000:]


async def main() -> None:
    config = json.loads(sys.argv[1])
    cases = config.get("cases") or ["accept", "decline", "cancel", "invalid", "unsupported", "timeout"]
    results: dict[str, Any] = {
        c: {"protocol": None, "result": None, "error": None, "host": {"requests": [], "cancelled": []}}
        for c in cases
    }
    async with anyio.create_task_group() as tg:
        for case in cases:
            tg.start_soon(run_case, case, config, results[case])
    report = {
        "sdk": f"mcp {version('mcp')}",
        "api": config["api"],
        "transport": config["transport"],
        "cases": results,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    anyio.run(main)
