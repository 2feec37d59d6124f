"""vLLM's named quantization constants as values the interpreter can compare: QuantKeys, scalar types, dtypes.

A kernel's `can_implement` asks `c.weight_quant_key.scale.group_shape.is_per_tensor()` or
`c.weight_type not in query_marlin_supported_quant_types(...)`. The constants those compare with
(`kFp8StaticTensorSym`, `scalar_types.uint4b8`) are built in vLLM by constructors the interpreter
does not run. Here they are built once per tree from their own source: a `QuantKey(...)` call of
quant_utils.py becomes an object whose fields are its arguments (by the dataclass's field order),
a scalar type stands for itself by name, and a torch dtype carries its `itemsize`. They are seeded
into the interpreter's shared lookups, so the kernel's comparison reads the very constant the
scheme was built from, and an identity comparison answers it. The FP8 keys hold `current_platform.fp8_dtype()`,
which differs by GPU on ROCm (gfx942 answers float8_e4m3fnuz): a ROCm walk builds its constants per GPU.
"""

from __future__ import annotations

from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.attention.select import arch_of
from vllm_quant_mcp.knowledge.extract.engine import (
    Cap,
    ClassRef,
    Interpreter,
    Member,
    Modules,
    Obj,
    Record,
    Scope,
    Shared,
)
from vllm_quant_mcp.knowledge.extract.engine.syntax import text
from vllm_quant_mcp.knowledge.registry.kernels import Platform

__all__ = ["QUANT_UTILS", "Constants", "Dtype", "scalar_type"]

QUANT_UTILS = "vllm/model_executor/layers/quantization/utils/quant_utils.py"
SCALAR_TYPE = "vllm/scalar_type.py"
_ITEMSIZE = {
    "float32": 4, "float16": 2, "bfloat16": 2, "half": 2, "int8": 1, "uint8": 1, "float8_e4m3fn": 1,
    "float8_e4m3fnuz": 1,
}  # fmt: skip
_CONSTRUCTED = frozenset({"QuantKey", "ScaleDesc", "GroupShape"})


class Dtype(Obj):
    """A torch dtype: equal to the name the interpreter gives `torch.<name>`, with its itemsize."""

    def __init__(self, name: str) -> None:
        super().__init__(what=f"torch.{name}", attrs={"itemsize": _ITEMSIZE[name], "is_floating_point": True})
        self.name = name

    def __eq__(self, other: object) -> bool:
        return other == self.name if isinstance(other, str) else other is self

    def __hash__(self) -> int:
        return hash(self.name)


