"""The command line: thin wrappers around the engine, the catalogue and the reporters."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from numalint import __version__

FAIL_LEVELS = {"info": 0, "warning": 1, "error": 2, "never": 99}
SEVERITY_LEVEL = {"info": 0, "warning": 1, "error": 2}


def _backend() -> str:
    try:
        import ruamel.yaml.cyaml  # noqa: F401  (here, not at the top: only --version asks; start-up time)

        return "libyaml (C)"
    except Exception:  # pragma: no cover - depends on the installation
        return "missing C parser"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """--version: the YAML backend is looked up only when asked (importing it costs every run ~10 ms)."""
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"numalint {__version__} (YAML parser: {_backend()})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
def main() -> None:
    """Catch NUMA-alignment mistakes in Kubernetes node and workload configuration."""


OUTPUT_FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
COLOR_CHOICES = ("always", "never", "auto")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("-f", "--format", "formats", multiple=True, metavar="FMT[=FILE]",
              help=f"Output format: {', '.join(OUTPUT_FORMATS)} [default: text]; repeatable, FMT=FILE writes "
                   "that format to FILE (e.g. -f text -f sarif=numalint.sarif).")
@click.option("-o", "--output-file", "output_file", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the output (the format given without =FILE) to FILE instead of stdout.")
@click.option("--fail-on", type=click.Choice(list(FAIL_LEVELS)), default=None,
              help="Exit 1 when a finding is at or above this severity [default: warning].")
@click.option("--kubernetes-version", "kube_version", metavar="X.Y", default=None,
              help="Kubernetes version the version-dependent rules target [default: newest known].")
@click.option("--openshift-version", "openshift_version", metavar="4.N", default=None,
              help="OpenShift release to target instead: 4.N is Kubernetes 1.(N+13) (4.21 = 1.34).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Configuration file [default: .numalint.yaml found upwards from the working directory].")
@click.option("--topology", "topologies", multiple=True, type=click.Path(readable=False), metavar="FILE",
              help="NodeTopology or NodeResourceTopology file (repeatable).")
@click.option("--jobs", "-j", type=int, default=None,
              help="Processes reading files, numalint's own included "
                   "[default: one per usable CPU; one below 300 files].")
@click.option("--color", "--colour", "color", is_flag=False, flag_value="always", default=None,
              metavar="[always|never|auto]",
              help="Colour text output: always (also when piped), never, auto (a terminal; NO_COLOR and "
                   "FORCE_COLOR are honoured) [default: auto; --color alone: always].")
@click.option("--no-color", "--no-colour", "no_color", is_flag=True, help="Same as --color never.")
@click.option("--show-source", is_flag=True, help="Show the offending line of each finding with a caret.")
@click.option("--node-state", "node_state", type=click.Path(file_okay=False), default=None,
              help="Directory with a node's cpu_manager_state / memory_manager_state to start from.")
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply the safe fixes, then report what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff: also apply fixes that change behaviour.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--select", multiple=True, metavar="RULES",
              help="Report only these rules: slugs, codes (NL203), code prefixes (NL3) or ALL; comma-separated.")
@click.option("--extend-select", multiple=True, metavar="RULES", help="Report these rules too.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Do not report these rules.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of the findings.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary and no hints.")
@click.option("--show-fixes", is_flag=True, help="List the fixes available per finding (safe or unsafe).")
@click.option("--stdin-filename", metavar="PATH", default=None,
              help="The file stdin ('-') stands for: named in findings, configured and judged as that file "
                   "(nothing is read from it or written to it).")
def check(paths: tuple[str, ...], formats: tuple[str, ...], output_file: str | None, fail_on: str | None,
          kube_version: str | None, openshift_version: str | None, config_path: str | None,
          topologies: tuple[str, ...], jobs: int | None, color: str | None, no_color: bool, show_source: bool,
          node_state: str | None, apply_fixes: bool, unsafe_fixes: bool, show_diff: bool, select: tuple[str, ...],
          extend_select: tuple[str, ...], ignore: tuple[str, ...], statistics: bool, quiet: bool,
          show_fixes: bool, stdin_filename: str | None) -> None:
    """Check files and directories (recursively; '-' reads stdin)."""
    from numalint.checks.streamed import run_check

    if color is not None and color not in COLOR_CHOICES:  # `--color PATH`: the old flag, followed by a path
        paths, color = (color, *paths), "always"
    if jobs is not None and jobs < 1:
        raise click.BadParameter("give 1 or more worker processes (leave it out for one per CPU)",
                                 param_hint="--jobs")
    if unsafe_fixes and not (apply_fixes or show_diff):
        raise click.UsageError("--unsafe-fixes applies fixes: use it with --fix or --diff (or `numalint fix`)")
    _require_readable(topologies)
    outputs = _outputs(formats, output_file)
    if show_diff and any(file is not None for _fmt, file in outputs):  # it would silently write no report
        raise click.UsageError("--diff prints the fixes as a diff and writes no report: drop -o / -f FMT=FILE, or "
                               "run check without --diff for the report")
    target = _target(kube_version, openshift_version)
    if not paths:
        raise click.UsageError("give at least one file or directory to check ('-' for stdin)")
    if apply_fixes or show_diff:
        _refuse_mixed_stdin(paths, show_diff)
    paths, stdin_name = _stdin_standing_for(paths, stdin_filename)
    config = _config(config_path, paths)
    options = _options(config, target, jobs or 0, node_state, select, extend_select, ignore)
    look = _Look("never" if no_color else color, show_source, config, paths, quiet=quiet, statistics=statistics,
                 show_fixes=show_fixes)
    stdin_text = _read_stdin() if stdin_name in paths else None
    if apply_fixes or show_diff:
        _run_fix(list(paths) + list(topologies), options, unsafe_fixes, show_diff, stdin_text, stdin_name,
                 outputs, fail_on, look)
        return
    # stdin standing for a file is that file's text; plain stdin is "-"
    named = {stdin_name: stdin_text} if stdin_name != "-" and stdin_text is not None else None
    report = run_check(list(paths) + list(topologies), options, None if named else stdin_text, named)
    nothing = None
    if report.files == 0:
        nothing = "no YAML or JSON files found"
    elif report.readable == 0:
        nothing = "no file could be read or parsed: nothing was checked"
    elif report.incomplete:
        nothing = "some files were not checked: a worker process reading them died"
    _refuse_report_over_inputs(outputs, report.checked, config, options)
    if report.files == 0:
        click.echo(f"numalint: {nothing}", err=True)
        outputs = [(fmt, target) for fmt, target in outputs if fmt != "text"]
    if _present(outputs, report.findings, look.context(report, stdin_text, stdin_name, nothing), look) \
            and not quiet:
        click.echo(_fix_hint(report.findings), nl=False)
    if nothing is not None:
        sys.exit(2)
    threshold = FAIL_LEVELS[fail_on or options.fail_on or "warning"]
    sys.exit(1 if any(SEVERITY_LEVEL[f.severity or "error"] >= threshold for f in report.findings) else 0)


def _outputs(formats: tuple[str, ...], output_file: str | None) -> list[tuple[str, str | None]]:
    """``-f FMT[=FILE]`` options -> (format, file or None for stdout, also written ``-``); at most one format goes
    to stdout (or to ``--output-file``)."""
    outputs: list[tuple[str, str | None]] = []
    for given in formats or ("text",):
        name, sep, target = given.partition("=")
        if name not in OUTPUT_FORMATS:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(OUTPUT_FORMATS)}", param_hint="--format")
        if sep and not target:
            raise click.BadParameter(f"{given!r}: give a file after '='", param_hint="--format")
        outputs.append((name, None if target == "-" else target or None))  # FMT=- is stdout, as usual
    unnamed = [i for i, (_name, target) in enumerate(outputs) if target is None]
    if len(unnamed) > 1:
        raise click.UsageError("several formats would go to the same output: give FMT=FILE for all but one")
    if output_file is not None and output_file != "-":  # -o - is stdout
        if not unnamed:
            raise click.UsageError("--output-file: every format already names its file (FMT=FILE)")
        outputs[unnamed[0]] = (outputs[unnamed[0]][0], output_file)
    targets = [os.path.abspath(target) for _name, target in outputs if target is not None]
    if len(set(targets)) != len(targets):
        raise click.UsageError("two formats would write the same file")
    return outputs


def _refuse_report_over_inputs(outputs: list[tuple[str, str | None]], inputs: Sequence[str],
                               config: Any = None, options: Any = None) -> None:
    """Exit 2, before anything is written, when a report would replace a file the run reads: a checked file, a
    topology, the configuration file, a node-state or context file (a report of an earlier run excepted:
    ``output.overwrite``)."""
    targets = [target for _fmt, target in outputs if target is not None]
    if not targets:
        return
    from numalint.model.kustomize import KUSTOMIZATION_NAMES
    from numalint.output.overwrite import inputs_overwritten
    from numalint.reading.sources import discover

    def read() -> Iterator[str]:  # walked only when a target exists
        yield from inputs
        # the kustomizations beside the inputs are read too (a patch named alone is judged through them)
        yield from (os.path.join(os.path.dirname(path), name) for path in {p for p in inputs if p != "-"}
                    for name in KUSTOMIZATION_NAMES)
        if config is not None and config.path is not None:
            yield str(config.path)
        if options is not None:
            if options.node_state:
                yield from (os.path.join(options.node_state, name)
                            for name in ("cpu_manager_state", "memory_manager_state"))
            yield from discover(options.context, options.exclude, options.exclude_base)[0]

    for target in inputs_overwritten(targets, read()):
        raise OutputError(f"refusing to write the report over {target}: it is a file this run reads; "
                          "write the report to another file")


def _colour(choice: str | None, stream: Any) -> bool:
    """--color always/never win; auto: NO_COLOR (set, non-empty) turns colour off, then FORCE_COLOR (not 0/false)
    turns it on, else a terminal (no-color.org, force-color.org)."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force.strip().lower() not in ("0", "false", "no"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _Look:
    """How findings are rendered beyond their format: colour, source lines, docs URL and the root SARIF and
    GitLab paths are relative to."""

    def __init__(self, color: str | None, show_source: bool, config: Any, paths: tuple[str, ...],
                 quiet: bool = False, statistics: bool = False, show_fixes: bool = False):
        from numalint.output.sources import repository_root

        self.color, self.show_source = color, show_source
        self.quiet, self.statistics, self.show_fixes = quiet, statistics, show_fixes
        self.docs_url, self.config = config.docs_url, config
        self.root = repository_root(list(paths), config.path)

    def context(self, report: Any, stdin_text: str | None, stdin_name: str = "-", notification: str | None = None,
                findings_on_stderr: bool = False) -> Any:
        from numalint.output.report import RenderContext
        from numalint.output.sources import SourceFiles

        return RenderContext(report.files, checked=report.checked, suppressed=list(report.suppressed),
                             root=self.root, docs_url=self.docs_url, show_source=self.show_source,
                             notification=notification, quiet=self.quiet,
                             sources=SourceFiles({stdin_name: stdin_text} if stdin_text is not None else None),
                             colour=_colour(self.color, sys.stderr if findings_on_stderr else sys.stdout))


