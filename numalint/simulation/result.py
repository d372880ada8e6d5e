"""What a simulation produced, in a module of its own: a run without kubelet configurations or topologies
has an empty one without importing the alignment core and the scheduler (start-up time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numalint.simulation.node_state import StateProblem
    from numalint.simulation.simulate import PoolRun


@dataclass(frozen=True)
class Simulation:
    """Every pool with a topology, after admitting the run's workloads; node-state problems found."""

    pools: tuple[PoolRun, ...]
    node_state_problems: tuple[StateProblem, ...] = ()
