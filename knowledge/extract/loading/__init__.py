"""Load resolution: what `vllm serve` does with a checkpoint and a `--quantization` value, per tag.

A client of the engine beside attention/ and cli_flags/. For every `--quantization` value the
tag knows, `get_quant_config` is walked (walk.py) on a checkpoint without a quantization config,
with and (for the online names) without a `--quantization-config`; what the walk needs from the
method is its config class (from the quantization registry), `get_config_filenames()` and the
constructor. Beside it: the packages a method's module asks the user to install, the mismatch
raise of `ModelConfig._verify_quantization` and its override list, and what
`--quantization-config` is checked against (config_args.py). The judgement over these, for one
checkpoint and one command, is knowledge/support/loading.py: this package only reads the tree.
"""

from __future__ import annotations

import re

from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.engine.partial import roots_around
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, definition, line, literal, text
from vllm_quant_mcp.knowledge.extract.loading.config_args import (
    CONFIG,
    extract_attention_args,
    extract_online_args,
    find_raise,
)
from vllm_quant_mcp.knowledge.extract.loading.replay import replay_from_config
from vllm_quant_mcp.knowledge.extract.loading.walk import LOADER, Input, Walk, config_filenames
from vllm_quant_mcp.knowledge.extract.online import extract_online_quantization
from vllm_quant_mcp.knowledge.extract.quantization import extract_quantization_methods
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.loading import ConfigReplay, LoadPath, LoadResolution, PackageNeed
from vllm_quant_mcp.knowledge.sources.tree import Provenance, SourceTree

__all__ = ["extract_load_resolution"]

_MODEL_CONFIGS = ("vllm/config/model.py", "vllm/config.py")
# The word `overrides`, its start checked after the match: a regex opening with \b scans eight times as slowly.
_OVERRIDES = re.compile(rb"overrides\b(?<!\woverrides)")
# A requirement as pip takes it: a name (or a git+https URL) and an optional version bound.
# _verify_quantization hands the probes the model's config (0.2x on): `getattr(hf_config, "model_type")` reads it.
_HF_CONFIG_PASSED = re.compile(rb"override_quantization_method\(\s*quant_cfg,\s*self\.quantization,\s*hf_config=")
_PIP = re.compile(r"pip install ([A-Za-z0-9_.\-\[\]+:/@]+(?:[<>=!~]=?[A-Za-z0-9_.{}]+)?)")


def extract_load_resolution(tree: SourceTree) -> Extracted[LoadResolution]:
    modules = Modules(tree)
    loader = modules.index(LOADER) if tree.exists(LOADER) else None
    function = loader.functions.get("get_quant_config") if loader is not None else None
    if function is None:
        return Extracted(LoadResolution(), note=f"no get_quant_config in {LOADER} at this tag")
    shorthands = frozenset(
        e.name for e in extract_online_quantization(tree).entries if e.kind == "shorthand" and e.name != "online"
    )
    online_names = shorthands | ({"online"} if shorthands else set())
    deferred = _deferred(tree, modules)
    online = extract_online_args(tree, modules)
    # A config beside a method that is not an online name: refused by resolve_quantization_config until
    # 0.32, composed with the checkpoint's method from then on.
    composes = online is not None and online.config_needs_online is None
    model_config = next((p for p in _MODEL_CONFIGS if tree.exists(p)), None)
    passes_hf_config = model_config is not None and _HF_CONFIG_PASSED.search(tree.read_bytes(model_config)) is not None
    paths: list[LoadPath] = []
    replays: dict[tuple[str, str], ConfigReplay | None] = {}
    for method in extract_quantization_methods(tree).entries:
        cls = (
            modules.find_class(method.config_class, method.config_path)
            if method.config_class and method.config_path
            else None
        )

        if cls is not None and (cls.path, cls.name) not in replays:
            replays[(cls.path, cls.name)] = replay_from_config(tree, modules, cls, passes_hf_config)
        # resolve_quantization_config gives a shorthand its args, except those it defers to the loader.
        on_its_own = method.name in shorthands and method.name not in deferred
        paths.append(
            LoadPath(
                name=method.name,
                provenance=method.provenance,
                config_class=method.config_class,
                config_files=config_filenames(modules, cls) if cls is not None else None,
                unquantized=Walk(tree, modules, function, Input(method.name, cls, shorthands, on_its_own)).run(),
                unquantized_with_config=Walk(tree, modules, function, Input(method.name, cls, shorthands, True)).run()
                if method.name in online_names or composes
                else None,
                needs=_needs(tree, method.config_path, method.config_class) if method.config_path else [],
                from_config=replays[(cls.path, cls.name)] if cls is not None else None,
            )
        )
    overrides, overrides_at = _overrides(tree)
    resolution = LoadResolution(
        paths=paths,
        mismatch=find_raise(tree, model_config, "does not match the quantization") if model_config else None,
        overrides=overrides,
        overrides_provenance=overrides_at,
        online=online,
        attention=extract_attention_args(tree, modules),
    )
    return Extracted(resolution)


