"""The Python-source engine: vLLM's code read as code (modules and imports, syntax, a three-valued interpreter).

Its clients beside it (cli_flags/, attention/) say what they look for; this package knows nothing of flags or
GPUs. They import the interpreter and the module index from here, the syntax helpers from `engine.syntax`.
"""

from .interpret import (
    CAPABILITY,
    INPUT,
    Cap,
    Entered,
    Interpreter,
    Marked,
    Member,
    Obj,
    Reason,
    Scope,
    Shared,
    Unknown,
    class_ref,
)
from .modules import ClassRef, FieldDef, ModuleIndex, Modules

__all__ = [
    "CAPABILITY",
    "INPUT",
    "Cap",
    "ClassRef",
    "Entered",
    "FieldDef",
    "Interpreter",
    "Marked",
    "Member",
    "ModuleIndex",
    "Modules",
    "Obj",
    "Reason",
    "Scope",
    "Shared",
    "Unknown",
    "class_ref",
]
