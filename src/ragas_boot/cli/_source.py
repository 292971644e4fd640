"""Where a dataset run's samples come from: ``--from``, ``--map``, ``--sample``, ``--seed``; or
a suite file, whose cases are compiled to samples and run by its agent first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragas_boot.cli._console import message
from ragas_boot.cli._errors import UsageError
from ragas_boot.errors import RagasBootError

if TYPE_CHECKING:
    from ragas_boot.cli._options import RunOptions
    from ragas_boot.datasets import Dataset
    from ragas_boot.runs.suites.suite import AgentTestSuite

__all__ = ["load_source", "load_suite_source"]


def load_suite_source(options: RunOptions) -> AgentTestSuite | None:
    """The suite, when DATASET is one (``--from suite``, or a YAML / JSON file with
    ``cases``); ``None`` for any other dataset.

    Raises:
        UsageError: ``--map`` or ``--sample`` with a suite (its cases are chosen with
            ``--case`` on ``suite run``).
        SuiteError: the suite is invalid, or ``--case`` names an unknown case.
    """
    from ragas_boot.errors import SuiteError
    from ragas_boot.runs.suites.suite import is_suite_file, load_suite

    if options.source_format != "suite" and not (
        options.source_format is None and is_suite_file(options.dataset)
    ):
        return None
    if options.column_map:
        raise UsageError("--map applies to tables (csv, parquet, hf), not to a suite")
    if options.sample is not None:
        raise UsageError("--sample picks samples of a dataset; a suite runs every case")
    suite = load_suite(options.dataset)
    known = [case.id for case in suite.cases]
    for case_id in options.cases:
        if case_id not in known:
            raise SuiteError(
                f"no case '{case_id}' (cases: {', '.join(known)})", file=str(suite.source)
            )
    return suite


def load_source(options: RunOptions) -> Dataset:
    """The dataset as ``--from``, ``--map``, ``--sample`` and ``--seed`` ask; an OTLP import
    says on stderr how many traces it read and what it skipped.

    Raises:
        UsageError: a bad ``--map``, ``--map`` for a source that is not a table, ``--seed``
            without ``--sample``.
        RagasBootError: the dataset is unreadable (file, line or row named).
    """
    from ragas_boot.datasets import load_dataset, load_otlp, parse_column_map

    if options.sample_seed is not None and options.sample is None:
        raise UsageError("--seed picks the samples of --sample N: give --sample too")
    try:
        column_map = parse_column_map(options.column_map) or None
    except ValueError as error:
        raise UsageError(f"--map: {error}") from None
    chosen = options.source_format
    if chosen == "otlp":
        if column_map:
            raise UsageError("--map applies to tables (csv, parquet, hf), not to OTLP traces")
        imported = load_otlp(options.dataset, sample=options.sample, seed=options.sample_seed)
        message(f"{options.dataset}: {imported.summary()}")
        return imported.dataset
    if chosen == "suite":  # pragma: no cover - plan_run reads suites with load_suite_source
        raise UsageError(f"{options.dataset} is a suite: it is not read as a dataset")
    if column_map and chosen in ("yaml", "jsonl"):
        raise UsageError(f"--map applies to tables (csv, parquet, hf), not to {chosen}")
    try:
        return load_dataset(
            options.dataset,
            format=chosen,
            column_map=column_map,
            sample=options.sample,
            seed=options.sample_seed,
        )
    except RagasBootError:
        raise
    except ValueError as error:  # a column map for a file that is not a table
        raise UsageError(f"--map: {error}") from None
