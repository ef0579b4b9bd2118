"""A picture's PNG, rasterised in a worker process while the build goes on with its pages.

vl-convert draws a picture in two steps: Vega lays the chart out as SVG (about a fifth of the time), then
resvg rasterises that SVG (the rest; ``vega_to_png`` is these two steps, byte for byte). The page needs
the picture's size and file name at once, and both come from the SVG, so the build's process makes the
SVG and this module's one worker, on the machine's other core, makes the PNG: it is written when the
build ends (``mkdocs_hooks.on_post_build``). vl-convert holds the interpreter while it draws, so a thread
would not run beside the build.

The worker is spawned, not forked (the build holds DuckDB's threads and, at a million runs, 1.6 GB), and
imports this module only; it gets SIGKILL when the build's process dies (``die_with_parent``).
"""

from __future__ import annotations

import io
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

# PNG, not SVG: an SVG of a few thousand points is parsed, laid out and painted on the main thread each
# time it is shown (1-3 s of Lighthouse's phone, more than the live chart), where a PNG is decoded off it.
# Drawn at 2x (a phone's pixel density) and cut to COLOURS colours by an octree: 69-71 KB for the
# explorer's 4,363 points (its 32-bit PNG: 286 KB; its SVG: 35 KB gzipped, but the cost above). 64 colours
# by median cut (Pillow's default) gave 56-61 KB, but a legend's symbols, a few pixels among thousands of
# points, took the nearest of too few colours: up to 35 levels off, two GPUs grey alike; the octree's 128
# keep them within 1.
SCALE = 2
COLOURS = 128

_POOL: ProcessPoolExecutor | None = None


def recipe() -> str:
    """How ``rasterize`` makes a PNG of an SVG: part of the picture's file name beside the SVG, so that a
    change here (or of the libraries) names new files and no browser keeps the old picture."""
    import PIL
    import vl_convert

    libraries = f"vl-convert {vl_convert.__version__}; Pillow {PIL.__version__}"
    return f"{SCALE}x {COLOURS} octree, background kept; {libraries}"


def rasterize(svg: str) -> bytes:
    """The SVG as a palette PNG at SCALE: what the page shows."""
    import vl_convert
    from PIL import Image

    image = Image.open(io.BytesIO(vl_convert.svg_to_png(svg, scale=SCALE))).convert("RGB")
    cut = image.quantize(COLOURS, method=Image.Quantize.FASTOCTREE)
    # the octree averages its buckets: the page's white came out 254, a box around the picture; the
    # background's entry (the corner's) is set back to the background itself
    palette, at = cut.getpalette() or [], 3 * cut.getpixel((0, 0))
    palette[at : at + 3] = image.getpixel((0, 0))
    cut.putpalette(palette)
    out = io.BytesIO()
    cut.save(out, "PNG", optimize=True)
    return out.getvalue()


def later(svg: str) -> Future[bytes]:
    """``rasterize(svg)`` in the worker (started at the first call; started again where it died, as
    ``mkdocs serve``'s next rebuild would find it)."""
    global _POOL
    for _ in range(2):
        if _POOL is None:
            import multiprocessing

            from bench.contract.children import die_with_parent

            _POOL = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        try:
            return _POOL.submit(rasterize, svg)
        except BrokenProcessPool:
            _POOL = None
    raise BrokenProcessPool("the pictures' worker process died twice as it started")
