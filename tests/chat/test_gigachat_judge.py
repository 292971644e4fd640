"""GigaChat judges: the Java keys, langchain-gigachat and the real gigachat client, against a
local fake of the GigaChat API (OAuth token exchange, chat completions, faults)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from pydantic import BaseModel

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.chat import judge_specs
from ragas_boot.chat.langchain.models import check_chat_class
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import ConfigError, JudgeHTTPError, JudgeTimeoutError, MissingExtraError
from ragas_boot.samples import AIMessage, HumanMessage
from ragas_boot.testing import Reply
from support.fakes import FakeGigaChatServer, gigachat_key

pytest.importorskip("langchain_gigachat")

KEY = gigachat_key("client-7", "FAKE-secret-4417")
SAMPLE = Sample(
    user_input_messages=[
        HumanMessage(content="Забронируй рейс в Париж на понедельник."),
        AIMessage(content="Готово: AF1081, понедельник 10:00."),
    ],
    reference="The flight to Paris on Monday is booked",
)
ACHIEVED = {"goal_achieved": True, "reason": "Рейс забронирован."}


class Verdict(BaseModel):
    """A verdict."""

    ok: bool


@pytest.fixture
def gigachat():
    with FakeGigaChatServer(credentials=KEY) as server:
        yield server


def config(tmp_path: Path, server: FakeGigaChatServer, extra: str = "", *, auth: str = "") -> Path:
    auth = auth or f'api-key: "{KEY}"'
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.retry:
  max-attempts: 3
  on-http-codes: [429]
  backoff: {{ initial-interval: 10ms, multiplier: 1, max-interval: 10ms }}
spring.ai.gigachat:
  base-url: {server.base_url}
  auth:
    bearer:
      url: {server.auth_url}
      {auth}
    scope: GIGACHAT_API_PERS
  chat.options: {{ model: GigaChat-2-Max, temperature: 0.0, max-tokens: 300 }}
{extra}
""",
        encoding="utf-8",
    )
    return path


def evaluate(path: Path, sample: Sample = SAMPLE):
    with create_container(load_settings(path, environ={})) as container:
        return container.judges(), container.agent_goal_accuracy().evaluate(sample)


def test_the_token_exchange_then_chat_completions_with_the_bearer_token(tmp_path, gigachat):
    gigachat.respond("GigaChat-2-Max", ACHIEVED)

    [judge], result = evaluate(config(tmp_path, gigachat))

    assert (judge.id, judge.provider) == ("GigaChat-2-Max", "gigachat")
    assert judge.spec.structured_output is StructuredOutputMode.NATIVE
    assert result.score == 1.0 and result.exclusions == []
    oauth = [r for r in gigachat.requests if r.path == "/api/v2/oauth"]
    chats = gigachat.chat_requests()
    assert len(oauth) == 1  # one token serves every call while it lives
    assert oauth[0].headers["authorization"] == f"Basic {KEY}"
    assert oauth[0].body == {"scope": "GIGACHAT_API_PERS"}
    assert oauth[0].headers["rquid"]
    assert chats and all(r.headers["authorization"].startswith("Bearer ") for r in chats)
    body = chats[0].body
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("GigaChat-2-Max", 0.0, 300)
    # native = GigaChat's function calling: the schema as the one forced function.
    [function] = body["functions"]
    assert body["function_call"] == {"name": function["name"]}
    assert "goal_achieved" in function["parameters"]["properties"]
    calls = [call for step in result.steps for call in step.calls]
    assert all(call.usage.total_tokens > 0 for call in calls)


def test_a_token_that_expires_within_the_refresh_margin_is_renewed_before_each_call(
    tmp_path,
):
    # The client renews a token 60 s before it expires: a 30 s token is renewed every call.
    with FakeGigaChatServer(credentials=KEY, token_ttl=30) as server:
        server.respond(None, ACHIEVED)
        samples = [SAMPLE.model_copy(update={"id": f"s{i}"}) for i in range(3)]
        with create_container(load_settings(config(tmp_path, server), environ={})) as container:
            metric = container.agent_goal_accuracy()
            for sample in samples:
                assert metric.evaluate(sample).score == 1.0

    assert server.count() >= 3
    assert server.token_requests == server.count()


def test_a_revoked_token_gets_a_401_and_the_client_fetches_a_new_one(tmp_path, gigachat):
    gigachat.respond(None, ACHIEVED)
    path = config(tmp_path, gigachat)

    with create_container(load_settings(path, environ={})) as container:
        metric = container.agent_goal_accuracy()
        assert metric.evaluate(SAMPLE).score == 1.0
        before = gigachat.token_requests
        gigachat.expire_tokens()  # an expiry the client did not see coming
        result = metric.evaluate(SAMPLE.model_copy(update={"id": "again"}))

    assert result.score == 1.0 and result.exclusions == []
    assert gigachat.token_requests == before + 1
    statuses = [r.status for r in gigachat.chat_requests()]
    assert statuses.count(401) == 1 and statuses[-1] == 200


