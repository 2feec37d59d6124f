"""From the pieces of one `add_argument` call to a Flag: its keywords, its field's type, its help text.

A flag's choices, --no- form, deprecation and default come from explicit keywords first, then from
the `get_kwargs` field it splats (whose type decides choices and BooleanOptionalAction),
then from its help text ("[DEPRECATED]"...). Only the keywords the record needs are read.
"""

from __future__ import annotations

import re
from itertools import permutations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.cli_flags.defaults import Default, expression_default, field_default
from vllm_quant_mcp.knowledge.extract.cli_flags.field_types import FieldKind, KwargsRules, field_kind, literal_alias
from vllm_quant_mcp.knowledge.extract.cli_flags.values import FieldKwargs, Flag, Str
from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, literal, maybe_literal_str, required, text

__all__ = ["KeywordReader"]

# Every alternative holds the word, so a help text without it is not searched (most are long).
_DEPRECATED = re.compile(
    r"\[deprecated\]|\(deprecated\b|^\W*deprecated\b|\b(?:is|are|has been|now) deprecated\b", re.IGNORECASE
)
_NO_KIND = FieldKind(choices=None, boolean=False)
_DEVICE_TYPE = re.compile(r'^    device_type(?:: str)? = "([a-z]*)"', re.MULTILINE)


