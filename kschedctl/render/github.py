"""GitHub workflow commands (``-o github``): the escaping of their data and properties.

The runner reads ``%0A``/``%0D`` as the message's own line breaks, so a message from the inputs
never ends the command line; every other control character (ESC, NEL, ...) is written as a
visible escape first (``kschedctl.printable``), so that none reaches the log or a terminal.
"""

from __future__ import annotations

from kschedctl.printable import printable


def escape_data(text: str) -> str:
    """The message part of a workflow command."""
    return printable(text, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (``file=``, ``title=``) of a workflow command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
