"""Programs the project ships to run inside the sandbox (read as text by ``tools.movers``; never imported
and run by findesk itself)."""
