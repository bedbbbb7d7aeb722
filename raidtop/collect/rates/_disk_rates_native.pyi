from collections.abc import Sequence

COUNTER_FIELDS: tuple[str, ...]
RATE_FIELDS: tuple[str, ...]

def rate_columns(
    now: tuple[Sequence[int] | None, ...],
    before: tuple[Sequence[int] | None, ...] | None,
    interval_s: float,
    /,
) -> tuple[tuple[list[float | None] | None, ...], list[int]] | None: ...