def _present(outputs: list[tuple[str, str | None]], findings: list[Any], ctx: Any, look: _Look,
             err: bool = False) -> bool:
    """The findings as ``check`` shows them, after a --fix too: with --statistics the counts per rule instead of
    the report to the terminal, then each format, then the fixes per finding (--show-fixes) under a text report
    to the terminal. Whether such a text report was shown (the closing hint goes under it)."""
    if look.statistics:  # ruff's --statistics: counts per rule instead of what would go to the terminal
        outputs = [(fmt, target) for fmt, target in outputs if target is not None]
        click.echo(_statistics(findings), nl=False, err=err)
    _emit(outputs, findings, ctx, look, err=err)
    shown = any(fmt == "text" and target is None for fmt, target in outputs)
    if shown and look.show_fixes:
        click.echo(_fix_list(findings), nl=False, err=err)
    return shown


def _emit(outputs: list[tuple[str, str | None]], findings: list[Any], ctx: Any, look: _Look,
          err: bool = False) -> None:
    """Render each format to its file or to stdout (stderr with ``err``); GitHub's step summary once. Text
    written to a file is coloured only with --color always. Text and JSON to stdout, and JSON to a file, go out
    as they are rendered (a report of many findings is never held whole); other reports to a file are rendered
    whole before the file is opened. No report replaces a file the run reads (``_refuse_report_over_inputs``)."""
    from dataclasses import replace

    from numalint.output.report import render, render_chunks

    for fmt, target in outputs:
        if target is None:
            try:
                for chunk in render_chunks(fmt, findings, ctx):
                    click.echo(chunk, nl=False, err=err, color=ctx.colour and fmt == "text")
            except BrokenPipeError:
                raise  # `| head`: click ends quietly, as before
            except OSError as error:  # a full disk behind stdout: say so, never a traceback
                raise OutputError(f"could not write the {fmt} report to {'stderr' if err else 'stdout'}: "
                                  f"{error.strerror or error}") from None
            continue
        file_ctx = replace(ctx, colour=look.color == "always")
        chunks = render_chunks(fmt, findings, file_ctx) if fmt == "json" else iter((render(fmt, findings, file_ctx),))
        try:
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            with open(target, "w", encoding="utf-8", errors="backslashreplace") as handle:
                for chunk in chunks:
                    handle.write(chunk)
        except OSError as error:
            raise OutputError(f"could not write the {fmt} report to {target}: {error.strerror or error}") from None
    if any(fmt == "github" for fmt, _target in outputs):
        from numalint.output.ci import write_step_summary

        write_step_summary(findings, ctx)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--topology", "topologies", multiple=True, type=click.Path(readable=False), metavar="FILE",
              help="NodeTopology or NodeResourceTopology file (repeatable).")
