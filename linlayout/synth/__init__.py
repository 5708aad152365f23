"""Synthesis and comparison: the optimal swizzle (:mod:`.synthesis`) and standard candidates beside it (:mod:`.compare`).
"""