def test_wrong_credentials_are_a_401_of_the_judge_with_no_secret_shown(tmp_path, gigachat):
    wrong = gigachat_key("client-7", "FAKE-wrong-secret-0000")
    path = config(tmp_path, gigachat, auth=f'api-key: "{wrong}"')

    with create_container(load_settings(path, environ={})) as container:
        [judge] = container.judges()

        async def call():
            judge.prepare()
            return await judge.ainvoke_structured("x", Verdict)

        with pytest.raises(JudgeHTTPError) as caught:
            container.portal().call(call())

    assert caught.value.status_code == 401
    assert wrong not in str(caught.value)
    assert gigachat.count() == 0  # no chat request without a token


def test_429_and_5xx_are_retried_by_our_policy_not_by_the_client(tmp_path, gigachat):
    gigachat.script("GigaChat-2-Max", Reply.error(429, retry_after=0), Reply.error(503))
    gigachat.respond("GigaChat-2-Max", ACHIEVED)

    _, result = evaluate(config(tmp_path, gigachat))

    assert result.score == 1.0
    statuses = [r.status for r in gigachat.chat_requests()]
    assert statuses[:3] == [429, 503, 200]


def test_a_5xx_whose_body_reports_usage_is_billed(tmp_path, gigachat):
    gigachat.script(
        "GigaChat-2-Max", Reply.error(500, usage={"prompt_tokens": 70, "completion_tokens": 5})
    )
    gigachat.respond("GigaChat-2-Max", ACHIEVED)

    _, result = evaluate(config(tmp_path, gigachat))

    assert result.score == 1.0
    [call] = [call for step in result.steps for call in step.calls]
    assert [r.status for r in gigachat.chat_requests()] == [500, 200]
    # the retried 500 billed 75 tokens beside the answer's own
    assert call.billed_usage.total_tokens == call.usage.total_tokens + 75
    assert call.billed_usage.input_tokens == call.usage.input_tokens + 70


def test_a_judge_that_keeps_failing_is_excluded_with_its_status(tmp_path, gigachat):
    gigachat.respond("GigaChat-2-Max", Reply.error(500))
    gigachat.respond("GigaChat-2-Pro", ACHIEVED)
    extra = (
        "spring.ai.ragas.providers.external-starters.gigachat.chat-models:"
        " [GigaChat-2-Max, GigaChat-2-Pro]"
    )

    judges, result = evaluate(config(tmp_path, gigachat, extra))

    assert [j.id for j in judges] == ["GigaChat-2-Max", "GigaChat-2-Pro"]
    assert result.model_scores == {"GigaChat-2-Pro": 1.0}
    [exclusion] = result.exclusions
    assert exclusion.judge_id == "GigaChat-2-Max" and "500" in exclusion.message
    assert gigachat.count("GigaChat-2-Max") == 3  # spring.ai.retry.max-attempts


def test_a_hung_call_times_out_under_the_starter_timeout(tmp_path, gigachat):
    gigachat.respond("GigaChat-2-Max", Reply.hang(30))
    extra = """
spring.ai.ragas.providers.external-starters.gigachat: { timeout: 300ms }
spring.ai.retry.max-attempts: 1
"""

    with create_container(load_settings(config(tmp_path, gigachat, extra), environ={})) as c:
        [judge] = c.judges()

        async def call():
            judge.prepare()
            return await judge.ainvoke_structured("x", Verdict)

        with pytest.raises(JudgeTimeoutError):
            c.portal().call(call())


def test_client_id_and_secret_make_the_authorization_key_as_the_starter_does(tmp_path, gigachat):
    gigachat.respond(None, ACHIEVED)
    path = config(
        tmp_path, gigachat, auth="client-id: client-7\n      client-secret: FAKE-secret-4417"
    )

    [spec] = judge_specs(load_settings(path, environ={}))
    _, result = evaluate(path)

    credentials = dict(spec.langchain.arguments)["credentials"].get_secret_value()
    assert base64.b64decode(credentials) == b"client-7:FAKE-secret-4417"
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("extra", "judges"),
    [
        ("spring.ai.ragas.providers.auto-detect-beans: false", []),
        ("spring.ai.ragas.providers.external-starters.gigachat.enabled: false", []),
        (
            "spring.ai.ragas.providers.external-starters.gigachat.chat-models:\n"
            "  - GigaChat-2-Pro\n"
            "  - { id: GigaChat-2-Max, alias: max, options: { temperature: 0.3 } }",
            ["GigaChat-2-Pro", "max"],
        ),
        ("", ["GigaChat-2-Max"]),
    ],
)
def test_which_gigachat_judges_exist_follows_the_java_rules(tmp_path, gigachat, extra, judges):
    specs = judge_specs(load_settings(config(tmp_path, gigachat, extra), environ={}))

    assert [s.id for s in specs] == judges
    if "max" in judges:
        assert specs[1].temperature == 0.3 and specs[0].temperature == 0.0


