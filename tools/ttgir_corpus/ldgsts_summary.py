"""Print each kernel's LDGSTS wavefronts and instructions from a measure_ncu.py measured.json (argument: the file)."""

import json
import sys

W = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
I = "smsp__sass_inst_executed_op_ldgsts.sum"
for name, row in json.load(open(sys.argv[1]))["kernels"].items():
    m = (row.get("ncu") or {}).get("metrics") or {}
    w, i = m.get(W), m.get(I)
    ratio = float(str(w).replace(",", "")) / float(str(i).replace(",", "")) if w and i else None
    print(name, w, i, ratio, (row["compiled"].get("error") or "")[:300])
