"""The shapes `find_symbol` takes and answers in.

Apart from the lookup, which loads tree-sitter and the regex engine, so registering the
tool loads neither.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.symbols import SymbolKind

__all__ = ["SymbolKind", "SymbolLocation", "SymbolQuery", "SymbolResult"]


class SymbolQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$",
        description="A name, or Class.method for a method: 'CacheDType', 'Fp8Config.get_min_capability'.",
    )
    kind: SymbolKind | None = Field(default=None, description="Only definitions of this kind.")
    max_results: int = Field(default=50, ge=1, le=500, description="Most definitions to return.")


class SymbolLocation(BaseModel):
    qualified_name: str = Field(
        description="Name with its enclosing classes/functions, e.g. 'Fp8Config.get_min_capability'."
    )
    kind: SymbolKind
    path: str
    line: int
    end_line: int
    first_line: str = Field(description="The definition's first source line (its signature or assignment).")
    permalink: str


class SymbolResult(BaseModel):
    tag: str
    name: str
    definitions: list[SymbolLocation]
    truncated: bool = Field(default=False, description="More definitions exist; narrow with Class.method or kind.")
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")
