"""What a name means where the interpreted source uses it: a local, a builtin, an import followed across the
tree, an attribute found along a class's MRO, an Enum member, `super()`, `current_platform`, `envs.X`.

Its own module because it is the interpreter's model of Python's namespaces, and it changes for other
reasons than evaluation does: a new re-export layout in vLLM, a platform question, a class hierarchy.
Lookups that every interpreter of a tree would repeat are kept in `Shared`; a name whose value was
computed from the GPU's capability is kept per interpreter only. A module-level right-hand side or a
class attribute's value is evaluated by `_expr`, which the evaluator (expressions.py) defines.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, cast

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.modules import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import definition, text
from vllm_quant_mcp.knowledge.extract.engine.values import (
    CAPABILITY,
    RAW,
    Builtin,
    Cap,
    ClassValue,
    Function,
    Member,
    Obj,
    Platform,
    Reason,
    Scope,
    Shared,
    Super,
    Unknown,
    answer,
    as_int,
    question,
    unknown,
)

__all__ = ["Names"]

_PLATFORM_MODULES = {"vllm.platforms"}
# current_platform's yes/no capability questions, by the kind values.question records them as
_QUESTIONS = {"has_device_capability": "has", "is_device_capability": "is", "is_device_capability_family": "family"}
_ENV_WORDS: dict[str, Any] = {"0": False, "false": False, "1": True, "true": True, "none": None, "": None}
_TORCH_DTYPES = {"float16", "bfloat16", "float32", "half", "float", "uint8", "int8", "float8_e4m3fn", "float8_e4m3fnuz"}
_KNOWN_STR_METHODS = {"startswith", "endswith", "lower", "upper", "strip", "split", "replace"}

_BUILTINS: dict[str, Builtin] = {
    "len": Builtin(len),
    "list": Builtin(lambda x=(): list(x)),
    "tuple": Builtin(lambda x=(): tuple(x)),
    "set": Builtin(lambda x=(): set(x)),
    "frozenset": Builtin(lambda x=(): frozenset(x)),
    "any": Builtin(any),
    "all": Builtin(all),
    "min": Builtin(min),
    "max": Builtin(max),
    "str": Builtin(str),
    "int": Builtin(int),
    "bool": Builtin(bool),
    "sorted": Builtin(sorted),
}


class Names(ABC):
    """Name resolution for one tree, one platform and one GPU; the state is set by `Interpreter.__init__`."""

    modules: Modules
    platform: Platform
    env: dict[str, str | None]
    shared: Shared
    _assumed: set[str]  # what the current evaluation relied on: env defaults, and the marks (values.MARKS)

    @abstractmethod
    def _expr(self, node: tree_sitter.Node, frame: Scope) -> Any:
        """An expression's value (expressions.py): a right-hand side or a default a name stands for."""

    def member(self, obj: Obj, name: str) -> Any:
        """`obj.name`: an attribute set so far, or a method of its class bound to it."""
        if obj.ref is None:
            return obj.attrs.get(name, Unknown((Reason(f"{obj.what}.{name} is set at run time", "", 1),)))
        return self._obj_attr(obj, name, obj.ref.path, obj.ref.node)

    def class_attribute(self, cls: ClassRef, name: str) -> Any:
        return self._class_attr(ClassValue(cls), name, cls.path, cls.node)

    # -- names of modules, followed through imports -----------------------------------------------------------

    def _imported(self, dotted: str, name: str, importer: str, node: tree_sitter.Node, hops: int = 4) -> Any:
        if dotted in _PLATFORM_MODULES and name == "current_platform":
            return self.platform
        if name == "DeviceCapability":
            return Builtin(lambda major, minor=0: Cap(int(major), int(minor)))
        path = self.modules.module_path(dotted, importer)
        if path is None:
            return unknown(f"{name} comes from {dotted}, which is not vLLM Python source", importer, node)
        return self._module_name(path, name, node, hops) if hops > 0 else self._resolve(path, name, node, 0)

    def _module_name(self, path: str, name: str, node: tree_sitter.Node, hops: int) -> Any:
        """A module-level name of `path`, resolved once per tree: a definition, an import, or a value."""
        key = (path, name)
        if key in self.shared.names:
            value = self.shared.names[key]
            return copy.copy(value) if isinstance(value, list | dict | set) else value
        outer, self._assumed = self._assumed, set()
        try:
            value = self._resolve(path, name, node, hops)
        finally:
            inner, self._assumed = self._assumed, outer | self._assumed
        # The platform, and anything computed from its GPU, differs between interpreters: never shared.
        if CAPABILITY not in inner and not isinstance(value, Platform):
            self.shared.names[key] = value
        return value

    def _resolve(self, path: str, name: str, node: tree_sitter.Node, hops: int) -> Any:
        index = self.modules.index(path)
        if index is None:
            return unknown(f"{path} is not in the tree", path, node)
        if name in index.functions:
            return Function(path, definition(index.functions[name]))
        if name in index.classes:
            return ClassValue(ClassRef(path, name, index.classes[name]))
        rhs = index.assignment(name)
        if rhs is not None:
            return self._expr(rhs, Scope(path))
        if name in index.imports and hops > 0:
            dotted, original = index.imports[name]
            return self._imported(dotted, original, path, node, hops - 1)
        return unknown(
            f"{name} is decided when {path} is imported (a compiled extension or optional package)", path, node
        )

    def _name(self, node: tree_sitter.Node, frame: Scope) -> Any:
        name = self._word(node)
        if name in frame.locals:
            frame.read.add(name)
            if frame.marks:
                self._assumed |= frame.marks.get(name, frozenset())
            return frame.locals[name]
        if name in _BUILTINS:
            return _BUILTINS[name]
        return self._module_name(frame.path, name, node, hops=4)

    def _word(self, node: tree_sitter.Node) -> str:
        """A name's text: the same few thousand names are looked up at every call, and decoding each costs."""
        known = self.shared.words.get(node.id)
        if known is None:
            known = self.shared.words[node.id] = text(node)
        return known

    # -- attributes -----------------------------------------------------------------------------------------

    def _attribute(self, node: tree_sitter.Node, frame: Scope) -> Any:
        obj_node, attr_node = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        attr = self._word(attr_node) if attr_node is not None else ""
        owner = self._word(obj_node) if obj_node is not None and obj_node.type == "identifier" else ""
        if owner == "torch" and attr in _TORCH_DTYPES:
            return attr
        if owner == "envs" and attr == "is_set":
            return Builtin(self._env_is_set)
        if owner == "envs":
            return self._env(attr, frame.path, node)
        if attr == "gcnArchName" and self.platform.arch is not None:
            # `torch.cuda.get_device_properties(0).gcnArchName`: how ROCm releases before amdsmi read the gfx name
            self._assumed |= {CAPABILITY, RAW}
            return self.platform.arch
        obj = self._expr(obj_node, frame) if obj_node is not None else None
        if isinstance(obj, Unknown):
            return obj
        if isinstance(obj, Cap) and attr in ("major", "minor"):
            return getattr(obj, attr)
        if isinstance(obj, Cap) and attr == "to_int":
            return Builtin(obj.to_int)
        if isinstance(obj, Platform):
            return self._platform_attr(obj, attr, frame, node)
        if isinstance(obj, ClassValue):
            return self._class_attr(obj, attr, frame.path, node)
        if isinstance(obj, Obj):
            return self._obj_attr(obj, attr, frame.path, node)
        if isinstance(obj, Super):
            return self._super_attr(obj, attr, node)
        if isinstance(obj, str) and attr in _KNOWN_STR_METHODS:
            return Builtin(getattr(obj, attr))
        if isinstance(obj, list) and attr in ("append", "insert", "extend", "remove", "index", "copy", "pop"):
            return Builtin(getattr(obj, attr))
        if isinstance(obj, dict) and attr in ("get", "keys", "values", "items"):
            method = getattr(obj, attr)
            return Builtin(lambda *a: list(method(*a)) if attr != "get" else method(*a))
        if isinstance(obj, Member) and attr == "name":
            return obj.name
        if isinstance(obj, Member) and (obj.enum, obj.name, attr) in self.shared.member_attrs:
            return self.shared.member_attrs[(obj.enum, obj.name, attr)]
        return unknown(f"attribute .{attr} of a value known only at run time", frame.path, node)

    def _obj_attr(self, obj: Obj, attr: str, path: str, node: tree_sitter.Node) -> Any:
        if attr in obj.attrs:
            self._assumed |= obj.marks.get(attr, frozenset())
            return obj.attrs[attr]
        found = self._find_attr(obj.ref, attr) if obj.ref is not None else None
        if found is None:
            return unknown(f"{obj.what}.{attr} is set at run time", path, node)
        owner, found_at, kind = found
        if kind == "function":
            return Function(owner.path, found_at, obj, owner)
        return self._class_attr(ClassValue(owner), attr, path, node)

    def _env(self, name: str, path: str, node: tree_sitter.Node) -> Any:
        if name not in self.env or self.env[name] is None:
            return unknown(f"environment variable {name}", path, node)
        written = cast(str, self.env[name])
        self._assumed.add(f"{name} at its default ({written})")
        return _ENV_WORDS.get(written.strip().lower(), written)

    def _env_is_set(self, name: str) -> bool:
        """`envs.is_set("VLLM_X")`: no, as every answer assumes the variables unset (their defaults apply)."""
        self._assumed.add(f"{name} unset")
        return False

    def _class_attr(self, cls: ClassValue, attr: str, path: str, node: tree_sitter.Node) -> Any:
        if self._is_enum(cls.ref):
            return Member(cls.ref.name, attr)
        found = self._find_attr(cls.ref, attr)
        if found is None:
            return unknown(f"{cls.ref.name}.{attr} is not defined in the tree", path, node)
        owner, found_at, kind = found
        if kind == "function":
            return Function(owner.path, found_at, cls, owner)
        key = (owner.path, found_at.start_byte)
        if key not in self.shared.values:
            self.shared.values[key] = self._expr(found_at, Scope(owner.path, owner=owner, bound=cls))
        value = self.shared.values[key]
        return copy.copy(value) if isinstance(value, list | dict | set) else value

    def _is_enum(self, cls: ClassRef) -> bool:
        """Asked at every class attribute read; its bases' text is read once per class."""
        key = (cls.path, cls.node.start_byte)
        known = self.shared.enums.get(key)
        if known is None:
            bases = cls.node.child_by_field_name("superclasses")
            known = bases is not None and any(text(b).rsplit(".", 1)[-1].endswith("Enum") for b in bases.named_children)
            self.shared.enums[key] = known
        return known

    def _find_attr(self, cls: ClassRef, attr: str) -> tuple[ClassRef, tree_sitter.Node, str] | None:
        """Where `attr` is defined along the MRO: a method's definition, or a class attribute's value."""
        key = (cls.path, cls.node.start_byte, attr)
        if key in self.shared.attrs:
            return self.shared.attrs[key]
        found: tuple[ClassRef, tree_sitter.Node, str] | None = None
        for owner in self._mro(cls):
            body = owner.node.child_by_field_name("body")
            for child in body.named_children if body is not None else []:
                stmt = definition(child)
                name = stmt.child_by_field_name("name") if stmt.type == "function_definition" else None
                if name is not None and text(name) == attr:
                    found = (owner, stmt, "function")
                elif stmt.type == "expression_statement" and stmt.named_children:
                    assignment = stmt.named_children[0]
                    left = assignment.child_by_field_name("left") if assignment.type == "assignment" else None
                    right = assignment.child_by_field_name("right") if left is not None else None
                    if left is not None and right is not None and text(left) == attr:
                        found = (owner, right, "value")
                if found is not None:
                    break
            if found is not None:
                break
        self.shared.attrs[key] = found
        return found

    def _super_attr(self, sup: Super, attr: str, node: tree_sitter.Node) -> Any:
        if sup.bound.ref is None:
            return unknown(f"super().{attr} of an object without a class", sup.after.path, node)
        mro = self._mro(sup.bound.ref)
        after = next((i for i, c in enumerate(mro) if c.path == sup.after.path and c.name == sup.after.name), -1)
        for owner in mro[after + 1 :]:
            found = self.modules.method(owner, attr, depth=0)
            if found is not None:
                return Function(owner.path, definition(found[1]), sup.bound, owner)
        return unknown(f"super().{attr} is not in the tree", sup.after.path, node)

    def _mro(self, cls: ClassRef) -> list[ClassRef]:
        """Depth-first, left to right: vLLM's backend hierarchies are single inheritance chains."""
        order: list[ClassRef] = []
        todo = [cls]
        while todo and len(order) < 16:
            current = todo.pop(0)
            if all(c.path != current.path or c.name != current.name for c in order):
                order.append(current)
                todo = self.modules.bases(current) + todo
        return order

    def _platform_attr(self, platform: Platform, attr: str, frame: Scope, node: tree_sitter.Node) -> Any:
        cap = platform.capability
        # The platform's kind is the same for every GPU an interpreter of this platform is asked about.
        kinds = {"is_cuda": "cuda", "is_rocm": "rocm", "is_cpu": "cpu", "is_xpu": "xpu", "is_tpu": "tpu"}
        if attr in kinds:
            return Builtin(lambda: platform.kind == kinds[attr])
        if attr == "is_cuda_alike":
            return Builtin(lambda: platform.kind in ("cuda", "rocm"))
        if attr == "device_type":
            return {"cuda": "cuda", "rocm": "cuda", "xpu": "xpu"}.get(platform.kind, "cpu")
        self._assumed.add(CAPABILITY)
        if cap is None:
            self._assumed.add(RAW)
            return unknown(f"current_platform.{attr} needs a GPU", frame.path, node)
        if attr in _QUESTIONS:
            return Builtin(lambda value, device_id=0: self._asked(_QUESTIONS[attr], as_int(value), cap))
        if attr == "get_device_capability":
            self._assumed.add(RAW)
            return Builtin(lambda device_id=0: cap)
        found = self._platform_method(platform, attr)
        if found is not None:  # e.g. CudaPlatformBase.supports_fp8: `cls.has_device_capability(89)`, cls the platform
            return found
        # the same open answer on every GPU (`current_platform.device_name` in a refusal's message): no question
        return unknown(f"current_platform.{attr}() is decided on the machine", frame.path, node)

    def _asked(self, kind: str, value: int, cap: Cap) -> bool:
        """A yes/no question about the GPU, answered and recorded with its answer (values.question)."""
        answered = answer(kind, value, cap)
        self._assumed.add(question(kind, value, answered))
        return answered

    def _platform_method(self, platform: Platform, attr: str) -> Function | None:
        """A classmethod of the platform's own module (vllm/platforms/cuda.py), run with `cls` as the platform; one
        no class of the module defines is the base's it inherits (RocmPlatform.support_deep_gemm: interface.py's)."""
        path = f"vllm/platforms/{platform.kind}.py"
        index = self.modules.index(path)
        classes = [ClassRef(path, name, node) for name, node in index.classes.items()] if index is not None else []
        for own in (True, False):  # the module's own definitions first: a sibling class may override the base's
            for cls in classes:
                found = self.modules.method(cls, attr, depth=0 if own else 1)
                if found is not None:
                    return Function(found[0].path, definition(found[1]), cast(Any, platform), found[0])
        return None
