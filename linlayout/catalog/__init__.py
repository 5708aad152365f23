"""The catalogue: standard swizzles (:mod:`.swizzles`) and layout constructors for hardware instructions (:mod:`.constructors`).
"""
