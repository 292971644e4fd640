"""One verifying TLS context per set of a provider's files, for both transports (and checked
at start-up, so that a file that cannot be loaded fails before any call)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ragas_boot.chat.specs import TlsFiles
from ragas_boot.errors import ConfigError

if TYPE_CHECKING:
    import ssl

__all__ = ["check_tls_files", "tls_context"]


@functools.lru_cache(maxsize=32)
def tls_context(tls: TlsFiles) -> ssl.SSLContext:
    """A verifying TLS context: the system trust store, certifi's bundle, and the provider's
    own CA bundle and client certificate (one per set of files, made on first use).

    Both transports take this context, so a company CA or an mTLS gateway works the same on
    each. Hostnames are always checked.

    Raises:
        OSError, ssl.SSLError: a file cannot be read or is not PEM.
    """
    import ssl

    import certifi

    context = ssl.create_default_context()  # the system store, hostname checks, TLS >= 1.2
    context.load_verify_locations(cafile=certifi.where())
    if tls.ca_bundle:
        context.load_verify_locations(cafile=tls.ca_bundle)
    if tls.client_cert:
        context.load_cert_chain(tls.client_cert, tls.client_key)
    return context


def check_tls_files(tls: TlsFiles, *, owner: str, ca_key: str, cert_key: str) -> None:
    """Load ``tls`` now, so that a file that cannot be loaded fails at start-up (whatever the
    base URL's scheme), not at the first call.

    Args:
        tls: the CA bundle and client certificate (and key) to load.
        owner: what the files belong to, for the message (``provider 'corp'``).
        ca_key: the YAML key of the CA bundle; ``cert_key``: that of the certificate.

    Raises:
        ConfigError: a file is missing or is not PEM, naming its key and the file.
    """
    if tls == TlsFiles():
        return
    try:
        tls_context(tls)
    except (OSError, ValueError):  # ssl.SSLError is an OSError
        # Only now, to name the key at fault: the CA bundle alone, then the certificate.
        parts = (
            (ca_key, TlsFiles(ca_bundle=tls.ca_bundle)),
            (cert_key, TlsFiles(client_cert=tls.client_cert, client_key=tls.client_key)),
        )
        for key, part in parts:
            if part == TlsFiles():
                continue
            try:
                tls_context(part)
            except (OSError, ValueError) as error:
                files = ", ".join(
                    f for f in (part.ca_bundle, part.client_cert, part.client_key) if f
                )
                raise ConfigError(
                    f"{owner}: cannot load the TLS files ({files}): {error}", key=key
                ) from None
        raise  # each loads alone but not together: not seen, reported as it is
