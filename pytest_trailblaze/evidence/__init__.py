"""What a run leaves for people to look at: step records, progress text, ``summary.json`` and the
self-contained HTML report.

Pure of pytest and of drivers: records are built from the runner's step events and the tool log
the registry keeps; ``plugin/evidence.py``, ``plugin/run_report.py`` and ``plugin/trace_video.py``
feed them and write them out. Every text is masked before it is written.
"""
