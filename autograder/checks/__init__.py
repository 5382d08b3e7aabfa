"""Public checks, one package per chapter (named like the chapter's package): `__init__`
holds the case lists, expectations and verdicts, `programs.py` what runs in the child."""
