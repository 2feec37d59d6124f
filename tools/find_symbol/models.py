"""The shapes `find_symbol` takes and answers in.

Apart from the lookup, which loads tree-sitter and the regex engine, so registering the
tool loads neither.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.search.symbols import SymbolKind
from vllm_quant_mcp.tools.paging import Cursor, Limit, Page
from vllm_quant_mcp.tools.spec import Cli, Tag

__all__ = ["SymbolKind", "SymbolLocation", "SymbolQuery", "SymbolResult"]


class SymbolQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[
        str,
        Cli(positional=True),
        Field(
            min_length=1,
            max_length=200,
            pattern=r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$",
            description="Name or Class.method, e.g. Fp8Config.get_min_capability",
        ),
    ]
    tag: Tag = None
    kind: SymbolKind | None = None
    max_results: Limit = 50
    cursor: Cursor = None


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


class SymbolResult(Page):
    tag: str
    name: str
    definitions: list[SymbolLocation]
    truncated: bool = Field(default=False, description="More definitions follow; narrow with Class.method or kind.")
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")
