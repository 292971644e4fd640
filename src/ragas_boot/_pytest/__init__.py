"""Private parts of the pytest plugin (:mod:`ragas_boot.pytest_plugin` is the entry point).

Nothing here imports the engine at module level: the plugin is loaded into every pytest run
of an environment that has ragas-boot installed, and must cost nothing until a test asks for
a ragas fixture.
"""
