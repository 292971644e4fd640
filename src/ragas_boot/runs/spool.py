"""The spool of a large run: each evaluation on disk in full and slim, nothing per sample kept.

A run of 10,000 samples × 3 metrics × 4 judges makes 120,000 judge calls; keeping each
call's record in the :class:`~ragas_boot.runs.RunResult` costs ~100 KiB per sample (~1 GiB
for the run): the prompts and raw answers are about a quarter of it, the pydantic objects of
the steps and calls most of the rest. Even a slim copy of each evaluation (no steps; a few
facts per judge call) is ~40 KiB per sample, so a run that keeps them grows without bound.

When a run has more samples than ``spool-after``, each finished evaluation is written twice
as it finishes, to two unnamed temporary files: in full as one JSON text (what the JSON
report shows for it) and as its slim copy, a
:class:`~ragas_boot.runs.records.SpooledEvaluation` (every field as it was except the
steps, and for each judge call a small record of its judge, step, status, time, tokens,
cost and cache outcome: what the summaries, gates, the history and calibration count),
pickled. The run keeps only where each record is. ``RunResult.samples`` is then a
:class:`SpooledSamples`: a sequence that reads a sample's slim evaluations back when it is
asked for, so the console, the gate, the history and calibration each read the run from
disk a sample at a time, and the memory a run keeps after it ends is a few hundred bytes per
sample whatever its size. The JSON report of a spooled run is written from the full records,
the same text as without a spool; the HTML report reads back the samples it shows in full.

The files have no name on disk (``tempfile.TemporaryFile``). The full records' file is closed
by :meth:`RunResult.close_spool` (prompts and raw answers are then gone); the slim records'
file stays open as long as the result lives, so its samples stay readable. Both disappear
when the result is garbage-collected or the process ends, however it ends (on Windows a
temporary file is deleted on close). Both are read and written with ``seek`` and unbuffered
``read``/``write`` under one lock, which every platform has (``os.pread``/``os.pwrite`` do not
exist on Windows).
"""

from __future__ import annotations

import json
import pickle
import tempfile
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, overload

from ragas_boot._trusted import trusted
from ragas_boot.errors import SpoolClosedError
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.records import CallFacts, Evaluation, SampleRun, SpooledEvaluation
from ragas_boot.samples import Sample

#: The fields-set of every slim result and evaluation: all their fields (each is given).
_RESULT_FIELDS = set(MetricResult.model_fields)
_EVALUATION_FIELDS = set(Evaluation.model_fields)

__all__ = [
    "DEFAULT_SPOOL_AFTER",
    "EvaluationSpool",
    "SpooledSamples",
    "slim_evaluation",
]

#: What a spooled run keeps of each sample: its id and the slim evaluations, not validated
#: again (the library wrote them).
_SAMPLE_FIELDS = set(SampleRun.model_fields)

#: Runs with more samples than this spool their judge calls (``run.spool-after``).
DEFAULT_SPOOL_AFTER = 1000


