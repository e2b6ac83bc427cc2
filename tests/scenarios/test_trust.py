"""The trust policy of ``kschedctl test`` and ``sweep``: the root found from the working
directory, and the extender allow-list (scheme, host, port, then a path under the allowed one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kschedctl.errors import UsageError
from kschedctl.scenarios.trust import AllowedURL, TrustPolicy, scenario_root

# (allowed URL, extender urlPrefix, allowed?)
ALLOW_LIST = [
    ("http://trusted.example", "http://trusted.example", True),
    ("http://trusted.example", "http://trusted.example/", True),
    ("http://trusted.example", "http://trusted.example/scheduler", True),
    ("http://trusted.example", "http://TRUSTED.Example:80/scheduler", True),
    ("http://trusted.example/", "http://trusted.example/scheduler", True),
    ("http://trusted.example", "http://trusted.example@127.0.0.1:18777/pwn", False),
    ("http://trusted.example", "http://trusted.example.evil.com/", False),
    ("http://trusted.example", "http://trusted.example:8080/", False),
    ("http://trusted.example", "https://trusted.example/", False),
    ("http://trusted.example", "http://user:password@trusted.example/", False),
    ("http://trusted.example", "http://trusted.example:notaport/", False),
    ("https://trusted.example", "https://trusted.example:443/x", True),
    ("https://trusted.example:8443", "https://trusted.example/x", False),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler", True),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler/", True),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler/v1", True),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler-evil", False),
    ("https://trusted.example/scheduler", "https://trusted.example/", False),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler/../admin", False),
    ("https://trusted.example/scheduler", "https://trusted.example/scheduler/%2e%2e/admin", False),
    ("http://[::1]:8080", "http://[::1]:8080/x", True),
    ("http://[::1]:8080", "http://[::2]:8080/x", False),
]


@pytest.mark.parametrize("allowed,url,expected", ALLOW_LIST, ids=[f"{a} {u}" for a, u, _ in ALLOW_LIST])
def test_allow_list_compares_scheme_host_port_and_path(allowed: str, url: str, expected: bool) -> None:
    policy = TrustPolicy.for_run(extender_urls=[allowed], cwd=".")
    assert (policy.refused_extenders([{"urlPrefix": url, "filterVerb": "filter"}]) == []) is expected


def test_a_verb_cannot_climb_out_of_the_allowed_path() -> None:
    policy = TrustPolicy.for_run(extender_urls=["https://trusted.example/scheduler"], cwd=".")
    base = {"urlPrefix": "https://trusted.example/scheduler"}
    assert policy.refused_extenders([{**base, "filterVerb": "filter", "prioritizeVerb": "prioritize"}]) == []
    for verb in ("../admin", "%2E%2E/admin", "x/../../admin"):
        assert policy.refused_extenders([{**base, "prioritizeVerb": verb}]) == [base["urlPrefix"]], verb


@pytest.mark.parametrize("text", ["trusted.example", "ftp://trusted.example", "http://", "http://u@trusted.example",
                                  "http://trusted.example:99999", "https://trusted.example/a/../b"])
def test_an_allowed_url_must_be_an_http_url_without_userinfo(text: str) -> None:
    with pytest.raises(UsageError, match="not an http:// or https:// URL"):
        AllowedURL.parse(text)


def test_no_flags_no_extenders_and_allow_extenders_all() -> None:
    ext = [{"urlPrefix": "http://127.0.0.1:1/x", "filterVerb": "f"}]
    assert TrustPolicy.for_run(cwd=".").refused_extenders(ext) == ["http://127.0.0.1:1/x"]
    assert TrustPolicy.for_run(allow_extenders=True, cwd=".").refused_extenders(ext) == []


def test_the_root_is_the_repository_of_the_working_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a" / "b").mkdir(parents=True)
    assert scenario_root(str(repo / "a" / "b")) == str(repo.resolve())
    (tmp_path / "plain").mkdir()
    assert scenario_root(str(tmp_path / "plain")) == str((tmp_path / "plain").resolve())
    # A worktree or submodule has a .git file, not a directory.
    (tmp_path / "worktree").mkdir()
    (tmp_path / "worktree" / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")
    assert scenario_root(str(tmp_path / "worktree")) == str((tmp_path / "worktree").resolve())
    os.symlink(tmp_path / "plain", repo / "a" / "link")
    # A working directory reached through a link is where the link leads.
    assert scenario_root(str(repo / "a" / "link")) == str((tmp_path / "plain").resolve())
