"""click itself as the judge of a trtllm-bench command line: the inventory's options rebuilt as click options.

A release's group (``global``) and subcommands become a real ``click.Group``; ``parse`` runs click's own
parser on an argv and raises ``click.UsageError`` ("No such option: --ep") exactly where the release would.
Paths are plain strings here: whether a file exists is the run's business, not the command line's.
"""

from __future__ import annotations

from typing import Any

import click

from bench.trtllm import inventory


def _click_type(t: dict[str, Any]) -> Any:
    kind = t["kind"]
    if kind == "int":
        return click.IntRange(min=t.get("min"), max=t.get("max"))
    if kind == "float":
        return click.FloatRange(min=t.get("min"), max=t.get("max"))
    if kind == "choice" and "choices" in t:
        return click.Choice(t["choices"])
    if kind == "bool":
        return click.BOOL
    return click.STRING


def _command(name: str, entry: dict[str, Any], group: bool = False) -> click.Command:
    params = [
        click.Option(o["names"], is_flag=o["is_flag"], type=None if o["is_flag"] else _click_type(o["type"]))
        for o in entry["options"]
    ]
    cls = click.Group if group else click.Command
    return cls(name, params=params, callback=lambda **kw: kw)


def parse(rel: inventory.Release, argv: list[str]) -> tuple[str, dict[str, Any]]:
    """click's parse of ``trtllm-bench ...``: (subcommand, the options given); raises click.UsageError."""
    main = _command("trtllm-bench", rel.data["commands"]["global"], group=True)
    for name in rel.subcommands():
        main.add_command(_command(name, rel.data["commands"][name]))
    ctx = main.make_context("trtllm-bench", argv[1:])
    sub_name, sub, rest = main.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
    assert sub is not None and sub_name is not None
    sub_ctx = sub.make_context(sub_name, rest, parent=ctx)
    return sub_name, {k: v for k, v in sub_ctx.params.items() if v not in (None, False)}
