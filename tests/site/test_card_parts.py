"""The run cards' partitions computed a batch at a time (``dataset.card_part_array``, issue 29's build at
1M runs) are ``card_part``'s, the page script's (tests/site/test_cards.py)."""

from __future__ import annotations


def test_card_part_array_is_card_part_for_every_id() -> None:
    """The vectorised FNV-1a gives ``card_part``'s partition (the page script's, tests/site/test_cards.py)
    for ids of every length, non-ASCII ones and the empty one included."""
    import random

    from site_gen.data import dataset

    rng = random.Random(29)
    alphabet = "0123456789abcdef-_é中\u2028"
    ids = [
        "",
        "0",
        "000000000000",
        *("".join(rng.choices(alphabet, k=rng.randint(1, 40))) for _ in range(5000)),
    ]
    for parts in (1, 7, 1000):
        assert dataset.card_part_array(ids, parts).tolist() == [dataset.card_part(i, parts) for i in ids]
    assert dataset.card_part_array([], 3).tolist() == []
