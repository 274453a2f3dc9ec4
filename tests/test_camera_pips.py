"""The pip witness: the pips of a face counted and cut, and what they add to a read.

On KDE's ``standard`` deck, held out of training and calibration alike, rendered from
Debian's package as training renders its own.
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import cv2
import numpy as np
import pytest

from faro_pi.camera import finder, pips, scene
from faro_pi.camera.fusion import evidence, fused
from faro_pi.camera.model import SHIPPED, ModelError
from faro_pi.camera.recognise import Recogniser, index_symbols
from faro_pi.game.cards import DECK, SUITS
from tests.decks import held_out
from training.pipviews import signature_table


@pytest.fixture(scope="module")
def faces():
    return held_out("standard").cards


def found(face, upside_down=False, seed=1):
    still = scene.view(face, np.random.default_rng(seed), nominal=True, upside_down=upside_down)
    return pips.find(finder.find(still).detail)


@pytest.mark.parametrize("upside_down", [False, True])
def test_a_number_card_shows_as_many_pips_as_its_rank_either_way_up(faces, upside_down):
    counted = {f"{r}C": found(faces[f"{r}C"], upside_down).count for r in range(2, 11)}
    assert counted == {f"{r}C": r for r in range(2, 11)}
    assert not any(found(faces[f"{r}D"], upside_down).figure for r in range(2, 11))


def test_a_court_shows_a_figure_and_a_number_card_none(faces):
    assert found(faces["KS"]).figure and found(faces["QH"]).figure
    assert not found(faces["8S"]).figure


def test_every_pip_is_cut_upright_though_half_are_printed_upside_down(faces):
    """A heart's pips stand point down above the middle and point up below it; cut, each
    is point down: alike one another, unlike a pip turned over."""
    cuts = found(faces["4H"]).cuts
    assert len(cuts) == 4
    light = cuts[:, 0] - cuts[:, 0].mean(axis=(1, 2), keepdims=True)
    unit = light.reshape(4, -1) / np.linalg.norm(light.reshape(4, -1), axis=1, keepdims=True)
    alike = unit @ unit.T
    turned = light[:, ::-1, ::-1].reshape(4, -1)
    turned = turned / np.linalg.norm(turned, axis=1, keepdims=True)
    assert alike.min() > 0.8
    assert (unit @ turned.T).max() < alike.min()


def test_a_number_cards_pips_are_whole_under_a_half_turn_but_the_sevens(faces):
    assert {r: found(faces[f"{r}H"]).whole for r in range(2, 11)} == {
        r: r != 7 for r in range(2, 11)
    }


def test_a_six_that_lost_a_pip_is_a_lopsided_five_not_a_whole_one(faces):
    """A pip lost under the rim or a glare leaves a count one short: its layout tells that
    five from a five's."""
    still = scene.view(faces["6H"], np.random.default_rng(1), nominal=True)
    detail = finder.find(still).detail.copy()
    w = detail.shape[1]
    dark = (cv2.cvtColor(detail, cv2.COLOR_BGR2GRAY) < 170).astype(np.uint8)
    _, _, stats, centres = cv2.connectedComponentsWithStats(dark, 8)
    pip = [i for i in range(1, len(stats)) if stats[i, 4] > 30 and 0.25 < centres[i, 0] / w < 0.75]
    x, y, bw, bh, _ = stats[min(pip, key=lambda i: centres[i, 0] + centres[i, 1])]
    detail[y - 1 : y + bh + 1, x - 1 : x + bw + 1] = np.percentile(detail, 90, axis=(0, 1))
    lost, five = pips.find(detail), found(faces["5H"])
    assert (lost.count, lost.whole) == (5, False)
    assert (five.count, five.whole) == (5, True)
    assert lost.signature != five.signature


def test_a_model_whose_count_table_predates_the_layout_is_refused(tmp_path):
    """A count table made before the layout joined the signature would be read at the
    wrong places: the model is refused, with the command that makes it again."""
    for name in ("model.onnx", "pips.onnx"):
        shutil.copy(SHIPPED.with_name(name), tmp_path / name)
    settings = json.loads(SHIPPED.read_text())
    settings["counts"] = [row[: 2 * pips.COUNTS] for row in settings["counts"]]
    (tmp_path / "model.json").write_text(json.dumps(settings))
    with pytest.raises(ModelError, match=r"make the pip witness again.*python -m training"):
        Recogniser.load(model=tmp_path / "model.json")


def test_a_count_never_seen_for_a_rank_is_unlikely_but_possible():
    ranks = np.array([6, 6, 6, 0])
    table = signature_table(ranks, np.array([7, 7, 6, pips.COUNTS + 1]))
    assert table.shape == (13, pips.SIGNATURES)
    assert np.allclose(np.exp(table).sum(axis=1), 1)
    assert table[6, 7] > table[6, 6] > table[6, 3] > -np.inf


def hide_indices(face: np.ndarray) -> np.ndarray:
    """The face with both index corners painted over in its own paper."""
    out = face.copy()
    h, w = out.shape[:2]
    opaque = out[..., 3] > 0
    paper = np.percentile(out[opaque], 90, axis=0).astype(np.uint8)  # most of a face is paper
    ch, cw = int(0.3 * h), int(0.2 * w)
    for ys, xs in ((slice(0, ch), slice(0, cw)), (slice(h - ch, h), slice(w - cw, w))):
        opaque = out[ys, xs, 3] > 0
        out[ys, xs][opaque] = paper
    return out


