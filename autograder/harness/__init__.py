"""The part of the autograder that the child process imports: the check-writing interface
(``api``), the wire format (``wire``), the trusted numerical derivative (``gradcheck``) and
the child's main loop (``child``). It imports nothing but the standard library and NumPy,
and nothing of the repository outside this folder, so the runner can copy it next to the
code under test."""
