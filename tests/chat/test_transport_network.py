"""What both judge transports do on real networks: proxies, redirects, compression, framing,
company CAs and mutual TLS, over real sockets on 127.0.0.1.

The servers here are aiohttp.web apps started in the test's loop (a forward proxy for plain
HTTP whose log the tests read at once, a gateway that answers what each test asks for); HTTPS
through a proxy goes through proxy.py's ``CONNECT`` tunnel in a child process; the framing test
needs bytes no kept server would send, so it answers from a plain asyncio socket server.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import gzip
import logging
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import timedelta
from pathlib import Path

import aiohttp
import orjson
import pytest
import pytest_asyncio
import trustme
from aiohttp import web
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits, TlsFiles
from ragas_boot.chat.specs import LocalModelSpec, LocalSpec
from ragas_boot.config.settings import Transport
from ragas_boot.errors import JudgeConnectionError, JudgeHTTPError, JudgeOutputError
from ragas_boot.testing import FakeOpenAIServer

SECRET = "sk-network-secret-5521"
_PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)
#: Hop-by-hop headers a forward proxy does not pass on (RFC 9110 §7.6.1), plus the framing
#: aiohttp sets itself.
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)


class Verdict(BaseModel):
    verdict: int


def completion(content: str) -> bytes:
    return orjson.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "judge-a",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    )


def make_judge(
    base_url: str, transport: str, *, tls: TlsFiles | None = None, max_answer_chars: int = 100_000
) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        spec=OpenAICompatibleSpec(
            id="judge-a",
            model="judge-a",
            provider="net",
            base_url=base_url,
            api_key=SecretStr(SECRET),
            limits=ProviderLimits(provider="net", call_timeout=timedelta(seconds=10)),
            transport=Transport(transport),
            tls=tls or TlsFiles(),
            max_answer_chars=max_answer_chars,
        )
    )


@pytest.fixture
def clean_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy variable of the machine running the tests leaks in."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest_asyncio.fixture
async def judges(clean_proxy_env) -> AsyncIterator[list[OpenAICompatibleJudge]]:
    """Judges a test makes (append them), closed after it."""
    made: list[OpenAICompatibleJudge] = []
    yield made
    for judge in made:
        await judge.aclose()


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class App:
    """An aiohttp.web app on 127.0.0.1 in the test's loop; ``seen`` lists each request as
    ``METHOD target`` (the absolute URL a proxy gets, or the path)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.seen: list[str] = []
        self.credentials: list[str | None] = []  # a proxy's Proxy-Authorization, per request
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(f"{request.method} {request.raw_path}")
        return await self.handler(request)

    async def start(self, ssl_context: ssl.SSLContext | None = None) -> App:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0, ssl_context=ssl_context)
        await site.start()
        self.port = self.runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        assert self.runner is not None
        await self.runner.cleanup()


@pytest_asyncio.fixture
async def serve() -> AsyncIterator[Callable[..., Awaitable[App]]]:
    """Start apps: ``await serve(handler, ssl_context=None)``; all stopped after the test."""
    apps: list[App] = []

    async def start(handler: Handler, ssl_context: ssl.SSLContext | None = None) -> App:
        apps.append(await App(handler).start(ssl_context))
        return apps[-1]

    yield start
    for app in apps:
        await app.stop()


@pytest_asyncio.fixture
async def forward_proxy(serve) -> AsyncIterator[App]:
    """A forward proxy for plain-HTTP targets (absolute-form requests), passing requests on
    with its own aiohttp client (which reads no proxy settings) and answers back unchanged."""
    async with aiohttp.ClientSession(auto_decompress=False) as client:

        async def forward(request: web.Request) -> web.StreamResponse:
            proxy.credentials.append(request.headers.get("Proxy-Authorization"))
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
            async with client.request(
                request.method,
                str(request.url),
                headers=headers,
                data=await request.read(),
                allow_redirects=False,
            ) as answer:
                body = await answer.read()
                back = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
                return web.Response(status=answer.status, body=body, headers=back)

        proxy = await serve(forward)
        yield proxy


async def ask(judge: OpenAICompatibleJudge) -> Verdict:
    answer = await judge.ainvoke_structured("Rate it.", Verdict)
    return answer.value


