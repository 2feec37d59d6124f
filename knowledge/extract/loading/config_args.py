"""What `--quantization-config` is checked against at a tag: `QuantizationConfigArgs` and the online dispatch.

vllm/config/quantization.py (0.20 on) defines the dataclass `--quantization-config` builds
(`linear`, `moe`, `ignore`, later `targets`), the `QuantSpec` of a layer kind (`weight`,
`activation`) and `QUANT_KEY_NAMES`, the names a spec may use. Its validators refuse `targets`
beside `linear`/`moe`; `resolve_quantization_config` refuses a config beside a `--quantization`
that is not an online name; and the online config's dispatch (online/base.py) refuses any explicit
activation while it builds a layer's method, which is past argument parsing: the server starts
loading, then stops. Each raise is kept with its message and line so the check can quote vLLM.
"""

from __future__ import annotations

import re

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, maybe_literal_str, message, text
from vllm_quant_mcp.knowledge.registry.loading import AttentionArgs, OnlineArgs, Raise
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["ATTENTION", "CONFIG", "ONLINE_BASE", "extract_attention_args", "extract_online_args", "find_raise"]

ATTENTION = "vllm/config/attention.py"
CONFIG = "vllm/config/quantization.py"
ONLINE_BASE = "vllm/model_executor/layers/quantization/online/base.py"


def extract_online_args(tree: SourceTree, modules: Modules) -> OnlineArgs | None:
    if not tree.exists(CONFIG):
        return None
    args = modules.find_class("QuantizationConfigArgs", CONFIG)
    spec = modules.find_class("QuantSpec", CONFIG)
    index = modules.index(CONFIG)
    if args is None or spec is None or index is None:
        return None
    names = index.assignment("QUANT_KEY_NAMES")
    base = modules.index(ONLINE_BASE) if tree.exists(ONLINE_BASE) else None
    by_key = {v: k for k, v in _pairs(names).items()}
    dispatch = {
        layer: {by_key.get(key, key): cls for key, cls in _pairs(base.assignment(table)).items()}
        for layer, table in (("linear", "_ONLINE_LINEAR_METHODS"), ("moe", "_ONLINE_MOE_METHODS"))
        if base is not None and base.assignment(table) is not None
    }
    return OnlineArgs(
        fields=list(modules.fields(args)),
        spec_fields=list(modules.fields(spec)),
        key_names=list(_pairs(names)),
        dispatch=dispatch,
        unknown_name=find_raise(tree, CONFIG, "unknown quantization name"),
        provenance=tree.provenance(CONFIG, line(args.node)),
        targets_exclusive=find_raise(tree, CONFIG, "mutually exclusive"),
        activation_refused=find_raise(tree, ONLINE_BASE, "activation override") if tree.exists(ONLINE_BASE) else None,
        config_needs_online=find_raise(tree, CONFIG, "is only supported when quantization"),
    )


def extract_attention_args(tree: SourceTree, modules: Modules) -> AttentionArgs | None:
    """AttentionConfig's fields; a `Literal[...]` annotation gives a field's values, an enum of backends its kind."""
    cls = modules.find_class("AttentionConfig", ATTENTION) if tree.exists(ATTENTION) else None
    if cls is None:
        return None
    fields = modules.fields(cls)
    choices: dict[str, list[str]] = {}
    backends: list[str] = []
    for name, found in fields.items():
        annotation = text(found.annotation)
        literal_part = re.search(r"Literal\[([^\]]*)\]", annotation)
        if literal_part:
            choices[name] = [v.strip().strip("'\"") for v in literal_part.group(1).split(",") if v.strip()]
        elif re.match(r"^AttentionBackendEnum\b", annotation):
            backends.append(name)
    return AttentionArgs(
        fields=list(fields),
        choices=choices,
        backend_fields=backends,
        provenance=tree.provenance(ATTENTION, line(cls.node)),
    )


def find_raise(tree: SourceTree, path: str, words: str) -> Raise | None:
    """The first `raise E("...")` in `path` whose message holds `words`; looked for once per tree (every replay of a
    config's loading asks for the base config's refusal)."""
    return tree.memo(f"raise in {path} holding {words!r}", lambda: _find_raise(tree, path, words))


def _find_raise(tree: SourceTree, path: str, words: str) -> Raise | None:
    """Each `raise` keyword found in the bytes, in order, then its statement: a walk over every node of
    vllm/config.py took a tenth of its parse again at each of the words asked for."""
    data = tree.source(path)
    if words.encode() not in data:
        return None
    root = tree.parse(path).root_node
    at = data.find(b"raise")
    while at != -1:
        keyword = root.descendant_for_byte_range(at, at + 5)
        node = keyword.parent if keyword is not None and keyword.type == "raise" else None
        if node is not None and node.type == "raise_statement" and node.named_children:
            call = node.named_children[0]
            arguments = call.child_by_field_name("arguments") if call.type == "call" else None
            first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            if first is not None and first.type in ("string", "concatenated_string") and words in message(first):
                return Raise(
                    error=text(call.child_by_field_name("function") or call),
                    message=message(first),
                    provenance=tree.provenance(path, line(node)),
                )
        at = data.find(b"raise", at + 5)
    return None


def _pairs(dictionary: tree_sitter.Node | None) -> dict[str, str]:
    """A dict literal's keys to its values, each as written (a string's value, a name's spelling), in order."""
    if dictionary is None or dictionary.type != "dictionary":
        return {}
    found: dict[str, str] = {}
    for pair in dictionary.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if pair.type == "pair" and key is not None and value is not None:
            found[maybe_literal_str(key) or text(key)] = maybe_literal_str(value) or text(value)
    return found
