"""Layout conversion planning: registers, warp shuffles, shared memory, gather (paper §5.3-5.5)."""
