#!/usr/bin/env bash
# Two GPUs: experiment 6, memtopo's p2p SM bandwidth (carried binary at the commit) three times, nvbandwidth's SM read.
set -u
D=/tmp/e6; rm -rf $D; mkdir -p $D
cmake -S .peer/nvbandwidth -B /tmp/nvb -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.peer/boost > $D/nvb.log 2>&1
cmake --build /tmp/nvb -j16 >> $D/nvb.log 2>&1 || tail -20 $D/nvb.log
nvidia-smi --query-gpu=index,uuid --format=csv > $D/gpus.txt
/tmp/nvb/nvbandwidth -t device_to_device_memcpy_read_sm > $D/nvb1.txt 2>&1; grep -A4 "memcpy SM" $D/nvb1.txt
for i in 1 2 3; do .carry/memtopo --device all --only p2p.sm_bandwidth --quiet --json $D/mt$i.json > $D/mt$i.txt 2>&1; python3 -c "
import json, re; s=open('$D/mt$i.json').read()
print('memtopo run $i sm_read', [round(float(m.group(1))/1e9,2) for m in re.finditer(r'\"sm_read_bandwidth\": \{\"value\": ([0-9.e+]+)', s)], 'other shape', [round(float(m.group(1))/1e9,2) for m in re.finditer(r'\"other_read_shape_rate\": ([0-9.e+]+)', s)])
"; done
.carry/p2pexp6 | tee $D/exp6.txt
/tmp/nvb/nvbandwidth -t device_to_device_memcpy_read_sm > $D/nvb2.txt 2>&1; grep -A4 "memcpy SM" $D/nvb2.txt
cp $D/*.txt $D/*.json $OUT/