class KeywordReader:
    def __init__(self, modules: Modules, rules: KwargsRules) -> None:
        self.modules = modules
        self.rules = rules
        # Many fields share an annotation (`int`, `bool`, `str | None`): each (file, text) is read once.
        self._kinds: dict[tuple[str, str], FieldKind] = {}

    def flag(self, options: list[Str], base: FieldKwargs | None, explicit: dict[str, object]) -> Flag:
        """The flag named by `options`, from the splatted field kwargs overridden by explicit keywords."""
        primary = next((o for o in options if o.value.startswith("--")), options[0])
        overrides = {**(base.overrides if base else {}), **explicit}
        kind = self.kind(base)
        action = overrides.get("action")
        boolean = "BooleanOptionalAction" in action if isinstance(action, str) else kind.boolean
        choices = overrides.get("choices", kind.choices)
        help_text = overrides.get("help")
        if not isinstance(help_text, str):
            help_text = base.definition.doc if base and base.definition else ""
        deprecated = (
            overrides.get("deprecated") is True
            or ("deprecated" in help_text.lower() and bool(_DEPRECATED.search(help_text)))
            or (isinstance(action, str) and "Deprecated" in action)
        )
        dest = overrides.get("dest")
        flags = overrides.get("flags")
        aliases = [o.value for o in options if o is not primary]
        aliases += (
            [f.value for f in flags if isinstance(f, Str) and f.value not in aliases] if isinstance(flags, list) else []
        )
        return Flag(
            name=primary,
            aliases=aliases,
            dest=dest if isinstance(dest, str) else primary.value.lstrip("-").replace("-", "_"),
            choices=list(choices) if isinstance(choices, list) else None,
            boolean=boolean and primary.value.startswith("--"),
            deprecated=deprecated,
            default=self._default(base, overrides),
        )

    def _default(self, base: FieldKwargs | None, overrides: dict[str, object]) -> Default | None:
        """An explicit `default=` (or `kw["default"] = ...`) wins over the splatted field's own default."""
        if "default" in overrides:
            stated = overrides["default"]
            return stated if isinstance(stated, Default) else None
        if base is None or base.definition is None:
            return None
        return field_default(base.definition, self.modules)

    def kind(self, base: FieldKwargs | None) -> FieldKind:
        """What get_kwargs derives from the field's type; nothing for kwargs not made from a field."""
        if base is None or base.definition is None:
            return _NO_KIND
        key = (base.definition.path, text(base.definition.annotation))
        if key not in self._kinds:
            self._kinds[key] = field_kind(base.definition, self.modules, self.rules)
        return self._kinds[key]

    def value(self, key: str, node: tree_sitter.Node, path: str) -> object:
        """The value of one argparse keyword, kept only in the form the flag record needs (not `flags`)."""
        if key == "choices":
            return self._choices(node, path)
        if key == "help":
            return self._help(node, path)
        if key == "action":
            return text(node)
        if key == "deprecated":
            return text(node) == "True"
        if key == "dest":
            return maybe_literal_str(node)
        if key == "default":
            return expression_default(node, path, self.modules)
        return None

    def remove_choice(self, kwargs: FieldKwargs, node: tree_sitter.Node, path: str) -> bool:
        """Apply `kw["choices"].remove(node)`; False (choices dropped) when the removed value is computed."""
        current = kwargs.overrides["choices"] if "choices" in kwargs.overrides else self.kind(kwargs).choices
        value = maybe_literal_str(node)
        if value is None and node.type == "identifier":
            alias = self.modules.find_alias(text(node), path)
            value = maybe_literal_str(alias[1]) if alias else None
        if isinstance(current, list) and value is not None:
            kwargs.overrides["choices"] = [c for c in current if c != value]
            return True
        kwargs.overrides["choices"] = None
        return False

    def extra_choices(self, node: tree_sitter.Node, path: str) -> list[str] | None:
        """Values a `choices += ...` appends: a literal list, or the comma-joined permutations of a Literal
        alias (`[",".join(p) for p in permutations(get_args(Alias), r=2)]`, --collect-detailed-traces)."""
        literal_values = self._choices(node, path)
        if literal_values is not None or node.type != "list_comprehension":
            return literal_values
        body = node.child_by_field_name("body")
        loop = next((c for c in node.named_children if c.type == "for_in_clause"), None)
        source = loop.child_by_field_name("right") if loop is not None else None
        if (
            body is None
            or source is None
            or source.type != "call"
            or text(required(source, "function")) != "permutations"
        ):
            return None
        arguments = required(source, "arguments").named_children
        values = self._choices(arguments[0], path) if arguments else None
        width = next((c for c in arguments if c.type == "keyword_argument" and text(required(c, "name")) == "r"), None)
        size = _int(required(width, "value")) if width is not None else None
        joiner = required(body, "function") if body.type == "call" else None
        separator = joiner.child_by_field_name("object") if joiner is not None and joiner.type == "attribute" else None
        glue = maybe_literal_str(separator) if separator is not None else None
        if values is None or size is None or glue is None:
            return None
        return [glue.join(p) for p in permutations(values, size)]

    def _choices(self, node: tree_sitter.Node, path: str) -> list[str] | None:
        if node.type == "binary_operator" and text(required(node, "operator")) == "+":
            return self._plus_platform_device(node, path)
        if node.type == "call" and text(required(node, "function")) == "get_args":
            arguments = required(node, "arguments").named_children
            return literal_alias(text(arguments[0]), path, self.modules) if arguments else None
        try:
            values = literal(node)
        except NotLiteral:
            return None
        if not isinstance(values, list | tuple):
            return None
        return [str(v) for v in values if v is not None]

    def _plus_platform_device(self, node: tree_sitter.Node, path: str) -> list[str] | None:
        """`["auto", "cpu"] + ([current_platform.device_type] if ... else [])` (--mm-processor-device): the literal
        values plus every platform's device type; which one a run accepts depends on the platform it runs on."""
        base = self._choices(required(node, "left"), path)
        if base is None or "current_platform.device_type" not in text(required(node, "right")):
            return None
        return [*base, *(d for d in self.platform_devices() if d not in base)]

    def platform_devices(self) -> list[str]:
        """The `device_type` each platform class declares (cuda, xpu...), read from vllm/platforms/*.py."""
        found: list[str] = []
        for path in self.modules.tree.glob("vllm/platforms/*.py"):
            for match in _DEVICE_TYPE.finditer(self.modules.tree.read_text(path)):
                if match.group(1) not in found and match.group(1) not in ("", "cpu"):
                    found.append(match.group(1))
        return sorted(found)

    def _help(self, node: tree_sitter.Node, path: str) -> str:
        if node.type in {"string", "concatenated_string"}:
            try:
                value = literal(node)
            except NotLiteral:
                return text(node)
            return value if isinstance(value, str) else text(node)
        if node.type == "parenthesized_expression" and node.named_children:
            return self._help(node.named_children[0], path)
        if node.type == "binary_operator":
            return "".join(self._help(side, path) for side in (required(node, "left"), required(node, "right")))
        if node.type == "identifier":
            alias = self.modules.find_alias(text(node), path)
            return self._help(alias[1], alias[0]) if alias else ""
        return text(node)


def _int(node: tree_sitter.Node) -> int | None:
    try:
        value = literal(node)
    except NotLiteral:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
