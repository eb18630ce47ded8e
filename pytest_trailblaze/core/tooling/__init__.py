"""The tool machinery: how a tool is defined (``tooldef``), bound to its arguments
(``arguments``, ``memory``), registered and dispatched (``registry``), composed of other calls
(``composition``), handed its context (``context``), and checked before anything runs
(``staticcheck``)."""
