"""Test support code shared by the test folders (``tests/`` is on ``sys.path``: see
``pythonpath`` in pyproject.toml)."""
