"""What the core needs from the operating system and the interpreter: files read by a stranger's
rules (``files``), the user's Python code located and imported from their folders (``pycall``)
and kept from ending the process (``foreign``), blocking work kept off a running event loop
(``offloop``), child processes reaped (``reaper``)."""
