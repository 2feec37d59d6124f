"""`vllm serve` flags at a tag, read from the functions that build its parser.

The serve command (vllm/entrypoints/cli/serve.py, earlier vllm/scripts.py) hands its
subparser to `make_arg_parser`, which adds the frontend flags (--host, --port...) and
`AsyncEngineArgs.add_cli_args`. Releases before `vllm serve` existed (0.4.x-0.5.4) get the
flags of the OpenAI API server, the same parser under `python -m`. Old releases write
`add_argument('--flag', choices=[...])` by hand; newer ones derive kwargs from config
dataclasses with `get_kwargs`; walk.py follows both.

`default` is the literal the source states (defaults.py follows `EngineArgs.x` and
`CacheConfig.x` to it); a computed one keeps its expression instead of a value.

`choices` lists what argparse enforces as a closed literal set. A `Literal[...] | str`
field (e.g. --quantization from 0.10.1) accepts any string, and `choices=[*NAMES]` is
computed: both give None, and the quantization_methods kind lists the method names.
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.cli_flags.field_types import read_rules
from vllm_quant_mcp.knowledge.extract.cli_flags.values import Flag
from vllm_quant_mcp.knowledge.extract.cli_flags.walk import Walker
from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import matches, text
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import CliFlag
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["extract_cli_flags"]

SERVE_COMMANDS = ("vllm/entrypoints/cli/serve.py", "vllm/scripts.py")
API_SERVER_ARGS = "vllm/entrypoints/openai/cli_args.py"
ARG_UTILS = "vllm/engine/arg_utils.py"
_KWARGS_FUNCTIONS = ("get_kwargs", "_compute_kwargs", "literal_to_kwargs")


def extract_cli_flags(tree: SourceTree) -> Extracted[list[CliFlag]]:
    modules = Modules(tree)
    walker = Walker(modules, read_rules(_kwargs_source(modules)))
    note = _walk_serve_parser(modules, walker)
    if note is not None and not walker.flags:
        return Extracted([], note=note, warnings=walker.warnings)
    engine_fields = _engine_fields(modules)
    flags: dict[str, CliFlag] = {}
    for flag in walker.flags:
        flags.setdefault(flag.name.value, _entry(tree, flag, engine_fields))
    if not flags:
        return Extracted([], note=f"make_arg_parser added no flags at {tree.tag}", warnings=walker.warnings)
    return Extracted(sorted(flags.values(), key=lambda f: f.name), note=note, warnings=walker.warnings)


def _walk_serve_parser(modules: Modules, walker: Walker) -> str | None:
    """Walk the serve command's own flags, then make_arg_parser; a note says what was (not) found."""
    for path in SERVE_COMMANDS:
        # A file that never names make_arg_parser cannot hand it the parser: it is not parsed.
        named = modules.tree.exists(path) and b"make_arg_parser" in modules.tree.read_bytes(path)
        index = modules.index(path) if named else None
        if index is None:
            continue
        for captures in matches("cli_flags/serve", index.root):
            builder_path, builder_name = modules.imported(index, "make_arg_parser") or (path, "make_arg_parser")
            builder = modules.index(builder_path)
            function = builder.functions.get(builder_name) if builder is not None else None
            if function is None:
                continue
            caller = _enclosing_function(captures["parser_call"][0])
            if caller is not None:  # the serve command's own flags, on the parser it hands over
                receiver = text(captures["parser_call.receiver"][0])
                walker.walk_function(path, caller, {}, receivers=frozenset({receiver}))
            walker.walk_function(builder_path, function, {})
            return None
    legacy = modules.index(API_SERVER_ARGS)
    if legacy is not None and "make_arg_parser" in legacy.functions:
        walker.walk_function(legacy.path, legacy.functions["make_arg_parser"], {})
        return (
            "This release has no `vllm serve`; these are the flags of "
            "`python -m vllm.entrypoints.openai.api_server`, built by the same make_arg_parser."
        )
    return (
        f"No serve parser found: none of {', '.join(SERVE_COMMANDS)} calls make_arg_parser "
        f"and {API_SERVER_ARGS} does not define it; this layout is not recognised."
    )


def _enclosing_function(node: tree_sitter.Node) -> tree_sitter.Node | None:
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    return current


def _kwargs_source(modules: Modules) -> str:
    index = modules.index(ARG_UTILS)
    if index is None:
        return ""
    return "\n".join(text(index.functions[name]) for name in _KWARGS_FUNCTIONS if name in index.functions)


def _engine_fields(modules: Modules) -> set[str]:
    """EngineArgs fields (AsyncEngineArgs adds a few): a flag's `field` is set only for these."""
    cls = modules.find_class("AsyncEngineArgs", ARG_UTILS) or modules.find_class("EngineArgs", ARG_UTILS)
    return set(modules.fields(cls)) if cls is not None else set()


def _entry(tree: SourceTree, flag: Flag, engine_fields: set[str]) -> CliFlag:
    name = flag.name.value
    default = flag.default
    return CliFlag(
        name=name,
        provenance=tree.provenance(flag.name.path, flag.name.line),
        field=flag.dest if flag.dest in engine_fields else None,
        choices=flag.choices,
        negation=f"--no-{name[2:]}" if flag.boolean else None,
        deprecated=flag.deprecated,
        aliases=flag.aliases,
        default=default.value if default else None,
        default_provenance=tree.provenance(default.path, default.line) if default else None,
        default_expression=default.expression if default else None,
    )
