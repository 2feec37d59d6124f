"""`NativeFormats`: the one curated model a tool result embeds (pick_format's GpuSummary).

Kept apart from the facts' validators and predicates so that result schemas can be built
at server start-up without loading the knowledge base. Strict as every fact model is.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["NativeFormats"]


class NativeFormats(BaseModel):
    """Tensor-core support in hardware; emulated or Marlin weight-only paths do not count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fp8: bool
    nvfp4: bool
    mxfp4: bool
