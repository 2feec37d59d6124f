"""diff_tags on the bundled registries: the kernel picks that changed, paged after the kinds and printed per GPU."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.diff_tags.models import DiffTagsQuery
from vllm_quant_mcp.tools.diff_tags.text import render
from vllm_quant_mcp.tools.diff_tags.tool import diff_tags

PRIORITY = "vllm/model_executor/layers/quantization/utils/humming/priority.py"
LINEAR = "vllm/model_executor/kernels/linear/__init__.py"


def test_the_kernels_kind_from_v0_31_0_to_v0_32_0_names_the_gptq_w4a16_walk_on_sm90_at_each_tags_line(
    ctx: ToolContext,
) -> None:
    page = diff_tags(ctx, DiffTagsQuery(from_tag="v0.31.0", to_tag="v0.32.0", kind="kernels"))
    (gptq,) = [c for c in page.kernel_picks if (c.layer, c.scheme, c.backend) == ("linear", "gptq-w4a16", "auto")]
    assert gptq.capabilities == ["9.0"]
    (line,) = [t for t in render(page).splitlines() if "linear gptq-w4a16, --linear-backend auto on 9.0" in t]
    before, after = line.split(" → ")
    assert before.endswith(f"MacheteLinearKernel, then MarlinLinearKernel; {LINEAR}:501")
    # the line cited is the CUDA member of _POSSIBLE_KERNELS, the list the walk read
    lines = release_tree("0.31.0").read_text(LINEAR).splitlines()
    assert lines[500].strip() == "PlatformEnum.CUDA: [" and lines[499].startswith("_POSSIBLE_KERNELS: dict[")
    assert after == f"MacheteLinearKernel, then HummingLinearKernel; {PRIORITY}:26"
    assert page.total == len(page.kernel_picks) + sum(
        len(k.changed) + len(k.added) + len(k.removed) for k in page.kinds
    )


def test_kernel_picks_page_after_the_kinds_and_the_pages_join_to_the_whole_diff(ctx: ToolContext) -> None:
    whole = diff_tags(ctx, DiffTagsQuery(from_tag="v0.31.0", to_tag="v0.32.0", kind="kernels"))
    pages, cursor = [], None
    while True:
        page = diff_tags(
            ctx, DiffTagsQuery(from_tag="v0.31.0", to_tag="v0.32.0", kind="kernels", limit=4, cursor=cursor)
        )
        pages.append(page)
        cursor = page.next
        if cursor is None:
            break
    assert len(pages) > 1 and {p.total for p in pages} == {whole.total}
    assert [c for p in pages for c in p.kernel_picks] == whole.kernel_picks
    assert [k.kind for k in pages[0].kinds] == ["kernels"] and not pages[-1].kinds


def test_another_kind_leaves_the_kernel_picks_out(ctx: ToolContext) -> None:
    page = diff_tags(ctx, DiffTagsQuery(from_tag="v0.31.0", to_tag="v0.32.0", kind="cli_flags"))
    assert page.kernel_picks == [] and "kernel picks" not in render(page)


def test_a_hop_without_a_kernel_change_reports_none(ctx: ToolContext) -> None:
    """v0.19.0 -> v0.19.1 changes 37 entries of other kinds, and no list or pick of the kernels kind, CUDA's or
    ROCm's (v0.26.0 adds RDNAHybridW4A16LinearKernel to the ROCm list, so v0.25.1 -> v0.26.0 is no such hop)."""
    page = diff_tags(ctx, DiffTagsQuery(from_tag="v0.19.0", to_tag="v0.19.1", kind="kernels"))
    assert (page.total, page.kernel_picks) == (0, [])
    assert render(page).splitlines()[1:] == ["  no differences"]
    assert diff_tags(ctx, DiffTagsQuery(from_tag="v0.19.0", to_tag="v0.19.1", limit=1)).total > 0
