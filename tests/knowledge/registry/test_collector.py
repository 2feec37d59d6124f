"""The collector's threshold while a registry is derived: raised inside, put back after, shared by threads."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from vllm_quant_mcp.knowledge.registry.collector import YOUNG_THRESHOLD, collecting_less


@pytest.fixture(autouse=True)
def _threshold() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_the_young_threshold_is_raised_inside_and_put_back_after_even_on_an_error() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), collecting_less():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
        raise RuntimeError("an extractor failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_collector_turned_off_stays_off_and_one_set_higher_keeps_its_own() -> None:
    for mine in [(0, 10, 10), (YOUNG_THRESHOLD * 2, 5, 5)]:
        gc.set_threshold(*mine)
        with collecting_less():
            assert gc.get_threshold() == mine
        assert gc.get_threshold() == mine


def test_two_derives_at_once_put_the_threshold_back_when_the_last_one_ends() -> None:
    gc.set_threshold(700, 10, 10)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def first() -> None:
        with collecting_less():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with collecting_less():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.get_threshold())  # the first has ended: still raised for this one

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == [(YOUNG_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
