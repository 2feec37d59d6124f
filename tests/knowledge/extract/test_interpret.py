"""The three-valued interpreter on small trees written here: what it decides, and what it leaves open and where."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.extract.engine import Cap, Interpreter, Modules, Shared, Unknown
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

BACKEND = """
from vllm.platforms import current_platform
from vllm.platforms.interface import DeviceCapability
import vllm.envs as envs

try:
    from vllm._C import kernel
    KERNEL_BUILT = True
except ImportError:
    KERNEL_BUILT = False

IS_HOPPER = current_platform.is_device_capability_family(90)
logger = make_logger()


class Base:
    supported = ["auto"]

    @classmethod
    def accepts(cls, kv):
        return kv in cls.supported


class Backend(Base):
    supported = ["auto", "fp8"]

    @classmethod
    def capability_ok(cls, capability):
        return capability >= DeviceCapability(8, 0) and capability.major != 11

    @classmethod
    def fast_path(cls, kv):
        if kv == "fp8":
            return KERNEL_BUILT
        return super().accepts(kv)

    @classmethod
    def same_either_way(cls):
        if KERNEL_BUILT:
            return True
        return True

    @classmethod
    def batch_invariant(cls):
        return envs.VLLM_BATCH_INVARIANT

    @classmethod
    def hopper(cls):
        logger.info("checking")
        return IS_HOPPER

    @classmethod
    def forever(cls, n):
        return cls.forever(n + 1)

    @classmethod
    def blackwell_first(cls):
        if current_platform.is_device_capability_family(100):
            return ["trtllm", "cutlass"]
        return ["triton"]

    @classmethod
    def blackwell_first_raw(cls):
        if current_platform.get_device_capability().major == 10:
            return ["trtllm", "cutlass"]
        return ["triton"]
"""


def _modules(tmp_path: Path) -> tuple[Modules, SourceTree]:
    path = tmp_path / "vllm" / "backend.py"
    path.parent.mkdir(parents=True)
    path.write_text(BACKEND, encoding="utf-8")
    tree = SourceTree(tmp_path, "v9.9.9")
    return Modules(tree), tree


def test_a_capability_rule_is_decided_per_gpu(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    answers = {
        str(cap): Interpreter(modules, "cuda", cap).call_method(backend, "capability_ok", capability=cap)
        for cap in (Cap(7, 5), Cap(9, 0), Cap(11, 0), Cap(12, 0))
    }
    assert answers == {"7.5": False, "9.0": True, "11.0": False, "12.0": True}


def test_a_value_set_at_import_time_is_left_open_citing_where_it_is_set(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    it = Interpreter(modules, "cuda", Cap(9, 0))
    open_answer = it.call_method(backend, "fast_path", kv="fp8")
    assert isinstance(open_answer, Unknown)
    assert open_answer.reasons[0].why.startswith("KERNEL_BUILT is decided when vllm/backend.py is imported")
    assert it.call_method(backend, "fast_path", kv="auto") is True  # super(): Base.accepts with Backend's list
    assert it.call_method(backend, "same_either_way") is True  # both branches agree, whatever the build


def test_an_env_variable_reads_its_default_and_the_answer_says_so(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    unknown_env = Interpreter(modules, "cuda", Cap(9, 0)).call_method(backend, "batch_invariant")
    assert isinstance(unknown_env, Unknown) and "VLLM_BATCH_INVARIANT" in unknown_env.reasons[0].why
    it = Interpreter(modules, "cuda", Cap(9, 0), env={"VLLM_BATCH_INVARIANT": "0"})
    assert it.call_method(backend, "batch_invariant") is False
    assert it.assumed == {"VLLM_BATCH_INVARIANT at its default (0)"}


def test_a_module_value_computed_from_the_gpu_is_never_shared_between_gpus(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    shared = Shared()
    ampere = Interpreter(modules, "cuda", Cap(8, 0), shared=shared)
    hopper = Interpreter(modules, "cuda", Cap(9, 0), shared=shared)
    assert ampere.call_method(backend, "hopper") is False
    assert hopper.call_method(backend, "hopper") is True


def test_a_result_is_shared_between_gpus_that_answer_its_capability_questions_alike(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    caps = (Cap(10, 0), Cap(10, 3), Cap(9, 0), Cap(12, 0))
    shared = Shared()
    asked = {
        cap: Interpreter(modules, "cuda", cap, shared=shared).call_method(backend, "blackwell_first") for cap in caps
    }
    alone = {cap: Interpreter(modules, "cuda", cap).call_method(backend, "blackwell_first") for cap in caps}
    assert asked == alone  # the same answers as interpreters that share nothing
    assert asked[Cap(10, 0)] == ["trtllm", "cutlass"] and asked[Cap(9, 0)] == ["triton"]
    # SM103 is in family 100 as SM100 is, SM120 outside it as SM90 is: each reuses the other's answer, the very list
    assert asked[Cap(10, 3)] is asked[Cap(10, 0)] and asked[Cap(12, 0)] is asked[Cap(9, 0)]
    assert asked[Cap(9, 0)] is not asked[Cap(10, 0)]


def test_a_result_that_read_the_capability_itself_is_computed_for_each_gpu(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    shared = Shared()
    sm100, sm103 = (
        Interpreter(modules, "cuda", cap, shared=shared).call_method(backend, "blackwell_first_raw")
        for cap in (Cap(10, 0), Cap(10, 3))
    )
    assert sm100 == sm103 == ["trtllm", "cutlass"]
    assert sm100 is not sm103  # get_device_capability() answered raw: no question another GPU could answer alike


def test_recursion_without_end_is_left_open_instead_of_hanging(tmp_path: Path) -> None:
    modules, _ = _modules(tmp_path)
    backend = modules.find_class("Backend", "vllm/backend.py")
    assert backend is not None
    answer = Interpreter(modules, "cuda", Cap(9, 0)).call_method(backend, "forever", n=0)
    assert isinstance(answer, Unknown) and "nest too deep" in answer.reasons[0].why
