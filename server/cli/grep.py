"""`vllm-quant-mcp grep` without the generated CLI's start-up, for the common case: a refreshed tag, plain output.

The generated CLI builds every tool's parser and imports pydantic, the MCP SDK and the
store before it looks at the arguments: about half a second, ten times what an `rg` run
takes. This path reads the arguments itself, opens the tag's pack (sources/pack.py) and runs
the same search as the tool, importing neither; the output is `render` of the tool's result,
line for line as the generated CLI prints it, flags spelled for the shell (a test holds both
to it). Anything else, an unusual flag, `--json`, a tag given by no flag or environment
variable, a tag not refreshed, any error, returns None and the generated CLI answers
instead, with its own messages.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["grep"]

_FLAGS = {"-F": "fixed_string", "--fixed-string": "fixed_string", "-i": "ignore_case", "--ignore-case": "ignore_case"}
_VALUES = {"--tag": "tag", "--path-glob": "path_glob", "-C": "context", "--context": "context"}
_VALUES["--max-results"] = "max_results"
_MAX_LINE_CHARS = 1000  # sources/tree.py's clip_line, which the tool applies
_REPOSITORY_URL = "https://github.com/vllm-project/vllm"  # sources/tree.py's, behind every permalink


def _parse(argv: Sequence[str]) -> dict[str, object] | None:
    given: dict[str, object] = {"fixed_string": False, "ignore_case": False, "context": "0", "max_results": "100"}
    args = list(argv)
    positional: list[str] = []
    while args:
        arg = args.pop(0)
        if arg in _FLAGS:
            given[_FLAGS[arg]] = True
        elif arg in _VALUES and args:
            given[_VALUES[arg]] = args.pop(0)
        elif arg == "--":
            positional += args
            args = []
        elif arg.startswith("-") and arg != "-":
            return None  # --json, --help, --flag=value, anything new: the generated CLI's business
        else:
            positional.append(arg)
    if len(positional) != 1:
        return None
    given["pattern"] = positional[0]
    return given


def _valid(q: dict[str, object]) -> bool:
    """The query model's bounds (tools/grep_vllm_source/models.py), checked without loading it; out of bounds
    means the generated CLI reports the error."""
    pattern, glob = str(q["pattern"]), q.get("path_glob")
    context, limit = str(q["context"]), str(q["max_results"])
    if not (context.isdigit() and limit.isdigit() and int(context) <= 10 and 1 <= int(limit) <= 500):
        return False
    if not 1 <= len(pattern) <= 1000 or "\x00" in pattern or "\n" in pattern or "\\n" in pattern:
        return False
    return glob is None or len(str(glob)) <= 300


def _clip(line: str) -> str:
    if len(line) <= _MAX_LINE_CHARS:
        return line
    return f"{line[:_MAX_LINE_CHARS]}… [line continues for {len(line) - _MAX_LINE_CHARS} more characters]"


def _count(shown: int, total: int, counted_all: bool) -> str:
    """tools/paging.py's more_line for a first page without a cursor (this path prints no cursor: --max-results)."""
    if not shown:
        return "no matching lines"
    if shown == total:
        return f"{total} matching lines, all on this page"
    return f"{shown} of {'' if counted_all else 'at least '}{total} matching lines on this page"


def grep(argv: Sequence[str]) -> int | None:
    """Answer `grep ARGS` and return the exit status, or None to leave it to the generated CLI."""
    query = _parse(argv)
    if query is None or not _valid(query):
        return None
    from vllm_quant_mcp.knowledge.errors import VllmQuantMcpError
    from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag

    try:
        tag = normalize_tag(str(query.get("tag") or os.environ.get("VLLM_QUANT_MCP_TAG") or ""))
    except InvalidTagError:
        return None
    cache = os.environ.get("VLLM_QUANT_MCP_CACHE_DIR")
    if not cache:
        import platformdirs

        cache = platformdirs.user_cache_dir("vllm-quant-mcp")
    folder = Path(cache).expanduser() / "trees" / tag
    from vllm_quant_mcp.knowledge.sources.pack import INDEX_NAME, open_pack

    if not (folder / INDEX_NAME).is_file():
        return None
    from vllm_quant_mcp.knowledge.search.grep import search
    from vllm_quant_mcp.knowledge.search.index import SearchIndex
    from vllm_quant_mcp.knowledge.search.lines import surrounding_lines

    try:
        index = SearchIndex(open_pack(folder))
        keep = int(str(query["max_results"]))
        found = search(
            index,
            str(query["pattern"]),
            fixed_string=bool(query["fixed_string"]),
            ignore_case=bool(query["ignore_case"]),
            path_glob=None if query.get("path_glob") is None else str(query["path_glob"]),
            keep=keep,
        )
    except VllmQuantMcpError:
        return None
    out: list[str] = []
    blob = index.pack.blob
    for hit in found.hits:
        path = index.paths[hit.file_id]
        before, after = surrounding_lines(index, hit, int(str(query["context"])))
        out += [f"{path}-{hit.line - len(before) + i}-{_clip(b)}" for i, b in enumerate(before)]
        out.append(f"{path}:{hit.line}:{_clip(blob[hit.start : hit.end].decode('utf-8', 'replace'))}")
        out += [f"{path}-{hit.line + 1 + i}-{_clip(a)}" for i, a in enumerate(after)]
    if found.hits:
        out.append(f"permalink of path:line = {_REPOSITORY_URL}/blob/{tag}/<path>#L<line>")
    out.append(
        f"[{tag}] {found.files_searched} files searched; {_count(len(found.hits), found.total, found.counted_all)}"
    )
    if found.total > len(found.hits):
        out.append(
            f"showing {len(found.hits)} of {found.total} matching lines; narrow with --path-glob "
            "(e.g. 'vllm/model_executor/layers/quantization/**'), a more specific pattern, "
            "or raise --max-results (<= 500)."
        )
    sys.stdout.write("\n".join(out) + "\n")
    return 0
