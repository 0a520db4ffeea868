"""Core: configuration, Result and error codes, dates and run context. Imports nothing above it."""
