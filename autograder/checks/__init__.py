"""Public checks, one file per chapter (named like the chapter's package)."""
