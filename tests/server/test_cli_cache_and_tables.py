"""`cache` as a user runs it, and the tables people read for pick, diff and gates."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import call_cli
from support.paths import REPO

from vllm_quant_mcp.knowledge.hub.memory import estimate
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel

FIGURES = '{"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128}'


def copy_bundled(cache: Path, tag: str) -> None:
    (cache / "registries").mkdir(parents=True, exist_ok=True)
    bundled = (REPO / f"knowledge/registry/bundled/{tag}.json").read_text(encoding="utf-8")
    (cache / "registries" / f"{tag}.json").write_text(bundled, encoding="utf-8")


def test_cache_list_prune_and_clear_as_a_user_runs_them(tmp_path: Path) -> None:
    copy_bundled(tmp_path, "v0.32.0")
    listed = json.loads(call_cli("cache", "list", "--json", cache=tmp_path).stdout)
    row = next(t for t in listed["tags"] if t["tag"] == "v0.32.0")
    assert (row["bundled"], row["refreshed"], row["parts"]["registry"] > 0) == (True, True, True)
    text = call_cli("cache", "list", cache=tmp_path).stdout
    assert "v0.32.0" in text and "bundled + refreshed" in text
    nothing = call_cli("cache", "prune", cache=tmp_path)
    assert nothing.returncode == 2 and "--older-than DAYS" in nothing.stderr
    pruned = call_cli("cache", "prune", "--tag", "v0.32.0", cache=tmp_path)
    assert pruned.returncode == 0 and "removed v0.32.0" in pruned.stdout and "bundled" in pruned.stdout
    copy_bundled(tmp_path, "v0.31.0")
    cleared = call_cli("cache", "clear", "--json", cache=tmp_path)
    assert "registries" in json.loads(cleared.stdout)["removed"]
    assert not (tmp_path / "registries").exists()


def test_a_bad_tag_to_prune_is_a_usage_error(tmp_path: Path) -> None:
    done = call_cli("cache", "prune", "--tag", "latest", cache=tmp_path)
    assert done.returncode == 2 and "latest" in done.stderr


def test_pick_table_ranks_options_with_separators_and_an_unquantized_baseline(tmp_path: Path) -> None:
    done = call_cli(
        "pick", "--gpu", "h200", "--model-figures", FIGURES, "--num-gpus", "2", "--tag", "v0.32.0", cache=tmp_path
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(
        call_cli(
            "pick",
            "--gpu",
            "h200",
            "--model-figures",
            FIGURES,
            "--num-gpus",
            "2",
            "--tag",
            "v0.32.0",
            "--json",
            cache=tmp_path,
        ).stdout
    )
    options = answer["options"]
    header = next(line for line in done.stdout.splitlines() if "quantization" in line)
    assert header.split() == [
        "#", "quantization", "KV", "dtype", "support", "loads", "/", "KV", "backend", "GB/GPU", "tokens", "fit"
    ]  # fmt: skip
    assert "loads / KV backend: from the source at v0.32.0" in done.stdout
    first = next(line.split() for line in done.stdout.splitlines() if line.split()[:1] == ["1"])
    top = options[0]
    assert first[:4] == ["1", top["quantization"]["name"], top["kv_cache_dtype"]["name"], top["support"]]
    (kv,) = [j for j in top["judgements"] if j["subject"].startswith("--kv-cache-dtype")]
    assert first[4:6] == ["yes", "/"] and " ".join(first[6:-2]) == kv["via"]
    assert first[-1] == f"{top['memory']['tokens_fit']:,}" and "," in first[-1]
    facts = ExplicitModel.model_validate_json(FIGURES).to_facts()
    base = estimate(facts, "bf16", "auto", answer["gpu"]["memory_gb"], 2)
    baseline = next(line.split() for line in done.stdout.splitlines() if "unquantized" in line)
    assert baseline[-2] == f"{base.weights_gb_per_gpu:.1f}" and baseline[-4] == "baseline"
    assert float(baseline[-2]) > float(first[-2])


def test_diff_table_shows_list_fields_as_added_and_removed_items(tmp_path: Path) -> None:
    done = call_cli("diff", "v0.31.0", "v0.32.0", "--kind", "platforms", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "XPUPlatform" in line)
    assert "methods: + fp8_per_channel" in row and "'awq'" not in row
    assert "changes, all on this page" in done.stdout


def test_diff_table_of_the_kernels_kind_shows_each_kernel_pick_that_changed_with_both_tags_lines(
    tmp_path: Path,
) -> None:
    done = call_cli("diff", "v0.31.0", "v0.32.0", "--kind", "kernels", "--wide", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "kernel picks" in done.stdout
    row = next(line for line in done.stdout.splitlines() if "linear gptq-w4a16, --linear-backend auto" in line)
    # the line cited is the CUDA member of _POSSIBLE_KERNELS (tests/tools/diff_tags checks it against the release)
    assert "MarlinLinearKernel; vllm/model_executor/kernels/linear/__init__.py:501" in row
    assert "HummingLinearKernel; vllm/model_executor/layers/quantization/utils/humming/priority.py:26" in row


def test_a_paged_diff_says_how_to_get_the_next_page_with_the_cursor_flag(tmp_path: Path) -> None:
    done = call_cli("diff", "v0.14.0", "v0.33.0", "--limit", "5", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "next page: --cursor " in done.stdout and "cursor=" not in done.stdout


def test_gates_table_says_what_changed_from_old_to_new(tmp_path: Path) -> None:
    # One hop that fits one page: across v0.27.1..v0.32.0 the page budget decides whether a "changed" row
    # makes page one, and longer gate texts push it to the next.
    args = ("gates", "v0.28.0", "v0.29.0", "--changes", "all")
    done = call_cli(*args, cache=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(call_cli(*args, "--json", cache=tmp_path).stdout)
    assert answer["next"] is None
    hops = answer["hops"]
    changes = [c for hop in hops for c in hop["changes"] if c["change"] == "changed" and c["detail"]]
    changed = min(changes, key=lambda c: len(c["detail"]) + len(c["name"]))  # short enough for one table row
    field, _, values = changed["detail"].partition(": ")
    before, after = values.split(" -> ")
    row = next(line for line in done.stdout.splitlines() if changed["name"] in line)
    assert f"{field}: {before} → {after}" in row
    added = next(c for hop in hops for c in hop["changes"] if c["change"] == "choices_added")
    row = next(line for line in done.stdout.splitlines() if "choices_added" in line and added["name"] in line)
    assert f"+ {added['values'][0]}" in row
