"""The user-facing error types: caught once in ``bench.cli``, printed (problems, then one line), exit 1."""

from __future__ import annotations

from collections.abc import Sequence


class UserError(Exception):
    """Bad input from the user (a file, a flag, a sweep); the message names what and where."""


class ProblemsError(UserError):
    """Bad input with located problems (``bench.contract.problems.Problem``), all of them; nothing
    was changed.

    ``bench.cli`` prints each problem on its own line, then the message: ``N problem(s) <where>``.
    """

    def __init__(self, problems: Sequence[object], where: str) -> None:
        super().__init__(f"{len(problems)} problem(s) {where}")
        self.problems = list(problems)
