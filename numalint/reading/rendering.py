"""How to render a template before numalint reads it: the command a `not-lintable` finding (and `simulate`)
suggests, with the file's own chart or path, so it works where the file is."""

from __future__ import annotations

import os
import shlex

from numalint.reading.sources import Source


def render_command(source: Source, command: str) -> str:
    """``helm template CHART | numalint COMMAND -`` for a Helm template (its chart: the nearest directory above
    holding Chart.yaml), ``envsubst < FILE | numalint COMMAND -`` for an envsubst one."""
    if source.template_kind == "helm":
        chart = _chart_of(source.path) if source.path != "-" else None
        return f"helm template {shlex.quote(chart) if chart else '.'} | numalint {command} -"
    path = shlex.quote(source.path) if source.path != "-" else "FILE"
    return f"envsubst < {path} | numalint {command} -"


def _chart_of(path: str) -> str | None:
    """The directory of the Helm chart ``path`` belongs to, named as ``path`` is: absolute, or relative to the
    working directory."""
    directory = os.path.dirname(os.path.abspath(path))
    while not os.path.isfile(os.path.join(directory, "Chart.yaml")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return directory if os.path.isabs(path) else os.path.relpath(directory)
