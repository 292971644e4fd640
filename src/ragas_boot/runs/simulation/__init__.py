"""Simulated users and tools: a scenario played as a whole conversation against the agent.

Exports nothing: ``ragas_boot.suites`` is the public face (scenario cases run with a suite).
"""