# -- proxies ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_http_proxy_from_the_environment_carries_the_call(
    openai_server: FakeOpenAIServer, forward_proxy, judges, clean_proxy_env, judge_transport
):
    openai_server.script("judge-a", {"verdict": 1})
    # Loopback is proxied like any host unless NO_PROXY names it (urllib, httpx, curl agree).
    clean_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{forward_proxy.port}")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[0]) == Verdict(verdict=1)
    assert forward_proxy.seen == [f"POST {openai_server.base_url}/v1/chat/completions"]
    assert forward_proxy.credentials == [None]  # the API key is the server's, not the proxy's
    assert len(openai_server.requests_for("judge-a")) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("no_proxy", ["127.0.0.1", "*"])
async def test_no_proxy_bypasses_the_proxy(
    openai_server: FakeOpenAIServer,
    forward_proxy,
    judges,
    clean_proxy_env,
    judge_transport,
    no_proxy,
):
    openai_server.script("judge-a", {"verdict": 2})
    clean_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{forward_proxy.port}")
    clean_proxy_env.setenv("NO_PROXY", no_proxy)
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[0]) == Verdict(verdict=2)
    assert forward_proxy.seen == []
    assert len(openai_server.requests_for("judge-a")) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["url", "netrc"])
async def test_proxy_credentials_come_from_its_url_or_netrc(
    openai_server: FakeOpenAIServer,
    forward_proxy,
    judges,
    clean_proxy_env,
    judge_transport,
    tmp_path,
    where,
):
    openai_server.script("judge-a", {"verdict": 9})
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login proxy-user password proxy-pass\n")
    netrc.chmod(0o600)
    clean_proxy_env.setenv("NETRC", str(netrc))
    userinfo = "proxy-user:proxy-pass@" if where == "url" else ""
    clean_proxy_env.setenv("HTTP_PROXY", f"http://{userinfo}127.0.0.1:{forward_proxy.port}")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[0]) == Verdict(verdict=9)
    basic = "Basic " + base64.b64encode(b"proxy-user:proxy-pass").decode()
    # Both transports read the proxy (and its .netrc entry) the same way (chat/_proxies.py).
    assert forward_proxy.credentials == [basic]


@pytest.mark.asyncio
@pytest.mark.parametrize("variable", ["ALL_PROXY", "all_proxy"])
async def test_all_proxy_carries_the_call_when_no_proxy_names_the_scheme(
    openai_server: FakeOpenAIServer,
    forward_proxy,
    judges,
    clean_proxy_env,
    judge_transport,
    variable,
    caplog,
):
    openai_server.script("judge-a", {"verdict": 4}, {"verdict": 5}, {"verdict": 6})
    clean_proxy_env.setenv(variable, f"http://127.0.0.1:{forward_proxy.port}")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[0]) == Verdict(verdict=4)
    assert forward_proxy.seen == [f"POST {openai_server.base_url}/v1/chat/completions"]
    # A proxy for the scheme wins (curl's rule): here one nobody listens on would fail.
    clean_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{forward_proxy.port}")
    clean_proxy_env.setenv(variable, "http://127.0.0.1:9")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[1]) == Verdict(verdict=5)
    # NO_PROXY holds for ALL_PROXY too.
    clean_proxy_env.delenv("HTTP_PROXY")
    clean_proxy_env.setenv("NO_PROXY", "127.0.0.1")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[2]) == Verdict(verdict=6)
    assert len(forward_proxy.seen) == 2
    assert "proxy" not in caplog.text.lower()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("variable", "scheme"),
    [("ALL_PROXY", "socks5"), ("all_proxy", "socks5h"), ("ALL_PROXY", "socks4"),
     ("HTTP_PROXY", "socks5"), ("HTTP_PROXY", "https")],
)  # fmt: skip
async def test_a_proxy_that_is_not_http_is_not_used_and_said_once(
    openai_server: FakeOpenAIServer, judges, clean_proxy_env, judge_transport, variable, scheme,
    caplog,
):  # fmt: skip
    import uuid

    openai_server.script("judge-a", {"verdict": 7}, {"verdict": 8})
    # A host of its own per test: the warning is once per process and variable value.
    proxy = f"{scheme}://user:proxy-secret-77@proxy-{uuid.uuid4().hex[:10]}.invalid:1080"
    clean_proxy_env.setenv(variable, proxy)
    caplog.set_level(logging.WARNING)
    judges.append(make_judge(openai_server.base_url, judge_transport))
    judges.append(make_judge(openai_server.base_url, judge_transport))
    assert await ask(judges[0]) == Verdict(verdict=7)  # sent without a proxy
    assert await ask(judges[1]) == Verdict(verdict=8)
    assert len(openai_server.requests_for("judge-a")) == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{variable}={scheme}://user:****@proxy-")
    assert "is not used: ragas-boot sends calls through http:// proxies only" in warnings[0]
    assert "proxy-secret-77" not in caplog.text


