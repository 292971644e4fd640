"""The one exception tree of ragas-boot.

Every class also inherits the builtin it stands for, so ``except ValueError`` keeps working
for callers that do not know this library::

    RagasBootError
    ├── ConfigError (ValueError)               a YAML key is wrong; names the key and the file
    ├── SampleValidationError (ValueError)     a sample lacks what a metric needs; names the field
    │   └── DatasetError                       a dataset file is unreadable; names file and line
    ├── SuiteError (ValueError)                a tool suite is invalid; names file, case and field
    ├── DocumentError (ValueError)             documents to generate from are missing or empty
    ├── JudgeNotFoundError (LookupError)       a metric config names a judge id nobody declared
    ├── MissingExtraError (ImportError)        an optional extra is not installed; says what to run
    ├── HistoryError (RuntimeError)            the run history is unreachable, or has no such run
    ├── RunJournalError (ValueError)           a run cannot be resumed, or shards merged, as asked
    ├── CacheError (RuntimeError)              the response cache's files are unusable (corrupt)
    ├── SpoolClosedError (RuntimeError)        a spooled run's prompts were closed (close_spool)
    ├── JudgeError (RuntimeError)              one call to one judge failed
    │   ├── JudgeHTTPError                     the server answered with an error status
    │   ├── JudgeTimeoutError (TimeoutError)   no answer within the per-call timeout
    │   ├── JudgeConnectionError (ConnectionError)
    │   ├── JudgeOutputError (ValueError)      empty, unparseable or schema-invalid answer
    │   ├── RateLimitExceededError             REJECT strategy, or WAIT past its timeout
    │   ├── JudgeUnavailableError              the judge's circuit is open: not sent
    │   ├── BudgetExceededError                the run's spend cap was reached: not sent
    │   └── PromptTooLargeError                the prompt is over max-prompt-tokens: not sent
    ├── AllJudgesFailedError (RuntimeError)    no judge answered a required step
    ├── NoConsensusError (ArithmeticError)     CONSENSUS aggregation outside its tolerance
    └── UndefinedScoreError (ArithmeticError)  no score exists for this sample (says why)

Judge errors are normally caught by the executor and recorded as exclusions; only
``AllJudgesFailedError`` (and ``NoConsensusError``) reach the caller of a metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "AllJudgesFailedError",
    "BudgetExceededError",
    "CacheError",
    "ConfigError",
    "DatasetError",
    "DocumentError",
    "HistoryError",
    "JudgeConnectionError",
    "JudgeError",
    "JudgeFailureSummary",
    "JudgeHTTPError",
    "JudgeNotFoundError",
    "JudgeOutputError",
    "JudgeTimeoutError",
    "JudgeUnavailableError",
    "MissingExtraError",
    "NoConsensusError",
    "PromptTooLargeError",
    "RagasBootError",
    "RateLimitExceededError",
    "RunJournalError",
    "SampleValidationError",
    "SpoolClosedError",
    "SuiteError",
    "UndefinedScoreError",
]


class RagasBootError(Exception):
    """Base class of every error raised by ragas-boot."""


class ConfigError(RagasBootError, ValueError):
    """The configuration is invalid.

    Attributes:
        key: dotted YAML path of the offending key (``spring.ai.retry.backoff.multiplier``),
            or ``None`` when the problem is the file as a whole.
        file: the file the key came from, when known.
        hint: a suggestion ("did you mean ...?"), when one exists.
    """

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        file: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.key = key
        self.file = file
        self.hint = hint
        parts = []
        if key:
            parts.append(f"{key}: ")
        parts.append(message)
        if file:
            parts.append(f" (in {file})")
        if hint:
            parts.append(f". {hint}")
        super().__init__("".join(parts))


class SampleValidationError(RagasBootError, ValueError):
    """A sample cannot be scored by a metric, or a trace cannot be read as a sample.

    Attributes:
        field: the sample field (or ``messages[3].tool_calls[0].function.arguments``-like path).
        metric: the metric that needs it, when the error comes from a metric.
        mode: the metric mode that needs it, when relevant.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str,
        metric: str | None = None,
        mode: str | None = None,
    ) -> None:
        self.field = field
        self.metric = metric
        self.mode = mode
        where = f"{metric}" + (f" ({mode})" if mode else "") if metric else None
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}sample field '{field}': {message}")


