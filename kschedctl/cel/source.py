"""Source positions and compile error texts (cel-go common.Errors.ToDisplayString)."""

from __future__ import annotations

class _Source:
    def __init__(self, text: str) -> None:
        # cel-go normalizes nothing here, but counts columns in code points per line
        self.text = text
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.line_starts.append(i + 1)

    def location(self, offset: int) -> tuple[int, int]:
        """(line, 0-based column) of a code point offset; (-1, -1) for no location."""
        if offset < 0:
            return -1, -1
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo]

    def snippet(self, line: int) -> str | None:
        if line < 1 or line > len(self.line_starts):
            return None
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end]


class _Errors:
    """Collected compile errors, displayed as cel-go displays them."""

    def __init__(self, src: _Source) -> None:
        self.src = src
        self.items: list[tuple[int, int, int, str]] = []  # (line, col, seq, message)

    def add(self, offset: int, message: str) -> None:
        line, col = self.src.location(offset)
        self.items.append((line, col, len(self.items), message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def display(self) -> str:
        out = []
        for line, col, _, msg in sorted(self.items)[:100]:
            text = f"ERROR: <input>:{line}:{col + 1}: {msg}"
            snippet = self.src.snippet(line)
            if snippet is not None and len(snippet.encode("utf-8")) <= 16384:
                snippet = snippet.replace("\t", " ")
                marks = "".join("\uff0e" if ord(ch) > 0x7F else "." for ch in snippet[:col])
                at = snippet[col:col + 1]
                marks += "\uff3e" if at and ord(at) > 0x7F else "^"
                text += "\n | " + snippet + "\n | " + marks
            out.append(text)
        if len(self.items) > 100:
            out.append(f"{len(self.items) - 100} more errors were truncated")
        return "\n".join(out)
