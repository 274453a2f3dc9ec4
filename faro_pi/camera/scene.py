"""The camera's view of the dealing box: a card face as the reader sees it from above.

One model of the camera serves training (every nuisance of the view contract, and beyond
it with ``wide=True``) and the simulator's virtual camera (``nominal=True`` is the clean,
centred, evenly lit view). The contract, for a 63×88 mm card: looking down within 10° of
straight, the long side vertical within ±8° either way up, the face 45–90 % of the
image's height and up to 10 % off centre; the box dark and textured, its rim over up to
4 mm of each edge; light ×0.5–1.5 with a gradient, 3000–6500 K, up to two small glare
spots never on both index corners; noise σ ≤ 6/255, JPEG quality ≥ 60, defocus σ ≤ 1.2 px
per 480 px of card height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CARD_MM = (63.0, 88.0)
"""Width and height of a poker-size card, the contract's card."""


@dataclass(frozen=True)
class Ranges:
    """How far each nuisance goes: the contract's edges, or wider for training."""

    tilt_deg: float = 10.0
    roll_deg: float = 8.0
    height: tuple[float, float] = (0.45, 0.90)
    offset: float = 0.10
    rim_mm: float = 4.0
    gap_mm: float = 2.0
    """How far the box's opening may stand clear of the card, showing the box inside."""
    light: tuple[float, float] = (0.5, 1.5)
    gradient: float = 0.35
    kelvin: tuple[float, float] = (3000.0, 6500.0)
    glare: int = 2
    glare_on_indices: bool = False
    """A glare spot on each index corner, past what the contract allows."""
    noise: float = 6.0
    jpeg: int = 60
    defocus: float = 1.2
    second_card: float = 0.0
    """Chance that the edge of a card below shows beside the top one."""


CONTRACT = Ranges()
STILLS = (
    (320, 240), (240, 320), (640, 480), (480, 640), (800, 600), (1280, 720), (720, 1280),
    (1024, 768), (1920, 1080), (1080, 1920),
)  # fmt: skip
"""Still sizes across the contract's 320×240 to 1920×1080, portrait and landscape: what
the benchmark and the fused read's calibration draw from."""
WIDE = Ranges(
    tilt_deg=14.0,
    roll_deg=11.0,
    height=(0.40, 0.94),
    offset=0.13,
    rim_mm=5.0,
    gap_mm=3.0,
    light=(0.4, 1.7),
    gradient=0.5,
    kelvin=(2700.0, 7500.0),
    noise=9.0,
    jpeg=45,
    defocus=1.6,
    second_card=0.25,
)


def view(
    face: np.ndarray,
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 480),
    *,
    nominal: bool = False,
    wide: bool = False,
    upside_down: bool | None = None,
    ranges: Ranges | None = None,
    under: np.ndarray | None = None,
    pulled: float = 0.0,
    smear: float = 0.0,
) -> np.ndarray:
    """A BGR still (``size`` is width, height) of ``face`` lying in the box under the camera.

    ``face`` is an upright card face, RGBA (transparent outside its rounded corners) or
    RGB, any size; it is stretched to 63×88 mm. ``nominal`` gives the clean view: straight
    down, upright, 70 % of the height, centred, no rim over the face, even white light.
    ``ranges`` (the contract's, or ``WIDE``'s with ``wide``) says how far each nuisance
    goes. With ``under``, ``face`` is being drawn off that card: ``pulled`` of the way off
    it across or along, smeared over ``smear`` of that way by its motion in the exposure.
    """
    ranges = ranges or (WIDE if wide else CONTRACT)
    laid_face = rgba(face)
    w, h = size
    box = _box(rng, h, w, nominal)
    card_h = (0.70 if nominal else rng.uniform(*ranges.height)) * h
    card_h = min(card_h, 0.95 * w * CARD_MM[1] / CARD_MM[0])  # a tall still: the card fits
    homography = pose(rng, w, h, card_h, laid_face.shape, ranges, nominal, upside_down)
    if not nominal and rng.random() < ranges.second_card:
        _second_card(box, rng, homography, laid_face.shape)
    if under is None:
        image, card = lay(box, laid_face, homography)
    else:
        below = cv2.resize(rgba(under), laid_face.shape[1::-1], interpolation=cv2.INTER_AREA)
        image, _ = lay(box, below, homography)
    rim = _rim(rng, ranges, laid_face.shape, nominal)
    opening = np.zeros((h, w), np.uint8)
    cv2.fillPoly(opening, [project(homography, rim)], 1)
    rim_texture = texture(rng, h, w, 0.7)
    np.copyto(image, rim_texture, where=opening[..., None] == 0)
    if under is not None:  # the card drawn passes over the rim
        image, card = _drawn(rng, image, laid_face, homography, pulled, smear)
    if nominal:
        return np.clip(image, 0, 255).astype(np.uint8)
    image = _light(rng, image, ranges, homography, laid_face.shape, card * opening)
    sigma = rng.uniform(0, ranges.defocus) * card_h / 480
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = np.empty(image.shape, np.float32)
    cv2.randn(noise, 0.0, float(rng.uniform(0, ranges.noise)))
    image += noise
    out = np.clip(image, 0, 255).astype(np.uint8)
    quality = int(rng.integers(ranges.jpeg, 98))
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out


