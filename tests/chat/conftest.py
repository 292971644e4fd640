"""Judge calls run on both transports of OpenAI-compatible judges."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["direct", "langchain"])
def judge_transport(request: pytest.FixtureRequest) -> str:
    """Each test that builds an OpenAI-compatible judge runs once per transport."""
    return str(request.param)