@pytest.mark.asyncio
async def test_embedding_models_take_the_same_proxies(
    openai_server: FakeOpenAIServer, forward_proxy, clean_proxy_env, caplog
):
    from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
    from ragas_boot.chat.specs import EmbeddingSpec

    clean_proxy_env.setenv("ALL_PROXY", f"http://127.0.0.1:{forward_proxy.port}")
    clean_proxy_env.setenv("HTTPS_PROXY", "socks5://embeddings-proxy.invalid:1080")
    model = OpenAICompatibleEmbeddingModel(
        spec=EmbeddingSpec(
            id="embed", model="embed", provider="net", base_url=openai_server.base_url,
            api_key=SecretStr(SECRET),
        )
    )  # fmt: skip
    try:
        answer = await model.aembed(["one"])
    finally:
        await model.aclose()
    assert len(answer.vectors) == 1
    assert forward_proxy.seen == [f"POST {openai_server.base_url}/v1/embeddings"]
    assert "HTTPS_PROXY" not in caplog.text  # not the variable for an http:// URL


@pytest.mark.asyncio
async def test_a_proxy_nobody_listens_on_is_a_connection_error(
    openai_server: FakeOpenAIServer, judges, clean_proxy_env, judge_transport
):
    clean_proxy_env.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    judges.append(make_judge(openai_server.base_url, judge_transport))
    with pytest.raises(JudgeConnectionError):
        await ask(judges[0])
    assert openai_server.requests_for("judge-a") == []


