"""The cache inventory and its removal: sizes per tag, bundled vs refreshed, prune by tag or age, clear only ours."""

from __future__ import annotations

import os
from pathlib import Path

from support.paths import REPO

from vllm_quant_mcp.knowledge.registry.inventory import clear, inventory, prune, tag_origins
from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD, Store

DAY = 86_400.0
NOW = 2_000_000_000.0


def refreshed(root: Path, tag: str, age_days: float, tree_bytes: int = 5_000) -> None:
    """What `refresh` leaves for a tag (registry, tree, saved index, kept sdist), written `age_days` before NOW."""
    bundled = REPO / "knowledge/registry/bundled/v0.32.0.json"
    files = {
        root / "registries" / f"{tag}.json": bundled.read_bytes().replace(b'"v0.32.0"', f'"{tag}"'.encode()),
        root / "trees" / tag / SOURCE_RECORD: b'{"kind": "dir", "origin": "/src"}',
        root / "trees" / tag / "vllm" / "__init__.py": b"x" * tree_bytes,
        root / "index" / f"{tag}-v1.sqlite": b"i" * 300,
        root / "sdists" / f"vllm-{tag[1:]}.tar.gz": b"s" * 700,
        root / "locks" / f"{tag}.lock": b"",
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (NOW - age_days * DAY, NOW - age_days * DAY))


def shared(root: Path) -> None:
    for path in (root / "git" / "vllm.git" / "HEAD", root / "hub" / "cache.db", root / "notes-of-the-user.txt"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"z" * 100)


def test_the_inventory_sizes_each_tag_by_part_and_marks_bundled_and_refreshed(tmp_path: Path) -> None:
    refreshed(tmp_path, "v0.32.0", age_days=1)
    refreshed(tmp_path, "v0.99.0", age_days=1)
    shared(tmp_path)
    found = {t.tag: t for t in inventory(Store(tmp_path)).tags}
    assert (found["v0.32.0"].bundled, found["v0.32.0"].refreshed, found["v0.32.0"].tree) == (True, True, True)
    assert (found["v0.99.0"].bundled, found["v0.99.0"].refreshed) == (False, True)
    assert (found["v0.31.0"].bundled, found["v0.31.0"].refreshed, found["v0.31.0"].bytes) == (True, False, 0)
    parts = found["v0.99.0"].parts
    assert (parts["index"], parts["archive"]) == (300, 700) and parts["tree"] > 5_000
    assert found["v0.99.0"].bytes == sum(parts.values())
    assert found["v0.99.0"].refreshed_at == NOW - DAY
    assert inventory(Store(tmp_path)).shared == {"git": 100, "hub": 100}


def test_prune_by_age_removes_only_tags_refreshed_before_the_cutoff(tmp_path: Path) -> None:
    refreshed(tmp_path, "v0.31.0", age_days=40)
    refreshed(tmp_path, "v0.99.0", age_days=2)
    store = Store(tmp_path)
    done = prune(store, older_than_s=30 * DAY, now=NOW)
    assert done.removed == ["v0.31.0"] and done.kept_bundled == ["v0.31.0"] and done.freed_bytes > 6_000
    assert not (tmp_path / "trees" / "v0.31.0").exists() and not store.registry_path("v0.31.0").exists()
    assert (tmp_path / "trees" / "v0.99.0").exists()
    assert "v0.31.0" in store.known_tags()  # its bundled registry still answers
    assert store.load_registry("v0.31.0").tag == "v0.31.0"


def test_prune_by_tag_leaves_a_refreshed_only_tag_unknown(tmp_path: Path) -> None:
    refreshed(tmp_path, "v0.99.0", age_days=0)
    store = Store(tmp_path)
    assert prune(store, tags=["0.99.0"]).removed == ["v0.99.0"]
    assert "v0.99.0" not in store.known_tags()
    assert prune(store, tags=["v0.99.0"]).removed == []


def test_clear_removes_the_folders_this_package_owns_and_nothing_else(tmp_path: Path) -> None:
    refreshed(tmp_path, "v0.99.0", age_days=0)
    shared(tmp_path)
    done = clear(Store(tmp_path))
    assert set(done.removed) == {"registries", "trees", "index", "locks", "sdists", "git", "hub"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes-of-the-user.txt"]


def test_tag_origins_are_cheap_and_match_the_inventory(tmp_path: Path) -> None:
    refreshed(tmp_path, "v0.32.0", age_days=0)
    origins = {o.tag: o for o in tag_origins(Store(tmp_path))}
    assert origins["v0.32.0"].refreshed and origins["v0.32.0"].tree and not origins["v0.30.0"].refreshed
