"""`vllm-quant-mcp cache list|prune|clear`: see and free what refreshed tags cost on disk.

The inventory and the removal are knowledge/registry/inventory.py; this is their shell
form. A bundled tag stays answerable after a prune (its registry ships in the package);
a pruned refreshed-only tag needs `refresh` again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

__all__ = ["add_cache"]

SCHEMA_VERSION = 1
_DAY = 86_400.0


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def add_cache(sub: argparse._SubParsersAction[Any]) -> None:
    cache = sub.add_parser(
        "cache",
        help="list, prune or clear the cache of refreshed tags",
        description="The user cache: refreshed registries, source trees, search indexes, downloads, HTTP caches.",
    )
    verbs = cache.add_subparsers(dest="verb", required=True, metavar="VERB")
    where = verbs.add_parser("dir", help="print the cache folder (VLLM_QUANT_MCP_CACHE_DIR moves it)")
    where.set_defaults(run=_dir, parser=where)
    listing = verbs.add_parser("list", help="tags with files in the cache and their sizes, bundled vs refreshed")
    listing.add_argument("--json", action="store_true", help="print the inventory as JSON")
    listing.set_defaults(run=_list, parser=listing)
    prune = verbs.add_parser("prune", help="remove what the cache holds for some tags (by age or by name)")
    prune.add_argument(
        "--older-than",
        type=float,
        metavar="DAYS",
        help="remove tags refreshed more than DAYS days ago",
    )
    prune.add_argument("--tag", action="append", default=[], help="remove this tag (repeatable), e.g. v0.30.0")
    prune.add_argument("--json", action="store_true", help="print what was removed as JSON")
    prune.set_defaults(run=_prune, parser=prune)
    clear = verbs.add_parser("clear", help="remove everything this tool keeps in the cache (bundled tags still answer)")
    clear.add_argument("--json", action="store_true", help="print what was removed as JSON")
    clear.set_defaults(run=_clear, parser=clear)
    cache.set_defaults(parser=cache)


def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps({"schema_version": SCHEMA_VERSION, **data}, indent=2, ensure_ascii=False))


def _list(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.registry.inventory import inventory
    from vllm_quant_mcp.knowledge.registry.store import default_store

    found = inventory(default_store())
    if args.json:
        _print_json(found.model_dump(mode="json"))
        return 0
    lines = [f"{found.root}: {_mb(found.bytes)}"]
    on_disk = [t for t in found.tags if t.bytes]
    for t in on_disk:
        origin = " + ".join(n for n, on in (("bundled", t.bundled), ("refreshed", t.refreshed)) if on) or "files only"
        parts = ", ".join(f"{part} {_mb(size)}" for part, size in sorted(t.parts.items()) if size)
        when = f", refreshed {time.strftime('%Y-%m-%d', time.localtime(t.refreshed_at))}" if t.refreshed_at else ""
        size = f"  {_mb(t.bytes)} ({parts}{when})" if t.bytes else ""
        lines.append(f"  {t.tag:<12} {origin}{size}")
    lines += [
        f"  {t.tag}: a fetch was interrupted; `vllm-quant-mcp cache prune --tag {t.tag}` removes what it left"
        for t in on_disk
        if t.parts.get("interrupted")
    ]
    lines += [f"  shared {folder}: {_mb(size)}" for folder, size in sorted(found.shared.items())]
    bundled_only = sum(1 for t in found.tags if t.bundled and not t.bytes)
    if not on_disk:
        lines.append("  no tag has files here yet")
    if bundled_only:
        lines.append(f"  {bundled_only} more bundled tags answer with no files here (`vllm-quant-mcp tags` lists them)")
    print("\n".join(lines))
    return 0


def _dir(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.registry.store import default_store

    print(default_store().root)
    return 0


def _prune(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.registry.inventory import prune
    from vllm_quant_mcp.knowledge.registry.store import default_store

    if args.older_than is None and not args.tag:
        args.parser.error("say what to remove: --older-than DAYS, --tag TAG, or both (`cache clear` removes all)")
    if args.older_than is not None and args.older_than < 0:
        args.parser.error(f"--older-than {args.older_than:g}: give a number of days, 0 or more")
    done = prune(
        default_store(),
        tags=args.tag,
        older_than_s=None if args.older_than is None else args.older_than * _DAY,
    )
    if args.json:
        _print_json(done.model_dump(mode="json"))
        return 0
    if not done.removed and not done.kept:
        print("nothing to remove")
        return 0
    if done.removed:
        print(f"removed {', '.join(done.removed)}: {_mb(done.freed_bytes)} freed")
    if done.kept_bundled:
        print(f"still answered from the bundled registries: {', '.join(done.kept_bundled)}")
    return _report_kept(done.kept)


def _clear(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.registry.inventory import clear
    from vllm_quant_mcp.knowledge.registry.store import default_store

    done = clear(default_store())
    if args.json:
        _print_json(done.model_dump(mode="json"))
        return 0
    print(f"removed {', '.join(done.removed) or 'nothing'}: {_mb(done.freed_bytes)} freed; bundled tags still answer")
    return _report_kept(done.kept)


def _report_kept(kept: list[str]) -> int:
    """Part of the cache could not be removed: say which, and fail, so a script does not count it as freed."""
    if not kept:
        return 0
    print(f"could not remove all of {', '.join(kept)} (permissions); `cache list` shows what is left", file=sys.stderr)
    return 1
