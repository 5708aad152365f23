#!/bin/bash
# Issue 25 on the GPU: the cost-model timing harness (twice, for its noise) and the check of every emitted plan
# (elements, ncu shared-memory wavefronts and instructions, per-opcode executed instructions where ncu has them).
# Inputs (built on the CPU, see tools/convert_costmodel_harness.py and convert_costmodel_check.py): DIR/timing, DIR/check.
set -u
DIR=${1:-build/costmodel}
TOOLS=$(cd "$(dirname "$0")" && pwd)
cd "$DIR"
# everything goes to /tmp/costmodel_results and is packed into $OUT/results.tgz after each step (the device returns at most 8 files)
FINAL_OUT=$OUT; OUT=/tmp/costmodel_results; mkdir -p $OUT
pack() { tar czf $FINAL_OUT/results.tgz -C $OUT . ; }
M=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed.sum
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
ncu --version | tail -1 >> $OUT/gpu.txt 2>&1
date +%T >> $OUT/gpu.txt
if [ -x ./timing ]; then  # the timing harness; without it (a re-check of the default plans) only the check runs
  timeout 100 ./timing > $OUT/timing1.txt 2>&1; echo "timing1 rc $?" >> $OUT/gpu.txt; pack
  timeout 100 ./timing > $OUT/timing2.txt 2>&1; echo "timing2 rc $?" >> $OUT/gpu.txt
fi
date +%T >> $OUT/gpu.txt
timeout 60 ./check > $OUT/run.txt 2>&1; echo "run rc $?" >> $OUT/gpu.txt
awk '{e+=($2!=0)} END {print NR " runs, " e " with wrong elements"}' $OUT/run.txt >> $OUT/gpu.txt; pack
date +%T >> $OUT/gpu.txt
for B in check timing; do [ -x $B ] && cuobjdump -sass $B > sass_$B.txt 2>/dev/null; done
python3 "$TOOLS/sass_opcodes.py" sass_check.txt $([ -f sass_timing.txt ] && echo sass_timing.txt) > $OUT/sass.json
pack; echo "sass kernels: $(python3 -c "import json;print(len(json.load(open('$OUT/sass.json'))))")" >> $OUT/gpu.txt
EXTRA=""
timeout 60 ncu --csv --metrics sass__inst_executed_per_opcode --print-metric-instances values -c 1 ./check once > $OUT/probe.csv 2> $OUT/probe.err
if [ $? = 0 ] && grep -q sass__inst_executed_per_opcode $OUT/probe.csv; then M=$M,sass__inst_executed_per_opcode; EXTRA="--print-metric-instances values"; fi
echo "per-opcode: ${EXTRA:-no}" >> $OUT/gpu.txt
# ncu in chunks of kernels (each launched once), until the time is nearly spent: what is profiled is kept
TOTAL=$(python3 -c "import json;print(sum('skipped' not in m for m in json.load(open('check.json'))))")
K=0
while [ $K -lt $TOTAL ] && [ $SECONDS -lt ${DEADLINE:-440} ]; do
  timeout 150 ncu --clock-control none --csv $EXTRA --metrics $M --launch-skip $K --launch-count 200 ./check once > $OUT/ncu_$K.csv 2> $OUT/ncu_$K.err
  echo "ncu from $K rc $? at ${SECONDS}s" >> $OUT/gpu.txt; pack
  K=$((K + 200))
done
pack; cat $OUT/gpu.txt; [ -f $OUT/timing1.txt ] && head -3 $OUT/timing1.txt; tail -3 $OUT/ncu_0.err; head -c 600 $OUT/probe.csv
