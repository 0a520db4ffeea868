"""Evaluations of the desks (``findesk eval``): golden cases, the red-team suite, the injection
detector alone, and hallucinated numbers. Each writes a JSON result and a readable report."""
