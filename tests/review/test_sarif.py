"""SARIF and JUnit outputs for CI: findings land on the .env line that causes them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from conftest import run_cli as _run


def _results(path) -> list[dict]:
    data = json.loads(path.read_text())
    assert data["version"] == "2.1.0" and len(data["runs"]) == 1
    run = data["runs"][0]
    assert run["tool"]["driver"]["name"] == "localfs-explorer"
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in run["results"]} <= ids
    return run["results"]


def _line(result: dict) -> tuple[str, int | None]:
    physical = result["locations"][0]["physicalLocation"]
    return physical["artifactLocation"]["uri"], physical.get("region", {}).get("startLine")


def test_validate_sarif_points_at_the_setting_line(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = tmp_path / "deploy.env"
    env.write_text("# deploy\nGEE_SECRET_TOKEN=s3cr3t-value\nLOCAL_FILE_ACCESS=roots\n\n"
                   f"LOCAL_FILE_ROOTS={tmp_path / 'missing'}\n")
    code, _, _ = _run("validate", "--env", str(env), "--sarif", "out.sarif")
    assert code == 2
    results = _results(tmp_path / "out.sarif")
    errors = [r for r in results if r["level"] == "error"]
    assert len(errors) == 1 and "isn't an existing directory" in errors[0]["message"]["text"]
    assert _line(errors[0]) == ("deploy.env", 5)
    assert "s3cr3t" not in (tmp_path / "out.sarif").read_text()


def test_validate_sarif_of_a_good_configuration_is_empty(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=off\n")
    code, _, _ = _run("validate", "--env", str(env), "--sarif", str(tmp_path / "v.sarif"))
    assert code == 0 and _results(tmp_path / "v.sarif") == []


def test_validate_sarif_for_a_setting_from_the_command_line_has_no_line(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS=/somewhere\n")
    code, _, _ = _run("validate", "--env", str(env), "--set",
                      f"LOCAL_FILE_ROOTS={tmp_path / 'nope'}", "--sarif", str(tmp_path / "v"))
    results = [r for r in _results(tmp_path / "v") if r["level"] == "error"]
    assert code == 2 and len(results) == 1
    # The failing value came from --set, not from line 2 of the file.
    assert _line(results[0])[1] is None


def test_diff_sarif_and_junit_report_new_access_on_the_after_env(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "before.env").write_text("LOCAL_FILE_ACCESS=off\n")
    (tmp_path / "after.env").write_text("# opened up\nLOCAL_FILE_ACCESS=full\n")
    code, _, err = _run("diff", "--before-env", "before.env", "--after-env", "after.env",
                        "--path", str(tmp_path / "data.csv"), "--no-generated",
                        "--sarif", "diff.sarif", "--junit-xml", "diff.xml")
    assert code == 1 and "grants new access" in err
    results = _results(tmp_path / "diff.sarif")
    assert results and all(r["ruleId"] == "new-access" for r in results)
    assert {_line(r) for r in results} == {("after.env", 2)}
    assert any("data.csv" in r["message"]["text"] for r in results)
    suite = ET.parse(tmp_path / "diff.xml").getroot().find("testsuite")
    assert suite is not None and int(suite.get("failures")) == len(results)
    assert len(suite.findall("testcase/failure")) == len(results)


def test_diff_junit_with_allowed_new_access_passes(tmp_path) -> None:
    (tmp_path / "before.env").write_text("LOCAL_FILE_ACCESS=off\n")
    (tmp_path / "after.env").write_text("LOCAL_FILE_ACCESS=full\n")
    code, _, _ = _run("diff", "--before-env", str(tmp_path / "before.env"),
                      "--after-env", str(tmp_path / "after.env"), "--path", "/srv/x",
                      "--no-generated", "--allow-new-access",
                      "--junit-xml", str(tmp_path / "d.xml"))
    suite = ET.parse(tmp_path / "d.xml").getroot().find("testsuite")
    assert code == 0 and suite.get("failures") == "0" and int(suite.get("tests")) >= 1


def test_key_lines_skip_blank_lines_comments_and_multiline_values(tmp_path) -> None:
    from localfs_explorer.review.sarif import key_lines

    env = tmp_path / ".env"
    env.write_text('\n\n# c\nA=1\n\n\n  B=2\nC="multi\nline"\n\nD=4\nA=again\n')
    assert key_lines(env) == {"A": 12, "B": 7, "C": 8, "D": 11}
