"""The model a verdict is made for, read the way pick_format reads it: figures, a local folder, or the hub.

A verdict never fails for want of a model: when none can be read (the hub does not answer, the repo
is private to the serving machine, the path is not on this one) it is made for the matrix's default
shape and says so, and why. What is plainly wrong is an error instead: a folder here with no
config.json, or a config without the sizes a shape needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.hub.client import HubClient, ModelNotFoundError, is_repo_id, read_local
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel, ModelFacts, facts_from_files

from .shape import AttentionShape, assumed_shape, shape_of

__all__ = ["ModelArchitectures", "read_architectures", "read_model_facts", "shape_for"]


class ModelArchitectures(BaseModel):
    """What a model's config.json names in `architectures` (None: it names none), and where it was read."""

    names: list[str] | None
    source: str = Field(description="The folder's config.json, or the hub repo.")


def read_model_facts(
    ref: str | None, figures: ExplicitModel | None, hub: HubClient, local: bool
) -> tuple[ModelFacts | None, str | None]:
    """The model's facts, or None and why none were read (never a silent default)."""
    if figures is not None:
        return figures.to_facts(), None
    if ref is None:
        return None, "no model given"
    path = Path(ref).expanduser()
    if local and path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(
                f"{clip(ref)} is a folder without config.json: point at the folder that holds the model's config, "
                "or give the model as figures (model_figures)."
            )
        return facts_from_files(read_local(path)), None
    if not is_repo_id(ref):
        where = "a folder on this machine" if local else "read here (this server reads no local folders)"
        return None, f"{clip(ref)} is neither a Hugging Face repo id nor {where}"
    try:
        files = hub.model_files(ref)
    except (UnavailableError, NotFoundError) as exc:
        return None, f"{ref} could not be read: {exc}"
    return facts_from_files(files), None


def shape_for(facts: ModelFacts | None, why: str | None, flags: dict[str, str] | None = None) -> AttentionShape:
    """The attention shape of the model read, else the assumed default with the reason."""
    if facts is not None:
        return shape_of(facts, flags)
    return assumed_shape(why or "no model given", flags)


def read_architectures(ref: str | None, hub: HubClient | None, local: bool) -> ModelArchitectures | None:
    """The model's `architectures`, from a folder here (only when `local`) or the hub (only when `hub` is given: a
    caller that reads no model otherwise passes None and stays offline); None where no config.json was read.

    Read apart from the model's sizes: a config that names a class vLLM lacks often lacks the sizes a shape needs
    too, and its architecture is still worth an answer."""
    if ref is None:
        return None
    path = Path(ref).expanduser()
    if local and path.is_dir():
        if not (path / "config.json").is_file():
            return None
        return _architectures(read_local(path).config, str(path / "config.json"))
    if hub is None or not is_repo_id(ref):
        return None
    try:
        return _architectures(hub.model_files(ref).config, f"{ref} (hub)")
    except (UnavailableError, NotFoundError):
        return None


def _architectures(config: dict[str, Any], source: str) -> ModelArchitectures:
    named = config.get("architectures")
    if not isinstance(named, list) or not named:
        return ModelArchitectures(names=None, source=source)
    return ModelArchitectures(names=[str(name) for name in named], source=source)
