"""Example ragas-boot metrics declared through the ``ragas_boot.metrics`` entry-point group."""

from acme_metrics.length import ResponseLengthConfig, ResponseLengthMetric
from acme_metrics.politeness import PolitenessConfig, PolitenessMetric

__all__ = ["PolitenessConfig", "PolitenessMetric", "ResponseLengthConfig", "ResponseLengthMetric"]