class DatasetError(SampleValidationError):
    """A dataset file cannot be read, or one of its samples is invalid.

    The message starts with ``file:line`` so editors and terminals can jump to it, then says
    where in the file (``document 2, samples[3]``) and which sample field is wrong.

    Attributes:
        file: the dataset file.
        line: 1-based line of the problem, when known.
        location: the place in the file's structure (``samples[3]``), when known.
        field: the sample field path (``reference_tool_calls[0].name``), or ``""`` when the
            problem is not in one field (bad YAML, a missing file).
    """

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int | None = None,
        location: str | None = None,
        field: str = "",
    ) -> None:
        self.file = file
        self.line = line
        self.location = location
        self.field = field
        self.metric = None
        self.mode = None
        where = file + (f":{line}" if line is not None else "")
        if location:
            where += f" ({location})"
        detail = f"field '{field}': {message}" if field else message
        # SampleValidationError's own prefix ("sample field ...") does not fit a file error.
        RagasBootError.__init__(self, f"{where}: {detail}")


class SuiteError(RagasBootError, ValueError):
    """A tool-evaluation suite cannot be loaded or run as written.

    Attributes:
        file: the suite file, when the suite came from one.
        case_id: the id of the case at fault (its position when it has no usable id), or
            ``None`` when the problem is the suite as a whole.
        field: the path of the offending field inside the case (or the suite), e.g.
            ``expected_tool_calls[0].param_validators.days.range``; ``None`` for the file.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        case_id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file = file
        self.case_id = case_id
        self.field = field
        where = [file] if file else []
        if case_id is not None:
            where.append(f"case {case_id}")
        if field:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class DocumentError(RagasBootError, ValueError):
    """The documents a test set is generated from cannot be used: a path is missing, has no
    readable text, or is of a kind that cannot be read.

    Attributes:
        path: the file or directory at fault.
    """

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


class JudgeNotFoundError(RagasBootError, LookupError):
    """A judge id (or alias) was asked for that no provider declares."""

    def __init__(self, judge_id: str, available: Sequence[str]) -> None:
        self.judge_id = judge_id
        self.available = list(available)
        known = ", ".join(self.available) or "none"
        super().__init__(f"unknown judge '{judge_id}'; configured judges: {known}")


class MissingExtraError(RagasBootError, ImportError):
    """An optional dependency is missing; the message gives the exact install command."""

    def __init__(self, feature: str, extra: str, package: str) -> None:
        self.extra = extra
        self.command = f"pip install 'ragas-boot[{extra}]'"
        super().__init__(f"{feature} needs the '{package}' package: run {self.command}")


class HistoryError(RagasBootError, RuntimeError):
    """The run history cannot be opened, read or written, or has no such run.

    The message names the database with its password masked.
    """


class RunJournalError(RagasBootError, ValueError):
    """A run cannot be resumed (``--resume``), or a group of shards merged (``runs merge``),
    as asked: the run finished already, a shard is missing, duplicated or unfinished, or the
    runs used another configuration or dataset. The message says which run and why."""


class CacheError(RagasBootError, RuntimeError):
    """The response cache's files cannot be used (corrupt, unreadable); the message names the
    folder and says to run ``ragas-boot cache clear``, which removes them."""


class SpoolClosedError(RagasBootError, RuntimeError):
    """The spool of a run was closed (``RunResult.close_spool``): its prompts and raw answers
    are no longer readable (``RunResult.full_sample``)."""


class JudgeError(RagasBootError, RuntimeError):
    """One call to one judge failed.

    Attributes:
        judge_id: the judge that failed.
        kind: a short stable name of the failure kind (``http``, ``timeout``, ...).
        usage: the tokens the failed response still reported (an invalid answer, an error
            body with a ``usage`` block), as a ``ragas_boot.chat.TokenUsage``; ``None`` when
            no body with usage came back. The provider bills them, so runs count them.
        batched: whether the failed response came back in a provider batch (its usage is
            billed at the judge's batch price).
    """

    kind = "error"
    usage: object | None = None
    batched: bool = False

    def __init__(self, message: str, *, judge_id: str) -> None:
        self.judge_id = judge_id
        super().__init__(message)


class JudgeHTTPError(JudgeError):
    """The judge's server answered with an error status, or with a redirect (never followed).

    Attributes:
        status_code: the HTTP status.
        retry_after: seconds the server asked to wait (``Retry-After``), if it said.
        location: where a redirect (3xx) points, credentials masked; ``None`` otherwise.
    """

    kind = "http"

    def __init__(
        self,
        message: str,
        *,
        judge_id: str,
        status_code: int,
        retry_after: float | None = None,
        location: str | None = None,
    ) -> None:
        self.status_code = status_code
        self.retry_after = retry_after
        self.location = location
        super().__init__(message, judge_id=judge_id)

    @property
    def kind_detail(self) -> str:
        """`rate_limited` (429), `server_error` (5xx), `auth` (401/403), `redirect` (3xx),
        else `http`."""
        if 300 <= self.status_code < 400:
            return "redirect"
        if self.status_code == 429:
            return "rate_limited"
        if self.status_code >= 500:
            return "server_error"
        if self.status_code in (401, 403):
            return "auth"
        return "http"


class JudgeTimeoutError(JudgeError, TimeoutError):
    """The judge gave no answer within the per-call timeout."""

    kind = "timeout"


class JudgeConnectionError(JudgeError, ConnectionError):
    """The judge's server could not be reached, or dropped the connection."""

    kind = "connection"


class JudgeOutputError(JudgeError, ValueError):
    """The judge answered, but not with a valid instance of the output schema.

    Attributes:
        raw_text: the judge's answer exactly as received (never lost).
    """

    kind = "invalid_output"

    def __init__(self, message: str, *, judge_id: str, raw_text: str | None) -> None:
        self.raw_text = raw_text
        super().__init__(message, judge_id=judge_id)


class RateLimitExceededError(JudgeError):
    """The provider's rate limit refused the call (REJECT, or WAIT past its timeout)."""

    kind = "rate_limit_rejected"

    def __init__(self, message: str, *, judge_id: str, provider: str) -> None:
        self.provider = provider
        super().__init__(message, judge_id=judge_id)


class JudgeUnavailableError(JudgeError):
    """The judge failed too often in a row (its circuit is open): the call was not sent."""

    kind = "unavailable"

    def __init__(self, message: str, *, judge_id: str, provider: str) -> None:
        self.provider = provider
        super().__init__(message, judge_id=judge_id)


class BudgetExceededError(JudgeError):
    """The run's spend cap (``--max-cost``, ``spring.ai.ragas.run.max-cost``) was reached:
    the call was not sent.

    Attributes:
        max_cost: the cap.
        spent: what the run had spent when the call was refused.
        reserved: the worst cases of the calls then in flight.
    """

    kind = "budget"

    def __init__(
        self, *, judge_id: str, max_cost: float, spent: float, reserved: float = 0.0
    ) -> None:
        self.max_cost = max_cost
        self.spent = spent
        self.reserved = reserved
        held = f", {reserved:.6g} reserved by calls in flight" if reserved else ""
        super().__init__(
            f"the run's spend cap of {max_cost:g} was reached ({spent:.6g} spent{held}): not sent",
            judge_id=judge_id,
        )


class PromptTooLargeError(JudgeError):
    """A judge prompt is larger than the judge's ``max-prompt-tokens``: it was not sent.

    Attributes:
        estimated_tokens: the prompt's estimated tokens (characters / 4, format included).
        max_prompt_tokens: the judge's limit.
    """

    kind = "prompt_too_large"

    def __init__(self, *, judge_id: str, estimated_tokens: int, max_prompt_tokens: int) -> None:
        self.estimated_tokens = estimated_tokens
        self.max_prompt_tokens = max_prompt_tokens
        super().__init__(
            f"the prompt is about {estimated_tokens:,} tokens, more than max-prompt-tokens "
            f"{max_prompt_tokens:,} of judge {judge_id}: not sent (shorten the sample, or "
            "raise max-prompt-tokens on the provider or chat model)",
            judge_id=judge_id,
        )


@dataclass(frozen=True, slots=True)
class JudgeFailureSummary:
    """What one judge's failure looked like, as carried by :class:`AllJudgesFailedError`."""

    judge_id: str
    kind: str
    message: str


class AllJudgesFailedError(RagasBootError, RuntimeError):
    """No judge produced a usable answer at a step the metric cannot skip.

    Attributes:
        metric: metric name (``AgentGoalAccuracyMetric``).
        step: the step that nobody answered.
        failures: each judge's failure, in judge order.
    """

    def __init__(self, metric: str, step: str, failures: Sequence[JudgeFailureSummary]) -> None:
        self.metric = metric
        self.step = step
        self.failures = list(failures)
        details = "; ".join(f"{f.judge_id}: {f.kind}: {f.message}" for f in self.failures)
        super().__init__(
            f"All models failed at step {step} for metric: {metric}"
            + (f" ({details})" if details else " (no judges selected)")
        )


class NoConsensusError(RagasBootError, ArithmeticError):
    """CONSENSUS aggregation found the judges' scores further apart than the tolerance."""

    def __init__(self, low: float, high: float, tolerance: float) -> None:
        self.low = low
        self.high = high
        self.tolerance = tolerance
        super().__init__(
            f"No consensus: scores range from {low:.4f} to {high:.4f} (tolerance: {tolerance})"
        )


class UndefinedScoreError(RagasBootError, ArithmeticError):
    """The metric has no score for this sample; ``evaluate`` reports it with the reason."""

    def __init__(self, metric: str, reason: str) -> None:
        self.metric = metric
        self.reason = reason
        super().__init__(f"{metric}: score is undefined: {reason}")
