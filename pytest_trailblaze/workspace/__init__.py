"""Workspaces: ``trails/config`` folders of trailmaps, targets, toolsets and tool files
(docs/guides/tools.md, The workspace)."""

from .file_tools import build_tools
from .loader import WorkspaceLoader, code_roots, find_config_dir, load_file, workspace_root
from .model import Target, ToolDef, Workspace, trail_target
from .toolbox import enabled_toolsets, toolbox

__all__ = [
    "Target",
    "ToolDef",
    "Workspace",
    "WorkspaceLoader",
    "build_tools",
    "code_roots",
    "enabled_toolsets",
    "find_config_dir",
    "load_file",
    "toolbox",
    "trail_target",
    "workspace_root",
]
