"""The fake server speaks OpenAI's batch API (files and batches) as the openai client reads it:
statuses that change over time, output and error files, expiry, validation, cancellation, and
records that tell batches, polls and lines apart from synchronous requests."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import openai
import pytest

from ragas_boot.testing import FakeOpenAIServer, Reply


def _line(custom_id: str, model: str = "judge-a", text: str = "Hello", **body: Any) -> str:
    request = {"model": model, "messages": [{"role": "user", "content": text}], **body}
    return json.dumps(
        {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": request}
    )


def _submit(client: openai.OpenAI, *lines: str) -> Any:
    uploaded = client.files.create(
        file=("batch.jsonl", io.BytesIO("\n".join(lines).encode() + b"\n")), purpose="batch"
    )
    return client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )


def _until_ended(client: openai.OpenAI, batch_id: str) -> Any:
    for _ in range(2000):  # a bound against a hang, not a measurement
        batch = client.batches.retrieve(batch_id)
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return batch
        time.sleep(0.01)
    raise AssertionError(f"batch {batch_id} never ended")


def _jsonl(client: openai.OpenAI, file_id: str | None) -> dict[str, dict[str, Any]]:
    assert file_id is not None
    text = client.files.content(file_id).text
    return {item["custom_id"]: item for item in map(json.loads, text.splitlines())}


def test_a_batch_is_answered_line_by_line_as_the_same_requests_sent_synchronously(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.respond("judge-a", lambda request: {"said": request.prompt.upper()})

    batch = _submit(client, _line("one", text="first"), _line("two", text="second ü"))
    assert batch.status == "validating"
    ended = _until_ended(client, batch.id)

    assert ended.status == "completed"
    assert ended.error_file_id is None
    assert ended.request_counts is not None
    assert (ended.request_counts.total, ended.request_counts.completed) == (2, 2)
    output = _jsonl(client, ended.output_file_id)
    assert set(output) == {"one", "two"}
    body = output["two"]["response"]["body"]
    assert output["two"]["response"]["status_code"] == 200
    assert json.loads(body["choices"][0]["message"]["content"]) == {"said": "SECOND Ü"}
    assert body["usage"]["prompt_tokens"] == 2  # "second ü": 8 characters, ceil(8 / 4)
    # Batch lines are recorded with their batch, not as synchronous requests.
    assert openai_server.count() == 0
    (record,) = openai_server.batches
    assert record.id == batch.id
    assert record.model == "judge-a"
    assert [line.request.prompt for line in record.lines] == ["first", "second ü"]
    assert [line.status for line in record.lines] == [200, 200]
    assert record.answered == 2
    assert record.polls >= 1


def test_the_status_changes_with_the_time_each_stage_takes(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.set_batch_timing(validating=0.2, in_progress=0.3, finalizing=0.2)
    batch = _submit(client, _line("only"))
    seen = [batch.status]
    while seen[-1] != "completed":
        status = client.batches.retrieve(batch.id).status
        if status != seen[-1]:
            seen.append(status)
        time.sleep(0.02)

    assert seen == ["validating", "in_progress", "finalizing", "completed"]
    (record,) = openai_server.batches
    assert record.polls >= 4
    ended = client.batches.retrieve(batch.id)
    assert ended.in_progress_at is not None and ended.completed_at is not None


def test_failed_lines_go_to_the_error_file_with_their_status_and_body(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.when(
        lambda request: "bad" in request.prompt, Reply.error(500, "model overloaded")
    )
    batch = _until_ended(client, _submit(client, _line("ok"), _line("bad", text="bad one")).id)

    assert batch.status == "completed"
    assert batch.request_counts is not None and batch.request_counts.failed == 1
    errors = _jsonl(client, batch.error_file_id)
    assert set(errors) == {"bad"}
    assert errors["bad"]["response"]["status_code"] == 500
    assert errors["bad"]["response"]["body"]["error"]["message"] == "model overloaded"
    assert set(_jsonl(client, batch.output_file_id)) == {"ok"}
    assert [line.status for line in openai_server.batches[0].lines] == [200, 500]


def test_an_expiring_batch_answers_only_its_first_lines(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.expire_next_batch(answered=1)
    batch = _until_ended(client, _submit(client, _line("a"), _line("b"), _line("c")).id)

    assert batch.status == "expired"
    assert set(_jsonl(client, batch.output_file_id)) == {"a"}
    errors = _jsonl(client, batch.error_file_id)
    assert set(errors) == {"b", "c"}
    assert errors["b"]["response"] is None
    assert errors["b"]["error"]["code"] == "batch_expired"
    # Only the next batch expires.
    assert _until_ended(client, _submit(client, _line("d")).id).status == "completed"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["{not json"], [(1, "invalid_request")]),
        ([_line("a"), _line("a")], [(2, "invalid_request")]),
        ([_line("a", model="one"), _line("b", model="two")], [(None, "model_mismatch")]),
        (
            [json.dumps({"custom_id": "x", "method": "POST", "url": "/v1/embeddings", "body": {}})],
            [(1, "invalid_request")],
        ),
        ([_line("a", messages_extra=1)], []),
    ],
    ids=["unreadable", "custom-id-twice", "two-models", "other-endpoint", "valid"],
)
def test_a_file_a_provider_would_refuse_fails_validation_naming_each_bad_line(
    openai_server: FakeOpenAIServer,
    client: openai.OpenAI,
    lines: list[str],
    expected: list[tuple[int | None, str]],
) -> None:
    batch = _until_ended(client, _submit(client, *lines).id)

    if not expected:
        assert batch.status == "completed"
        return
    assert batch.status == "failed"
    assert batch.errors is not None and batch.errors.data is not None
    assert [(error.line, error.code) for error in batch.errors.data] == expected
    assert batch.output_file_id is None


def test_a_test_can_make_the_next_batch_fail_validation(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.fail_next_batch("invalid_value: temperature too high", line=2)
    batch = _until_ended(client, _submit(client, _line("a"), _line("b")).id)

    assert batch.status == "failed"
    assert batch.errors is not None and batch.errors.data is not None
    (error,) = batch.errors.data
    assert (error.line, error.code) == (2, "invalid_value")
    assert "temperature too high" in (error.message or "")


def test_a_batch_cancelled_by_the_client_or_the_provider_ends_cancelled(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.set_batch_timing(in_progress=60)
    first = _submit(client, _line("a"))
    assert client.batches.cancel(first.id).status == "cancelling"
    second = _submit(client, _line("b"))
    openai_server.cancel_batch(second.id)

    for batch_id, custom_id in ((first.id, "a"), (second.id, "b")):
        ended = _until_ended(client, batch_id)
        assert ended.status == "cancelled"
        errors = _jsonl(client, ended.error_file_id)
        assert errors[custom_id]["error"]["code"] == "batch_cancelled"
    with pytest.raises(KeyError):
        openai_server.cancel_batch("batch_nope")


def test_unknown_files_and_batches_get_openais_404_and_bad_requests_a_400(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve("batch_nope")
    with pytest.raises(openai.NotFoundError):
        client.files.content("file-nope")
    with pytest.raises(openai.NotFoundError):
        client.batches.create(
            input_file_id="file-nope", endpoint="/v1/chat/completions", completion_window="24h"
        )
    uploaded = client.files.create(file=("b.jsonl", io.BytesIO(b"{}\n")), purpose="batch")
    with pytest.raises(openai.BadRequestError, match="endpoint"):
        client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/embeddings", completion_window="24h"
        )
    with pytest.raises(openai.BadRequestError, match="purpose"):
        client.files.create(file=("b.jsonl", io.BytesIO(b"{}\n")), purpose="assistants")
    assert client.files.retrieve(uploaded.id).bytes == 3
    assert openai_server.batches == []


def test_reset_forgets_files_batches_and_their_fates(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.set_batch_timing(in_progress=60)
    openai_server.expire_next_batch()
    batch = _submit(client, _line("a"))
    openai_server.reset()

    assert openai_server.batches == []
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve(batch.id)
    assert _until_ended(client, _submit(client, _line("b")).id).status == "completed"


def test_timing_must_not_be_negative(openai_server: FakeOpenAIServer) -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        openai_server.set_batch_timing(in_progress=-1)


def test_released_batches_are_answered_at_their_next_poll_and_later_ones_keep_the_timing(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.set_batch_timing(in_progress=3600)
    held = _submit(client, _line("held"))
    assert client.batches.retrieve(held.id).status == "in_progress"
    cancelled = _submit(client, _line("cancelled"))
    openai_server.cancel_batch(cancelled.id)

    assert openai_server.release_batches() == 1  # a batch being cancelled is not let go

    assert client.batches.retrieve(held.id).status == "completed"
    assert set(_jsonl(client, client.batches.retrieve(held.id).output_file_id)) == {"held"}
    later = _submit(client, _line("later"))
    assert client.batches.retrieve(later.id).status == "in_progress"
    assert openai_server.release_batches() == 1
    assert openai_server.release_batches() == 0
