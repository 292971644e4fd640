"""ragas-boot: agent metrics scored by several judge models, configured from application.yaml.

What most programs need is re-exported here: a :class:`Sample` and its messages
(:class:`HumanMessage`, :class:`AIMessage`, :class:`ToolMessage`, :class:`ToolCall`), the
settings (:func:`load_settings`, :class:`RagasSettings`), the container of metric beans
(:func:`create_container`, :class:`RagasContainer`), a metric's :class:`MetricResult` and
:func:`register_metric`, datasets and their runs (:class:`Dataset`, :func:`load_dataset`,
:func:`evaluate_dataset`, :func:`aevaluate_dataset`, :class:`RunResult`), and the errors a
caller catches first.

Each package below is the public face of one concept, and its ``__all__`` lists it:
``ragas_boot.config``, ``samples``, ``chat``, ``execution``, ``metrics``, ``container``,
``datasets``, ``runs``, ``reporting``, ``suites``, ``testing`` (with ``testing.fixtures``),
``cli`` and ``errors``. Anything else is importable from its module but is the library's
own plumbing.
"""

from ragas_boot._version import __version__
from ragas_boot.config import RagasSettings
from ragas_boot.container import RagasContainer, create_container, load_settings
from ragas_boot.datasets import Dataset, load_dataset
from ragas_boot.errors import (
    AllJudgesFailedError,
    ConfigError,
    DatasetError,
    JudgeError,
    JudgeNotFoundError,
    MissingExtraError,
    NoConsensusError,
    RagasBootError,
    SampleValidationError,
    UndefinedScoreError,
)
from ragas_boot.metrics.registry import register_metric
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs import RunResult, aevaluate_dataset, evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage

__all__ = [
    "AIMessage",
    "AllJudgesFailedError",
    "ConfigError",
    "Dataset",
    "DatasetError",
    "HumanMessage",
    "JudgeError",
    "JudgeNotFoundError",
    "MetricResult",
    "MissingExtraError",
    "NoConsensusError",
    "RagasBootError",
    "RagasContainer",
    "RagasSettings",
    "RunResult",
    "Sample",
    "SampleValidationError",
    "ToolCall",
    "ToolMessage",
    "UndefinedScoreError",
    "__version__",
    "aevaluate_dataset",
    "create_container",
    "evaluate_dataset",
    "load_dataset",
    "load_settings",
    "register_metric",
]
