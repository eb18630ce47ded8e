"""What is on a screen, read as text: Playwright's ARIA snapshots with their element refs
(``aria``), a device's view hierarchy read into nodes (``hierarchy``), and node selectors
resolved over those nodes (``node_selectors``). Pure parsing: the drivers fetch the text, the
agent and tools read it here."""
