from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommandError, parse_serve_command

MULTILINE = """\
VLLM_USE_DEEP_GEMM=1 CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-70B \\
  --quantization=fp8 -tp 2 --max_model_len 4096 --enforce-eager \\
  --speculative-config '{"method": "dflash", "model": "d", "num_speculative_tokens": 7}' \\
  --no-enable-prefix-caching --quantization-config.linear mxfp8 -O3  # the production line
"""


def test_a_multiline_command_yields_env_model_and_every_flag_in_order() -> None:
    command = parse_serve_command(MULTILINE)
    assert command.program == "vllm serve"
    assert command.env == {"VLLM_USE_DEEP_GEMM": "1", "CUDA_VISIBLE_DEVICES": "0,1"}
    assert (command.model, command.model_source) == ("meta-llama/Llama-3.1-70B", "positional")
    assert [(f.name, f.value, f.form) for f in command.flags] == [
        ("--quantization", "fp8", "equals"),
        ("-tp", "2", "separate"),
        ("--max-model-len", "4096", "separate"),
        ("--enforce-eager", None, "bare"),
        ("--speculative-config", '{"method": "dflash", "model": "d", "num_speculative_tokens": 7}', "separate"),
        ("--no-enable-prefix-caching", None, "negated"),
        ("--quantization-config.linear", "mxfp8", "separate"),
        ("--optimization-level", "3", "attached"),
    ]


def test_json_values_are_decoded_and_dotted_flags_keep_their_path() -> None:
    command = parse_serve_command(MULTILINE)
    spec = command.find("--speculative-config")[0]
    assert spec.json_value == {"method": "dflash", "model": "d", "num_speculative_tokens": 7}
    (linear,) = command.find("--quantization-config")
    assert (linear.option, linear.path, linear.tokens) == (
        "--quantization-config",
        ("linear",),
        ["--quantization-config.linear", "mxfp8"],
    )


def test_the_written_spelling_is_kept_next_to_the_canonical_name() -> None:
    flag = parse_serve_command("vllm serve m --max_model_len=8k").flags[0]
    assert (flag.name, flag.written, flag.value, flag.tokens) == (
        "--max-model-len",
        "--max_model_len",
        "8k",
        ["--max_model_len=8k"],
    )


def test_a_broken_json_value_is_kept_with_the_reason() -> None:
    flag = parse_serve_command("vllm serve m --speculative-config '{\"method\": }'").flags[0]
    assert flag.value == '{"method": }'
    assert flag.json_value is None
    assert flag.json_error is not None and "not valid JSON" in flag.json_error


def test_the_api_server_module_form_takes_the_model_from_the_flag() -> None:
    command = parse_serve_command("/opt/venv/bin/python3 -m vllm.entrypoints.openai.api_server --model m -q awq")
    assert command.program == "python -m vllm.entrypoints.openai.api_server"
    assert command.program_tokens == ["/opt/venv/bin/python3", "-m", "vllm.entrypoints.openai.api_server"]
    assert (command.model, command.model_source) == ("m", "flag")
    assert [(f.name, f.value) for f in command.flags] == [("--model", "m"), ("-q", "awq")]


def test_known_boolean_flags_do_not_swallow_the_model() -> None:
    guessed = parse_serve_command("vllm serve --enforce-eager m --port 8000", bare_flags={"--enforce-eager"})
    assert guessed.model == "m"
    assert [(f.name, f.value) for f in guessed.flags] == [("--enforce-eager", None), ("--port", "8000")]


def test_a_hash_inside_a_word_is_not_a_comment_and_continuations_join_inside_double_quotes() -> None:
    command = parse_serve_command('vllm serve m --served-model-name a#b --chat-template "x\\\ny"')
    assert [f.value for f in command.flags] == ["a#b", "xy"]


def test_negative_numbers_are_values_not_flags() -> None:
    assert parse_serve_command("vllm serve m --seed -1").flags[0].value == "-1"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("vllm serve m --chat-template 'abc", "Unbalanced ' quote: the one at line 1, column 30"),
        ('vllm serve m \\\n --x "abc', 'Unbalanced " quote: the one at line 2, column 6'),
        ("vllm bench serve m", "No `vllm serve` command"),
        ("nohup vllm serve m", "'nohup' comes before `vllm serve`"),
        ("vllm serve m --port 1 && echo ok", "shell operator '&&'"),
        ("vllm serve m\nvllm serve n", "holds 2 commands"),
        ("vllm serve m \\", "lone backslash"),
        ("vllm serve a b", "Unexpected positional argument(s) ['b']"),
        ("vllm serve a --model b", "The model is given twice"),
        ("python -m vllm.entrypoints.openai.api_server m", "takes the model only as --model"),
        ("vllm serve m --quantization-config.linear", "dotted flag --quantization-config.linear needs a value"),
        ("   # just a comment", "The command line is empty"),
    ],
)
def test_unreadable_lines_raise_an_error_that_says_what_is_wrong(line: str, says: str) -> None:
    with pytest.raises(ServeCommandError) as info:
        parse_serve_command(line)
    assert says in str(info.value)
    assert isinstance(info.value, ValueError)


_names = st.from_regex(r"\A--[a-z][a-z0-9-]{0,15}\Z").filter(lambda n: not n.startswith(("--no-", "--model")))
_values = st.one_of(
    st.none(),
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"), max_size=20),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3).map(json.dumps),
)


@given(flags=st.lists(st.tuples(_names, _values, st.booleans()), max_size=8))
def test_any_flag_list_rendered_with_shlex_join_parses_back_to_the_same_flags(
    flags: list[tuple[str, str | None, bool]],
) -> None:
    words = ["vllm", "serve", "org/model"]
    for name, value, equals in flags:
        assume(name.replace("_", "-") == name)
        if value is None:
            words.append(name)
        elif equals or value.startswith("-"):
            words.append(f"{name}={value}")
        else:
            words += [name, value]
    command = parse_serve_command(shlex.join(words))
    assert command.model == "org/model"
    assert [(f.name, f.value) for f in command.flags] == [(n, v) for n, v, _ in flags]


@pytest.mark.parametrize("value", [";", "&&", "|", "a;b", "x || y", "> out"])
def test_a_quoted_shell_operator_inside_a_value_is_kept_as_data(value: str) -> None:
    for quoted in (shlex.quote(value), '"' + value + '"'):
        command = parse_serve_command(f"vllm serve m --chat-template {quoted} --port 1")
        assert [(f.option, f.value) for f in command.flags] == [("--chat-template", value), ("--port", "1")]
