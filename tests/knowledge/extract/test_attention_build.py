"""Past selection, on a small tree written here: which constructor raises an input reaches, and which it does not."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.extract.attention_build import Constructors
from vllm_quant_mcp.knowledge.extract.cli_flags_modules import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.interpret import CAPABILITY, INPUT, Cap, Interpreter
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
    assert asked == {CAPABILITY, INPUT}  # kept per KV dtype and per GPU
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
