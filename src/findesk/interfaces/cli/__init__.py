"""The ``findesk`` command line (Typer + Rich)."""
