"""The camera reader: a camera over the dealing box reads each card's face.

A second reader beside the barcode shoe. What it needs beyond the table's own packages
(numpy and OpenCV, the ``camera`` extra) is imported only by the modules below, so a
barcode table installs nothing new. ``recognise`` reads a still; ``scene`` is the model of
the camera that training and the simulator share; ``teach`` learns the deck in use.
"""
