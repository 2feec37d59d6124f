"""What an operator pastes, unwrapped as vLLM and pydantic print it, and matched against format strings."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.model import MessageSite, MessageStyle
from vllm_quant_mcp.knowledge.search.messages import match_sites, nearest_sites, unwrap
from vllm_quant_mcp.knowledge.sources.tree import Provenance


def site(name: str, style: MessageStyle) -> MessageSite:
    where = Provenance(path="vllm/config/model.py", line=1, permalink="https://example.invalid/model.py#L1")
    return MessageSite(
        name=name,
        provenance=where,
        kind="raise",
        raises="ValueError",
        style=style,
        function=None,
        guards=[],
        guard_line=None,
        raised_on=None,
        spared_on=[],
    )


def test_a_pydantic_value_error_holding_vllms_tuple_unwraps_to_the_unfilled_message_and_its_argument() -> None:
    (said, *_) = unwrap(
        "Value error, ('The quantization method %s is deprecated.', 'fbgemm_fp8') "
        "[type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]"
    )
    assert said.message == "The quantization method %s is deprecated."
    assert said.unfilled == "'fbgemm_fp8'"


def test_a_log_line_loses_its_level_date_and_file_prefix_and_an_exception_its_class() -> None:
    (said, *_) = unwrap("(EngineCore_DP0 pid=42) WARNING 12-01 10:00:00 [model.py:1107] Using %s now")
    assert said.message == "Using %s now"
    (said, *_) = unwrap("ValueError: Unknown quantization method: fp9.")
    assert (said.raised, said.message) == ("ValueError", "Unknown quantization method: fp9.")


def test_an_f_string_matches_its_filled_form_and_names_what_filled_each_field() -> None:
    sites = [site("Unknown quantization method: {self.quantization}. Must be one of {supported}.", "f-string")]
    (hit,) = match_sites(sites, unwrap("Unknown quantization method: fp9. Must be one of ['fp8', 'awq']."))
    assert hit.match == "exact"
    assert dict(hit.filled) == {"{self.quantization}": "fp9", "{supported}": "['fp8', 'awq']"}


def test_a_percent_message_matches_inside_a_longer_line_and_a_fragment_matches_the_message() -> None:
    sites = [site("Cannot use %s backend with %d heads: the kernel is not built for this platform.", "percent")]
    (hit,) = match_sites(
        sites, unwrap("Cannot use FLASHINFER backend with 3 heads: the kernel is not built for this platform. x")
    )
    assert (hit.match, dict(hit.filled)) == ("contains", {"%s": "FLASHINFER", "%d": "3"})
    (hit,) = match_sites(sites, unwrap("the kernel is not built for this platform"))
    assert hit.match == "fragment"


def test_a_message_of_placeholders_alone_matches_nothing_and_unlike_text_has_no_nearest() -> None:
    sites = [site("%s: %s", "percent"), site("Unknown quantization method: {name}.", "f-string")]
    assert match_sites(sites, unwrap("anything: at all")) == []
    assert nearest_sites(sites, unwrap("the sky is blue"), 3) == []
    ((near, _),) = nearest_sites(sites, unwrap("Unknown quantisation method fp9"), 3)
    assert near.name.startswith("Unknown quantization method")
