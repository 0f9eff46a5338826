"""bench/scale/'s pure pieces: its --checkpoints, and memory and parents read from /proc."""

from __future__ import annotations

import argparse
import os

import pytest

from bench.scale.probes import (
    checkpoints,
    children_of,
    memory_of,
    memory_of_status,
    parent_of_stat,
)

STATUS = """Name:\tsignoff
Umask:\t0022
State:\tS (sleeping)
VmPeak:\t 2000000 kB
VmHWM:\t  230400 kB
VmRSS:\t  184320 kB
RssAnon:\t  150000 kB
Threads:\t12
"""


def test_checkpoints_are_increasing_counts() -> None:
    assert checkpoints("1000,5000,10000") == (1000, 5000, 10000)
    assert checkpoints(" 200, 500 ") == (200, 500)


@pytest.mark.parametrize("text", ["", "1000,abc", "0,10", "-5", "5000,1000", "100,100"])
def test_bad_checkpoints_say_what_to_give(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="1000"):
        checkpoints(text)


def test_rss_and_its_peak_come_from_vmrss_and_vmhwm_not_vmpeak() -> None:
    memory = memory_of_status(STATUS)
    assert memory.rss_mib == 180.0
    assert memory.peak_mib == 225.0


def test_a_status_without_rss_is_refused() -> None:
    kernel_thread = "Name:\tkthreadd\nState:\tS (sleeping)\nThreads:\t1\n"
    with pytest.raises(ValueError, match="VmRSS"):
        memory_of_status(kernel_thread)


def test_the_parent_is_read_past_a_process_name_with_spaces_and_parentheses() -> None:
    assert parent_of_stat("4242 (my (odd) name) S 17 4242 4242 0 -1 4194560") == 17


def test_this_process_is_found_among_its_parents_children_and_has_memory() -> None:
    assert os.getpid() in children_of(os.getppid())
    own = memory_of(os.getpid())
    assert 0 < own.rss_mib <= own.peak_mib
