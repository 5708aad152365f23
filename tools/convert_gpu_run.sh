#!/bin/bash
# linlayout issue 13: emitted CUDA conversions on the H100 (correctness, ncu wavefronts, SASS counts), the
# two-path timing harness, and (TRITON=1) Triton's convert_layout for the same pairs under ncu.
# Inputs next to this script: convert_check.cu/.json (convert_cuda_check.py --mode gpu --pairs 150 --seed 1),
# convert_timing.cu/.json (convert_gpu_timing.py), convert_gpu_triton.py.
set -u
cd "$(dirname "$0")"
M=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
ncu --version >> $OUT/gpu.txt 2>&1
date +%T
(timeout 110 nvcc -Xptxas -O3 -arch=sm_90 -O3 -std=c++17 -o cc convert_check.cu > $OUT/nvcc.txt 2>&1; echo "nvcc rc $?" >> $OUT/gpu.txt) &
(timeout 110 nvcc -arch=sm_90 -O3 -std=c++17 -o ct convert_timing.cu > $OUT/nvcc_timing.txt 2>&1; echo "nvcc timing rc $?" >> $OUT/gpu.txt) &
wait
date +%T
timeout 20 ./ct > $OUT/timing.txt 2>&1; echo "timing rc $?" >> $OUT/gpu.txt
timeout 20 ./cc > $OUT/run.txt 2>&1; echo "run rc $?" >> $OUT/gpu.txt
awk '{e+=($2!=0)} END {print NR " runs, " e " with wrong elements"}' $OUT/run.txt >> $OUT/gpu.txt
date +%T
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
timeout 80 ncu --clock-control none --csv --metrics $M ./cc > $OUT/ncu_ours.csv 2> $OUT/ncu_ours.err; echo "ncu ours rc $?" >> $OUT/gpu.txt
if [ "${TRITON:-0}" = 1 ]; then
  python3 -c "import triton; print('triton', triton.__version__)" >> $OUT/gpu.txt 2>&1
  timeout 130 ncu --clock-control none --csv --metrics $M -k regex:convert_kernel python3 convert_gpu_triton.py convert_check.json $OUT/triton.json 100 > $OUT/ncu_triton.csv 2> $OUT/ncu_triton.err; echo "ncu triton rc $?" >> $OUT/gpu.txt
fi
date +%T
cat $OUT/gpu.txt; tail -n 3 $OUT/ncu_ours.err; head -c 300 $OUT/ncu_ours.csv; head -5 $OUT/timing.txt
