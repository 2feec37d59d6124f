"""KV-cache dtypes: the values `--kv-cache-dtype` accepts at a tag.

The list moved twice: argparse `choices=` in vllm/engine/arg_utils.py (0.4 to
0.8.4), the `CacheDType` Literal in vllm/config.py (0.8.5 to 0.10.0), then in
vllm/config/cache.py. Files are tried newest layout first and only the first
that defines the list is read, so a stale copy elsewhere never wins.
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, matches, span_of, string_items
from vllm_quant_mcp.knowledge.extract.result import Extracted, per_tree
from vllm_quant_mcp.knowledge.registry.model import KvCacheDtype
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["CANDIDATE_PATHS", "extract_kv_cache_dtypes"]

CANDIDATE_PATHS = ("vllm/config/cache.py", "vllm/config.py", "vllm/engine/arg_utils.py")
# A word of every pattern of kv_cache.scm: a match stands over one of them.
_MARKERS = (b"CacheDType", b"--kv-cache-dtype", b"register_kv_cache_dtype")


@per_tree
def extract_kv_cache_dtypes(tree: SourceTree) -> Extracted[list[KvCacheDtype]]:
    for path in CANDIDATE_PATHS:
        # A file naming none cannot hold the list: it is not parsed (vllm/config.py is large).
        span = span_of(tree.source(path), _MARKERS) if tree.exists(path) else None
        if span is None:
            continue
        lists: list[tree_sitter.Node] = []
        register_line: int | None = None
        for captures in matches("kv_cache", tree.parse(path).root_node, span=span):
            if "register" in captures and register_line is None:
                register_line = line(captures["register"][0])
            lists.extend(captures.get("dtypes.literal", []) + captures.get("dtypes.choices", []))
        if not lists:
            continue
        try:
            items = string_items(min(lists, key=lambda node: node.start_byte))
        except NotLiteral as exc:
            return Extracted([], note=f"the KV-cache dtype list in {path} is not literal: {exc}")
        entries = [KvCacheDtype(name=name, provenance=tree.provenance(path, line(node))) for name, node in items]
        note = None
        if register_line is not None:
            note = f"plugins may register more at run time via register_kv_cache_dtype ({path}:{register_line})"
        return Extracted(entries, note=note)
    return Extracted([], note=f"no CacheDType Literal or --kv-cache-dtype choices in {', '.join(CANDIDATE_PATHS)}")
