"""How to render a template before numalint reads it: the command a `not-lintable` finding (and `simulate`)
suggests, with the file's own chart or path, so it works where the file is."""

from __future__ import annotations

import os
import shlex

from numalint.reading.sources import Source


def render_kind(source: Source) -> str:
    """Which message a template gets: "helm" for a Go template in a Helm chart (a Chart.yaml above it, or stdin,
    where `helm template` wrote it), "go" for one outside any chart (kube-burner, sed placeholders: no command
    numalint could name renders it), else the source's own kind."""
    if source.template_kind in ("helm", "jinja") and source.path != "-":
        # a chart's template whose values hold Jinja (cloud-init user data) is still rendered by helm
        return "helm" if _chart_of(source.path) is not None else "go" if source.template_kind == "helm" else "jinja"
    return source.template_kind


def render_command(source: Source, command: str) -> str:
    """``helm template CHART | numalint COMMAND -`` for a Helm template (its chart: the nearest directory above
    holding Chart.yaml), ``envsubst < FILE | numalint COMMAND -`` for an envsubst one; for a Jinja or Go
    template outside a chart, to check the rendered file (numalint cannot know the tool that renders it)."""
    if source.template_kind in ("helm", "jinja"):
        chart = _chart_of(source.path) if source.path != "-" else None
        if chart is not None or (source.path == "-" and source.template_kind == "helm"):
            return f"helm template {shlex.quote(chart) if chart else '.'} | numalint {command} -"
        return f"numalint {command} RENDERED.yaml"
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
