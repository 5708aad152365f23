"""Checks at scale: exhaustive sweeps over families of memory layouts (:mod:`.sweep`) and the GPU verification kit (:mod:`.gpu`).
"""
