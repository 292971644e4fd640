"""100 scenario plays with 10% of the simulated user's answers empty, malformed or hung: none
becomes the agent's failure, the ones that stay failed are simulator failures counted apart,
and the simulator sends at most 1.2 requests per user turn (retries included)."""

from __future__ import annotations

import itertools
import threading

from scenario_helpers import SUITE, USER_MODEL, booking_agent, scripted_user

from ragas_boot.runs.simulation.summary import simulation_summary
from ragas_boot.suites import run_suite, validate_suite
from ragas_boot.testing import Reply

FAULTY = """
spring.ai.ragas.providers.timeout: 2s
spring.ai.ragas.simulation: {seed: 1}
"""


def test_a_hundred_plays_with_one_simulator_answer_in_ten_faulty(openai_server, make_container):
    container = make_container([USER_MODEL], extra=FAULTY)
    faults = itertools.cycle([Reply.empty(), Reply.text('{"message": '), Reply.hang(8)])
    count = itertools.count(1)
    lock = threading.Lock()
    injected = {"empty": 0, "malformed": 0, "hung": 0}

    def user(request):
        with lock:
            number = next(count)
            if number % 10:
                return scripted_user(request)
            fault = next(faults)
            injected[("empty", "malformed", "hung")[(number // 10 - 1) % 3]] += 1
            return fault

    openai_server.respond(USER_MODEL, user)
    case = SUITE["cases"][0]
    suite = validate_suite(
        {
            **SUITE,
            "repeat": 10,
            "concurrency": 8,
            "cases": [{**case, "id": f"booking_{index}"} for index in range(10)],
        }
    )
    run = run_suite(suite, booking_agent(), container=container)

    summary = simulation_summary(run)
    assert summary.plays == len(run.samples) == 100
    sent = openai_server.count(USER_MODEL)
    assert sum(injected.values()) == sent // 10 >= 30
    assert min(injected.values()) >= 10
    ends = [sample.sample.agent_run.simulation.end for sample in run.samples]
    # No play is the agent's failure because of the simulator: every play that the
    # simulator did not fail passed, and the failed ones are counted apart.
    assert not any(sample.sample.agent_run.error for sample in run.samples)
    assert set(ends) <= {"goal_met", "simulator_failed"}
    failures = ends.count("simulator_failed")
    assert run.simulator_failures == summary.simulator_failures == failures
    assert run.passed_samples == len(run.samples) - run.simulator_failures == 100 - failures
    assert run.sample_pass_rate == 1.0
    assert summary.pass_hat_k == 1.0
    # one structured call per user turn; the faults' retries and re-asks stay under 1.2
    assert summary.simulator_requests == sent
    assert summary.requests_per_turn <= 1.2
    print(
        f"plays={summary.plays} user_turns={summary.user_turns} requests={sent} "
        f"faults={injected} simulator_failures={failures} "
        f"requests_per_turn={summary.requests_per_turn:.3f}"
    )
