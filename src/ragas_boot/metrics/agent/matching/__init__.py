"""Tool-call matching for ToolCallAccuracy: which actual calls match which expected ones.

Pure computation (no LLM, no I/O). A pair (actual, reference) *matches* when the tool names
are equal (case-sensitive) and the arguments meet the mode's rule:

* ``STRICT``: the same argument names with equal values (argument score 1.0);
* ``FLEXIBLE``: the argument score (the share of reference arguments the actual call got
  right) is at least the threshold.

True positives are the size of a *maximum* matching of disjoint matching pairs, never a
greedy first fit; among maximum matchings the one with the highest total argument score is
reported. So permuting either list never changes the score, and duplicate calls count as
many times as they occur. With ``order=STRICT`` the matched pairs must also keep both lists'
order (a longest common subsequence, weighted the same way).

Value equality is JSON equality: JSON has one number type, so ``1 == 1.0``; a boolean never
equals a number (``True != 1``), a string never equals a number (``"1" != 1``), object key
order is irrelevant, arrays are order-sensitive, ``null == null``; nested values compare
recursively. ``ValueComparison.NORMALIZE`` also equates numeric strings with numbers
(``"1" == 1``, ``" 2.50 " == 2.5``) and compares strings trimmed and case-insensitively, at
any depth. Argument *names* are always compared exactly.

A reference may say more (see :mod:`ragas_boot.samples.references`):

* **alternatives** (:class:`~ragas_boot.samples.ToolCallAlternatives`): each acceptable
  sequence is matched on its own and the best F1 wins (the first on a tie);
* **optional calls** (``ExpectedToolCall(optional=True)``): a required reference call
  outranks any number of optional ones in the matching; an actual call matched to an optional
  one counts neither as made nor as expected, and an optional call nobody made is not missed;
* **argument rules** (``argument_rules``): an argument with a rule passes by the rule (any
  value, absent when forbidden, or checks: a regex, one of some values, a JSON type, a
  range, a numeric tolerance, a subset of an object, a Python check; an expected value
  given beside them must be equal too, unless tolerance or subset compares with it); it
  counts as one expected argument like any other. Every rule is checked in one place,
  :func:`~.values.rule_failure`.

**Failed calls.** Given whether each actual call succeeded (its tool result), a failed call
is *recovered* when a later call of the same tool succeeded, else *unrecovered*. With
``failed_calls=EXCLUDE_RECOVERED`` recovered failures are left out before matching, so a
retry that worked costs no precision; by default (``COUNT``) they count like any call.
"""

from ragas_boot.metrics.agent.matching.matcher import match_tool_calls
from ragas_boot.metrics.agent.matching.modes import (
    DEFAULT_ARGUMENT_MATCH_THRESHOLD,
    CallOrder,
    FailedCalls,
    ToolCallMode,
    ValueComparison,
)
from ragas_boot.metrics.agent.matching.report import (
    SUMMARY_TEMPLATES,
    CorrectCall,
    IncorrectCall,
    MatchedPair,
    ToolCallMatching,
    UnmatchedCall,
)
from ragas_boot.metrics.agent.matching.values import (
    ABSENT,
    argument_problems,
    argument_score,
    rule_failure,
)

__all__ = [
    "ABSENT",
    "DEFAULT_ARGUMENT_MATCH_THRESHOLD",
    "SUMMARY_TEMPLATES",
    "CallOrder",
    "CorrectCall",
    "FailedCalls",
    "IncorrectCall",
    "MatchedPair",
    "ToolCallMatching",
    "ToolCallMode",
    "UnmatchedCall",
    "ValueComparison",
    "argument_problems",
    "argument_score",
    "match_tool_calls",
    "rule_failure",
]
