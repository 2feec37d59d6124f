"""The state a walk carries through branches: restored between them, joined after them, tainted by what chose them."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.extract.engine import INPUT, Obj, Scope, Unknown
from vllm_quant_mcp.knowledge.extract.engine.branches import State


def test_after_branches_a_name_they_agree_on_keeps_its_value_and_one_they_disagree_on_is_unknown() -> None:
    scope, this = Scope("vllm/x.py", {"kv": "fp8"}), Obj("self")
    before = State.of(scope, this)
    scope.locals["mode"], this.attrs["ok"] = "a", True
    first = State.of(scope, this)
    before.restore(scope, this)
    assert scope.locals == {"kv": "fp8"} and this.attrs == {}
    scope.locals["mode"], this.attrs["ok"] = "b", True
    State.join(scope, this, [first, State.of(scope, this)])
    assert scope.locals["kv"] == "fp8" and this.attrs["ok"] is True
    assert isinstance(scope.locals["mode"], Unknown)


def test_a_name_only_one_branch_sets_is_unknown_after_them() -> None:
    scope, this = Scope("vllm/x.py"), Obj("self")
    before = State.of(scope, this)
    this.attrs["workspace"] = 1
    State.join(scope, this, [before, State.of(scope, this)])
    assert isinstance(this.attrs["workspace"], Unknown)


def test_what_a_branch_set_reads_what_chose_the_branch() -> None:
    scope, this = Scope("vllm/x.py", {"kv": "fp8"}), Obj("self")
    before = State.of(scope, this)
    this.attrs["use_fp8"] = True
    before.taint(scope, this, frozenset({INPUT}))
    assert this.marks == {"use_fp8": frozenset({INPUT})}
    assert scope.marks == {}