def slim_evaluation(
    evaluation: Evaluation, configs: dict[str, dict[str, Any]] | None = None
) -> SpooledEvaluation:
    """``evaluation`` as a spooled run keeps it: no steps (so no prompts, parsed or raw
    answers), each judge call's facts instead (:class:`~ragas_boot.runs.records.CallFacts`:
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


def _write(file: IO[bytes], offset: int, data: bytes) -> int:
    """Write ``data`` at ``offset`` (the caller holds the lock); return the end offset."""
    view = memoryview(data)
    file.seek(offset)
    while view:  # a raw write may write less than asked
        written = file.write(view) or 0
        offset, view = offset + written, view[written:]
    return offset


def _read(file: IO[bytes], offset: int, length: int) -> bytes:
    """``length`` bytes at ``offset`` (the caller holds the lock)."""
    chunks: list[bytes] = []
    file.seek(offset)
    remaining = length
    while remaining:  # a raw read may read less than asked
        chunk = file.read(remaining)
        if not chunk:  # a regular file gives all of it, unless truncated
            raise OSError(f"the run's spool is truncated at byte {offset + length - remaining}")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


class EvaluationSpool:
    """Evaluations in full and slim, keyed by (sample index, metric index), in two unnamed
    temporary files (see the module docstring).

    Written from the run's loop (:meth:`put`), read from any thread (:meth:`document`,
    :meth:`slim`); the file positions are shared, so each write or read seeks and runs under
    the spool's lock.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        # Closed by close() or the finalizers, not a with block: they outlive the run.
        # Unbuffered: a failed write leaves nothing in a buffer to land later, so the next
        # put can write where the failed one began.
        self._file = tempfile.TemporaryFile(  # noqa: SIM115
            dir=directory, prefix="ragas-boot-spool-", buffering=0
        )
        self._slim_file = tempfile.TemporaryFile(  # noqa: SIM115
            dir=directory, prefix="ragas-boot-spool-slim-", buffering=0
        )
        # key -> (full offset, full length, slim offset, slim length)
        self._index: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self._end = 0
        self._slim_end = 0
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close, self._file)
        self._slim_finalizer = weakref.finalize(self, _close, self._slim_file)
        self._configs: dict[str, dict[str, Any]] = {}

    @property
    def closed(self) -> bool:
        """Whether the full records were closed (their file is then gone)."""
        return not self._finalizer.alive

    @property
    def size(self) -> int:
        """Bytes written so far (both files)."""
        return self._end + self._slim_end

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def put(self, key: tuple[int, int], evaluation: Evaluation) -> SpooledEvaluation:
        """Write ``evaluation`` under ``key`` in full and slim; return the slim copy.

        Raises:
            OSError: a file could not be written (disk full, file size limit); nothing is
                recorded under ``key`` and the next put writes where this one began.
        """
        data = json.dumps(evaluation.model_dump(mode="json")).encode("ascii")
        slim = slim_evaluation(evaluation, self._configs)
        packed = pickle.dumps(slim, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._check()
            end = _write(self._file, self._end, data)
            slim_end = _write(self._slim_file, self._slim_end, packed)
            self._index[key] = (self._end, len(data), self._slim_end, len(packed))
            self._end, self._slim_end = end, slim_end
        return slim

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
        offset, length = place[0], place[1]
        with self._lock:
            self._check()
            data = _read(self._file, offset, length)
        document: dict[str, Any] = json.loads(data)
        return document

    def slim(self, key: tuple[int, int]) -> SpooledEvaluation | None:
        """The slim copy of the evaluation under ``key``; None when nothing was spooled under
        it. Readable until the spool is garbage-collected, :meth:`close` or not."""
        place = self._index.get(key)
        if place is None:
            return None
        offset, length = place[2], place[3]
        with self._lock:
            data = _read(self._slim_file, offset, length)
        slim: SpooledEvaluation = pickle.loads(data)  # our own file, written by put()
        return slim

    def evaluation(self, key: tuple[int, int]) -> Evaluation | None:
        """The full :class:`Evaluation` under ``key``, read back; None when not spooled."""
        document = self.document(key)
        return None if document is None else Evaluation.model_validate(document)

    def close(self) -> None:
        """Close the full records' file (it has no name, so it is then gone); idempotent.
        The slim records stay readable until the spool itself is garbage-collected."""
        self._finalizer()

    def dispose(self) -> None:
        """Close both files (a run that ended in an error keeps nothing); idempotent."""
        self._finalizer()
        self._slim_finalizer()

    def _check(self) -> None:
        if self.closed:
            raise SpoolClosedError(
                "the run's spool was closed: its judge calls' prompts and raw answers are gone "
                "(write the reports before RunResult.close_spool())"
            )


class SpooledSamples(Sequence[SampleRun]):
    """``RunResult.samples`` of a spooled run: each sample built when it is asked for, from
    its slim evaluations on disk (see the module docstring), so the run holds nothing per
    sample but where its records are.

    Args:
        spool: the run's spool.
        samples: the samples as evaluated (the run's own list: the dataset's objects).
        width: metrics per sample.
        kept: evaluations that are not in the spool (unfinished, over budget, or not
            written because the disk was full), by (sample index, metric index).
    """

    def __init__(
        self,
        spool: EvaluationSpool,
        samples: Sequence[Sample],
        width: int,
        kept: Mapping[tuple[int, int], Evaluation],
    ) -> None:
        self._spool = spool
        self._samples = samples
        self._width = width
        self._kept = kept

    def __len__(self) -> int:
        return len(self._samples)

    @overload
    def __getitem__(self, index: int) -> SampleRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[SampleRun]: ...

    def __getitem__(self, index: int | slice) -> SampleRun | list[SampleRun]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        count = len(self._samples)
        if not -count <= index < count:
            raise IndexError(f"sample index {index} out of range (the run has {count})")
        index %= count
        sample = self._samples[index]
        evaluations: list[Evaluation] = []
        for position in range(self._width):
            key = (index, position)
            evaluation = self._kept.get(key) or self._spool.slim(key)
            if evaluation is None:  # every key is either kept or spooled
                raise KeyError(f"the run has no evaluation for sample {index}, metric {position}")
            evaluations.append(evaluation)
        values = {"sample_id": sample.id or "", "sample": sample, "evaluations": evaluations}
        return trusted(SampleRun, values, None, _SAMPLE_FIELDS)

    def __iter__(self) -> Iterator[SampleRun]:
        for index in range(len(self._samples)):
            yield self[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return f"SpooledSamples({len(self)} samples × {self._width} metrics)"
