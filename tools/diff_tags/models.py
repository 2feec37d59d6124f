"""The shapes `diff_tags` takes and answers in: a page of knowledge.registry.diff's RegistryDiff."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.registry.diff import RegistryDiff
from vllm_quant_mcp.knowledge.registry.kinds import RegistryKind
from vllm_quant_mcp.tools.paging import Cursor, Limit, Page
from vllm_quant_mcp.tools.spec import Cli, TagName

__all__ = ["DiffPage", "DiffTagsQuery"]


class DiffTagsQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    from_tag: Annotated[TagName, Cli(positional=True)]
    to_tag: Annotated[
        TagName,
        Cli(positional=True),
        Field(description="The target release; older: a downgrade."),
    ]
    kind: Annotated[
        RegistryKind | None, Field(description="One kind (kernels adds the kernel picks per GPU); default all.")
    ] = None
    limit: Limit = 100
    cursor: Cursor = None


class DiffPage(RegistryDiff, Page):
    """A page of the diff: the items (added, then removed, then changed, kind by kind, then the kernel picks that
    changed) from `offset` on.

    Kinds with nothing on this page are left out; joined in order, the pages give the whole diff.
    """

    total: int = Field(description="Added, removed and changed entries, and kernel picks, in the whole diff.")
