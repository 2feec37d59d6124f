"""find_invocations on hostile or unusual deployment files: alias bombs, oversized input, shell quirks, odd tags."""

from __future__ import annotations

import pytest

from vllm_quant_mcp.knowledge.deploy.files import MAX_FILE_BYTES, DeployFileError, find_invocations

# Nine alias levels of ten: walked naively, 10**9 mappings; the container sits beside them.
ALIAS_BOMB = """\
kind: Deployment
metadata: {name: bomb}
a: &a [{x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}, {x: 1}]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
spec: {template: {spec: {containers: [{name: vllm, image: "vllm/vllm-openai:v0.30.0", args: [--model, m]}]}}}
"""


@pytest.mark.timeout(20)
def test_an_alias_bomb_manifest_is_read_once_per_node_and_its_container_found() -> None:
    kind, (inv,) = find_invocations(ALIAS_BOMB, "bomb.yaml")
    assert (kind, inv.where, inv.line) == ("k8s", "Deployment/bomb container vllm", 12)
    assert (inv.command, inv.pinned_tag) == ("vllm serve --model m", "v0.30.0")


@pytest.mark.timeout(20)
def test_an_alias_bomb_used_as_container_args_is_refused_not_expanded() -> None:
    text = ALIAS_BOMB.replace("args: [--model, m]", "args: *i")
    with pytest.raises(DeployFileError, match="Deployment/bomb container vllm args"):
        find_invocations(text, "bomb.yaml")


def test_a_file_over_the_size_cap_is_refused_with_the_cap_named() -> None:
    text = "#!/bin/sh\n" + "# padding\n" * (MAX_FILE_BYTES // 10 + 1)
    with pytest.raises(DeployFileError, match=r"big\.sh is 1,000,020 bytes.*up to 1,000,000 bytes"):
        find_invocations(text, "big.sh")


def test_a_variable_assigned_then_exported_reaches_the_server_without_a_false_note() -> None:
    script = "#!/bin/sh\nVLLM_LOGGING_LEVEL=DEBUG\nHF_HOME=/data\nexport VLLM_LOGGING_LEVEL HF_HOME\nvllm serve m\n"
    _, (inv,) = find_invocations(script, "run.sh")
    assert inv.env == {"VLLM_LOGGING_LEVEL": "DEBUG", "HF_HOME": "/data"}
    assert inv.notes == []


def test_a_variable_assigned_and_never_exported_is_still_noted() -> None:
    _, (inv,) = find_invocations("#!/bin/sh\nVLLM_LOGGING_LEVEL=DEBUG\nexport HF_HOME\nvllm serve m\n", "run.sh")
    assert inv.env == {}
    assert inv.notes == ["VLLM_LOGGING_LEVEL assigned without `export`: the vLLM process does not see it."]


def test_reassigning_an_exported_variable_changes_what_the_server_sees() -> None:
    _, (inv,) = find_invocations("#!/bin/sh\nexport VLLM_X=1\nVLLM_X=2\nvllm serve m\n", "run.sh")
    assert (inv.env, inv.notes) == ({"VLLM_X": "2"}, [])


def test_a_compose_command_with_unbalanced_quotes_names_its_service() -> None:
    compose = "services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    command: --model 'm --port 8000\n"
    with pytest.raises(DeployFileError, match="service llm command"):
        find_invocations(compose, "docker-compose.yml")


def test_an_image_tag_with_a_build_variant_pins_its_release_and_says_so() -> None:
    compose = "services:\n  llm:\n    image: vllm/vllm-openai:v0.9.0-cu128\n    command: --model m\n"
    _, (inv,) = find_invocations(compose, "docker-compose.yml")
    assert (inv.pinned_tag, inv.pinned_by) == ("v0.9.0", "image vllm/vllm-openai:v0.9.0-cu128")
    assert inv.notes == [
        "The image tag 'v0.9.0-cu128' is read as release v0.9.0 (the '-cu128' suffix is a build variant)."
    ]


def test_an_image_tag_that_is_no_release_number_pins_nothing() -> None:
    compose = "services:\n  llm:\n    image: vllm/vllm-openai:0.9.0.1234\n    command: --model m\n"
    _, (inv,) = find_invocations(compose, "docker-compose.yml")
    assert inv.pinned_tag is None and "not a vLLM release number" in inv.notes[0]


def test_yaml_nested_thousands_deep_is_refused_as_a_deploy_file_error() -> None:
    text = "kind: Deployment\nx: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(DeployFileError, match="nests lists or mappings too deeply"):
        find_invocations(text, "deep.yaml")


def test_a_heredoc_body_is_data_not_an_invocation() -> None:
    script = (
        "#!/bin/sh\n"
        "cat <<'EOF' > later.sh\n"
        "vllm serve written --quantization fp8\n"
        "EOF\n"
        "cat <<-END\n"
        "\tvllm serve indented\n"
        "\tEND\n"
        "# a comment naming <<NOTHING is no heredoc\n"
        "vllm serve real --max-model-len 4096\n"
    )
    _kind, invocations = find_invocations(script, "run.sh")
    assert [(inv.line, inv.command) for inv in invocations] == [(9, "vllm serve real --max-model-len 4096")]
