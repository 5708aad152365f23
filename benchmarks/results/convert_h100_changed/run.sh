#!/bin/bash
# h13 (issue 13, changed plans): emitted CUDA of the changed pairs + the 150-pair sample on the H100:
# correctness of every element, SASS counts, ncu shared-memory wavefronts. Adapted from tools/convert_gpu_run.sh
# (no timing harness, no Triton kernels).
set -u
cd "$(dirname "$0")"
M=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
ncu --version >> $OUT/gpu.txt 2>&1
date +%T >> $OUT/gpu.txt
timeout 200 nvcc -Xptxas -O3 -arch=sm_90 -O3 -std=c++17 -o cc convert_check.cu > $OUT/nvcc.txt 2>&1; echo "nvcc rc $?" >> $OUT/gpu.txt
date +%T >> $OUT/gpu.txt
timeout 30 ./cc > $OUT/run.txt 2>&1; echo "run rc $?" >> $OUT/gpu.txt
awk '{e+=($2!=0)} END {print NR " runs, " e " with wrong elements"}' $OUT/run.txt >> $OUT/gpu.txt
cuobjdump -sass cc > sass.txt 2>/dev/null
python3 - <<'PY' > $OUT/sass_ours.json
import re, json
cur=None; out={}
for line in open("sass.txt"):
    m=re.search(r"Function : (\S+)", line)
    if m: cur=m.group(1); out[cur]={k:0 for k in ("SHFL","STS","LDS","STSM","LDSM","BAR","SEL","PRMT")}; continue
    if cur:
        for k in out[cur]:
            if re.search(r"\b"+k+r"\b", line): out[cur][k]+=1
print(json.dumps(out))
PY
timeout 150 ncu --clock-control none --csv --metrics $M ./cc > $OUT/ncu_ours.csv 2> $OUT/ncu_ours.err; echo "ncu ours rc $?" >> $OUT/gpu.txt
date +%T >> $OUT/gpu.txt
cat $OUT/gpu.txt; tail -n 3 $OUT/ncu_ours.err; head -c 300 $OUT/ncu_ours.csv
