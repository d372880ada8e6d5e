"""What a simulation produced, in a module of its own: a run without kubelet configurations or topologies
has an empty one without importing the alignment core and the scheduler (start-up time). The pools' type is a
parameter (``Simulation[PoolRun]``), so this module names nothing of ``simulate``, which imports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from numalint.simulation.node_state import StateProblem

PoolResult = TypeVar("PoolResult")


@dataclass(frozen=True)
class Simulation(Generic[PoolResult]):
    """Every pool with a topology, after admitting the run's workloads; node-state problems found."""

    pools: tuple[PoolResult, ...]
    node_state_problems: tuple[StateProblem, ...] = ()
