"""Python behind the sample app's tools: a typed @tool and a script."""

from __future__ import annotations

import json
from typing import Any

from pytest_trailblaze import ToolContext, ToolFailure, tool


@tool("sampleApp_web_rememberCounter", platforms=["web"])
def remember_counter(ctx: ToolContext, variable: str = "counter") -> str:
    """Remember the counter's current value under a memory variable."""
    value = ctx.driver.page.locator("#counter-value").inner_text().strip()
    ctx.memory.set(variable, value)
    return f"{variable} = {value}"


def increment_counter_to(params: dict[str, Any], ctx: ToolContext) -> str:
    """Observe the counter through a tool, click until it reaches the target."""
    read = {"script": "document.querySelector('#counter-value').textContent"}
    for clicks in range(params["maxClicks"] + 1):
        result = ctx.execute("web_evaluate", read)
        if result["type"] == "Error":
            raise ToolFailure(f"cannot read the counter: {result['message']}")
        if int(result["message"]) >= params["target"]:
            return f"counter reached {result['message']} after {clicks} click(s)"
        ctx.execute("web_click", {"ref": "css=#increment-btn"})
    raise ToolFailure(f"counter did not reach {params['target']} in {params['maxClicks']} clicks")


def submit_generated_user(params: dict[str, Any], ctx: ToolContext) -> str:
    """Ask the MCP server for a user, then fill the form with it."""
    generated = ctx.execute("sampleApp_generateTestUser", {"seed": params["seed"]})
    if generated["type"] == "Error":
        raise ToolFailure(f"no user from the MCP server: {generated['message']}")
    user = json.loads(generated["message"])
    ctx.memory.set("generatedEmail", user["email"])
    for ref, value in (("css=#name-input", user["name"]), ("css=#email-input", user["email"])):
        ctx.run("web_type", {"ref": ref, "text": value})
    ctx.run("web_selectOption", {"ref": "css=#category-select", "values": [user["category"]]})
    ctx.run("web_click", {"ref": 'button "Submit"'})
    return f"submitted {user['name']}"
