"""What is on a screen, read as text: Playwright's ARIA snapshots with their element refs
(``aria``), and a device's view hierarchy with node selectors resolved over it
(``node_selectors``). Pure parsing: the drivers fetch the text, the agent and tools read it here."""
