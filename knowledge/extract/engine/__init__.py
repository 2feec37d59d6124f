"""The Python-source engine: vLLM's code read as code (modules and imports, syntax, a three-valued interpreter).

Its clients beside it (cli_flags/, attention/) say what they look for; this package knows nothing of flags or
GPUs. They import the interpreter, its values and the module index from here, the syntax helpers from
`engine.syntax`. The interpreter is split by job: values.py (what it computes with), names.py (what a name
means), statements.py (calls and control flow), expressions.py (an expression's value), interpret.py (entry
points); signals.py carries interpreted control flow between them.
"""

from .interpret import Interpreter
from .modules import ClassRef, FieldDef, ModuleIndex, Modules
from .values import (
    CAPABILITY,
    INPUT,
    Cap,
    Entered,
    Marked,
    Member,
    Obj,
    Reason,
    Record,
    Scope,
    Shared,
    Unknown,
    class_ref,
)

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
    "Record",
    "Scope",
    "Shared",
    "Unknown",
    "class_ref",
]
