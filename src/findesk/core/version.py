"""The package version, in the lowest layer so every layer may name it (``findesk/__init__`` re-exports
it; importing it from there would make a data module depend on the top-level package, which reaches
the workflows)."""

VERSION = "0.1.0"
