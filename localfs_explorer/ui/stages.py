"""Recomputing in stages, typing coalesced, failures shown: the engine room of a model.

A model lists its ``STAGES`` in the order they recompute, each with a
``_compute_<stage>`` method, and calls :meth:`StagedModel._request` with the stages an
input change makes stale. Inside a running event loop (a kernel behind a page) typing is
coalesced: the first change after a quiet spell is computed at once, and changes that
arrive within ``debounce`` seconds of a recompute are folded into one recompute when that
window closes. With no running loop (a script, pytest) every change is computed at once;
:meth:`StagedModel.recompute` flushes whatever is pending.

Anything raised while recomputing lands in ``last_error`` with its message (secrets
masked by :meth:`StagedModel.clean`): the page must show it, because Voila hides
tracebacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from traitlets import Float, HasTraits, Unicode

log = logging.getLogger(__name__)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class StagedModel(HasTraits):
    """Stages recomputed when their inputs change; see the module docstring."""

    #: The stages, in the order they recompute; each has a ``_compute_<stage>`` method.
    STAGES: ClassVar[tuple[str, ...]] = ()

    #: Seconds over which typed changes are coalesced (0: compute every change at once).
    debounce = Float(0.15)
    #: The last unexpected failure, shown in the page's error area ("" when none).
    last_error = Unicode("")

    def __init__(self, **kwargs: Any) -> None:
        self._stale: set[str] = set()
        self._hold = 1  # no recompute until the subclass releases it (initial values in)
        self._timer: asyncio.TimerHandle | None = None
        self._last_flush = float("-inf")
        #: How many times results were recomputed (lets tests see coalescing).
        self.flushes = 0
        super().__init__(**kwargs)

    def _request(self, stages: set[str], *, typed: bool) -> None:
        self._stale |= stages
        if self._hold:
            return
        loop = _running_loop()
        if loop is None or self.debounce <= 0:
            self._flush()
            return
        now = loop.time()
        if not typed or (self._timer is None and now - self._last_flush >= self.debounce):
            self._flush()
            return
        if self._timer is None:
            delay = max(0.0, self._last_flush + self.debounce - now)
            self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._flush()

    def recompute(self, *, everything: bool = False) -> None:
        """Compute every pending stage now (all of them with ``everything``)."""
        if everything:
            self._stale.update(self.STAGES)
        self._flush()

    @property
    def pending(self) -> bool:
        """Whether a change is waiting to be recomputed."""
        return bool(self._stale)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Make several changes, recompute once at the end."""
        self._hold += 1
        try:
            yield
        finally:
            self._hold -= 1
            if not self._hold and self._stale:
                self._request(set(), typed=False)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        stale, self._stale = self._stale, set()
        if not stale:
            return
        self.flushes += 1
        for stage in self.STAGES:
            if stage in stale:
                self.guarded(getattr(self, f"_compute_{stage}"), where=stage)()
        loop = _running_loop()
        self._last_flush = loop.time() if loop is not None else float("-inf")

    # ------------------------------------------------------------------ errors

    def clean(self, text: str) -> str:
        """``text`` as it may be shown (a subclass masks its secrets here)."""
        return text

    def report(self, where: str, exc: BaseException) -> None:
        """Show an unexpected failure in the page (never swallow it)."""
        message = self.clean(f"{type(exc).__name__}: {exc}")
        log.error("explorer: %s failed: %s", where, message)
        self.last_error = f"{where}: {message}"

    def guarded(self, fn: Callable[..., Any], *, where: str = "") -> Callable[..., Any]:
        """``fn`` wrapped so that an exception is reported instead of lost."""
        label = where or getattr(fn, "__name__", "callback").strip("_")

        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                self.report(label, exc)
                return None

        run.__name__ = getattr(fn, "__name__", "guarded")
        return run
