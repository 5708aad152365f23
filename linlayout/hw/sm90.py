"""The NVIDIA Hopper (sm_90) shared-memory model, measured on an H100.

32 banks of 4 bytes, 32 lanes, merged passes for wide loads whose lane bit
0 or 1 broadcasts, ``ldmatrix``/``stmatrix`` with 8 rows of 16 bytes per
matrix.  Every rule was measured with Nsight Compute on an NVIDIA H100 80GB
HBM3 (626 instructions in ``tests/data/h100_smem_wavefronts.json``, and 625
more in ``tests/data/gpu_verification_h100.json``).

>>> sm90.lanes, sm90.banks, sm90.measured
(32, 32, True)
"""

from __future__ import annotations

from .model import SharedMemory, register_hardware

__all__ = ["sm90"]

sm90 = register_hardware(
    SharedMemory(
        name="sm90",
        banks=32,
        bank_bytes=4,
        lanes=32,
        merge_broadcast_loads=True,
        matrix_rows=8,
        matrix_row_bytes=16,
        measured=True,
        note="Measured on an NVIDIA H100 80GB HBM3 with Nsight Compute (tests/data/h100_smem_wavefronts.json).",
    )
)
