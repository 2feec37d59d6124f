"""Regenerate knowledge/registry/bundled/*.json: `refresh` each release from its real sdist, copy the registry in.

Run after changing an extractor: python scripts/bundle_registries.py [--from v0.14.0] [--tags v0.32.0 ...]
The releases come from the package index (VLLM_QUANT_MCP_INDEX_URL), cached under the user cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import httpx

from vllm_quant_mcp.knowledge.atomic import atomic_write_text
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.registry.names import INDEX_FILE, names_index
from vllm_quant_mcp.knowledge.registry.refresh import refresh
from vllm_quant_mcp.knowledge.registry.store import default_store
from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag, tag_key

BUNDLED = Path(__file__).resolve().parents[1] / "knowledge" / "registry" / "bundled"


def released_tags(index_url: str) -> list[str]:
    response = httpx.get(
        f"{index_url.rstrip('/')}/vllm/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
        timeout=30,
        follow_redirects=True,
    )
    response.raise_for_status()
    tags = []
    for v in json.loads(response.text)["versions"]:
        try:
            tags.append(normalize_tag(v))
        except InvalidTagError:
            continue
    return sorted(tags, key=tag_key)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="first", default="v0.14.0", help="oldest tag to bundle")
    parser.add_argument("--tags", nargs="*", help="exactly these tags")
    args = parser.parse_args()
    index = os.environ.get("VLLM_QUANT_MCP_INDEX_URL", "https://pypi.org/simple")
    tags = [normalize_tag(t) for t in args.tags] if args.tags else released_tags(index)
    tags = [t for t in tags if args.tags or tag_key(t) >= tag_key(normalize_tag(args.first))]
    store = default_store()
    for tag in tags:
        result = refresh(tag, source="pypi")
        registry = store.load_registry(tag)
        atomic_write_text(BUNDLED / f"{tag}.json", registry.model_dump_json(indent=1) + "\n")
        print(f"{tag}: {result.tree} from {result.source.kind}", file=sys.stderr)
    bundled = [Registry.model_validate_json(p.read_bytes()) for p in sorted(BUNDLED.glob("v*.json"))]
    atomic_write_text(BUNDLED / INDEX_FILE, names_index(bundled))
    print(f"{INDEX_FILE}: the names of {len(bundled)} bundled registries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
