"""Tools that exist for the agent: ``objectiveStatus`` (toolset ``meta``), the mobile ``tap`` by ref,
and the memory tools that ask a model about the screen (``judgement``).

The first two are offered to the model and never recorded as such (docs/upstream.md, The toolbox):
``objectiveStatus`` only ends a step, and ``tap`` resolves the ref the model saw to a
``nodeSelector`` and delegates to ``tapOnElementBySelector``, the precise call a recording keeps
(through the tool log).
"""

from __future__ import annotations

from ..core.errors import ToolFailure, UnsupportedToolError
from ..core.run.driver import MobileScreen
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, Tool, tool
from .durable_selectors import mobile_node_selector
from .judgement import TOOLS as JUDGEMENT_TOOLS
from .screen import mobile_refs


class ObjectiveState(CaseInsensitiveEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


@tool(source="builtin", toolset="meta", is_recordable=False)
def objectiveStatus(ctx: ToolContext, explanation: str, status: ObjectiveState) -> str:
    """Report progress on the current objective: COMPLETED when it is done, FAILED when it cannot be
    done (say why), IN_PROGRESS to note a partial result."""
    return f"{status.value}: {explanation}"


@tool(
    source="builtin",
    toolset="core_interaction",
    platforms=("android", "ios"),
    is_recordable=False,
)
def tap(ctx: ToolContext, ref: str, longPress: bool = False) -> str:
    """Tap the element whose ref (like y1234) the current screen shows; longPress holds it."""
    driver = ctx.driver
    if not isinstance(driver, MobileScreen):
        raise UnsupportedToolError(f"the {ctx.platform} driver cannot show the screen's elements", tool="tap")
    nodes = driver.nodes()
    node = mobile_refs(nodes).get(ref.strip().strip("[]"))
    if node is None:
        raise ToolFailure(
            f"no element with ref {ref!r} on the current screen; use a ref from the latest screen"
        )
    selector = mobile_node_selector(node, nodes, ctx.platform)
    args = {"nodeSelector": selector, **({"longPress": True} if longPress else {})}
    return ctx.run("tapOnElementBySelector", args).message


TOOLS: tuple[Tool, ...] = (objectiveStatus, tap, *JUDGEMENT_TOOLS)
