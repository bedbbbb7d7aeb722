from array import array
from collections.abc import Sequence

COUNTER_FIELDS: tuple[str, ...]
RATE_FIELDS: tuple[str, ...]

def parse(text: str, /) -> tuple[int, list[str], bytes] | None: ...
def changed_rows(data: bytes, before: bytes, count: int, /) -> list[int] | None: ...
def rate_columns(
    now: tuple[array[int] | Sequence[int] | None, ...],
    before: tuple[array[int] | Sequence[int] | None, ...] | None,
    interval_s: float,
    /,
) -> tuple[tuple[list[float | None] | None, ...], list[int]] | None: ...
