"""The top-level command group, lazy: a subcommand's module is imported only when that command runs.

Rules:
- ``findesk --help`` lists every command from a static table of names and one-line helps (and the
  workflow registry's entries, which are known without importing a workflow), so it imports no
  command module, no workflow and no LangGraph.
- Invoking a command imports its module and hands over to the real command (its own options, help
  and errors), so a lazy command behaves exactly like an eager one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, ClassVar

import typer

# typer vendors its own click (``typer._click``); its groups and commands are that click's classes
from typer import _click as click
from typer.core import TyperCommand, TyperGroup


class LazyCommand(TyperCommand):
    """Stands in for a command in listings; parsing and running are the real command's."""

    def __init__(self, name: str, short_help: str, load: Callable[[], click.Command]) -> None:
        super().__init__(name, short_help=short_help, help=short_help)
        self._load = load
        self._real: click.Command | None = None

    def real(self) -> click.Command:
        if self._real is None:
            self._real = self._load()
            self._real.name = self.name
        return self._real

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        return self.real().make_context(info_name, args, parent=parent, **extra)

    def get_short_help_str(self, limit: int = 45) -> str:
        return self.short_help or ""


def from_typer(target: str) -> Callable[[], click.Command]:
    """A loader for ``module:attr`` naming a ``typer.Typer`` app or a command function."""

    def load() -> click.Command:
        module_name, _, attr = target.partition(":")
        obj = getattr(importlib.import_module(module_name), attr)
        if isinstance(obj, click.Command):
            return obj
        if isinstance(obj, typer.Typer):
            return typer.main.get_command(obj)
        app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        app.command()(obj)
        return typer.main.get_command(app)

    return load


class LazyGroup(TyperGroup):
    """A typer group whose ``lazy`` commands (name → (help, loader)) are added at listing time."""

    lazy: ClassVar[dict[str, tuple[str, Callable[[], click.Command]]]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *self.lazy]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.lazy:
            return found
        short_help, load = self.lazy[cmd_name]
        return LazyCommand(cmd_name, short_help, load)


def workflow_loader(name: str) -> Callable[[], click.Command]:
    """A loader for the generated command of the registry's workflow ``name``."""

    def load() -> click.Command:
        from findesk.interfaces.cli.workflow_cmd import command_app

        return typer.main.get_command(command_app(name))

    return load
