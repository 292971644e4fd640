"""ragas-boot: agent metrics scored by several judge models, configured from application.yaml."""

__all__: list[str] = []