def rgba(face: np.ndarray) -> np.ndarray:
    """The face as float BGRA at 63:88, as ``lay`` takes it (it comes RGB or RGBA, as
    image files hold it)."""
    if face.ndim == 2:
        face = np.dstack([face] * 3)
    if face.shape[2] == 3:
        face = np.dstack([face, np.full(face.shape[:2], 255, face.dtype)])
    bgra = face[..., [2, 1, 0, 3]].astype(np.float32)
    fh = bgra.shape[0]
    fw = round(fh * CARD_MM[0] / CARD_MM[1])
    if bgra.shape[1] == fw:
        return bgra
    return cv2.resize(bgra, (fw, fh), interpolation=cv2.INTER_LINEAR)


def _box(rng, h: int, w: int, nominal: bool) -> np.ndarray:
    """The inside of the dealing box: dark, tinted, possibly grained."""
    return texture(rng, h, w, 0.5 if nominal else 1.0)


def texture(rng, h: int, w: int, level: float) -> np.ndarray:
    """Dark tinted grain, wood-like stripes now and then: made small, then enlarged."""
    sh, sw = max(2, h // 16), max(2, w // 16)
    grain = rng.normal(0, 1, (sh, sw))
    if rng.random() < 0.5:  # wood: stripes along one axis
        along = sw if rng.random() < 0.5 else sh
        stripes = np.sin(np.linspace(0, rng.uniform(5, 40), along) + rng.uniform(0, 6))
        grain = grain + (stripes[None, :] if along == sw else stripes[:, None])
    value = rng.uniform(8, 60) * level * (1 + rng.uniform(0.05, 0.35) * grain)
    small = np.clip(value[..., None] * rng.uniform(0.7, 1.3, 3), 0, 255).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def pose(
    rng, w, h, card_h, shape, ranges: Ranges = CONTRACT, nominal: bool = False, upside_down=None
) -> np.ndarray:
    """The homography from face pixels (of a face of ``shape``) to the pixels of a ``w``×``h``
    still: a card ``card_h`` tall lying under the camera, as ``ranges`` lets it lie."""
    fh, fw = shape[:2]
    scale = card_h / fh
    corners = np.array([[-fw / 2, -fh / 2], [fw / 2, -fh / 2], [fw / 2, fh / 2], [-fw / 2, fh / 2]])
    flip = rng.random() < 0.5 if upside_down is None else upside_down
    roll = 0.0 if nominal else math.radians(rng.uniform(-ranges.roll_deg, ranges.roll_deg))
    roll += math.pi if flip else 0.0
    tilt = 0.0 if nominal else math.radians(rng.uniform(0, ranges.tilt_deg))
    azimuth = rng.uniform(0, 2 * math.pi)
    focal = max(w, h) * rng.uniform(0.8, 1.6)
    points = []
    for x, y in corners * scale:
        xr = x * math.cos(roll) - y * math.sin(roll)
        yr = x * math.sin(roll) + y * math.cos(roll)
        depth = focal + _depth(xr, yr, azimuth, tilt)
        points.append((xr * focal / depth, yr * focal / depth))
    pts = np.array(points)
    off = (0, 0) if nominal else rng.uniform(-ranges.offset, ranges.offset, 2) * (w, h)
    pts += (w / 2 + off[0], h / 2 + off[1])
    return cv2.getPerspectiveTransform(
        (corners + np.array([fw / 2, fh / 2])).astype(np.float32), pts.astype(np.float32)
    )


def _depth(x: float, y: float, azimuth: float, tilt: float) -> float:
    """How much nearer or farther a point of the tilted card is: its perspective."""
    across = -x * math.sin(azimuth) + y * math.cos(azimuth)
    return across * math.sin(tilt)


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    projected = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float32), homography)
    return np.round(projected.reshape(-1, 2)).astype(np.int32)


