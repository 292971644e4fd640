"""What a run is bounded by and what it leaves behind: ``spring.ai.ragas.run`` (deadlines,
spend cap, spooling), ``cache`` (judges' answers on disk), ``history`` (recorded runs) and
``allure`` (attachments to Allure reports)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, Field, field_validator

from ragas_boot.config.settings._base import Duration, _Section
from ragas_boot.config.settings.modes import Language, _lower_language

__all__ = ["AllureSettings", "CacheSettings", "HistorySettings", "RunSettings"]


class AllureSettings(_Section):
    """``spring.ai.ragas.allure``: attachments to Allure reports (with allure-pytest)."""

    enabled: bool = Field(default=False, description="Attach an HTML page per evaluation.")
    language: Annotated[Language, BeforeValidator(_lower_language)] = Field(
        default="en", description="Report language."
    )
    include_prompts: bool = Field(default=True, description="Show prompts.")
    include_responses: bool = Field(default=True, description="Show raw answers.")
    include_stack_traces: bool = Field(default=True, description="Show error details.")
    max_prompt_length: int = Field(default=0, ge=0, description="Cut prompts; 0 = whole.")
    max_response_length: int = Field(default=0, ge=0, description="Cut answers; 0 = whole.")


class RunSettings(_Section):
    """``spring.ai.ragas.run``: bounds of a dataset run (``ragas-boot evaluate`` / ``compare``).

    When a deadline passes, what is unfinished is cancelled and every sample still gets a
    result (failed with the kind ``deadline``); reports are written as usual.
    """

    deadline: Duration | None = Field(
        default=None, description="Longest time a whole run may take; unset = no limit."
    )
    evaluation_deadline: Duration | None = Field(
        default=None,
        description="Longest time one evaluation (a sample × a metric) may take; unset = none.",
    )
    max_cost: float | None = Field(
        default=None,
        gt=0.0,
        allow_inf_nan=False,
        description="Spend cap of a run, in the judges' price currency: once the judges' "
        "billed cost reaches it no judge call is sent and what is unfinished gets the status "
        "budget (exit code 3); unset = no cap. Judges without a price cost nothing here.",
    )
    spool_after: int | None = Field(
        default=1000,
        ge=0,
        description="A run of more samples than this spools: each finished evaluation is "
        "written in full to an unnamed temporary file and the run keeps it without the judge "
        "calls' prompts and raw answers, so its memory does not grow with them (the JSON "
        "report is the same; the HTML report shows them for the first and the failing "
        "samples). 0 = always; null = never (keep everything in memory).",
    )

    @field_validator("deadline", "evaluation_deadline")
    @classmethod
    def _positive(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError("must be a positive duration, e.g. 30s or 10m")
        return value


class CacheSettings(_Section):
    """``spring.ai.ragas.cache``: the persistent response cache of judges' valid answers.

    On by default for judges with temperature 0 that are not on this machine (a loopback
    base-url or the embedded local provider, unless ``loopback: true``); an unchanged rerun
    then sends no request to them. The folder is ``$RAGAS_BOOT_HOME/cache`` when that
    variable is set, else ``.ragas-boot/cache`` in the working directory.
    """

    enabled: bool = Field(default=True, description="Look answers up and store valid ones.")
    dir: str | None = Field(
        default=None,
        description="Cache folder (relative to the working directory); default "
        "$RAGAS_BOOT_HOME/cache or .ragas-boot/cache.",
    )
    ttl: Duration | None = Field(
        default=None, description="How long a stored answer stays valid, e.g. 7d; unset = ever."
    )
    any_temperature: bool = Field(
        default=False,
        description="Cache judges with a temperature above 0 too (their answers vary by call).",
    )
    loopback: bool = Field(
        default=False,
        description="Cache judges on this machine too (a base-url at localhost/127.0.0.1, the "
        "embedded local provider); off so that test servers answer every call.",
    )

    @field_validator("ttl")
    @classmethod
    def _positive_ttl(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError("must be a positive duration, e.g. 12h or 7d")
        return value

    @field_validator("dir")
    @classmethod
    def _non_blank_dir(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must name a folder, or be left out for the default")
        return value


class HistorySettings(_Section):
    """``spring.ai.ragas.history``: where ``evaluate``, ``compare`` and ``suite run`` record
    their runs for ``ragas-boot runs list|diff``, ``--resume`` and ``runs merge``.

    Without ``url`` the history is a SQLite file, ``history.db``, in ``$RAGAS_BOOT_HOME`` or
    else in ``.ragas-boot/`` of the working directory. A URL may carry a password: it is
    treated as a secret and printed masked.
    """

    enabled: bool = Field(default=True, description="Record runs; false: record nothing.")
    url: str | None = Field(
        default=None,
        description="SQLAlchemy database URL of a shared history (postgresql+pg8000://...); "
        "unset = the local SQLite file.",
    )
    lock_timeout: Duration = Field(
        default=timedelta(seconds=30),
        description="How long recording a run retries (with backoff) a history that another "
        "process holds locked; then the run is not recorded (a warning, never the run's exit "
        "code).",
    )
