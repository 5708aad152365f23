"""The core: the F2 kernel (:mod:`.f2`), dimensions and flat encodings (:mod:`.dims`), the input forms of a layout (:mod:`.bases`), :class:`LinearLayout` (:mod:`.layout`) and the plain functions its methods delegate to (:mod:`.product`: composition, product, division; :mod:`.invert`; :mod:`.reshape`; :mod:`.evaluate`: evaluation at one input), text views (:mod:`.text`) and memory layouts with padding (:mod:`.memory`).

The lowest layer: it imports nothing else of linlayout but :mod:`linlayout.errors`.
"""
