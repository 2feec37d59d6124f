"""Past selection, on a small tree written here: which constructor raises an input reaches, and which it does not."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.extract.attention.build import Constructors
from vllm_quant_mcp.knowledge.extract.engine import CAPABILITY, INPUT, Cap, ClassRef, Interpreter, Modules
from vllm_quant_mcp.knowledge.extract.engine.values import MARKS, questions_of
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

BACKEND = """\
from vllm.platforms import current_platform

try:
    from vllm._C import KERNEL_DTYPES
except ImportError:
    KERNEL_DTYPES = ()


class BaseBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.kv_cache_spec = kv_cache_spec
        self.vllm_config = vllm_config


class Builder(BaseBuilder[Metadata]):
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        super().__init__(kv_cache_spec, layer_names, vllm_config, device)
        self.cache_dtype = self.vllm_config.cache_config.cache_dtype
        self.has_sinks = vllm_config.model_config.has_sinks
        if self.cache_dtype == "nvfp4":
            if not current_platform.is_device_capability_family(100):
                raise ValueError("nvfp4 needs sm100")
        if self.has_sinks and self.cache_dtype == "fp8":
            raise NotImplementedError("sinks with fp8")
        if self.cache_dtype == "fp8_e5m2" and self.cache_dtype not in KERNEL_DTYPES:
            raise ValueError("e5m2 kernels not built")


class Impl:
    def __init__(self, num_heads, head_size, kv_cache_dtype, sinks=None):
        if sinks is not None:
            raise ValueError("sinks need a head count")
        if current_platform.has_device_capability(90):
            self.fast = True
        else:
            self.fast = False
        if not self.fast:
            raise ValueError("needs sm90")
        if kv_cache_dtype == "int8" and head_size != 64:
            self._refuse(kv_cache_dtype)

    def _refuse(self, dtype):
        self._deeper(dtype)
        raise ValueError(f"{dtype} needs head size 64")

    def _deeper(self, dtype):
        raise ValueError("two calls deep: not followed")


class Backend:
    @staticmethod
    def get_builder_cls():
        return Builder

    @staticmethod
    def get_impl_cls():
        return Impl
"""


def _backend(tmp_path: Path) -> tuple[Modules, ClassRef]:
    path = tmp_path / "vllm" / "backend.py"
    path.parent.mkdir(parents=True)
    path.write_text(BACKEND, encoding="utf-8")
    modules = Modules(SourceTree(tmp_path, "v9.9.9"))
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    return modules, backend


def _line(text: str) -> int:
    return next(i for i, line in enumerate(BACKEND.splitlines(), 1) if text in line)


def test_a_raise_guarded_by_the_kv_dtype_and_the_gpu_is_reached_off_that_gpu_only(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    hopper, asked = Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "nvfp4", 128)
    (raised,) = hopper
    assert (raised.verdict, raised.path, raised.line) == ("no", "vllm/backend.py", _line("nvfp4 needs sm100"))
    assert raised.why == "Builder.__init__ raises ValueError: nvfp4 needs sm100"
    assert asked & MARKS == {CAPABILITY, INPUT}  # kept per KV dtype and per GPU
    # what SM90 was asked on the way, so a GPU answering alike (SM89 does not: has 90) may reuse the answer
    assert set(questions_of(asked) or ()) == {("has", 90, True), ("family", 100, False)}
    assert Constructors().raises(Interpreter(modules, "cuda", Cap(10, 0)), backend, "nvfp4", 128)[0] == []


def test_a_raise_that_also_needs_a_model_feature_does_not_count_against_the_kv_dtype(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    assert Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "fp8", 128)[0] == []


def test_a_guard_on_the_kv_dtype_left_to_run_time_is_conditional_citing_the_guard(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    (raised,), _ = Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "fp8_e5m2", 128)
    assert raised.verdict == "conditional"
    assert raised.line == _line('if self.cache_dtype == "fp8_e5m2"')
    assert f"(line {_line('e5m2 kernels not built')})" in raised.why


def test_a_raise_in_a_method_the_constructor_calls_on_self_is_followed_one_level_deep(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    (raised,), asked = Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "int8", 128)
    assert (raised.verdict, raised.line) == ("no", _line("needs head size 64"))
    assert raised.why.startswith("Impl._refuse raises ValueError: {dtype} needs head size 64")
    assert INPUT in asked
    assert Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "int8", 64)[0] == []


def test_a_flag_set_under_a_gpu_check_carries_the_gpu_into_the_raise_it_guards(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    (raised,), asked = Constructors().raises(Interpreter(modules, "cuda", Cap(8, 0)), backend, "auto", 128)
    assert (raised.verdict, raised.line, CAPABILITY in asked) == ("no", _line("needs sm90"), True)


def test_a_dtype_no_guard_names_reaches_nothing(tmp_path: Path) -> None:
    modules, backend = _backend(tmp_path)
    assert Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "auto", 128)[0] == []


KERNEL_CHOICE = """\
from vllm.platforms import current_platform