@click.option("-f", "--format", "output_format", type=click.Choice(["text", "json", "html"]), default="text",
              show_default=True, help="text (80 columns), json, or html (one self-contained page).")
@click.option("-o", "--output", "output_file", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="FILE", help="Write the report to FILE instead of stdout.")
@click.option("--cpus", "cpu_map", is_flag=True, help="Text: draw each node's CPU map (who holds which CPU).")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour text output; auto: on a terminal, unless NO_COLOR is set (FORCE_COLOR forces it).")
@click.option("--kubernetes-version", "kube_version", metavar="X.Y", default=None)
@click.option("--openshift-version", "openshift_version", metavar="4.N", default=None,
              help="OpenShift release to target instead: 4.N is Kubernetes 1.(N+13) (4.21 = 1.34).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--node-state", "node_state", type=click.Path(file_okay=False), default=None,
              help="Directory with a node's cpu_manager_state / memory_manager_state to start from.")
@click.option("--stdin-filename", metavar="PATH", default=None,
              help="The file stdin ('-') stands for: configured and judged as that file (nothing is read from it).")
def simulate(paths: tuple[str, ...], topologies: tuple[str, ...], output_format: str, output_file: str | None,
             cpu_map: bool, color: str, kube_version: str | None, openshift_version: str | None,
             config_path: str | None, node_state: str | None, stdin_filename: str | None) -> None:
    """Show where the kubelet would place each pod, NUMA node by NUMA node; exit 1 if one is rejected."""
    output_file = None if output_file == "-" else output_file  # -o - is stdout
    from numalint.engine import build_analyses
    from numalint.output.report import render_text as render_findings
    from numalint.output.sim_model import build_report
    from numalint.output.simulation import render_json, render_text

    _require_readable(topologies)
    target = _target(kube_version, openshift_version)
    paths, stdin_name = _stdin_standing_for(paths, stdin_filename)
    config = _config(config_path, paths)
    options = _options(config, target, 0, node_state)
    if not paths and not topologies and not options.context:
        raise click.UsageError("give the files to simulate and a --topology")
    analyses = build_analyses(list(paths) + list(topologies), options,
                              _read_stdin() if stdin_name in paths else None, stdin_name)
    report = build_report(analyses)
    colour = False
    if output_format == "json":
        text = render_json(report)
    elif output_format == "html":
        from numalint.output.simulation_html import render_html

        text = render_html(report)
    else:
        colour = _colour(color, sys.stdout if output_file is None else None)
        text = render_text(report, colour, cpu_map)
    if output_file is not None:
        from numalint.reading.sources import discover

        _refuse_report_over_inputs([(output_format, output_file)],
                                   discover(list(paths) + list(topologies), options.exclude, options.exclude_base)[0],
                                   config, options)
        try:
            Path(output_file).write_text(text, encoding="utf-8")
        except OSError as err:
            raise OutputError(f"cannot write {output_file}: {err.strerror or err}") from None
    else:
        click.echo(text, nl=False, color=colour)  # click strips ANSI codes off a pipe unless told
    # inputs that could not be read are not skipped silently: their findings on stderr, exit 2
    sources = [s for analysis in analyses for s in analysis.run.sources]
    unread = [f for s in sources for f in s.findings if f.rule == "yaml-syntax"]
    unread += [_missing(path) for path in paths if path not in ("-", stdin_name) and not os.path.lexists(path)]
    for finding in unread:
        finding.severity = finding.severity or "error"
    if unread:
        click.echo(render_findings(unread, sum(a.run.files for a in analyses), False), nl=False, err=True)
        sys.exit(2)
    rejected = any(p.admission and not p.admission.admitted for pool in report.pools for p in pool.run.pods)
    sys.exit(1 if rejected else 0)