def lay(box: np.ndarray, face: np.ndarray, homography: np.ndarray):
    """The still with the face (float BGRA, ``rgba``) laid on the box, and where the face
    is (0..1)."""
    h, w = box.shape[:2]
    warped = cv2.warpPerspective(face, homography, (w, h), flags=cv2.INTER_LINEAR)
    alpha = warped[..., 3:] * np.float32(1 / 255)
    return box + (warped[..., :3] - box) * alpha, alpha[..., 0]


def _rim(rng, ranges: Ranges, shape, nominal: bool) -> np.ndarray:
    """The box's opening in face pixels: the card shows only inside it."""
    fh, fw = shape[:2]
    per_mm = fh / CARD_MM[1]
    if nominal:
        inset = np.full(4, -2.0)
    else:
        inset = rng.uniform(-ranges.gap_mm, ranges.rim_mm, 4)
        inset = np.where(rng.random(4) < 0.3, ranges.rim_mm * rng.uniform(0.8, 1, 4), inset)
    left, top, right, bottom = inset * per_mm
    return np.array(
        [[left, top], [fw - right, top], [fw - right, fh - bottom], [left, fh - bottom]]
    )


def _drawn(rng, image, face, homography, pulled: float, smear: float):
    """``face`` laid on ``image`` ``pulled`` of the way off the card it covered, across or
    along, either way; smeared along its way over ``smear`` of it."""
    fh, fw = face.shape[:2]
    axis = int(rng.integers(2))
    reach = (fw, fh)[axis] * float(rng.choice([-1, 1]))
    shift = np.zeros(2)
    shift[axis] = pulled * reach
    if smear > 0:
        n = max(1, round(abs(smear * reach)))
        kernel = np.full((1, n), 1.0 / n, np.float32)
        face = cv2.filter2D(face, -1, kernel if axis == 0 else kernel.T)
    move = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])
    return lay(image, face, homography @ move)


def _second_card(box: np.ndarray, rng, homography: np.ndarray, shape) -> None:
    """A card below, out by a few millimetres: a pale strip along one edge."""
    fh, fw = shape[:2]
    shift = rng.uniform(1, 4) * fh / CARD_MM[1]
    dx, dy = [(shift, 0), (-shift, 0), (0, shift), (0, -shift)][rng.integers(4)]
    rect = np.array([[dx, dy], [fw + dx, dy], [fw + dx, fh + dy], [dx, fh + dy]])
    cv2.fillPoly(box, [project(homography, rect)], rng.uniform(150, 240, 3).tolist())


def _light(rng, image, ranges: Ranges, homography, shape, card) -> np.ndarray:
    """Gain with a gradient, colour temperature and glare spots on the (glossy) card."""
    h, w = image.shape[:2]
    xs = np.arange(w, dtype=np.float32)[None, :] - w / 2
    ys = np.arange(h, dtype=np.float32)[:, None] - h / 2
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xs * np.float32(math.cos(angle)) + ys * np.float32(math.sin(angle))) / max(w, h)
    slope = np.float32(rng.uniform(-1, 1) * ranges.gradient * 2)
    gain = np.float32(rng.uniform(*ranges.light)) * (1 + slope * ramp)
    out = image * (gain[..., None] * _white(rng.uniform(*ranges.kelvin)))
    fh, fw = shape[:2]
    corners = [np.array([0.1 * fw, 0.12 * fh]), np.array([0.9 * fw, 0.88 * fh])]
    covered = 0
    for _ in range(int(rng.integers(0, ranges.glare + 1))):
        spot = rng.uniform((0, 0), (fw, fh))
        near = [np.hypot(*((spot - c) / (fw, fh))) < 0.18 for c in corners]
        if any(near) and covered:
            continue
        covered += any(near)
        glare(rng, out, project(homography, spot[None])[0], card)
    if ranges.glare_on_indices:
        for corner in corners:
            spot = corner + rng.uniform(-0.03, 0.03, 2) * (fw, fh)
            glare(rng, out, project(homography, spot[None])[0], card)
    return out


