"""Counting wavefronts: the access plan (:mod:`.plan`), the closed form (:mod:`.closed_form`), the address simulator (:mod:`.simulate`), counting by simulation (:mod:`.by_simulation`) and the batched counter (:mod:`.batched`).

Every counter evaluates the plan; the simulator is the independent oracle.
"""
