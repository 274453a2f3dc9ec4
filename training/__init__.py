"""Making the camera reader's model: renders, views, the nets, their calibration, the export.

Development time only, beside the package and never in its wheel: it needs PyTorch and
onnx (the ``train`` extra) and Debian's card designs and fonts. What it makes ships in
``faro_pi/camera/`` and is read through :mod:`faro_pi.camera.model`'s contract. Modules
that only draw cards or views (``designs``, ``dataset``, ``fontcards``, ``pipviews``)
import no PyTorch, so the tests draw cards through them without loading it.
"""
