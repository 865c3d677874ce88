"""``check --json`` checks each path once: the explanation's comparison with the other
way of checking (single or batch) uses one batch for the whole run and asks the other
way's resolution, not a second full check, unless the two resolve differently."""

from __future__ import annotations

import json

from localfs_explorer.cli.main import main
from localfs_explorer.servers.gee_sweet.check import batch as batch_module
from localfs_explorer.servers.gee_sweet.check import verdict as verdict_module


def _count(monkeypatch):
    calls = {"checks": 0, "batches": 0}
    real_check = verdict_module._check
    real_init = batch_module.BatchChecker.__init__

    def counted_check(*args, **kwargs):
        calls["checks"] += 1
        return real_check(*args, **kwargs)

    def counted_init(self, *args, **kwargs):
        calls["batches"] += 1
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(verdict_module, "_check", counted_check)
    monkeypatch.setattr(batch_module.BatchChecker, "__init__", counted_init)
    return calls


def _run(args, capsys):
    code = main(["check", "--set", "LOCAL_FILE_ACCESS=full", "--json", *args])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_each_path_is_checked_once_with_one_batch_for_the_run(layout, monkeypatch,
                                                             capsys) -> None:
    paths = [str(layout.data / f"f{i}.csv") for i in range(5)]
    calls = _count(monkeypatch)
    code, rows = _run(paths, capsys)
    assert code == 0 and len(rows) == 5 and all(r["trace"] for r in rows)
    assert calls == {"checks": 5, "batches": 1}
    calls.update(checks=0, batches=0)
    code, rows = _run(["--batch", *paths], capsys)
    assert code == 0 and len(rows) == 5
    assert calls == {"checks": 0, "batches": 1}


def test_where_the_two_ways_differ_the_json_still_says_so(layout, monkeypatch,
                                                         capsys) -> None:
    loop = layout.data / "loop"
    loop.symlink_to(loop)
    calls = _count(monkeypatch)
    _code, rows = _run([f"{loop}//x", str(layout.data / "report.csv")], capsys)
    notes = [[s for s in r["trace"] if s["step"] == "single-vs-batch"] for r in rows]
    assert notes[0] and f"{loop}/x" in notes[0][0]["detail"] and not notes[1]
    assert calls["batches"] == 1
