"""A trail session without pytest: what the pytest plugin, ``trailblaze check`` and
``trailblaze toolbox`` share.

- ``settings``: what a run was told (the plugin resolves options and ini keys into it);
- ``workspaces``: workspaces loaded once each, their ``llm:`` models judged by the agent's table;
- ``registries``: the tools a session scope offers (built-in, workspace, hook-registered, MCP);
- ``preflight``: the problems of a trail's calls that are known before any device starts;
- ``trail_walk``, ``trail_items``: the trail files a run finds, and the items each becomes;
- ``trailrun``: one trail's run (its memory from ``memory_seed``, its plan, runner and failure
  evidence); ``artifacts`` and ``run_evidence``: where its files go and the record it leaves;
- ``agent_writeback``: what an agent did, written into the trail file.
"""
