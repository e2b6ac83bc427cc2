"""What the files of a run may make kschedctl do: the trust boundary of ``kschedctl test`` and
``kschedctl sweep``.

Scenario and sweep files often come from a pull request, so by default they may only make
kschedctl read files inside the scenario root, and their configurations' extenders are not
called: an extender is an HTTP request to any address the CI runner can reach, carrying the
pod and the node list.

The root is the git repository of the working directory (outside one, the working directory
itself), never something derived from the paths given: a committed symlink ``scheduler ->
../..`` named on the command line must not move it. Files are checked where they are opened
(:mod:`kschedctl.inputs.access`), by their real path, whatever walked to them.

``--allow-outside-paths`` and ``--allow-extenders`` / ``--allow-extender-url URL`` lift these
rules for people who trust their files. An allowed URL matches an extender when the scheme,
the host (case-insensitive) and the port (the scheme's default when not written) are the same
and the extender's request paths lie under the URL's path, segment by segment; an extender URL
with user information (``user@host``) or dot segments is never allowed by a URL.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence
from urllib.parse import unquote, urlsplit

from kschedctl.errors import UsageError
from kschedctl.inputs import access

_DEFAULT_PORTS = {"http": 80, "https": 443}
#: The verbs of an extender kschedctl calls (it never binds nor preempts through one).
_CALLED_VERBS = ("filterVerb", "prioritizeVerb")


def scenario_root(cwd: str | None = None) -> str:
    """The git repository holding the working directory (its top, where ``.git`` is), or the
    working directory itself outside a repository."""
    here = os.path.realpath(cwd or os.getcwd())
    probe = here
    while True:
        if os.path.lexists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return here
        probe = parent


@dataclass(frozen=True)
class AllowedURL:
    """One ``--allow-extender-url``: the scheme, host and port an extender must have, and the
    path its requests must lie under."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, text: str) -> "AllowedURL":
        """UsageError unless ``text`` is an ``http(s)://host[:port][/path]`` URL without user information."""
        parts = _url_parts(text)
        if parts is None:
            raise UsageError(f"--allow-extender-url {text}: not an http:// or https:// URL with a host "
                             "(and no user@ part)")
        return cls(*parts)

    def allows(self, url: str) -> bool:
        """True when ``url`` goes to this scheme, host and port, under this path."""
        parts = _url_parts(url)
        if parts is None:
            return False
        scheme, host, port, path = parts
        if (scheme, host, port) != (self.scheme, self.host, self.port):
            return False
        return self.path == "" or path == self.path or path.startswith(self.path + "/")


def _url_parts(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host in lower case, port, path without a trailing slash) of an extender URL as
    the extender client reads it; None for a URL no allow-list entry may match."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or "@" in parts.netloc:
        return None
    path = parts.path.rstrip("/")
    if any(segment in (".", "..") for segment in unquote(path).replace("\\", "/").split("/")):
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[scheme], path


@dataclass(frozen=True)
class TrustPolicy:
    """Which files and extenders a run may use.

    ``roots`` None: any file; ``extender_urls`` None: every extender, () none.
    """

    roots: tuple[str, ...] | None = None
    extender_urls: tuple[AllowedURL, ...] | None = None

    @classmethod
    def for_run(cls, allow_outside_paths: bool = False, allow_extenders: bool = False,
                extender_urls: Sequence[str] = (), cwd: str | None = None) -> "TrustPolicy":
        """The policy of ``kschedctl test`` / ``kschedctl sweep`` run from ``cwd`` (default: the
        working directory) with these flags; UsageError for an ``--allow-extender-url`` that is not a URL."""
        roots = None if allow_outside_paths else (scenario_root(cwd),)
        urls = None if allow_extenders else tuple(AllowedURL.parse(u) for u in extender_urls)
        return cls(roots, urls)

    @contextmanager
    def files(self) -> Iterator[None]:
        """Within the block, every file kschedctl opens is held to this policy's roots."""
        with access.confined(self.roots):
            yield

    def refused_extenders(self, extenders: Iterable[Any]) -> list[str]:
        """The URL prefixes of ``extenders`` (configuration dicts) this policy does not let kschedctl call."""
        if self.extender_urls is None:
            return []
        refused = []
        for ext in extenders:
            ext = ext if isinstance(ext, Mapping) else {}
            prefix = str(ext.get("urlPrefix", ""))
            if not self._allowed(ext, prefix):
                refused.append(prefix)
        return refused

    def _allowed(self, ext: Mapping[str, Any], prefix: str) -> bool:
        urls = self.extender_urls or ()
        # What is checked is every URL the client would POST to (prefix, a slash, the verb),
        # so that a verb cannot climb out of the allowed path.
        targets = [prefix] + [prefix.rstrip("/") + "/" + str(ext[verb]) for verb in _CALLED_VERBS if ext.get(verb)]
        return all(any(allowed.allows(target) for allowed in urls) for target in targets)

    def refusal(self, refused: Sequence[str], command: str) -> str:
        """The message of a configuration whose extenders ``refused`` may not be called."""
        return (f"declares extenders ({', '.join(refused)}): kschedctl {command} does not call them unless "
                "--allow-extenders (or --allow-extender-url URL) is given")


#: No rule: what library callers get unless they ask for one.
TRUST_EVERYTHING = TrustPolicy()
