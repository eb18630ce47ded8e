"""The trail file format: YAML read with lines and columns (``yamlcore``, ``yamlsource``), the
``{{NAME}}`` and ``{{args.x}}`` tokens, device classifiers and their lineage, tool naming, the
frozen model, the unified and v1 grammars, the legacy folder layout, parsing a file (``parse``)
and writing recordings back into it (``writeback``)."""