def _missing(path: str) -> Any:
    """The finding for a named input that does not exist (as `check` reports it)."""
    from numalint.catalogue import finding
    from numalint.reading.yamlpos import Span

    return finding("yaml-syntax", "no such file or directory", path, Span(1, 1, 1, 1))


@main.group()
def server() -> None:
    """Keep numalint warm in the background, so each run starts in milliseconds (pre-commit)."""


@server.command("start")
@click.option("--idle-timeout", type=click.FloatRange(min=1, max=30 * 24 * 3600), default=3600, show_default=True,
              metavar="SECONDS", help="Stop after this long without a run (at most 30 days).")
def server_start(idle_timeout: float) -> None:
    """Start the server of this installation; later `numalint` runs go through it."""
    from numalint.server.daemon import ServerError, start

    if os.name != "posix":
        raise click.ClickException("the server needs Unix sockets (Linux, macOS)")
    try:
        pid = start(main, idle_timeout)
    except ServerError as err:
        raise click.ClickException(str(err)) from None
    click.echo(f"numalint server started (pid {pid}); NUMALINT_SERVER=off runs without it")


@server.command("stop")
def server_stop() -> None:
    """Stop the server of this installation (runs go on without it)."""
    from numalint.server.daemon import stop

    pid = stop()
    click.echo("no numalint server was running" if pid is None else f"numalint server stopped (pid {pid})")


@server.command("status")
def server_status() -> None:
    """Say whether a server runs for this installation (exit 1 when none does)."""
    import time

    from numalint.server.daemon import status

    found = status()
    if found is None:
        click.echo("no numalint server is running")
        sys.exit(1)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(found["started"]))
    click.echo(f"numalint server {found['version']} running (pid {found['pid']}) since {started}, "
               f"{found['runs']} run(s) served, stops after {found['idle_timeout']:g} s idle\n"
               f"package: {found['package']}\nsocket: {found['socket']}")


