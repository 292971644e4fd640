"""Renderers of results: each takes a result and returns a string (the caller does the I/O).

Of a dataset run (a :class:`~ragas_boot.runs.RunResult`, a tool suite's too):

* :func:`render_console` / :func:`console_renderables`: rich tables (a :data:`ConsoleView`);
* :func:`render_json`: the JSON report (:data:`REPORT_SCHEMA_VERSION`,
  :func:`report_json_schema`; see ``docs/report-json.md``);
* :func:`render_html`: one self-contained HTML page (inline CSS and SVG, no script), with a
  baseline's diff or a calibration when given;
* :func:`render_csv` / :func:`write_table`: the run as a CSV or Parquet table (the rows of
  ``RunResult.to_pandas()``); :func:`render_junit`: JUnit XML for CI test reports;
  :func:`render_markdown`: a CI summary, :func:`append_step_summary` for GitHub's.

Of the other results: :func:`render_diff` (two runs of the history,
:func:`~ragas_boot.runs.diff_runs`); :func:`render_calibration_console`,
:func:`render_calibration_json` (:data:`CALIBRATION_SCHEMA_VERSION`,
:func:`calibration_report_json_schema`) and :func:`render_calibration_html` (a
:class:`~ragas_boot.runs.CalibrationReport`); :func:`render_settings_yaml` (the resolved
configuration, secrets masked, with origins). :func:`redact` (with :func:`secret_values`) is
the last line of defence against a secret reaching an output.

Every other renderer lives here too, in its own module, as a part of these:
:mod:`~ragas_boot.reporting.analysis` (the failure analysis section),
:mod:`~ragas_boot.reporting.pytest_table` (the pytest plugin's score table and
``--ragas-report`` JSON) and :mod:`~ragas_boot.reporting.allure_page` (the Allure page of one
evaluation). All pages share one stylesheet (``_style``) and every figure one spelling
(``_format``: no score is ``—`` everywhere).
"""

from ragas_boot.reporting.calibration import (
    CALIBRATION_SCHEMA_VERSION,
    calibration_report_json_schema,
    render_calibration_console,
    render_calibration_html,
    render_calibration_json,
)
from ragas_boot.reporting.console import ConsoleView, console_renderables, render_console
from ragas_boot.reporting.history_report import render_diff
from ragas_boot.reporting.html_report import render_html
from ragas_boot.reporting.json_report import (
    REPORT_SCHEMA_VERSION,
    render_json,
    report_json_schema,
)
from ragas_boot.reporting.junit import render_junit
from ragas_boot.reporting.markdown import append_step_summary, render_markdown
from ragas_boot.reporting.redaction import redact, secret_values
from ragas_boot.reporting.settings_view import render_settings_yaml
from ragas_boot.reporting.tables import render_csv, write_table

__all__ = [
    "CALIBRATION_SCHEMA_VERSION",
    "REPORT_SCHEMA_VERSION",
    "ConsoleView",
    "append_step_summary",
    "calibration_report_json_schema",
    "console_renderables",
    "redact",
    "render_calibration_console",
    "render_calibration_html",
    "render_calibration_json",
    "render_console",
    "render_csv",
    "render_diff",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_settings_yaml",
    "report_json_schema",
    "secret_values",
    "write_table",
]
