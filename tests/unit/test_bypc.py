"""by_pc: an answer kept by (module, bias, pc), made once, dropped whole past its bound."""

from functools import partial

from aliceserver.debuggers.source.bypc import by_pc


def test_made_once_per_key() -> None:
    kept: dict[tuple[str, int, int], tuple[str, ...]] = {}
    made: list[int] = []

    def make(pc: int) -> tuple[str, ...]:
        made.append(pc)
        return ()  # an empty answer (no inlined calls) is kept too

    for pc in (0x1000, 0x1004, 0x1000, 0x1004, 0x1000):
        assert by_pc(kept, ("/bin/prog", 0, pc), partial(make, pc), 16) == ()
    assert made == [0x1000, 0x1004]


def test_bounded() -> None:
    kept: dict[int, int] = {}
    for key in range(5):
        by_pc(kept, key, partial(int.__mul__, key, 2), 3)
    assert len(kept) <= 3
    assert by_pc(kept, 4, lambda: -1, 3) == 8