@main.group()
def topology() -> None:
    """Describe a node's hardware as a NodeTopology."""


@topology.command("capture")
@click.option("--sysfs-root", default="/", show_default=True, type=click.Path(file_okay=False),
              help="Root of a (recorded) Linux filesystem holding sys/devices and sys/bus.")
@click.option("--name", default=None, help="metadata.name of the NodeTopology [default: the host name].")
def topology_capture(sysfs_root: str, name: str | None) -> None:
    """Read this node's topology from sysfs and print a NodeTopology (read-only)."""
    import socket

    from numalint.topology.capture import CaptureError, capture, provenance
    from numalint.topology.emit import topology_document

    try:
        machine, nics = capture(sysfs_root)
    except CaptureError as err:
        raise click.ClickException(str(err)) from None
    click.echo(topology_document(name or socket.gethostname(), machine, nics, provenance(sysfs_root), pool_stub=True),
               nl=False)


@topology.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--name", default="imported", show_default=True, help="metadata.name of the NodeTopology.")
def topology_import(file: str, name: str) -> None:
    """Convert numactl --hardware text, lscpu -p output or a NodeResourceTopology to a NodeTopology."""
    from numalint.topology.importer import ImportFormatError, import_topology

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise click.ClickException(f"cannot read {file}: {err}") from None
    try:
        click.echo(import_topology(text, name), nl=False)
    except ImportFormatError as err:
        raise click.ClickException(f"{file}: {err}") from None


def _display_path(path: str) -> str:
    """A configured path as findings show it: relative to the working directory when it is inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _target(kube_version: str | None, openshift_version: str | None) -> str | None:
    """--openshift-version 4.N is an alias of --kubernetes-version 1.(N+13); both at once is a usage error."""
    if openshift_version is None:
        return kube_version
    from numalint.k8s.versions import openshift_to_kubernetes

    if kube_version is not None:
        raise click.UsageError("give --kubernetes-version or --openshift-version, not both")
    try:
        return openshift_to_kubernetes(openshift_version)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--openshift-version") from None


def _config(config_path: str | None, paths: tuple[str, ...]) -> Any:
    """The configuration file given with --config, else the one nearest to the checked paths; read once per
    run (usage errors exit 2)."""
    from numalint.config import ConfigError, discover_config, load_config

    try:
        return load_config(Path(config_path) if config_path else discover_config(paths, Path.cwd()))
    except ConfigError as err:
        raise click.UsageError(f"invalid configuration: {err}") from None


def _options(config: Any, kube_version: str | None, jobs: int, node_state: str | None = None,
             select: tuple[str, ...] = (), extend_select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> Any:
    """The configuration (``_config``) + command line -> engine Options (usage errors exit 2)."""
    from numalint.engine import Options
    from numalint.k8s.versions import NEWEST, parse_version

    try:
        version = parse_version(kube_version or config.kubernetes_version or f"{NEWEST[0]}.{NEWEST[1]}")
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--kubernetes-version") from None
    from numalint.checks.selection import SelectorError, enabled_rules, split

    try:
        severities = _by_rule(config.rules)
        per_path = tuple((glob, _by_rule(rules)) for glob, rules in config.per_path.items())
    except SelectorError as err:
        raise click.UsageError(f"invalid configuration: unknown rule {err} (in {config.path})") from None
    try:
        enabled = enabled_rules(split(select) if select else config.select,
                                [*config.extend_select, *split(extend_select)], [*config.ignore, *split(ignore)])
    except SelectorError as err:
        raise click.UsageError(str(err)) from None
    return Options(version=version, exclude=tuple(config.exclude), severities=severities,
                   enabled=enabled, per_path=per_path,
                   exclude_base=str((config.path.parent if config.path else Path.cwd()).resolve()),
                   context=tuple(_display_path(p) for p in config.context + config.topologies), jobs=jobs,
                   fail_on=config.fail_on,
                   node_state=node_state, sriov_prefix=config.sriov_resource_prefix or None,
                   cluster_of=config.cluster_of if config.clusters else None)


@main.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that change behaviour a human should confirm.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option("--kubernetes-version", "kube_version", metavar="X.Y", default=None)
@click.option("--openshift-version", "openshift_version", metavar="4.N", default=None,
              help="OpenShift release to target instead: 4.N is Kubernetes 1.(N+13) (4.21 = 1.34).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None)
@click.option("--topology", "topologies", multiple=True, type=click.Path(readable=False), metavar="FILE")
@click.option("--select", multiple=True, metavar="RULES", help="Fix only findings of these rules.")
@click.option("--extend-select", multiple=True, metavar="RULES", help="Fix findings of these rules too.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Do not fix findings of these rules.")
@click.option("--stdin-filename", metavar="PATH", default=None,
              help="The file stdin ('-') stands for: named in findings, configured and judged as that file "
                   "(nothing is read from it or written to it).")
def fix_command(paths: tuple[str, ...], unsafe_fixes: bool, show_diff: bool, kube_version: str | None,
                openshift_version: str | None, config_path: str | None, topologies: tuple[str, ...],
                select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
                stdin_filename: str | None) -> None:
    """Apply safe fixes in place ('-' alone reads stdin and prints the fixed text)."""
    if not paths:
        raise click.UsageError("give at least one file or directory to fix ('-' for stdin)")
    _refuse_mixed_stdin(paths, show_diff)
    _require_readable(topologies)
    target = _target(kube_version, openshift_version)
    paths, stdin_name = _stdin_standing_for(paths, stdin_filename)
    config = _config(config_path, paths)
    options = _options(config, target, 0, None, select, extend_select, ignore)
    stdin_text = _read_stdin() if stdin_name in paths else None
    look = _Look(None, False, config, paths)
    _run_fix(list(paths) + list(topologies), options, unsafe_fixes, show_diff, stdin_text, stdin_name,
             [("text", None)], None, look)


def _stdin_standing_for(paths: tuple[str, ...], stdin_filename: str | None) -> tuple[tuple[str, ...], str]:
    """The paths with '-' replaced by the file it stands for (--stdin-filename), and the name stdin goes by: its
    text is then that file's, as an editor holding it unsaved would check it (the file's configuration, its name
    for a KubeletConfiguration without one, the kustomizations beside it)."""
    if stdin_filename is None:
        return paths, "-"
    if "-" not in paths:
        raise click.UsageError("--stdin-filename names the file stdin stands for: give '-' as the path")
    if stdin_filename in ("", "-") or stdin_filename.endswith(("/", os.sep)) or os.path.isdir(stdin_filename):
        raise click.BadParameter("give the path of a file", param_hint="--stdin-filename")
    return tuple(stdin_filename if path == "-" else path for path in paths), stdin_filename


def _refuse_mixed_stdin(paths: tuple[str, ...], show_diff: bool) -> None:
    if "-" in paths and len(paths) > 1 and not show_diff:
        raise click.UsageError("'-' cannot be combined with other paths when fixing: the fixed stdin is printed "
                               "and nothing is written; fix the files in a separate run (or use --diff)")


class OutputError(click.ClickException):
    """A report that could not be written: exit 2 like every other error that is not a finding."""

    exit_code = 2


class _Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so the fix stops at a safe point."""


