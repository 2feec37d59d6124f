"""From the pieces of one `add_argument` call to a Flag: its keywords, its field's type, its help text.

A flag's choices, --no- form and deprecation come from explicit keywords first, then from
the `get_kwargs` field it splats (whose type decides choices and BooleanOptionalAction),
then from its help text ("[DEPRECATED]"...). Only the keywords the record needs are read.
"""

from __future__ import annotations

import re

import tree_sitter

from .cli_flags_modules import Modules
from .cli_flags_syntax import maybe_literal_str, required
from .cli_flags_types import FieldKind, KwargsRules, field_kind, literal_alias
from .cli_flags_values import FieldKwargs, Flag, Str
from .nodes import NotLiteral, literal, text

__all__ = ["KeywordReader"]

# Every alternative holds the word, so a help text without it is not searched (most are long).
_DEPRECATED = re.compile(
    r"\[deprecated\]|\(deprecated\b|^\W*deprecated\b|\b(?:is|are|has been|now) deprecated\b", re.IGNORECASE
)
_NO_KIND = FieldKind(choices=None, boolean=False)


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
        )

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

    def _choices(self, node: tree_sitter.Node, path: str) -> list[str] | None:
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
