"""Path globs with ripgrep's `-g` meaning, so a filtered search agrees with `rg -g`.

`*` and `?` stay inside one path segment, `**` crosses segments, a glob without `/`
matches a file name at any depth (`*.py`), a glob matching a directory selects all
files below it (`vllm/config`), and a leading `!` excludes instead of selects.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["compile_glob"]


def compile_glob(glob: str) -> Callable[[str], bool]:
    """A predicate over repository-relative POSIX paths."""
    negate = glob.startswith("!")
    body = glob[1:] if negate else glob
    anchored = "/" in body.rstrip("/")
    body = body.strip("/")
    regex = re.compile(("" if anchored else "(?:.*/)?") + _translate(body) + r"\Z", re.DOTALL)

    def matches(path: str) -> bool:
        parts = path.split("/")
        hit = any(regex.match("/".join(parts[:n])) for n in range(1, len(parts) + 1))
        return hit != negate

    return matches


def _translate(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (end := glob.find("]", i + 2)) != -1:
            inner = glob[i + 1 : end]
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)
