"""Renders named cards out of an SVG card sheet with librsvg, one PNG each.

Run by Debian's own Python (``/usr/bin/python3``), which has librsvg's bindings
(python3-gi, gir1.2-rsvg-2.0, python3-gi-cairo); the training script calls it in a
subprocess, so the project's virtualenv needs none of them. Arguments: the sheet, the
folder to write into, the height in pixels, then ``NAME=ID1,ID2,...`` for each card: the
first element id the sheet has is drawn, cut to its logical box, into ``NAME.png``.
Prints the names it could not find.
"""

import sys

import gi

gi.require_version("Rsvg", "2.0")
import cairo  # noqa: E402
from gi.repository import Rsvg  # noqa: E402


def render(sheet: str, folder: str, height: int, wanted: list[str]) -> list[str]:
    handle = Rsvg.Handle.new_from_file(sheet)
    _, width, tall = handle.get_intrinsic_size_in_pixels()
    page = Rsvg.Rectangle()
    page.x, page.y, page.width, page.height = 0, 0, width, tall
    missing = []
    for item in wanted:
        name, _, ids = item.partition("=")
        for element in ids.split(","):
            if handle.has_sub("#" + element):
                ok, _ink, box = handle.get_geometry_for_layer("#" + element, page)
                if ok and box.width > 0 and box.height > 0:
                    break
        else:
            missing.append(name)
            continue
        out_w = max(1, round(height * box.width / box.height))
        surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, out_w, height)
        context = cairo.Context(surface)
        context.scale(out_w / box.width, height / box.height)
        context.translate(-box.x, -box.y)
        handle.render_layer(context, "#" + element, page)
        surface.write_to_png(f"{folder}/{name}.png")
    return missing


if __name__ == "__main__":
    gone = render(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    print(" ".join(gone))
