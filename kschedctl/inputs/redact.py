"""Credentials never reach a message: the redactor knows the tokens, passwords and keys of the
kubeconfig in use and replaces them in every text the live reader produces; server addresses are
shown without user information."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

class _Redactor:
    """Replaces every known secret (token, password, key) in a text by ``[redacted]``."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()

    def add(self, value: Any) -> None:
        if isinstance(value, str):
            value = value.strip()
            if len(value) >= 6:
                self._secrets.add(value)
                # "Bearer <token>": the token alone too.
                head, _, tail = value.partition(" ")
                if tail and head.lower() in ("bearer", "basic") and len(tail) >= 6:
                    self._secrets.add(tail.strip())

    def add_tree(self, value: Any) -> None:
        """Every string inside ``value`` (a kubeconfig's users section, say)."""
        if isinstance(value, dict):
            for v in value.values():
                self.add_tree(v)
        elif isinstance(value, list):
            for v in value:
                self.add_tree(v)
        else:
            self.add(value)

    def __call__(self, text: str) -> str:
        # Longest first, so a token is not half-replaced by a secret it contains.
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, "[redacted]")
        return text


def _safe_url(url: str) -> str:
    """``url`` without user information, query or fragment (those may carry credentials)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
