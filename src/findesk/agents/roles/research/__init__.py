"""The research desk's roles: the coordinator (route, synthesize) and the four specialists (equity,
macro, crypto, compliance), each with its own tools and the shared output schema of ``findings``."""
