"""What the page needs for keyboard and screen-reader use that ipywidgets doesn't give.

:class:`PageAccess` is a small anywidget (its script is this module's text: nothing is
fetched) placed once at the top of the Explorer. It holds the live region that announces
the server's verdict when it turns (WOULD START ↔ WOULD EXIT), and it keeps the page's
widgets reachable as they are drawn and redrawn:

- every text box, text area and drop-down has an accessible name (its widget's tooltip,
  which :func:`~localfs_explorer.ui.panel.no_null_tooltips` and the panels set, or its
  placeholder), since ipywidgets names only the ones with a description;
- a grid's column headers sort it (click, or Enter on a focused header), through the
  grid's own sort control, and say how it is sorted (``aria-sort``);
- toggle buttons say whether they are pressed (``aria-pressed``), not only by colour;
- a button showing only a sign (a chip's ×) is named by its tooltip, and a grid's
  rows-per-page select is named too;
- Enter on a chip's × or in the box adding a chip keeps the focus in that box when the
  chips are drawn again (not on ``<body>``);
- the rows of a results grid are reached with Tab (one row at a time is in the tab
  order, the selected one or the first), moved through with the arrow keys, Home and End,
  and opened with Enter or Space, as a click opens them; the row's detail (its trace and
  hint) is a focusable region right after the row's Copy and Pin buttons.

The verdicts and every decision stay in the kernel: this script only labels and focuses
what the widgets drew.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

#: The page's title (the browser tab, the window list, a screen reader's first words).
PAGE_TITLE = "Local-file access explorer"

_ESM = r"""
function nameOf(el) {
  if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return true;
  if (el.id) {
    const label = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
    if (label && label.textContent.trim() && label.offsetParent !== null) return true;
  }
  return false;
}

function label(root) {
  // A grid's rows-per-page select (DataTables draws it without a name).
  for (const el of root.querySelectorAll('.dt-length select')) {
    if (!nameOf(el)) el.setAttribute('aria-label', 'rows per page');
  }
  // A button showing only a sign (a chip's ×) is named by its tooltip ("remove /data").
  for (const b of root.querySelectorAll('button[title]')) {
    const words = b.getAttribute('title');
    if (words && b.textContent.trim().length <= 2 && b.getAttribute('aria-label') !== words) {
      b.setAttribute('aria-label', words);
    }
  }
  for (const el of root.querySelectorAll('input, textarea, select')) {
    if (el.type === 'hidden' || el.type === 'file' || nameOf(el)) continue;
    const host = el.closest('[title]');
    const words = (host && host.getAttribute('title')) || el.getAttribute('placeholder');
    if (words) el.setAttribute('aria-label', words);
  }
  for (const b of root.querySelectorAll('.widget-toggle-button')) {
    const pressed = b.classList.contains('mod-active') ? 'true' : 'false';
    if (b.getAttribute('aria-pressed') !== pressed) b.setAttribute('aria-pressed', pressed);
  }
  for (const d of root.querySelectorAll('.lfe-grid-detail')) {
    const has = d.textContent.trim() !== '';
    d.setAttribute('role', 'region');
    d.setAttribute('aria-label', 'the selected row: its message, trace and hint');
    if (has) { d.setAttribute('tabindex', '0'); } else { d.removeAttribute('tabindex'); }
  }
  for (const body of root.querySelectorAll('.lfe-grid-table table.dataTable tbody')) {
    rows(body);
  }
  for (const grid of root.querySelectorAll('.lfe-grid')) headers(grid);
}

