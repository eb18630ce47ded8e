"""A trail session without pytest: what the pytest plugin, ``trailblaze check`` and
``trailblaze toolbox`` share.

- ``settings``: what a run was told; ``option_table`` and ``agent_options`` declare its options
  as data, ``run_options``, ``agent_options`` and ``option_values`` read what the user gave;
- ``workspaces``: workspaces loaded once each, their ``llm:`` models judged by the agent's table;
- ``registries``: the tools a session scope offers (built-in, workspace, hook-registered, MCP);
  ``driver_choice``: the device a session reports and the browser options it merges;
- ``preflight``: the problems of a trail's calls that are known before any device starts;
- ``trail_walk``, ``read_ahead``, ``trail_items``: the trail files a run finds, the trails read
  before collection, and the items each becomes;
- ``trailrun``: one trail's run (its memory from ``memory_seed``, its plan, runner and failure
  evidence); ``artifacts`` and ``run_evidence``: where its files go and the record it leaves;
  ``trail_recording``: its trace and video; ``run_summary``: the run's files at its end;
- ``agent_steps``: the built-in agent; ``agent_usage``: what it used, as report properties;
  ``agent_writeback``: what it did, written into the trail file.
"""
