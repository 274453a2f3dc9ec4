"""The font-made card designs: whole decks, pips true to their rank, indices in the corner."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from faro_pi.game.cards import DECK
from training import fontcards, fonts, layouts


@pytest.fixture(scope="module")
def typefaces():
    return fontcards.fonts()


def _style(seed, typefaces):
    return fontcards.Style(np.random.default_rng(seed), *typefaces)


def test_the_machine_has_the_packaged_typefaces(typefaces):
    latin, suited = typefaces
    assert len(latin) > 100
    assert suited and set(suited) <= set(latin)


def test_index_typefaces_are_drawn_family_by_family(typefaces):
    """Latin Modern's 72 faces are one look: a family with many faces is drawn no more
    often than one with few."""
    latin, _ = typefaces
    families = {path.parent for path in latin}
    assert len(families) >= 20
    rng = np.random.default_rng(0)
    drawn = [fontcards.pick(latin, rng).parent for _ in range(4000)]
    counts = [drawn.count(family) for family in families]
    assert max(counts) < 2 * min(counts)


def test_a_design_makes_all_52_faces_on_rounded_cards(typefaces):
    style = _style(3, typefaces)
    for card in DECK:
        image = fontcards.face(card, style, 120)
        assert image.mode == "RGBA"
        w, h = image.size
        alpha = np.asarray(image)[:, :, 3]
        assert alpha[0, 0] == alpha[0, w - 1] == alpha[h - 1, 0] == alpha[h - 1, w - 1] == 0
        assert alpha[h // 2, w // 2] == 255


def test_every_layout_puts_as_many_pips_as_the_rank():
    for choice in itertools.product(
        layouts.COLUMN_PAIRS,
        layouts.ROW_SPANS,
        layouts.SEVENS,
        layouts.EIGHTS,
        layouts.NINES,
        layouts.TENS,
    ):
        layout = layouts.Layout(*choice)
        for rank in range(1, 11):
            places = layout.pips(rank)
            assert len(places) == rank, (choice, rank)
            assert len(set(places)) == rank, (choice, rank)


def test_indices_keep_to_the_corner(typefaces):
    for seed in range(30):
        style = _style(seed, typefaces)
        assert style.margin[0] + style.reach[0] <= fontcards.CORNER[0] + 1e-9
        assert style.margin[1] + style.reach[1] <= fontcards.CORNER[1] + 1e-9


def test_a_seed_makes_one_design_and_seeds_differ(typefaces):
    def choices(style):
        return (style.index_font, style.index_size, style.layout, style.paper, style.pip)

    assert choices(_style(1, typefaces)) == choices(_style(1, typefaces))
    assert choices(_style(1, typefaces)) != choices(_style(2, typefaces))
    card = DECK[22]
    one, again = (fontcards.face(card, _style(5, typefaces), 120) for _ in range(2))
    assert one.tobytes() == again.tobytes()


def test_the_calibration_typefaces_are_never_trained_on(typefaces):
    """The threshold is chosen on made-up designs set in families training never uses."""
    latin, suited = typefaces
    held_latin, held_suited = fontcards.fonts(held=True)
    assert held_latin and held_suited and set(held_suited) <= set(held_latin)
    assert not set(held_latin) & set(latin)
    assert {path.parent.name for path in held_latin} == set(fonts.HELD_OUT)
    assert all(path.parent.name not in fonts.HELD_OUT for path in latin + suited)
