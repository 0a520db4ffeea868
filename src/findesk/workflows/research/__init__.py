"""The research desk: one question routed to the specialists it needs, answered once with citations."""
