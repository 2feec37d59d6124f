"""The shapes `verify_knowledge` takes; it answers in knowledge.facts.verify's VerifyReport."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.facts.verify import VerifyReport
from vllm_quant_mcp.tools.spec import TagName

__all__ = ["VerifyQuery", "VerifyReport"]


class VerifyQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tags: Annotated[
        list[TagName] | None, Field(max_length=100, description="only these tags (default: every known tag)")
    ] = None
