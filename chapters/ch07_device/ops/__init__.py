"""The everyday operations a real PyTorch script calls (tasks 7.7, 7.8 and given code)."""

__all__: list[str] = []
