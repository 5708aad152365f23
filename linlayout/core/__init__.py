"""The core: the F2 kernel (:mod:`.f2`), :class:`LinearLayout` (:mod:`.layout`), dimensions (:mod:`.dims`), the JSON object form (:mod:`.bases`), text views (:mod:`.text`) and memory layouts with padding (:mod:`.memory`).

The lowest layer: it imports nothing else of linlayout but :mod:`linlayout.errors`.
"""