// A grid's column headers sort it: a click (or Enter) picks the column in the grid's own
// "sort by" control, which sorts every row in the kernel (not only the page's window);
// a second one on the same column flips the order. Each header says its state.
function headers(grid) {
  const sort = grid.querySelector('.lfe-grid-sort select');
  if (!sort) return;
  const names = Array.from(sort.options).map((o) => o.textContent);
  const current = sort.selectedIndex >= 0 ? names[sort.selectedIndex] : '';
  const desc = grid.querySelector('.lfe-grid-descending input');
  for (const th of grid.querySelectorAll('table.dataTable thead th')) {
    const name = th.textContent.trim();
    if (!names.includes(name)) continue;
    if (th.getAttribute('tabindex') !== '0') th.setAttribute('tabindex', '0');
    const state = name !== current ? 'none' : (desc && desc.checked ? 'descending'
                                                                   : 'ascending');
    if (th.getAttribute('aria-sort') !== state) th.setAttribute('aria-sort', state);
    th.classList.add('lfe-sortable');
  }
  if (grid.dataset.lfeSort) return;
  grid.dataset.lfeSort = '1';
  const pick = (th) => {
    const options = Array.from(sort.options).map((o) => o.textContent);
    const at = options.indexOf(th.textContent.trim());
    if (at < 0) return;
    if (sort.selectedIndex === at) {
      if (desc) desc.click();
    } else {
      sort.selectedIndex = at;
      sort.dispatchEvent(new Event('change', { bubbles: true }));
    }
  };
  grid.addEventListener('click', (event) => {
    const th = event.target.closest && event.target.closest('thead th');
    if (th && grid.contains(th) && th.classList.contains('lfe-sortable')) pick(th);
  });
  grid.addEventListener('keydown', (event) => {
    const th = event.target.closest && event.target.closest('thead th.lfe-sortable');
    if (th && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      pick(th);
    }
  });
}

function rows(body) {
  const all = Array.from(body.querySelectorAll(':scope > tr'))
    .filter((r) => !r.querySelector('td.dt-empty'));
  if (!all.length) return;
  let current = all.find((r) => r.getAttribute('tabindex') === '0');
  const selected = all.find((r) => r.classList.contains('selected'));
  if (!current) current = selected || all[0];
  for (const r of all) {
    const want = r === current ? '0' : '-1';
    if (r.getAttribute('tabindex') !== want) r.setAttribute('tabindex', want);
    const sel = r.classList.contains('selected') ? 'true' : 'false';
    if (r.getAttribute('aria-selected') !== sel) r.setAttribute('aria-selected', sel);
  }
  if (!body.dataset.lfeKeys) {
    body.dataset.lfeKeys = '1';
    body.addEventListener('keydown', (event) => {
      const row = event.target.closest('tr');
      if (!row || row.parentElement !== body) return;
      const list = Array.from(body.querySelectorAll(':scope > tr'));
      const at = list.indexOf(row);
      let next = null;
      if (event.key === 'ArrowDown') next = list[at + 1];
      else if (event.key === 'ArrowUp') next = list[at - 1];
      else if (event.key === 'Home') next = list[0];
      else if (event.key === 'End') next = list[list.length - 1];
      else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        if (!row.classList.contains('selected')) (row.querySelector('td') || row).click();
        return;
      } else return;
      event.preventDefault();
      if (next) {
        row.setAttribute('tabindex', '-1');
        next.setAttribute('tabindex', '0');
        next.focus();
      }
    });
    body.addEventListener('focusin', (event) => {
      const row = event.target.closest('tr');
      if (!row || row.parentElement !== body) return;
      for (const r of body.querySelectorAll(':scope > tr[tabindex="0"]')) {
        if (r !== row) r.setAttribute('tabindex', '-1');
      }
      row.setAttribute('tabindex', '0');
    });
  }
}

