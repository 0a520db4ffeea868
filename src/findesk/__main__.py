"""``python -m findesk`` — the same as the ``findesk`` command."""

from findesk.interfaces.cli.main import run

run()
