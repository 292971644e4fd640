"""Test cases generated and checked before they are kept (issue 38)."""
