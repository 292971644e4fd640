"""One real run for the renderers: example 03's judges on the local test server.

Eight samples of the example plus a hostile one (HTML in its text, no reference topics, and a
conversation the scripted judges do not know, so every judge fails on it), with one judge
down for the whole run: scores, disagreements, exclusions and failures all appear.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.datasets import Dataset, load_dataset
from ragas_boot.runs import RunResult, evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall
from ragas_boot.testing import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "03_compare_judge_models"
DOWN = "google/gemini-2.5-flash"

HOSTILE = Sample(
    id="hostile<script>",
    user_input_messages=[
        HumanMessage('<script>alert("x")</script> & <b>bold</b>'),
        AIMessage("", [ToolCall("lookup", {"q": "</pre><img src=x onerror=alert(1)>"})]),
    ],
    reference="<i>anything</i>",
    reference_tool_calls=[ToolCall("lookup", {"q": "</pre><img src=x onerror=alert(1)>"})],
)


def _script_judges(server: FakeOpenAIServer, dataset: Dataset) -> None:
    spec = importlib.util.spec_from_file_location("example03_offline", EXAMPLE / "offline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.script_judges(server, dataset)


@pytest.fixture(scope="session")
def secret(request: pytest.FixtureRequest) -> str:
    """tests/conftest.py's recognisable fake key."""
    root = request.config.pluginmanager.get_plugin(str(ROOT / "tests" / "conftest.py"))
    return str(root.SECRET_KEY)


def _report_run(secret: str, **options: object) -> RunResult:
    """The run described in the module docstring, with ``evaluate_dataset`` ``options``
    (data only: server and judges are closed when it returns)."""
    dataset = load_dataset(EXAMPLE / "dataset.yaml")
    with FakeOpenAIServer() as server:
        _script_judges(server, dataset)
        server.fail_always(DOWN, Reply.error(503, "model overloaded"))
        settings = load_settings(
            EXAMPLE / "application.yaml",
            profiles=["offline"],
            environ={"JUDGE_BASE_URL": server.base_url, "OPENROUTER_API_KEY": secret},
        )
        with create_container(settings) as container:
            return evaluate_dataset(
                Dataset(name="report-test", samples=[*dataset.samples[:8], HOSTILE]),
                [
                    container.agent_goal_accuracy(),
                    container.topic_adherence(),
                    container.tool_call_accuracy(),
                ],
                concurrency=6,
                **options,  # type: ignore[arg-type]
            )


@pytest.fixture(scope="session")
def run(secret: str) -> RunResult:
    """The run described in the module docstring."""
    return _report_run(secret)


@pytest.fixture(scope="session")
def spooled_run(secret: str) -> Iterator[RunResult]:
    """The same run, spooled (spool-after 0): slim evaluations, the full ones on disk."""
    run = _report_run(secret, spool_after=0)
    yield run
    run.close_spool()


@pytest.fixture(scope="session")
def unspooled(spooled_run: RunResult) -> RunResult:
    """``spooled_run`` with every evaluation read back in full: the run as it is unspooled."""
    full = spooled_run.model_copy(
        update={"samples": [spooled_run.full_sample(i) for i in range(len(spooled_run.samples))]}
    )
    full._spool = None
    return full
