"""Made-up court figures: no two real decks draw their kings alike, so training draws its
own, a figure a face card might hold, behind the index that names it."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from faro_pi.game.cards import Card


def figure(rng: np.random.Generator, card: Card, size, colours, ink) -> Image.Image:
    """The top half of a court figure: head, crown (king), veil (queen) or cap (jack), robe."""
    w, h = size
    half = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(half)

    def colour():
        return (*colours[rng.integers(len(colours))], 255)

    cx = w * rng.uniform(0.52, 0.6)  # the head off-centre, the suit symbol beside it
    head = h * rng.uniform(0.1, 0.14)
    head_y = h * rng.uniform(0.34, 0.44)
    shoulder = head_y + head * 1.1
    shoulders, hem = w * rng.uniform(0.15, 0.32), w * rng.uniform(0.2, 0.46)
    robe = [(cx - shoulders, shoulder), (cx + shoulders, shoulder), (cx + hem, h), (cx - hem, h)]
    if rng.random() < 0.5:  # sleeves: the robe wider at the elbows than at the hem
        elbow = shoulder + (h - shoulder) * rng.uniform(0.4, 0.7)
        wide = max(shoulders, hem) + w * rng.uniform(0.04, 0.12)
        robe[2:2] = [(cx + wide, elbow)]
        robe.append((cx - wide, elbow))
    draw.polygon(robe, fill=colour(), outline=(*ink, 255))
    for _ in range(int(rng.integers(4, 10))):  # the robe's trimmings
        a = np.array([rng.uniform(cx - 0.35 * w, cx + 0.2 * w), rng.uniform(shoulder, h * 0.9)])
        b = a + rng.uniform(0.05, 0.2, 2) * size
        shape = rng.integers(3)
        if shape == 0:
            draw.ellipse([*a, *b], fill=colour())
        elif shape == 1:
            draw.rectangle([*a, *b], outline=colour(), width=int(rng.integers(1, 4)))
        else:
            draw.polygon([tuple(a), (b[0], a[1]), ((a[0] + b[0]) / 2, b[1])], fill=colour())
    skin = (240, 205, 170, 255) if rng.random() < 0.7 else (255, 255, 255, 255)
    draw.ellipse(
        [cx - head, head_y - head, cx + head, head_y + head], fill=skin, outline=(*ink, 255)
    )
    top = head_y - head
    if card.rank == 13:  # a crown of points
        n = int(rng.integers(3, 6))
        points = [(cx - head, top + 0.2 * head)]
        for i in range(n):
            x = cx - head + 2 * head * (i + 0.5) / n
            points += [(x, top - head * rng.uniform(0.6, 1.0)), (x + head / n, top + 0.1 * head)]
        points[-1] = (cx + head, top + 0.2 * head)
        draw.polygon(points, fill=colour(), outline=(*ink, 255))
    elif card.rank == 12:  # a veil falling to the shoulders
        draw.pieslice(
            [cx - 1.4 * head, top - 0.3 * head, cx + 1.4 * head, shoulder + head],
            180,
            360,
            fill=colour(),
        )
        draw.ellipse(
            [cx - 0.8 * head, head_y - 0.7 * head, cx + 0.8 * head, head_y + 0.9 * head], fill=skin
        )
    else:  # a flat cap and its feather
        draw.rectangle(
            [cx - 1.2 * head, top - 0.4 * head, cx + 1.2 * head, top + 0.25 * head], fill=colour()
        )
        draw.line(
            [(cx + head, top - 0.2 * head), (cx + 1.6 * head, top - 0.9 * head)],
            fill=colour(),
            width=max(1, round(head / 4)),
        )
    return half
