"""pytest plugin of ragas-boot (entry point ``pytest11``); inert until a ragas fixture is used."""