def _gigachat_pki(folder):
    """A CA file and a client certificate with its key, as GigaChat's mTLS keys name them."""
    import trustme

    ca = trustme.CA()
    client = ca.issue_cert("client@example.test")
    ca.cert_pem.write_to_path(str(folder / "russian-trusted-ca.pem"))
    client.cert_chain_pems[0].write_to_path(str(folder / "client.crt"))
    client.private_key_pem.write_to_path(str(folder / "client.key"))
    return folder / "russian-trusted-ca.pem", folder / "client.crt", folder / "client.key"


def test_tls_and_legacy_keys_reach_the_client(tmp_path):
    ca, cert, key = _gigachat_pki(tmp_path)
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.gigachat:
  client-id: legacy-id
  client-secret: legacy-secret-1234
  unsafe-ssl: true
  auth:
    ca-certs: file:{ca}
    certs: {{ client-certificate: {cert}, client-key: {key} }}
  chat: {{ model: GigaChat-Pro, profanity-check: false }}
""",
        encoding="utf-8",
    )

    [spec] = judge_specs(load_settings(path, environ={}))

    arguments = dict(spec.langchain.arguments)
    assert spec.model == "GigaChat-Pro"
    assert arguments["verify_ssl_certs"] is False
    assert arguments["ca_bundle_file"] == str(ca)
    assert (arguments["cert_file"], arguments["key_file"]) == (str(cert), str(key))
    assert arguments["profanity_check"] is False
    assert arguments["base_url"] == "https://gigachat.devices.sberbank.ru/api/v1"
    assert "legacy-secret-1234" not in repr(spec)


@pytest.mark.parametrize(
    ("broken", "key"),
    [
        ("russian-trusted-ca.pem", "spring.ai.gigachat.auth.ca-certs"),
        ("client.crt", "spring.ai.gigachat.auth.certs.client-certificate"),
        ("client.key", "spring.ai.gigachat.auth.certs.client-certificate"),
    ],
)
def test_a_gigachat_tls_file_that_does_not_load_is_named_at_start_up(tmp_path, broken, key):
    ca, cert, client_key = _gigachat_pki(tmp_path)
    (tmp_path / broken).write_text("not PEM", encoding="utf-8")
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.gigachat:
  auth:
    bearer.api-key: key-1234
    ca-certs: file:{ca}
    certs: {{ client-certificate: {cert}, client-key: {client_key} }}
  embedding.options.model: Embeddings
""",
        encoding="utf-8",
    )
    settings = load_settings(path, environ={})
    from ragas_boot.chat.factory.embeddings import embedding_specs

    for specs in (judge_specs, embedding_specs):  # the judges' and the embedding model's
        with pytest.raises(ConfigError) as caught:
            specs(settings)
        assert caught.value.key == key
        assert broken in str(caught.value)


def test_a_gigachat_section_without_credentials_names_the_key(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.gigachat.chat.options.model: GigaChat-2-Max\n", encoding="utf-8")

    with pytest.raises(ConfigError) as caught:
        judge_specs(load_settings(path, environ={}))

    assert caught.value.key == "spring.ai.gigachat.auth.bearer.api-key"


def test_a_missing_extra_names_the_pip_command():
    with pytest.raises(MissingExtraError) as caught:
        check_chat_class(
            "no_such_gigachat_pkg.GigaChat", key="spring.ai.gigachat", extra="gigachat"
        )

    assert "pip install 'ragas-boot[gigachat]'" in str(caught.value)


def test_a_gigachat_section_with_only_embeddings_asks_for_no_judge(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.gigachat.embedding.options.model: Embeddings\n", encoding="utf-8")

    settings = load_settings(path, environ={})

    assert judge_specs(settings) == []
    assert settings.source.unsupported_keys == []


def test_a_rubric_runs_on_a_gigachat_judge_its_levels_in_the_description(tmp_path, gigachat):
    # GigaChat's client takes string enums only: a rubric's levels 1-5 go into the description.
    from ragas_boot.metrics import RubricsScoreConfig

    gigachat.respond("GigaChat-2-Max", {"reasoning": "Все признаки есть.", "score": 5})
    levels = {f"score{n}_description": f"уровень {n}" for n in range(1, 6)}
    rubric = RubricsScoreConfig(rubrics=levels)
    sample = Sample(user_input="Где заказ?", response="Возврат оформлен, 3-5 дней.")

    with create_container(load_settings(config(tmp_path, gigachat), environ={})) as container:
        result = container.rubrics_score().evaluate(sample, rubric)

    assert (result.score, result.metadata["level"]) == (1.0, 5.0)
    [function] = gigachat.chat_requests("GigaChat-2-Max")[0].body["functions"]
    score = function["parameters"]["properties"]["score"]
    assert "enum" not in score
    assert score["description"].endswith("One of: 1, 2, 3, 4, 5.")
