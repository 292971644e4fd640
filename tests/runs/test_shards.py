"""Shards: I/N parsed and checked, samples split by a stable hash of their id (disjoint,
covering, the same on any machine), and each shard's share of the providers' limits."""

from __future__ import annotations

import pytest

from ragas_boot import Sample
from ragas_boot.runs.shards import ShardSpec, shard_limits
from ragas_boot.samples import AIMessage, HumanMessage

SAMPLES = [
    Sample(
        id=sample_id,
        user_input_messages=[HumanMessage("hi"), AIMessage("hello")],
    )
    for sample_id in [f"sample-{index:04d}" for index in range(400)] + ["ünï/ço dé", ""]
]


@pytest.mark.parametrize(
    ("text", "expected"), [("1/1", (1, 1)), ("2/4", (2, 4)), (" 4 / 4 ", (4, 4))]
)
def test_a_shard_reads_as_i_of_n(text, expected):
    shard = ShardSpec.parse(text)
    assert (shard.index, shard.count) == expected
    assert str(shard) == f"{expected[0]}/{expected[1]}"


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "2", "a/b", "-1/4", "1/4/2", ""])
def test_a_shard_that_is_not_i_of_n_is_refused(text):
    with pytest.raises(ValueError, match="I/N"):
        ShardSpec.parse(text)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_shards_split_the_samples_disjointly_covering_every_one_in_order(count):
    chosen = [ShardSpec(index, count).select(SAMPLES) for index in range(1, count + 1)]

    positions = sorted(position for shard in chosen for position, _ in shard)
    assert positions == list(range(len(SAMPLES)))
    for shard in chosen:
        assert [position for position, _ in shard] == sorted(position for position, _ in shard)
        # a hash spreads them: no shard is empty or takes twice its share
        assert 0 < len(shard) < 2 * len(SAMPLES) / count + 1


def test_a_samples_shard_is_decided_by_its_id_alone():
    """The same id falls in the same shard whatever else is in the dataset, or its order."""
    shard = ShardSpec(3, 4)
    alone = {sample.id for sample in SAMPLES if shard.holds(sample.id or "")}
    reversed_ids = {sample.id for _, sample in shard.select(SAMPLES[::-1])}
    assert alone == reversed_ids
    # a fixed point: SHA-256 of the id, so any machine and Python agrees
    assert [ShardSpec(i, 4).holds("sample-0001") for i in (1, 2, 3, 4)].count(True) == 1
    assert ShardSpec(2, 4).holds("sample-0001") is (
        int.from_bytes(__import__("hashlib").sha256(b"sample-0001").digest()[:8], "big") % 4 == 1
    )


LIMITS = """
spring.ai.ragas.providers:
  max-concurrency: 10
  rate-limit: {default-rps: 8}
  local: {enabled: false}
  openai-compatible:
    - name: hosted
      base-url: http://127.0.0.1:9/
      api-key: k
      rate-limit: {rps: 20}
      max-concurrency: 16
      chat-models: [{id: a}]
    - name: own-key
      base-url: http://127.0.0.1:9/
      api-key: k
      limits-per-machine: true
      max-concurrency: 5
      chat-models: [{id: b}]
    - name: defaults
      base-url: http://127.0.0.1:9/
      api-key: k
      max-concurrency: 3
      chat-models: [{id: c}]
"""


@pytest.fixture
def settings(tmp_path):
    from ragas_boot import load_settings

    path = tmp_path / "application.yaml"
    path.write_text(LIMITS, encoding="utf-8")
    return load_settings(path)


def _limits(settings):
    from ragas_boot.chat.factory.providers import provider_limits

    return {
        provider.name: (
            provider_limits(settings.providers, provider).rps,
            provider_limits(settings.providers, provider).max_concurrency,
        )
        for provider in settings.providers.openai_compatible
    }


def test_each_of_n_shards_takes_1_over_n_of_every_providers_limits(settings):
    sharded, lines = shard_limits(settings, 4)

    assert _limits(settings) == {"hosted": (20, 16), "own-key": (8, 5), "defaults": (8, 3)}
    assert _limits(sharded) == {"hosted": (5, 4), "own-key": (8, 5), "defaults": (2, 1)}
    assert sharded.providers.max_concurrency == 2
    assert sharded.providers.rate_limit.default_rps == 2
    assert lines == [
        "hosted: rate-limit 5 rps (of 20), max-concurrency 4 (of 16)",
        "own-key: 8 rps, max-concurrency 5 (limits-per-machine: whole)",
        "defaults: rate-limit 2 rps (of 8), max-concurrency 1 (of 3); at least 1 each, so 4 "
        "together",
    ]
    assert settings.providers.openai_compatible[0].max_concurrency == 16  # not changed


def test_limits_per_machine_for_every_provider_keeps_them_whole(settings):
    whole = settings.model_copy(
        update={"providers": settings.providers.model_copy(update={"limits_per_machine": True})}
    )
    unchanged = whole.providers.openai_compatible[0].model_copy(
        update={"limits_per_machine": False}
    )
    providers = whole.providers.model_copy(
        update={"openai_compatible": [unchanged, *whole.providers.openai_compatible[1:]]}
    )
    whole = whole.model_copy(update={"providers": providers})

    sharded, _ = shard_limits(whole, 4)

    # a provider's own false wins over the providers' true
    assert _limits(sharded) == {"hosted": (5, 4), "own-key": (8, 5), "defaults": (8, 3)}
    assert sharded.providers.max_concurrency == 10


def test_one_shard_keeps_everything(settings):
    sharded, _ = shard_limits(settings, 1)
    assert _limits(sharded) == _limits(settings)


def test_the_local_model_keeps_its_limits_on_every_machine(tmp_path):
    from ragas_boot import load_settings
    from ragas_boot.chat.factory.providers import resolve_limits

    path = tmp_path / "application.yaml"
    path.write_text(
        "spring.ai.ragas.providers:\n"
        "  rate-limit: {default-rps: 6}\n"
        "  local: {max-concurrency: 2}\n",
        encoding="utf-8",
    )
    settings = load_settings(path)
    sharded, _ = shard_limits(settings, 3)

    local = sharded.providers.local
    limits = resolve_limits(
        sharded.providers, "local", local.rate_limit, max_concurrency=local.max_concurrency
    )
    assert (limits.rps, limits.max_concurrency) == (6, 2)


def test_limits_per_machine_is_a_known_key_with_a_typo_hint(tmp_path):
    from ragas_boot import load_settings
    from ragas_boot.errors import ConfigError

    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.ragas.providers.limit-per-machine: true\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="limits-per-machine"):
        load_settings(path)
    path.write_text("spring.ai.ragas.providers.limits-per-machine: maybe\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="limits-per-machine"):
        load_settings(path)


def test_the_default_providers_rate_limit_is_shared_and_its_concurrency_is_the_global(tmp_path):
    from ragas_boot import load_settings

    path = tmp_path / "application.yaml"
    path.write_text(
        "spring.ai.openai: {base-url: 'http://127.0.0.1:9', api-key: k}\n"
        "spring.ai.ragas.providers:\n"
        "  max-concurrency: 12\n"
        "  local: {enabled: false}\n"
        "  default-provider: {models: [{id: m}], rate-limit: {rps: 9}}\n",
        encoding="utf-8",
    )
    settings = load_settings(path)

    sharded, lines = shard_limits(settings, 3)

    assert sharded.providers.default_provider.rate_limit.rps == 3
    assert sharded.providers.max_concurrency == 4
    assert lines == ["default-provider: rate-limit 3 rps (of 9), max-concurrency 4 (of 12)"]
