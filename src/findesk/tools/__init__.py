"""Tools agents call: typed arguments in, ``Result`` out (``base``), and the data layer's
capabilities exposed as tools (``data_tools``)."""
