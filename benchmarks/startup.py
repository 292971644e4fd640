"""Start-up cost: ``ragas-boot --help``, ``import ragas_boot``, then building the container
from a 4-provider YAML.

Each run is a fresh interpreter (imports are cached within one), so the figures are what a
script, a CLI call or a pytest session pays before its first evaluation (wall seconds, and the
process CPU seconds, which other load on the machine disturbs less). The judges' HTTP
stack (langchain-openai, openai, aiohttp) is imported only when the first judge call is
made; the last lines say whether any of it was imported by then.

    .venv/bin/python benchmarks/startup.py             # 5 runs: median, min, max
    .venv/bin/python benchmarks/startup.py --repeat 10
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _workload import summarise

YAML = """\
spring:
  ai:
    retry: {max-attempts: 3}
    ragas:
      providers:
        openai-compatible:
"""
PROVIDER = """\
          - name: {name}
            base-url: https://{name}.example.com/api
            api-key: sk-startup-{name}
            max-concurrency: 8
            chat-models:
              - {{ id: {name}-large }}
              - {{ id: {name}-small, alias: {name}-mini }}
"""
HEAVY = ("langchain_openai", "langchain_core", "openai", "aiohttp", "httpx", "httpx2")

PROBE = """\
import json, sys, time
cpu = time.process_time()
started = time.perf_counter()
import ragas_boot
imported = time.perf_counter()
settings = ragas_boot.load_settings(sys.argv[1])
loaded = time.perf_counter()
container = ragas_boot.create_container(settings)
judges = container.judges()
container.agent_goal_accuracy(); container.topic_adherence(); container.tool_call_accuracy()
built = time.perf_counter()
cpu = time.process_time() - cpu
heavy = [name for name in {heavy!r} if name in sys.modules]
container.close()
print(json.dumps({{"import": imported - started, "load": loaded - imported,
                  "build": built - loaded, "judges": len(judges), "heavy": heavy, "cpu": cpu}}))
"""


def cli_help(repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``python -m ragas_boot --help`` in fresh interpreters."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "ragas_boot", "--help"], capture_output=True, check=True
        )
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(
            after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        )
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh interpreters (default 5)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "application.yaml"
        providers = "".join(PROVIDER.format(name=f"p{index}") for index in range(1, 5))
        path.write_text(YAML + providers, encoding="utf-8")
        probe = PROBE.format(heavy=HEAVY)
        runs = []
        for _ in range(options.repeat):
            output = subprocess.run(
                [sys.executable, "-c", probe, str(path)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            runs.append(json.loads(output.strip().splitlines()[-1]))
    total = [r["import"] + r["load"] + r["build"] for r in runs]
    help_wall, help_cpu = cli_help(options.repeat)
    print(f"start-up, {options.repeat} fresh interpreters (median, min, max)")
    print(f"  ragas-boot --help, wall               {summarise(help_wall)} s")
    print(f"  ragas-boot --help, process CPU        {summarise(help_cpu)} s")
    print(f"  import ragas_boot                     {summarise([r['import'] for r in runs])} s")
    print(f"  load_settings (4 providers, YAML)     {summarise([r['load'] for r in runs])} s")
    print(
        f"  create_container + beans ({runs[0]['judges']} judges)  "
        f"{summarise([r['build'] for r in runs])} s"
    )
    print(f"  import + container, total             {summarise(total)} s")
    print(f"  the same, process CPU                 {summarise([r['cpu'] for r in runs])} s")
    print(f"  heavy modules imported by then        {', '.join(runs[0]['heavy']) or 'none'}")


if __name__ == "__main__":
    main()