_FIXING_PID: list[int] = []


def _terminate(signum: int, frame: Any) -> None:
    import signal

    if os.getpid() not in _FIXING_PID:  # a worker forked while fixing: die as it would have
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise _Terminated()


def _run_fix(paths: list[str], options: Any, unsafe: bool, show_diff: bool, stdin_text: str | None,
             stdin_name: str, outputs: list[tuple[str, str | None]], fail_on: str | None, look: _Look) -> None:
    """Fix, then print the diff, the fixed stdin, or write the files; SIGINT exits 130, SIGTERM 143."""
    _FIXING_PID[:] = [os.getpid()]
    import signal  # here: only fixing handles SIGTERM (start-up time of a check)

    previous = signal.signal(signal.SIGTERM, _terminate)
    written: list[str] = []
    try:
        _fix_and_write(paths, options, unsafe, show_diff, stdin_text, stdin_name, outputs, fail_on, look, written)
    except KeyboardInterrupt:
        _interrupted("SIGINT", written)
        sys.exit(130)
    except _Terminated:
        _interrupted("SIGTERM", written)
        sys.exit(143)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(name: str, written: list[str]) -> None:
    click.echo(f"numalint: interrupted by {name}; {len(written)} file(s) written whole, the others untouched",
               err=True)


def _fix_and_write(paths: list[str], options: Any, unsafe: bool, show_diff: bool, stdin_text: str | None,
                   stdin_name: str, outputs: list[tuple[str, str | None]], fail_on: str | None, look: _Look,
                   written: list[str]) -> None:
    from numalint.engine import run_check
    from numalint.fixer import fix, write_all

    result = fix(paths, options, unsafe, stdin_text, stdin_name)
    report = result.report
    assert report is not None
    _refuse_report_over_inputs(outputs, report.checked, look.config, options)  # before any file is written
    for path, problem in sorted(result.refused.items()):
        click.echo(f"numalint: {path}: not fixed, nothing written: {problem}", err=True)
    links = {} if stdin_text is not None else _link_refusals(result.texts, paths, options)
    for path, problem in sorted(links.items()):
        click.echo(f"numalint: {path}: {problem}; not written", err=True)
    result.texts = {p: t for p, t in result.texts.items() if p not in links}
    if show_diff:
        links.update(_unwritable(result.texts) if stdin_text is None else {})
        for path, problem in sorted((p, m) for p, m in links.items() if p in result.texts):
            click.echo(f"numalint: {path}: {problem}; not written", err=True)
        result.texts = {p: t for p, t in result.texts.items() if p not in links}
        text = result.diff()
        _write_stdout(text.encode("utf-8", "surrogateescape"), "the diff")
        left_out = _left_out(result)
        if left_out:  # a fix held back is no edit: say so, or an empty diff reads as "nothing to fix"
            click.echo(f"numalint: not in the diff: {'; '.join(left_out)}", err=True)
        unread = [f for f in report.findings if f.rule == "yaml-syntax"]  # missing, unreadable or broken files
        for finding in unread:
            click.echo(f"numalint: {finding.file}:{finding.span.line}:{finding.span.col}: {finding.message}; not "
                       "fixed", err=True)
        # exit as `fix` would: 2 when it would write no file it names (a refused link), 1 with edits or refusals
        sys.exit(2 if report.readable == 0 or links else 1 if text or result.refused or unread else 0)
    errors: dict[str, str] = dict(links)
    if stdin_text is None:
        from numalint.reading.sources import discover

        checked = discover(paths, options.exclude, options.exclude_base)[0]
        unwritten = write_all(result.texts, result.originals, checked, written)[1]  # counted as written
        errors.update(unwritten)
        for path, error in sorted(unwritten.items()):
            click.echo(f"numalint: {path}: {error}; not written", err=True)
        if errors:  # what remains is what is on disk
            report = run_check(paths, options)
    remaining = report.findings
    stdin_only = stdin_text is not None
    if stdin_text is not None:  # a filter: unchanged input goes through byte for byte, a fixed text keeps its BOM
        raw = _STDIN_BYTES[0] if _STDIN_BYTES else stdin_text.encode("utf-8", "surrogateescape")
        fixed = result.texts.get(stdin_name)
        bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
        _write_stdout(raw if fixed is None else bom + fixed.encode("utf-8", "surrogateescape"), "the fixed text")
    _present(outputs, remaining, look.context(report, stdin_text, stdin_name, findings_on_stderr=stdin_only), look,
             err=stdin_only)
    # only what reached a file counts as fixed (a read-only file is "not written" above)
    applied = ([f for f in result.applied if f.file == stdin_name] if stdin_only
               else [f for f in result.applied if f.input in set(written)])
    targets = int(stdin_name in result.texts) if stdin_only else len(written)
    if not look.quiet or result.broken:  # --quiet: the findings only, unless a fixed file was not written
        click.echo("; ".join([f"numalint: fixed {len(applied)} finding(s) in {targets} file(s)",
                              *_left_out(result)]), err=True)
    if errors or report.readable == 0:
        sys.exit(2)
    threshold = FAIL_LEVELS[fail_on or options.fail_on or "warning"]
    failed = any(SEVERITY_LEVEL[f.severity or "error"] >= threshold for f in remaining)
    sys.exit(1 if failed or result.refused else 0)