class Builder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.cache_dtype = vllm_config.cache_config.cache_dtype
        if current_platform.has_device_capability(100):
            self.kernel = "trtllm"
        else:
            self.kernel = "fa2"
        if self.kernel == "fa2" and self.cache_dtype == "nvfp4":
            raise ValueError("fa2 cannot read nvfp4")


class PlainBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        if vllm_config.cache_config.cache_dtype == "int8":
            raise ValueError("no int8 here")


class Backend:
    @staticmethod
    def get_builder_cls():
        return Builder


class PlainBackend:
    @staticmethod
    def get_builder_cls():
        return PlainBuilder
"""
GRID = (Cap(8, 0), Cap(9, 0), Cap(10, 0), Cap(12, 0))


def _kernel_choice(tmp_path: Path, name: str) -> tuple[Modules, ClassRef]:
    path = tmp_path / "vllm" / "choice.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(KERNEL_CHOICE, encoding="utf-8")
    modules = Modules(SourceTree(tmp_path, "v9.9.9"))
    backend = modules.find_class(name, "vllm/choice.py")
    assert backend is not None
    return modules, backend


def test_a_gpu_read_that_leads_to_no_raise_is_settled_for_every_gpu_in_one_walk_with_the_gpu_open(
    tmp_path: Path,
) -> None:
    modules, backend = _kernel_choice(tmp_path, "Backend")
    anywhere = Constructors().on_any_gpu(Interpreter(modules, "cuda", None), backend, "fp8", 128)
    assert anywhere is not None
    assert anywhere[0] == [] and CAPABILITY in anywhere[1]
    for cap in GRID:  # walked GPU by GPU, the same answer
        assert Constructors().raises(Interpreter(modules, "cuda", cap), backend, "fp8", 128)[0] == []


def test_a_raise_some_gpu_reaches_leaves_the_open_walk_undecided_and_each_gpu_is_walked(tmp_path: Path) -> None:
    modules, backend = _kernel_choice(tmp_path, "Backend")
    assert Constructors().on_any_gpu(Interpreter(modules, "cuda", None), backend, "nvfp4", 128) is None
    (raised,), _ = Constructors().raises(Interpreter(modules, "cuda", Cap(9, 0)), backend, "nvfp4", 128)
    assert (raised.verdict, raised.line) == ("no", _kernel_line("fa2 cannot read nvfp4"))
    assert Constructors().raises(Interpreter(modules, "cuda", Cap(10, 0)), backend, "nvfp4", 128)[0] == []


def test_a_walk_that_never_asks_the_gpu_answers_every_gpu_raises_and_all(tmp_path: Path) -> None:
    modules, backend = _kernel_choice(tmp_path, "PlainBackend")
    anywhere = Constructors().on_any_gpu(Interpreter(modules, "cuda", None), backend, "int8", 128)
    assert anywhere is not None
    (raised,), asked = anywhere
    assert (raised.verdict, raised.line, asked) == ("no", _kernel_line("no int8 here"), {INPUT})
    for cap in GRID:
        assert Constructors().raises(Interpreter(modules, "cuda", cap), backend, "int8", 128)[0] == [raised]


def _kernel_line(text: str) -> int:
    return next(i for i, line in enumerate(KERNEL_CHOICE.splitlines(), 1) if text in line)
