"""A run's journal as the ledger of the provider batches its judges submit.

Each batch is one journal entry (kind ``batch``, keyed by the judge and the batch's id) with
the ``custom_id`` of every request in it, written before the batch is waited on. A resumed run
reads them back: a call whose ``custom_id`` an earlier attempt sent waits on that batch
instead of going into a new one (:mod:`ragas_boot.chat.openai.batches`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragas_boot.chat.batching import SubmittedBatch

if TYPE_CHECKING:
    from ragas_boot.runs.journal import RunJournal

__all__ = ["BATCH_ENTRY", "JournalLedger"]

#: The journal entries' kind.
BATCH_ENTRY = "batch"


class JournalLedger:
    """Records the batches of a run in its journal and reads back those of earlier attempts.

    Args:
        journal: the run's journal.
    """

    def __init__(self, journal: RunJournal) -> None:
        self._journal = journal
        self._submitted: dict[tuple[str, str], str] = {}
        for _, data in journal.noted(BATCH_ENTRY):
            judge_id, batch_id = str(data["judge_id"]), str(data["batch_id"])
            for custom_id in data.get("custom_ids", ()):
                self._submitted[(judge_id, str(custom_id))] = batch_id

    def __repr__(self) -> str:
        return f"JournalLedger(run={self._journal.run_id!r}, earlier={len(self._submitted)})"

    def submitted_in(self, judge_id: str, custom_id: str) -> str | None:
        """The batch an earlier attempt sent ``judge_id``'s request ``custom_id`` in."""
        return self._submitted.get((judge_id, custom_id))

    async def record(self, batch: SubmittedBatch) -> None:
        """Write the batch to the journal; return once it is committed."""
        await self._journal.anote(
            BATCH_ENTRY,
            f"{batch.judge_id}\n{batch.batch_id}",
            {
                "batch_id": batch.batch_id,
                "judge_id": batch.judge_id,
                "provider": batch.provider,
                "model": batch.model,
                "input_file_id": batch.input_file_id,
                "custom_ids": list(batch.custom_ids),
            },
        )
