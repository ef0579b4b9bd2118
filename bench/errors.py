"""The one user-facing error type: caught once in ``bench.cli``, printed as one line, exit 1."""


class UserError(Exception):
    """Bad input from the user (a file, a flag, a sweep); the message names what and where."""
