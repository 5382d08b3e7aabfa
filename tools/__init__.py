"""Repository tooling; nothing here is part of the framework students build.

``tools.setup`` (the environment), ``tools.reset`` (one task back to its stub),
``tools.update`` with ``tools.merge`` (a course update that keeps the student's work) and
``tools.submit`` (the zip a student hands in) ship in the student release; the stub
generator ``tools.stubs`` and ``tools.release`` (which writes that release) stay in the
repository, next to the reference they read. The autograder never imports this package:
what it shares with the tools (the stub text, ``autograder.stubgen``) lives below it."""