class TunnelProxy:
    """proxy.py in a child process on 127.0.0.1: ``CONNECT`` tunnels (and plain forwarding),
    each connection written to its access log when it closes."""

    def __init__(self, port: int, log: Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._log = log

    async def wait_for(self, text: str, *, within: float = 20.0) -> bool:
        """Whether ``text`` shows up in the access log (polled: a line is written when the
        connection closes, in another process; the loop keeps serving meanwhile)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if text in self._log.read_text(encoding="utf-8", errors="replace"):
                return True
            await asyncio.sleep(0.05)
        return False


@pytest.fixture(scope="module")
def tunnel_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TunnelProxy]:
    folder = tmp_path_factory.mktemp("proxy")
    port_file, log = folder / "port", folder / "access.log"
    log.touch()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy",
            "--hostname",
            "127.0.0.1",
            "--port",
            "0",
            "--port-file",
            str(port_file),
            "--num-acceptors",
            "1",
            "--num-workers",
            "1",
            "--log-file",
            str(log),
            "--log-level",
            "INFO",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its acceptor processes go with it
    )
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"proxy.py did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)
        yield TunnelProxy(int(port_file.read_text()), log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@pytest.mark.asyncio
async def test_https_proxy_tunnels_a_tls_call(
    serve, pki, tunnel_proxy, judges, clean_proxy_env, judge_transport
):
    gateway = await serve(answer_with_peer, pki.server_context(require_client=False))
    clean_proxy_env.setenv("HTTPS_PROXY", tunnel_proxy.url)
    url = f"https://127.0.0.1:{gateway.port}"
    judge = make_judge(url, judge_transport, tls=TlsFiles(ca_bundle=str(pki.ca_file)))
    judges.append(judge)
    assert await ask(judge) == Verdict(verdict=0)
    assert gateway.seen == ["POST /v1/chat/completions"]
    await judge.aclose()  # the tunnel closes, and the proxy logs it
    assert await tunnel_proxy.wait_for(f"CONNECT 127.0.0.1:{gateway.port}")


# -- redirects -------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_reported_with_its_location_and_not_followed(
    openai_server: FakeOpenAIServer, serve, judges, judge_transport, status
):
    openai_server.script("judge-a", {"verdict": 3})
    target = f"{openai_server.base_url}/v1/chat/completions?key={SECRET}"

    async def redirect(request: web.Request) -> web.StreamResponse:
        return web.Response(status=status, headers={"Location": target})

    gateway = await serve(redirect)
    judges.append(make_judge(f"http://127.0.0.1:{gateway.port}", judge_transport))
    with pytest.raises(JudgeHTTPError) as caught:
        await ask(judges[0])
    error = caught.value
    assert error.status_code == status
    assert error.kind_detail == "redirect"
    assert error.location is not None
    assert error.location.startswith(f"{openai_server.base_url}/v1/chat/completions?key=")
    assert error.location in str(error)
    assert SECRET not in str(error) and SECRET not in error.location
    assert gateway.seen == ["POST /v1/chat/completions"]
    assert openai_server.requests_for("judge-a") == []  # never followed


# -- compression and framing -----------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("coding", ["gzip", "deflate"])
async def test_a_compressed_answer_is_decoded(serve, judges, judge_transport, coding):
    async def compressed(request: web.Request) -> web.StreamResponse:
        body = completion('{"verdict": 4}')
        packed = gzip.compress(body) if coding == "gzip" else _deflate(body)
        return web.Response(
            body=packed,
            headers={"Content-Type": "application/json", "Content-Encoding": coding},
        )

    gateway = await serve(compressed)
    judges.append(make_judge(f"http://127.0.0.1:{gateway.port}", judge_transport))
    answer = await judges[0].ainvoke_structured("Rate it.", Verdict)
    assert answer.value == Verdict(verdict=4)
    assert answer.usage.total_tokens == 5


def _deflate(data: bytes) -> bytes:
    import zlib

    return zlib.compress(data)


@pytest.mark.asyncio
async def test_a_compressed_answer_past_max_answer_chars_fails_the_call(
    serve, judges, judge_transport
):
    # 2 MB of answer in a few KB on the wire: the bound is on what the answer decodes to.
    huge = completion('{"verdict": 5, "pad": "' + "x" * 2_000_000 + '"}')

    async def bomb(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=gzip.compress(huge),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )

    gateway = await serve(bomb)
    judges.append(
        make_judge(f"http://127.0.0.1:{gateway.port}", judge_transport, max_answer_chars=1000)
    )
    with pytest.raises(JudgeOutputError) as caught:
        await ask(judges[0])
    # direct stops reading at the byte bound of the decoded body; langchain (whose byte bound
    # sees the compressed bytes) reads it and cuts the answer at max-answer-chars.
    assert "max-answer-chars 1,000" in str(caught.value)
    assert caught.value.raw_text is not None
    assert "x" * 100 in caught.value.raw_text
    assert "[cut by ragas-boot at max-answer-chars 1,000" in caught.value.raw_text
    assert len(caught.value.raw_text) < 1200


@pytest_asyncio.fixture
async def raw_answer() -> AsyncIterator[Callable[[bytes], Awaitable[str]]]:
    """A socket server on 127.0.0.1 that answers every request with the given bytes and
    closes; its base URL."""
    servers: list[asyncio.Server] = []

    async def start(reply: bytes) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                writer.write(reply)
                await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        servers.append(server)
        return f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


@pytest.mark.asyncio
async def test_two_different_content_lengths_are_rejected(raw_answer, judges, judge_transport):
    body = completion('{"verdict": 6}')
    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(body), len(body) + 40)
    ) + body
    judges.append(make_judge(await raw_answer(reply), judge_transport))
    with pytest.raises(JudgeConnectionError):
        await ask(judges[0])


@pytest.mark.asyncio
async def test_a_body_cut_short_is_a_connection_error(raw_answer, judges, judge_transport):
    body = completion('{"verdict": 7}')
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (len(body) + 99) + body
    judges.append(make_judge(await raw_answer(reply), judge_transport))
    with pytest.raises(JudgeConnectionError):
        await ask(judges[0])


# -- TLS: company CAs and mutual TLS ---------------------------------------------------------


class Pki:
    """A throwaway CA, a server certificate for 127.0.0.1 and a client certificate."""

    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.ca_file = folder / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.server = self.ca.issue_cert("127.0.0.1", "localhost")
        client = self.ca.issue_cert("judge-client@example.test")
        self.client_file = folder / "client.pem"
        self.client_key_file = folder / "client.key"
        client.cert_chain_pems[0].write_to_path(str(self.client_file))
        client.private_key_pem.write_to_path(str(self.client_key_file))

    def server_context(self, *, require_client: bool) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.server.configure_cert(context)
        if require_client:
            context.verify_mode = ssl.CERT_REQUIRED
            self.ca.configure_trust(context)
        return context


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return Pki(tmp_path)


async def answer_with_peer(request: web.Request) -> web.StreamResponse:
    """A completion whose verdict says whether the client showed a certificate."""
    transport = request.transport
    peer = transport.get_extra_info("peercert") if transport is not None else None
    return web.Response(
        body=completion(f'{{"verdict": {1 if peer else 0}}}'),
        content_type="application/json",
    )


@pytest.mark.asyncio
async def test_a_server_signed_by_the_ca_bundle_is_trusted(serve, pki, judges, judge_transport):
    gateway = await serve(answer_with_peer, pki.server_context(require_client=False))
    url = f"https://127.0.0.1:{gateway.port}"
    judges.append(make_judge(url, judge_transport, tls=TlsFiles(ca_bundle=str(pki.ca_file))))
    assert await ask(judges[0]) == Verdict(verdict=0)


@pytest.mark.asyncio
async def test_without_the_ca_bundle_the_certificate_is_refused(
    serve, pki, judges, judge_transport
):
    gateway = await serve(answer_with_peer, pki.server_context(require_client=False))
    judges.append(make_judge(f"https://127.0.0.1:{gateway.port}", judge_transport))
    with pytest.raises(JudgeConnectionError, match=r"(?i)certificate"):
        await ask(judges[0])
    assert gateway.seen == []


@pytest.mark.asyncio
@pytest.mark.parametrize("separate_key", [True, False], ids=["cert+key", "one-pem"])
async def test_a_client_certificate_passes_a_mutual_tls_gateway(
    serve, pki, judges, judge_transport, separate_key, tmp_path
):
    gateway = await serve(answer_with_peer, pki.server_context(require_client=True))
    if separate_key:
        tls = TlsFiles(
            ca_bundle=str(pki.ca_file),
            client_cert=str(pki.client_file),
            client_key=str(pki.client_key_file),
        )
    else:
        both = tmp_path / "both.pem"
        both.write_bytes(pki.client_key_file.read_bytes() + pki.client_file.read_bytes())
        tls = TlsFiles(ca_bundle=str(pki.ca_file), client_cert=str(both))
    judges.append(make_judge(f"https://127.0.0.1:{gateway.port}", judge_transport, tls=tls))
    assert await ask(judges[0]) == Verdict(verdict=1)


@pytest.mark.asyncio
async def test_a_mutual_tls_gateway_refuses_a_client_without_a_certificate(
    serve, pki, judges, judge_transport
):
    gateway = await serve(answer_with_peer, pki.server_context(require_client=True))
    url = f"https://127.0.0.1:{gateway.port}"
    judges.append(make_judge(url, judge_transport, tls=TlsFiles(ca_bundle=str(pki.ca_file))))
    with pytest.raises(JudgeConnectionError):
        await ask(judges[0])
    assert gateway.seen == []


@pytest.mark.asyncio
async def test_the_embedded_local_judges_own_server_is_never_proxied(
    openai_server: FakeOpenAIServer, judges, clean_proxy_env, judge_transport, tmp_path
):
    # The local provider's judge calls the server ragas-boot runs on 127.0.0.1; a company
    # proxy in the environment (here one nobody listens on) must not stand in between.
    openai_server.script("judge-a", {"verdict": 8})
    clean_proxy_env.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    spec = make_judge(openai_server.base_url, judge_transport).spec
    # A local judge's served spec, as the tool agent gets it (LocalJudge.served_spec()).
    served = LocalSpec(
        id=spec.id,
        model=spec.model,
        provider="local",
        base_url=spec.base_url,
        api_key=spec.api_key,
        limits=spec.limits,
        local=LocalModelSpec(model),
    )
    endpoint = dataclasses.replace(OpenAICompatibleSpec.of(served), transport=spec.transport)
    assert endpoint.proxied is False
    judges.append(OpenAICompatibleJudge(spec=endpoint))
    assert await ask(judges[0]) == Verdict(verdict=8)