def test_a_number_card_whose_indices_are_hidden_is_named_by_its_pips(faces):
    """Both indices painted over: the index witness can only guess, and the pips' count
    and suit outweigh its guess, so the fused read favours the right card. Untaught it
    is not sure enough to read it (the threshold holds for designs that err worst), but it
    never reads another card."""
    reader = Recogniser.load()
    rng = np.random.default_rng(3)
    codes = [f"{r}{s}" for r in (3, 5, 7, 9) for s in "SHDC"]
    favoured, read = {}, {}
    for code in codes:
        cut = finder.find(scene.view(hide_indices(faces[code]), rng, nominal=True))
        look, pip_look = reader.look([cut])[0], reader.pip_looks([cut])[0]
        posterior = fused(evidence(look, pip_look, reader.counts), reader.weights)
        favoured[code] = DECK[int(np.argmax(posterior))].code
        read[code] = reader.read_cut(cut).card
    assert favoured == {code: code for code in codes}
    assert not {code: card.code for code, card in read.items() if card and card.code != code}


def test_where_the_pips_are_read_the_faces_suit_is_not_counted_again(faces):
    """A number card's suit to the face head is its pips in the whole face: once the pip witness
    has read them, a face head sure of another suit (a design's plump clubs taken for
    spades) does not move the read. A court's figure is no pip, and there it still counts."""
    reader = Recogniser.load()
    rng = np.random.default_rng(7)
    sure_of_spades = np.array([0.97, 0.01, 0.01, 0.01])
    moved = {}
    for code in ("7C", "10C", "QC", "KC"):
        cut = finder.find(scene.view(faces[code], rng, nominal=True))
        look, pip_look = reader.look([cut])[0], reader.pip_looks([cut])[0]
        fooled = dataclasses.replace(look, heads={**look.heads, "face_suit": sure_of_spades})
        spade = DECK.index(next(c for c in DECK if c.code == code[:-1] + "S"))
        before, after = (
            np.log(fused(evidence(seen, pip_look, reader.counts), reader.weights)[spade])
            for seen in (look, fooled)
        )
        moved[code] = bool(after > before + 1)
    assert moved == {"7C": False, "10C": False, "QC": True, "KC": True}


def test_the_symbol_under_each_index_names_a_courts_suit(faces):
    """A court has no pips, so the symbols under its indices are its one suit witness
    beside the model: both are found, and the pip net, which never saw an index, reads
    their suit."""
    reader = Recogniser.load()
    rng = np.random.default_rng(4)
    codes = [f"{r}{s}" for r in "JQK" for s in "SHDC"] + ["7C", "AD"]
    read = {}
    for code in codes:
        cut = finder.find(scene.view(faces[code], rng, nominal=True))
        assert len(index_symbols(cut)) == 2, code
        symbol = reader.pip_looks([cut])[0].symbol
        read[code] = code[:-1] + SUITS[int(np.argmax(symbol))]
    assert read == {code: code for code in codes}


def test_no_symbol_is_found_where_no_index_stands(faces):
    """Indices painted over, or a strip of bare paper: no symbol, so that witness is
    silent rather than reading a pip or a speck as an index's suit."""
    cut = finder.find(scene.view(hide_indices(faces["KH"]), np.random.default_rng(5)))
    assert len(index_symbols(cut)) == 0
    paper = np.full((finder.STRIP[1], finder.STRIP[0], 3), 235, np.uint8)
    assert pips.symbol(paper, finder.paper_of(paper)) is None


def strip_with(*blobs):
    """A corner strip of paper with dark blobs drawn on it, each (x, y, width, height)."""
    strip = np.full((finder.STRIP[1], finder.STRIP[0], 3), 235, np.uint8)
    for x, y, w, h in blobs:
        cv2.ellipse(strip, (x + w // 2, y + h // 2), (w // 2, h // 2), 0, 0, 360, (40, 40, 40), -1)
    return strip


def symbol_found(strip):
    cut = pips.symbol(strip, finder.paper_of(strip))
    return None if cut is None else float(cut[0].mean())


def test_a_narrow_rank_still_has_its_wide_symbol_found_under_it():
    """A J is half as wide as the spade some designs set under it: the symbol is measured
    against the rank's height too, or a jack of spades would have no suit but the net's."""
    assert symbol_found(strip_with((14, 9, 9, 35), (6, 51, 35, 36))) is not None


def test_a_figures_great_pip_beside_the_rank_does_not_hide_the_symbol():
    """A court's figure may reach up beside the index with a great pip as tall as the rank:
    the row of glyphs then ends below the symbol, which is looked for under the rank alone."""
    beside = symbol_found(strip_with((7, 9, 19, 37), (31, 13, 14, 41), (8, 48, 19, 23)))
    alone = symbol_found(strip_with((7, 9, 19, 37), (8, 48, 19, 23)))
    assert beside is not None and beside == pytest.approx(alone, abs=0.01)


def test_the_pip_net_learns_a_courts_index_symbols_as_its_suit(faces):
    """A court's blobs teach the pip net "not a pip", and its index symbols the suit: the
    reader asks the pip net for a court's suit there."""
    from training.dataset import Faces
    from training.pipviews import NOT_A_PIP, sample

    court = Faces("standard", {"QD": faces["QD"]}, [])
    rng = np.random.default_rng(6)
    labels = np.concatenate([s[1] for s in (sample([court], rng) for _ in range(12)) if s])
    suit = SUITS.index("D")
    assert (labels == suit).sum() >= 12
    assert set(labels.tolist()) <= {suit, NOT_A_PIP}
