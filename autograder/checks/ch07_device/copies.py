"""Copies between the host and the simulated device, judged in both directions.

A check that counts copies (``simulated.counting()`` in its program) receives them as a pair,
(host → device, device → host), and the parent expects what the reference needs, computed
from the case: one copy in one direction for a move, none at all for an op on the device,
one per NumPy array for a scatter-add. Each direction is compared on its own (``copy_rows``:
two ``rules`` rows, host → device first), and the message names the direction, the count
received and expected, and the likely cause of the difference: the words a task gives for
that direction (``causes``), else the general ones below. Fewer copies than the reference
needs can be allowed (``at_most``) where a smarter rewrite may honestly need fewer.
Runs in the parent only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...harness.api import Case
from ...harness.language import Text, say, tr

TO_DEVICE, TO_HOST = "host → device", "device → host"
DIRECTIONS = (TO_DEVICE, TO_HOST)
MORE, FEWER = "more", "fewer"

Words = Text | Callable[[Case, Any], Text]

CAUSES: dict[tuple[str, str], Words] = {  # (direction, more or fewer): the likely cause
    (TO_DEVICE, MORE): {
        "en": "host data was copied to the device where none had to cross: an array made with "
        "NumPy, a list, or a Python number made a device array (xp.asarray(2.0) is a copy too)",
        "zh": "主机上的数据被复制到了设备上，而这里本不需要任何数据跨越：用 NumPy 创建的数组、"
        "列表或 Python 数被做成了设备数组（xp.asarray(2.0) 也是一次复制）",
    },
    (TO_DEVICE, FEWER): {
        "en": "host data that must reach the device did not cross: a host array goes to the "
        "device through its backend (backend.to_device, xp.asarray), once",
        "zh": "必须送到设备上的主机数据没有跨越过去：主机数组要经由后端（backend.to_device、"
        "xp.asarray）送到设备上，只送一次",
    },
    (TO_HOST, MORE): {
        "en": "a device array was read back to the host (.get(), .item(), float(), int(), "
        "bool(), .tolist(), an if or a print of its values): nothing comes back unless it is "
        "asked for",
        "zh": "设备上的数组被读回了主机（.get()、.item()、float()、int()、bool()、.tolist()，"
        "或对其值做 if 判断、print 打印）：除非明确要求，什么都不应取回",
    },
    (TO_HOST, FEWER): {
        "en": "a device array that must come back did not cross: its backend's to_host "
        "(.get()) brings it to the host, once",
        "zh": "必须取回的设备数组没有跨越回来：用它的后端的 to_host（.get()）把它取回主机，"
        "只取一次",
    },
}

DIRECTION_WORDS = {TO_DEVICE: {"zh": "主机 → 设备"}, TO_HOST: {"zh": "设备 → 主机"}}


def counted(n: int, direction: str) -> str:
    """Words for ``n`` copies in ``direction``: "1 host → device copy", "2 … copies"."""
    way = say({"en": direction, **DIRECTION_WORDS.get(direction, {})})
    if n == 1:
        return tr(f"{n} {way} copy", f"{n} 次{way}复制")
    return tr(f"{n} {way} copies", f"{n} 次{way}复制")


def copy_rows(
    what: Words,
    received: Callable[[Any], Sequence[int] | None],
    expected: Callable[[Case], Sequence[int]],
    causes: Mapping[tuple[str, str], Words] | None = None,
    *,
    at_most: bool = False,
) -> list[tuple]:
    """Two ``rules`` rows, host → device then device → host: where the copies ``received``
    (the record's pair, or None when the record has none) differ from the ``expected`` pair,
    "<what> made N <direction> copies, expected M: <cause>". ``what`` and each cause are
    words or functions of the case and the record; ``at_most``: fewer copies pass."""
    words = {**CAUSES, **(causes or {})}

    def finding(k: int) -> Callable[[Case, Any], tuple | None]:
        def when(case: Case, got: Any) -> tuple | None:
            pair = received(got)
            if pair is None:
                return None
            n, m = int(pair[k]), int(expected(case)[k])
            if n > m or (n < m and not at_most):
                return (DIRECTIONS[k], n, m, MORE if n > m else FEWER)
            return None

        return when

    def message(k: int) -> Callable[[Case, Any], str]:
        def says(case: Case, got: Any) -> str:
            direction, n, m, side = finding(k)(case, got)
            name = say(what(case, got) if callable(what) else what)
            cause = words[(direction, side)]
            cause = say(cause(case, got) if callable(cause) else cause)
            spaced = f"{name} " if name[-1:].isascii() else name  # no space after a Chinese word
            return tr(
                f"{spaced}made {counted(n, direction)}, expected {m}: {cause}",
                f"{spaced}造成了 {counted(n, direction)}，期望 {m} 次：{cause}",
            )

        return says

    return [(finding(k), message(k)) for k in range(2)]
