"""Repository tooling: set-up (``python -m tools.setup``) and the stub generator
(``python -m tools.stubs``). Nothing here is part of the framework students build."""
