"""``findesk eval golden``: an unknown ``--only`` category is refused before anything runs."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from findesk.interfaces.cli.main import app
from findesk.workflows.research.golden import CATEGORIES

runner = CliRunner()


def test_an_unknown_category_is_invalid_input_naming_the_known_ones() -> None:
    for only in ("typo", "equity,typo"):
        refused = runner.invoke(app, ["eval", "golden", "--only", only])
        assert refused.exit_code == 2, refused.output
        assert "invalid_input" in refused.stderr and "typo" in refused.stderr
        assert all(c in refused.stderr for c in CATEGORIES)
        assert "overall" not in refused.stdout  # no case ran
    as_json = runner.invoke(app, ["eval", "golden", "--only", "typo", "--json"])
    assert as_json.exit_code == 2
    error = json.loads(as_json.stdout)["error"]
    assert error["code"] == "invalid_input" and "cross-asset" in error["message"]
