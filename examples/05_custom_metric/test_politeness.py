"""The package's metrics as pytest fixtures: run with `pytest examples/05_custom_metric`
once the package is installed and JUDGE_URL points at judges."""

from ragas_boot import Sample
from ragas_boot.testing import assert_score


def test_a_short_answer_fits_the_budget(response_length):
    sample = Sample(user_input="Where is my parcel?", response="It arrives tomorrow.")
    assert_score(response_length.evaluate(sample), at_least=1.0)


def test_judges_find_a_thankful_answer_polite(politeness):
    sample = Sample(user_input="Where is my parcel?", response="Thank you! It arrives tomorrow.")
    assert_score(politeness.evaluate(sample), at_least=0.5)
