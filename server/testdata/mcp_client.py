"""Drives the server's /mcp with the official MCP Python SDK (PyPI mcp).

Started by server/mcp_python_test.go with the endpoint URL as argument;
prints one JSON object: the tools listed (name, description, input
schema) and, per call in CALLS, whether it was a tool error, its
structured content and its text. The Go test checks the answers against
hand-written SQL on the same data; this script only asks.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

# The forms an agent writes first: plain-string dimensions, `value`,
# a grain suffix, then mistakes that must come back as tool errors.
CALLS = {
    "by_state": ("query", {"model": "fields", "metrics": ["revenue", "order_count"],
                           "dimensions": ["customers.state"], "order_by": [{"key": "customers.state"}]}),
    "month_value": ("query", {"model": "fields", "metrics": ["revenue"],
                              "dimensions": ["orders.order_day.month"],
                              "filters": [{"field": "orders.status", "op": "!=", "value": "returned"}]}),
    "page_total": ("query", {"model": "fields", "metrics": ["revenue"], "dimensions": ["customers.state"],
                             "limit": 1, "offset": 1, "total": True}),
    "typo": ("query", {"model": "fields", "metrics": ["revenu"], "dimensions": ["customers.stat"]}),
    "unknown_key": ("query", {"model": "fields", "metrics": ["revenue"], "dimension": ["customers.state"]}),
    "explain": ("explain", {"model": "fields", "metrics": ["revenue"], "dimensions": ["customers.state"]}),
}


def field(obj, *names):
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


async def main(url):
    out = {"tools": [], "calls": {}}
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            listed = await session.list_tools()
            for t in listed.tools:
                out["tools"].append({"name": t.name, "description": t.description,
                                     "input_schema": field(t, "input_schema", "inputSchema")})
            for key, (tool, args) in CALLS.items():
                r = await session.call_tool(tool, args)
                text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                out["calls"][key] = {"is_error": bool(field(r, "is_error", "isError")),
                                     "structured": field(r, "structured_content", "structuredContent"),
                                     "text": text}
    json.dump(out, sys.stdout)


asyncio.run(main(sys.argv[1]))