function watch(el, title) {
  if (title) document.title = title;
  // The app this widget sits in (the whole page when shown on its own): only its
  // subtree is watched, and its changes are handled once per animation frame.
  const root = el.closest('.lfe-app') || document.body;
  if (root.dataset.lfeAccess) return;
  root.dataset.lfeAccess = '1';
  let queued = false;
  // Enter (or Space) on a chip's × or in the box adding a chip redraws the chips: the
  // focused element goes with them. Focus comes back to the box adding one, not <body>.
  const CHIPS = '.lfe-root-chips, .lfe-dir-chips';
  let restore = null;
  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    const chips = event.target.closest && event.target.closest(CHIPS);
    if (chips) {
      const kind = chips.classList.contains('lfe-root-chips') ? '.lfe-root-chips'
                                                              : '.lfe-dir-chips';
      restore = { kind, until: Date.now() + 5000 };
    }
  }, true);
  const refocus = () => {
    if (!restore || Date.now() > restore.until) { restore = null; return; }
    const active = document.activeElement;
    if (active && active !== document.body && root.contains(active)) return;
    const box = root.querySelector(restore.kind + ' input[type="text"]');
    if (box) { box.focus(); restore = null; }
  };
  const run = () => { queued = false; label(root); refocus(); };
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(run); }
  }).observe(root, {subtree: true, childList: true, attributes: true,
                    attributeFilter: ['class', 'title', 'placeholder']});
  run();
}

export default {
  render({ model, el }) {
    el.classList.add('lfe-page-access');
    const live = document.createElement('div');
    live.className = 'lfe-sr-only lfe-live';
    live.setAttribute('role', 'status');
    live.setAttribute('aria-live', 'polite');
    live.setAttribute('aria-atomic', 'true');
    el.appendChild(live);
    // Filled a moment after the region exists, so a screen reader hears the first one too.
    const say = () => { live.textContent = model.get('announcement'); };
    setTimeout(say, 50);
    model.on('change:announcement', say);
    // Once the view is in the page (render runs before it is attached).
    let tries = 0;
    const start = () => {
      if (el.isConnected || ++tries > 600) watch(el, model.get('title'));
      else requestAnimationFrame(start);
    };
    start();
  }
};
"""

_CSS = """
.lfe-sr-only, .lfe-app .lfe-sr-label > .widget-label {
  position: absolute !important; width: 1px !important; height: 1px !important;
  padding: 0 !important; margin: -1px !important; overflow: hidden !important;
  clip: rect(0 0 0 0) !important; white-space: nowrap !important; border: 0 !important; }
.lfe-page-access { height: 0; overflow: hidden; }
/* A focus ring that can be seen: 2 px in the theme's accent, outside the element. */
.lfe-app :focus-visible, .lfe-app .lfe-grid-table tbody tr:focus,
.lfe-app input:focus, .lfe-app textarea:focus, .lfe-app select:focus {
  outline: 2px solid var(--jp-brand-color1, #1967d2) !important; outline-offset: 1px; }
.lfe-app .lfe-grid-table tbody tr:focus td { background: var(--lfe-selected-bg); }
.lfe-app .lfe-grid-table thead th.lfe-sortable { cursor: pointer; }
/* Tab labels: the inactive ones at full text colour, so they read at 4.5:1 or better;
   each as wide as its words, the strip wrapping onto a second line when narrow. */
.lfe-app .widget-tab > .lm-TabBar .lm-TabBar-tab {
  color: var(--jp-ui-font-color1, #1f2328); flex: 0 0 auto; min-width: max-content; }
.lfe-app .widget-tab > .lm-TabBar .lm-TabBar-content { flex-wrap: wrap; }
.lfe-app .widget-tab > .lm-TabBar { height: auto;
  min-height: var(--jp-private-widget-tab-height, 32px); }
"""


class PageAccess(anywidget.AnyWidget):
    """Keyboard and screen-reader help for the whole page; see the module docstring."""

    _esm = _ESM
    _css = _CSS
    #: What the live region says; set it to announce (a change is read out politely).
    announcement = traitlets.Unicode("").tag(sync=True)
    title = traitlets.Unicode(PAGE_TITLE).tag(sync=True)

    def announce(self, text: str) -> None:
        """Have a screen reader read ``text`` out (once per change of it)."""
        self.announcement = text


def verdict_words(policy: Any, config_error: str = "") -> str:
    """The server's verdict in words, as the live region says it."""
    if policy is None:
        return f"Can't tell whether the server would start: {config_error}".strip()
    if policy.serves:
        return "Would start: the server serves with this configuration."
    return f"Would exit at startup: {policy.exit_message}"
