"""Which parts of API objects are shared between pods and never change.

``kschedctl.inputs.sharing`` gives the pods of one template one copy of each part they share (a
containers list, an affinity, ...) and notes those parts here. Nothing changes such a part in
place (tests check that after every test), so what is computed from one may be remembered by the
part's identity rather than by a text made of its contents, which costs as much as the
computation for small parts.
"""

from __future__ import annotations

from typing import Any

__all__ = ["note_shared", "is_shared", "forget_shared"]

#: The parts the latest cluster read shares, by id. Held here, so no other object can take one
#: of these ids while it is listed.
_SHARED: dict[int, Any] = {}


def note_shared(part: Any) -> None:
    """``part`` is shared between pods from now on."""
    _SHARED[id(part)] = part


def is_shared(part: Any) -> bool:
    """Whether ``part`` is one the latest cluster read shares between its pods."""
    return _SHARED.get(id(part)) is part


def forget_shared() -> None:
    """A new cluster is read: the parts of earlier ones stay unchanged, but are no longer held."""
    _SHARED.clear()