def glare(rng, out: np.ndarray, centre, card: np.ndarray) -> None:
    """A glare spot on the card at ``centre`` (image pixels): its gloss whitens the face."""
    h, w = out.shape[:2]
    cx, cy = centre
    radius = rng.uniform(0.02, 0.06) * h
    x0, x1 = max(0, int(cx - 3 * radius)), min(w, int(cx + 3 * radius) + 1)
    y0, y1 = max(0, int(cy - 3 * radius)), min(h, int(cy + 3 * radius) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    dx2 = (np.arange(x0, x1, dtype=np.float32)[None, :] - cx) ** 2
    dy2 = (np.arange(y0, y1, dtype=np.float32)[:, None] - cy) ** 2
    blob = np.exp(-(dx2 + dy2) / np.float32(2 * radius**2)) * card[y0:y1, x0:x1]
    patch = out[y0:y1, x0:x1]
    patch += (255 - patch) * (blob * np.float32(rng.uniform(0.5, 0.95)))[..., None]


def _white(kelvin: float) -> np.ndarray:
    """BGR gains of a light at ``kelvin`` against the camera's daylight white (6500 K)."""
    t = (kelvin - 3000.0) / 3500.0
    warm = np.array([0.62, 0.82, 1.0])  # 3000 K: less blue, less green
    return (warm + (1 - warm) * t).astype(np.float32)


def empty(rng: np.random.Generator, size: tuple[int, int] = (640, 480)) -> np.ndarray:
    """The box with no card in it: the dealt-out shoe."""
    w, h = size
    return np.clip(texture(rng, h, w, 1.0), 0, 255).astype(np.uint8)


def back(rng: np.random.Generator, height: int = 300) -> np.ndarray:
    """A made-up card back: a white border round a repeating coloured pattern."""
    width = round(height * 63 / 88)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    period = rng.uniform(4, 30)
    angle = rng.uniform(0, np.pi)
    wave = np.sin((xs * np.cos(angle) + ys * np.sin(angle)) / period * 2 * np.pi)
    if rng.random() < 0.5:
        wave = wave * np.sin((xs * np.sin(angle) - ys * np.cos(angle)) / period * 2 * np.pi)
    a, b = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
    t = (wave[..., None] > rng.uniform(-0.5, 0.5)).astype(np.float32)
    face = a * t + b * (1 - t)
    border = int(rng.uniform(0.02, 0.08) * height)
    inner = np.zeros((height, width), bool)
    inner[border : -border or None, border : -border or None] = True
    face[~inner] = 245
    return np.dstack([face, np.full((height, width), 255.0)]).astype(np.uint8)


def hand(still: np.ndarray, rng: np.random.Generator, cover: float = 0.5) -> np.ndarray:
    """``still`` with a hand over part of it: a palm and fingers, skin-toned and shaded."""
    h, w = still.shape[:2]
    out = still.astype(np.float32)
    mask = np.zeros((h, w), np.uint8)
    side = rng.integers(4)
    reach = cover * (h if side % 2 == 0 else w)
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.2, 0.2, 2) * (w, h)
    inward = np.array([(0, 1), (1, 0), (0, -1), (-1, 0)][side], float)
    edge = centre - inward * (np.array([w, h]) / 2)
    palm = edge + inward * reach * 0.35
    cv2.ellipse(
        mask,
        _pt(palm),
        (int(0.22 * min(w, h)), int(reach * 0.45)),
        float(np.degrees(np.arctan2(inward[1], inward[0]))) + 90,
        0,
        360,
        1,
        -1,
    )
    across = np.array([-inward[1], inward[0]])
    for k in range(4):
        base = palm + across * (k - 1.5) * 0.09 * min(w, h)
        tip = base + inward * reach * rng.uniform(0.5, 0.8)
        cv2.line(mask, _pt(base), _pt(tip), 1, int(0.07 * min(w, h)))
    skin = np.array([rng.uniform(60, 150), rng.uniform(90, 180), rng.uniform(140, 235)])
    shade = cv2.GaussianBlur(rng.normal(1, 0.08, (h, w)).astype(np.float32), (0, 0), 6)
    out[mask == 1] = (skin[None] * shade[mask == 1][:, None]).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _pt(p) -> tuple[int, int]:
    return int(p[0]), int(p[1])


def overlapping(
    face: np.ndarray, other: np.ndarray, rng: np.random.Generator, size=(640, 480)
) -> np.ndarray:
    """Two cards in the box, the second askew across the first: never one card's face."""
    still = view(face, rng, size).astype(np.float32)
    across = rgba(other)
    w, h = size
    card_h = rng.uniform(*CONTRACT.height) * h
    placed = pose(rng, w, h, card_h, across.shape, CONTRACT, False, None)
    turn = np.radians(rng.uniform(15, 75) * rng.choice([-1, 1]))
    shift = (
        rng.uniform(0.2, 0.45) * card_h * np.array([np.cos(a := rng.uniform(0, 6.3)), np.sin(a)])
    )
    c, s_ = np.cos(turn), np.sin(turn)
    x0, y0 = w / 2, h / 2
    move = np.array(
        [
            [c, -s_, x0 - c * x0 + s_ * y0 + shift[0]],
            [s_, c, y0 - s_ * x0 - c * y0 + shift[1]],
            [0, 0, 1],
        ]
    )
    laid, _ = lay(still, across, move @ placed)
    return np.clip(laid, 0, 255).astype(np.uint8)
