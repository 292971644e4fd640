"""Which proxy a call to a URL goes through, read from the environment the same way for every
client that sends judge and embedding calls.

Both transports ask here (the ``direct`` aiohttp session and openai's aiohttp transport
under ``ChatOpenAI`` and ``OpenAIEmbeddings``, which is told ``trust_env=False`` and given
the proxy found here), so a variable is honoured by both or by neither. Left to themselves they
disagree: aiohttp reads no ``ALL_PROXY``, httpx does, and hands a SOCKS URL to a transport that
cannot speak SOCKS.

The rule, curl's: the variable of the target's scheme (``HTTP_PROXY``, ``HTTPS_PROXY``; the
lower-case spelling wins, as in urllib), else ``ALL_PROXY``; none for a host ``NO_PROXY`` names.
A value without a scheme is an ``http://`` proxy. Only ``http://`` proxies are used (plain
HTTP forwarded, HTTPS tunnelled with ``CONNECT``), with the credentials of their URL, else of
``~/.netrc`` (``NETRC``), sent as ``Proxy-Authorization``. Any other scheme (``socks5://``,
``socks4://``, ``https://``) is not used: the call goes without a proxy, and one warning per
process names the variable (its credentials masked). Read once per event loop and client,
not per request.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass

from ragas_boot.config.urls import mask_url

__all__ = ["EnvironmentProxy", "environment_proxy"]

log = logging.getLogger(__name__)

_warned: set[str] = set()
_warned_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class EnvironmentProxy:
    """The proxy a call goes through.

    Attributes:
        url: the proxy's URL, without credentials.
        authorization: the ``Proxy-Authorization`` value (Basic, from the proxy's URL or
            ``.netrc``), or ``None``.
        variable: the environment variable it came from.
    """

    url: str
    authorization: str | None
    variable: str

    def __repr__(self) -> str:
        shown = "'****'" if self.authorization else "None"
        return (
            f"EnvironmentProxy(url={self.url!r}, authorization={shown}, variable={self.variable!r})"
        )


def environment_proxy(target: str) -> EnvironmentProxy | None:
    """The proxy the environment sets for calls to ``target`` (see the module's docstring);
    ``None`` to call it directly."""
    parts = urlsplit(target)
    if parts.hostname and proxy_bypass(parts.hostname):
        return None
    proxies = getproxies()
    scheme = parts.scheme.lower()
    name = scheme if proxies.get(scheme) else "all"
    value = proxies.get(name)
    if not value:
        return None
    variable = _variable(name, value)
    if "://" not in value:
        value = f"http://{value}"
    if urlsplit(value).scheme.lower() != "http":
        _warn_once(variable, value)
        return None
    return _http_proxy(value, variable)


def _http_proxy(value: str, variable: str) -> EnvironmentProxy:
    # aiohttp's own helpers: the URL's credentials, else the proxy host's .netrc entry.
    from aiohttp.helpers import basicauth_from_netrc, netrc_from_env, strip_auth_from_url
    from yarl import URL

    proxy, auth = strip_auth_from_url(URL(value))
    if auth is None and proxy.host is not None:
        try:
            auth = basicauth_from_netrc(netrc_from_env(), proxy.host)
        except LookupError:
            auth = None
    return EnvironmentProxy(str(proxy), auth.encode() if auth is not None else None, variable)


def _variable(name: str, value: str) -> str:
    """The variable that holds ``value`` (urllib reads both spellings; lower case wins)."""
    for candidate in (f"{name}_proxy", f"{name.upper()}_PROXY"):
        if os.environ.get(candidate) == value:
            return candidate
    return f"{name.upper()}_PROXY"


def _warn_once(variable: str, value: str) -> None:
    shown = f"{variable}={mask_url(value)}"
    with _warned_lock:
        if shown in _warned:
            return
        _warned.add(shown)
    log.warning(
        "%s is not used: ragas-boot sends calls through http:// proxies only, so judge and "
        "embedding calls that it would carry go without a proxy. Point %s at an http:// proxy, "
        "or name the hosts in NO_PROXY to go direct without this warning",
        shown,
        variable,
    )
