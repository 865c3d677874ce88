"""The one base class of the errors a user can cause.

Every error that a bad input can raise (a ``.env`` line that can't be parsed, a host spec
that names no root, an unknown scenario key...) derives from :class:`LocalfsError`, so a
caller can catch them all with one clause and the command line turns them into a one-line
message and exit status 2 in one place. It derives from ``ValueError`` because each of
these is a bad value handed in, and so code written against the older, separate classes
(``except ValueError``) keeps working.

This module imports nothing from the package: every layer can use it.
"""

from __future__ import annotations

__all__ = ["LocalfsError"]


class LocalfsError(ValueError):
    """A problem with something the user handed in; its message is one readable line."""