class Constants:
    """The QuantKey constants of one tree on one platform (on ROCm, one GPU), by name, and the shared lookups that
    make the interpreter see them."""

    def __init__(self, modules: Modules, shared: Shared, platform: Platform = "cuda", cap: Cap | None = None) -> None:
        self.modules = modules
        self.shared = shared
        self.keys: dict[str, Obj] = {}
        self._it = Interpreter(modules, platform, cap, {}, shared, arch=arch_of(platform, cap))
        index = modules.index(QUANT_UTILS)
        self._statements = _attribute_assignments(index.head) if index is not None else {}
        # `FP8_DTYPE = current_platform.fp8_dtype()`: float8_e4m3fn on CUDA, which inherits it from the platform
        # interface; on ROCm RocmPlatform.fp8_dtype() is interpreted for the GPU's arch (is_fp8_fnuz: gfx94x).
        fp8 = index.assignment("FP8_DTYPE") if index is not None else None
        if platform == "cuda":
            shared.names[(QUANT_UTILS, "FP8_DTYPE")] = Dtype("float8_e4m3fn")
        elif fp8 is not None:
            shared.names[(QUANT_UTILS, "FP8_DTYPE")] = self._build(fp8)
        if index is not None:
            for name in _module_names(index.head):
                if name.startswith("k"):
                    self._build_name(name)
            for name, built in self.keys.items():
                shared.names[(QUANT_UTILS, name)] = built
        self._scalars: dict[tuple[str, int], Member] = {}
        self._bits: dict[tuple[str, str, str], int] = {}
        self._seed_scalar_types()

    def seed(self, shared: Shared) -> None:
        """The same constants in another interpreter's lookups (one whose run-time checks are decided otherwise)."""
        fp8 = self.shared.names.get((QUANT_UTILS, "FP8_DTYPE"))
        if fp8 is not None:
            shared.names[(QUANT_UTILS, "FP8_DTYPE")] = fp8
        for name, built in self.keys.items():
            shared.names[(QUANT_UTILS, name)] = built
        shared.values.update(self._scalars)
        shared.member_attrs.update(self._bits)

    def _build_name(self, name: str) -> Any:
        if name in self.keys:
            return self.keys[name]
        index = self.modules.index(QUANT_UTILS)
        rhs = index.assignment(name) if index is not None else None
        built = self._build(rhs) if rhs is not None else None
        if isinstance(built, Obj):
            self.keys[name] = built
        return built

    def _build(self, node: tree_sitter.Node) -> Any:
        """A constructor call of one of the key classes, as an object; anything else as the interpreter reads it."""
        if node.type == "identifier" and text(node).startswith("k"):
            own = self._build_name(text(node))
            if own is not None:
                return own
        if node.type == "attribute" and text(node) in self._statements:
            return self._build(self._statements[text(node)])
        callee = node.child_by_field_name("function") if node.type == "call" else None
        if callee is not None and text(callee) in _CONSTRUCTED:
            ref = self.modules.find_class(text(callee), QUANT_UTILS)
            arguments = node.child_by_field_name("arguments")
            if ref is not None and arguments is not None:
                return self._construct(ref, arguments)
        value, _ = self._it.evaluate(node, Scope(QUANT_UTILS))
        if isinstance(value, str) and value in _ITEMSIZE:
            return Dtype(value)
        return value

    def _construct(self, ref: ClassRef, arguments: tree_sitter.Node) -> Obj:
        names = list(self.modules.fields(ref)) or ["row", "col"]  # GroupShape is a NamedTuple of (row, col)
        attrs: dict[str, Any] = {}
        positional = [a for a in arguments.named_children if a.type not in ("keyword_argument", "comment")]
        for name, arg in zip(names, positional, strict=False):
            attrs[name] = self._build(arg)
        for arg in arguments.named_children:
            key, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
            if arg.type == "keyword_argument" and key is not None and value is not None:
                attrs[text(key)] = self._build(value)
        return (Record if self.modules.is_named_tuple(ref) else Obj)(what=ref.name, ref=ref, attrs=attrs)

    def _seed_scalar_types(self) -> None:
        """Each `scalar_types.X = ScalarType...(...)` stands for itself: compared by name, never computed."""
        index = self.modules.index(SCALAR_TYPE)
        node = index.classes.get("scalar_types") if index is not None else None
        body = node.child_by_field_name("body") if node is not None else None
        for child in body.named_children if body is not None else []:
            stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
            left = stmt.child_by_field_name("left") if stmt is not None and stmt.type == "assignment" else None
            right = stmt.child_by_field_name("right") if stmt is not None and left is not None else None
            if left is not None and right is not None:
                alias = text(right) if right.type == "identifier" else text(left)
                self._scalars[(SCALAR_TYPE, right.start_byte)] = Member("scalar_types", alias)
                bits = _size_bits(right)
                if bits is not None:
                    self._bits[("scalar_types", alias, "size_bits")] = bits
        self.shared.values.update(self._scalars)
        self.shared.member_attrs.update(self._bits)


def _size_bits(call: tree_sitter.Node) -> int | None:
    """`size_bits` of a scalar type as its factory builds it (scalar_type.py): `ScalarType(exponent, mantissa,
    signed, ...)` holds exponent + mantissa + signed bits; `int_(n, bias)` and `uint(n, bias)` hold n;
    `float_(e, m, ...)` and `float_IEEE754(e, m)` are signed, 1 + e + m. Anything else: not known."""
    callee = call.child_by_field_name("function") if call.type == "call" else None
    arguments = call.child_by_field_name("arguments")
    if callee is None or arguments is None:
        return None
    values = [text(a) for a in arguments.named_children]
    numbers = [int(v) for v in values[:2] if v.isdigit()]
    factory = text(callee).rsplit(".", 1)[-1]
    if factory in ("int_", "uint") and numbers:
        return numbers[0]
    if factory in ("float_", "float_IEEE754") and len(numbers) == 2:
        return 1 + numbers[0] + numbers[1]
    if factory == "ScalarType" and len(numbers) == 2 and len(values) > 2 and values[2] in ("True", "False"):
        return numbers[0] + numbers[1] + (values[2] == "True")
    return None


def scalar_type(name: str) -> Member:
    return Member("scalar_types", name)


def _module_names(root: tree_sitter.Node) -> list[str]:
    names: list[str] = []
    for child in root.named_children:
        stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        left = stmt.child_by_field_name("left") if stmt is not None and stmt.type == "assignment" else None
        if left is not None and left.type == "identifier":
            names.append(text(left))
    return names


def _attribute_assignments(root: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
    """`GroupShape.PER_TENSOR = GroupShape(-1, -1)`: module-level assignments to a class's attribute."""
    found: dict[str, tree_sitter.Node] = {}
    for child in root.named_children:
        stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        left = stmt.child_by_field_name("left") if stmt is not None and stmt.type == "assignment" else None
        right = stmt.child_by_field_name("right") if stmt is not None and left is not None else None
        if left is not None and right is not None and left.type == "attribute":
            found.setdefault(text(left), right)
    return found
