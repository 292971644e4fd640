"""ragas-boot: agent metrics scored by several judge models, configured from application.yaml.

The public surface is re-exported here; everything else lives in the layer packages
(``config``, ``container``, ``chat``, ``execution``, ``samples``, ``metrics``, ``runs``,
``reporting``) and in ``datasets``.
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
