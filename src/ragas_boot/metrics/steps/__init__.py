"""Steps shared by the retrieval, response and NVIDIA metrics.

Most of those metrics are a few of the same steps in different orders:

- :func:`decompose`: each judge splits a text into statements, claims or entities;
- :func:`judge_statements`: each judge gives one verdict per statement **of its own**, in one
  call whose schema pins the list to the statements (one item per statement, the statement
  repeated as the key); a missing, extra or unknown verdict is that judge's failure;
- :func:`rate`: each judge rates on a 0..k scale with a reason, normalised to [0, 1].

A :class:`Chain` runs them: it numbers the steps, records every step and exclusion, and groups
steps that do not depend on each other into one *level* sent at once, so the number of
levels (dependent steps), not the number of calls, sets the wall time.
"""

from ragas_boot.metrics.steps.chain import Chain
from ragas_boot.metrics.steps.decompose import (
    Claims,
    Entities,
    Statements,
    clean_items,
    decompose,
    item_key,
)
from ragas_boot.metrics.steps.explain import mean_text, outcome_text
from ragas_boot.metrics.steps.inputs import contexts_of, require_contexts, require_text
from ragas_boot.metrics.steps.pipelines import JudgedStatements, decompose_then_judge
from ragas_boot.metrics.steps.rating import Rating, rate, rating_model
from ragas_boot.metrics.steps.verdicts import (
    Verdict,
    VerdictScale,
    align_verdicts,
    judge_statements,
    numbered_list,
    verdict_model,
)

__all__ = [
    "Chain",
    "Claims",
    "Entities",
    "JudgedStatements",
    "Rating",
    "Statements",
    "Verdict",
    "VerdictScale",
    "align_verdicts",
    "clean_items",
    "contexts_of",
    "decompose",
    "decompose_then_judge",
    "item_key",
    "judge_statements",
    "mean_text",
    "numbered_list",
    "outcome_text",
    "rate",
    "rating_model",
    "require_contexts",
    "require_text",
    "verdict_model",
]