def _deferred(tree: SourceTree, modules: Modules) -> frozenset[str]:
    """`_DEFERRED_ONLINE_SHORTHANDS`: online names resolve_quantization_config leaves to the loader (0.32 on)."""
    index = modules.index(CONFIG) if tree.exists(CONFIG) else None
    node = index.assignment("_DEFERRED_ONLINE_SHORTHANDS") if index is not None else None
    if node is None:
        return frozenset()
    return frozenset(s for s in re.findall(r"\"([^\"]+)\"", text(node)))


def _needs(tree: SourceTree, path: str, config_class: str | None) -> list[PackageNeed]:
    """`pip install X>=V` as the method's own module words it, on its way: in the config class, or in a
    module-level function the module calls (a `{min_version}` read from its assignment)."""
    data = tree.read_bytes(path)
    if b"pip install" not in data or config_class is None:
        return []
    source = data.decode("utf-8", errors="replace")
    spans = _config_spans(tree, path, config_class)
    found: dict[str, PackageNeed] = {}
    for match in _PIP.finditer(source):
        offset = len(source[: match.start()].encode())
        if not any(start <= offset < end for start, end in spans):
            continue
        requirement = match.group(1).rstrip(".`'\"")
        for name in re.findall(r"\{(\w+)\}", requirement):
            values = _assigned_strings(source[: match.start()], name) or _imported_constant(tree, name)
            requirement = requirement.replace("{" + name + "}", "|".join(values) if values else "{" + name + "}")
        at = source.count("\n", 0, match.start()) + 1
        found.setdefault(requirement, PackageNeed(requirement=requirement, provenance=tree.provenance(path, at)))
    return list(found.values())


def _assigned_strings(before: str, name: str) -> list[str]:
    """The string literals of the last `name = ...` before a message (`"0.49.2" if is_rocm() else "0.48.1"`)."""
    assignments = re.findall(rf"^\s*{re.escape(name)}\s*=\s*(.+)$", before, re.M)
    return re.findall(r"\"([^\"]+)\"", assignments[-1]) if assignments else []


def _imported_constant(tree: SourceTree, name: str) -> list[str]:
    """A version constant the module imports (`MINIMUM_BITBLAS_VERSION`), read where the quantization layer
    assigns it; a prefilter keeps the scan to the files that name it."""
    needle = f"\n{name} = ".encode()
    for path in tree.glob("vllm/model_executor/layers/quantization/**/*.py"):
        data = tree.read_bytes(path)
        if needle in data:
            return _assigned_strings(data.decode("utf-8", errors="replace"), name)
    return []


def _overrides(tree: SourceTree) -> tuple[list[str], Provenance | None]:
    """The `overrides = [...]` of `_verify_quantization`: methods that may switch a checkpoint's method."""
    for path in _MODEL_CONFIGS:
        if not tree.exists(path):
            continue
        offsets = [m.start() for m in _OVERRIDES.finditer(tree.source(path))]
        candidates = [
            node.parent
            for root, held in roots_around(tree, path, offsets)
            for node in (root.descendant_for_byte_range(at, at + len("overrides")) for at in held)
            if node is not None and node.parent is not None and node.parent.type == "assignment"
        ]
        for node in candidates:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or text(left) != "overrides" or right is None or right.type != "list":
                continue
            try:
                value = literal(right)
            except NotLiteral:
                continue
            if isinstance(value, list):
                return [str(v) for v in value], tree.provenance(path, line(node))
    return [], None


def _config_spans(tree: SourceTree, path: str, config_class: str) -> list[tuple[int, int]]:
    """Byte spans of the config class and of the module-level functions the module calls (a version check
    its layer methods run); other classes' bodies are left out (an XPU method's own kernel package)."""
    root = tree.parse(path).root_node
    nodes = {}
    for child in root.named_children:
        node = definition(child)
        name = node.child_by_field_name("name")
        if node.type in ("class_definition", "function_definition") and name is not None:
            nodes[text(name)] = child
    cls = nodes.get(config_class)
    if cls is None:
        return []
    module = text(root)
    called = [
        n
        for n, node in nodes.items()
        if definition(node).type == "function_definition" and module.count(f"{n}(") > text(node).count(f"{n}(")
    ]
    return [(cls.start_byte, cls.end_byte), *((nodes[n].start_byte, nodes[n].end_byte) for n in called)]