def _write_stdout(data: bytes, what: str) -> None:
    """``data`` to stdout whole, or exit 2 saying it was not (a full disk, a file size limit): a fixed text cut
    short must never pass for the file (``fix - < a > b && mv b a``)."""
    import io

    try:
        sys.stdout.flush()
        try:
            descriptor = sys.stdout.fileno()
        except (io.UnsupportedOperation, AttributeError, ValueError):  # not a file (a test's capture)
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        sys.stdout.buffer.flush()
        rest = memoryview(data)
        while rest:  # os.write: a buffered write takes a short write (a file size limit) for a whole one
            rest = rest[os.write(descriptor, rest):]
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"could not write {what} to stdout: {error.strerror or error}; it is incomplete") from None


def _unwritable(texts: dict[str, str]) -> dict[str, str]:
    """The fixed files `fix` would refuse to replace (read-only, other hard links): `--diff` leaves them out, as
    `fix` leaves them unwritten."""
    from numalint.fixer import write_refusal

    refused: dict[str, str] = {}
    for path in texts:
        try:
            problem = write_refusal(path)
        except OSError as err:
            problem = f"cannot read file: {err.strerror or err}"
        if problem is not None:
            refused[path] = problem
    return refused


def _link_refusals(texts: dict[str, str], paths: list[str], options: Any) -> dict[str, str]:
    """The fixed paths not to write through their symbolic links (``fixer.link_refusals``)."""
    from numalint.fixer import link_refusals
    from numalint.reading.sources import path_matches

    return link_refusals(texts, paths, lambda real: any(path_matches(real, pattern, options.exclude_base)
                                                         for pattern in options.exclude))


