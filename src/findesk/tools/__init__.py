"""Tools agents call: typed arguments in, ``Result`` out.

``base`` holds the tool type and the executor, ``args`` and ``summaries`` what the tools share, and
``market``, ``filings``, ``highlights`` (10-K risk factors and business overview), ``social`` and
``macro_crypto`` expose the data layer; ``catalog`` builds the
default registry and the tools' context.
"""
