"""The spool of a large run: each evaluation in full on disk, a slim copy in memory.

A run of 10,000 samples × 3 metrics × 4 judges makes 120,000 judge calls; keeping each
call's record in the :class:`~ragas_boot.runs.RunResult` costs ~100 KiB per sample (~1 GiB
for the run): the prompts and raw answers are about a quarter of it, the pydantic objects of
the steps and calls most of the rest. When a run has more samples than ``spool-after``, each
finished evaluation is written to an unnamed temporary file as one JSON text (what the JSON
report shows for it) and the run keeps a slim copy, a
:class:`~ragas_boot.runs.results.SpooledEvaluation`: every field as it was except the
steps, and for each judge call a small record of its judge, step, status, time, tokens, cost
and cache outcome (what the summaries, gates, the history and calibration count). The JSON
report of a spooled run is written from the spool, the same text as without it; the HTML
report reads back the samples it shows in full.

The file has no name on disk (``tempfile.TemporaryFile``; on Windows it is deleted on
close): it disappears when the spool is closed (:meth:`RunResult.close_spool`), when the
result is garbage-collected, or when the process ends, however it ends. It is read and
written with ``seek`` and unbuffered ``read``/``write`` under one lock, which every platform
has (``os.pread``/``os.pwrite`` do not exist on Windows).
"""

from __future__ import annotations

import json
import tempfile
import threading
import weakref
from pathlib import Path
from typing import IO, Any

from ragas_boot._trusted import trusted
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.results import CallFacts, Evaluation, SpooledEvaluation

#: The fields-set of every slim result and evaluation: all their fields (each is given).
_RESULT_FIELDS = set(MetricResult.model_fields)
_EVALUATION_FIELDS = set(Evaluation.model_fields)

__all__ = ["DEFAULT_SPOOL_AFTER", "EvaluationSpool", "SpoolClosedError", "slim_evaluation"]

#: Runs with more samples than this spool their judge calls (``run.spool-after``).
DEFAULT_SPOOL_AFTER = 1000


class SpoolClosedError(RuntimeError):
    """The spool of a run was closed: its prompts and raw answers are no longer readable."""


def slim_evaluation(
    evaluation: Evaluation, configs: dict[str, dict[str, Any]] | None = None
) -> SpooledEvaluation:
    """``evaluation`` as a spooled run keeps it: no steps (so no prompts, parsed or raw
    answers), each judge call's facts instead (:class:`~ragas_boot.runs.results.CallFacts`:
    judge, step, status, time, tokens, cost, cache); every other field as it was. ``configs``
    shares equal effective configs between the results of a run (pass the same dict)."""
    calls = tuple(CallFacts.of(call) for step in evaluation.steps for call in step.calls)
    fields = {name: getattr(evaluation, name) for name in Evaluation.model_fields}
    result, error = evaluation.result, evaluation.error
    if result is not None:
        kept = {name: getattr(result, name) for name in MetricResult.model_fields}
        kept["steps"] = []
        if configs is not None:
            key = json.dumps(result.config, sort_keys=True, default=str)
            kept["config"] = configs.setdefault(key, result.config)
        # Every field given, from a validated result: nothing to validate again. One shared
        # fields-set instead of a ~1 KiB copy each.
        fields["result"] = trusted(MetricResult, kept, {"_details": None}, _RESULT_FIELDS)
    if error is not None and error.steps:
        fields["error"] = error.model_copy(update={"steps": []})
    return trusted(SpooledEvaluation, fields, {"_calls": calls}, _EVALUATION_FIELDS)


def _close(file: IO[bytes]) -> None:
    file.close()


class EvaluationSpool:
    """Full evaluations, keyed by (sample index, metric index), in an unnamed temporary file.

    Written from the run's loop (:meth:`put`), read from any thread (:meth:`document`); the
    file position is shared, so each write or read seeks and runs under the spool's lock.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        # Closed by close() or the finalizer, not a with block: it outlives the run.
        # Unbuffered: a failed write leaves nothing in a buffer to land later, so the next
        # put can write where the failed one began.
        self._file = tempfile.TemporaryFile(  # noqa: SIM115
            dir=directory, prefix="ragas-boot-spool-", buffering=0
        )
        self._index: dict[tuple[int, int], tuple[int, int]] = {}
        self._end = 0
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close, self._file)
        self._configs: dict[str, dict[str, Any]] = {}

    @property
    def closed(self) -> bool:
        """Whether the spool was closed (its file is then gone)."""
        return not self._finalizer.alive

    @property
    def size(self) -> int:
        """Bytes written so far."""
        return self._end

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def put(self, key: tuple[int, int], evaluation: Evaluation) -> SpooledEvaluation:
        """Write ``evaluation`` in full under ``key``; return its slim copy (to keep).

        Raises:
            OSError: the file could not be written (disk full, file size limit); nothing is
                recorded under ``key`` and the next put writes where this one began.
        """
        data = json.dumps(evaluation.model_dump(mode="json")).encode("ascii")
        with self._lock:
            self._check()
            offset, view = self._end, memoryview(data)
            self._file.seek(offset)
            while view:  # a raw write may write less than asked
                written = self._file.write(view) or 0
                offset, view = offset + written, view[written:]
            self._index[key] = (self._end, len(data))
            self._end = offset
        return slim_evaluation(evaluation, self._configs)

    def document(self, key: tuple[int, int]) -> dict[str, Any] | None:
        """The evaluation under ``key`` as JSON data (as ``model_dump(mode="json")`` gave
        it); None when nothing was spooled under it.

        Raises:
            SpoolClosedError: the spool was closed.
        """
        place = self._index.get(key)
        if place is None:
            self._check()
            return None
        offset, length = place
        chunks: list[bytes] = []
        with self._lock:
            self._check()
            self._file.seek(offset)
            remaining = length
            while remaining:  # a raw read may read less than asked
                chunk = self._file.read(remaining)
                if not chunk:  # a regular file gives all of it, unless truncated
                    raise OSError(
                        f"the run's spool is truncated at byte {offset + length - remaining}"
                    )
                chunks.append(chunk)
                remaining -= len(chunk)
        data = b"".join(chunks)
        document: dict[str, Any] = json.loads(data)
        return document

    def evaluation(self, key: tuple[int, int]) -> Evaluation | None:
        """The full :class:`Evaluation` under ``key``, read back; None when not spooled."""
        document = self.document(key)
        return None if document is None else Evaluation.model_validate(document)

    def close(self) -> None:
        """Close the file (it has no name, so it is then gone); idempotent."""
        self._finalizer()

    def _check(self) -> None:
        if self.closed:
            raise SpoolClosedError(
                "the run's spool was closed: its judge calls' prompts and raw answers are gone "
                "(write the reports before RunResult.close_spool())"
            )