def _left_out(result: Any) -> list[str]:
    """The fixes a fix run did not apply, and why (the closing line of `fix`, and under `fix --diff`)."""
    from numalint.fixer import MAX_PASSES

    held = max(len(result.held), result.held_back - result.untried)  # a later proof may turn one into a hint
    untried = max(len(result.not_tried), result.untried)
    return ([f"{len(result.skipped)} fix(es) could not be applied (overlapping edits)"] if result.skipped else []) \
        + ([f"{len(result.in_refused)} fix(es) left alone in a document kubectl refuses (correct its yaml-syntax "
            "error first)"] if result.in_refused else []) \
        + ([f"{held} fix(es) held back (applied, they would bring a new error)"] if held else []) \
        + ([f"{untried} fix(es) held back untried (too many fixes of one pass interact; run fix again)"]
           if untried else []) \
        + ([f"not written (fixed text would not parse): {', '.join(result.broken)}"] if result.broken else []) \
        + ([f"{result.unfinished}{' or more' if result.unfinished_more else ''} fix(es) left for another run (fix "
            f"stops after {MAX_PASSES} passes; run fix again)"] if result.unfinished else [])


_STDIN_BYTES: list[bytes] = []  # what stdin held, for `fix -` to pass unchanged input through byte for byte


def _read_stdin() -> str:
    """Stdin as bytes, whatever PYTHONIOENCODING says: bytes that are not UTF-8 become the same finding as in a file."""
    from numalint.reading.sources import stdin_text

    data = sys.stdin.buffer.read()
    _STDIN_BYTES[:] = [data]
    return stdin_text(data)


def _require_readable(topologies: tuple[str, ...]) -> None:
    """A --topology that cannot be read is a usage error: the simulation would silently have no hardware."""
    from numalint.reading.sources import ReadError, read_capped

    for path in topologies:
        try:
            read_capped(path)
        except (ReadError, OSError) as err:
            raise click.BadParameter(f"{path}: {err}", param_hint="--topology") from None


def _statistics(findings: list[Any]) -> str:
    """ruff's --statistics: one line per rule, most frequent first."""
    from collections import Counter

    from numalint.catalogue import catalogue

    counts = Counter(f.rule for f in findings)
    rules = catalogue()
    lines = [f"{count:>6}  {rules[slug].code if slug in rules else '':<6} {slug}"
             for slug, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return "".join(line + "\n" for line in lines)


def _fixable(findings: list[Any]) -> tuple[list[Any], list[Any]]:
    from numalint.findings import SAFE, UNSAFE

    safe = [f for f in findings if f.fix is not None and f.fix.edits and f.fix.safety == SAFE]
    unsafe = [f for f in findings if f.fix is not None and f.fix.edits and f.fix.safety == UNSAFE]
    return safe, unsafe


def _fix_hint(findings: list[Any]) -> str:
    """The closing hint: how many findings `numalint fix` would repair."""
    safe, unsafe = _fixable(findings)
    if not safe and not unsafe:
        return ""
    more = f" ({len(unsafe)} more with --unsafe-fixes)" if unsafe else ""
    return f"{len(safe)} finding(s) fixable with `numalint fix`{more}\n"


def _fix_list(findings: list[Any]) -> str:
    from numalint.output.escape import escape_text, safe_line_start

    safe, unsafe = _fixable(findings)
    lines = [f"{safe_line_start(f.file)}:{f.span.line}:{f.span.col}: [{f.rule}] {kind} fix: "
             f"{escape_text(f.fix.description)}" for kind, group in (("safe", safe), ("unsafe", unsafe)) for f in group]
    return "".join(line + "\n" for line in lines)


def _by_rule(configured: dict[str, str]) -> dict[str, str]:
    """``rules:`` keyed by selectors (slug, code, prefix) -> by slug; a narrower selector wins."""
    from numalint.checks.selection import resolve

    named = sorted(((resolve(selector), severity) for selector, severity in configured.items()),
                   key=lambda item: -len(item[0]))
    return {slug: severity for slugs, severity in named for slug in slugs}


@main.command("rules")
@click.option("-f", "--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text")
def list_rules(output_format: str) -> None:
    """List the rule catalogue (markdown: the table README.md shows)."""
    import json

    from numalint.catalogue import catalogue, markdown_table

    rules = list(catalogue().values())
    if output_format == "markdown":
        click.echo(markdown_table(), nl=False)
        return
    if output_format == "json":
        click.echo(json.dumps([{"code": r.code, "slug": r.slug, "severity": r.severity, "category": r.category,
                                "summary": r.summary, "fix_safety": r.fix_safety} for r in rules], indent=2))
        return
    width = max(len(r.slug) for r in rules)
    for r in rules:
        click.echo(f"{r.code}  {r.slug:<{width}}  {r.severity:<7}  {r.summary.splitlines()[0]}")


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Show one rule's documentation and examples (by slug or code)."""
    from numalint.catalogue import lookup
    from numalint.output.explain import render_rule

    found = lookup(rule)
    if found is None:
        raise click.UsageError(f"unknown rule {rule!r}; see `numalint rules`")
    click.echo(render_rule(found))
