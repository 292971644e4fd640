"""The package version, in a leaf module: reports stamp it without importing the package root
(which loads the run engine and the container). The build reads it from here too
(``[tool.hatch.version]`` in pyproject.toml), so this is its one place."""

__version__ = "0.1.0"
