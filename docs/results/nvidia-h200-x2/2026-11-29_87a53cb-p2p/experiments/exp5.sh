#!/usr/bin/env bash
# Two GPUs: experiment 5 bracketed by nvbandwidth's SM read.
set -u
D=/tmp/e5; rm -rf $D; mkdir -p $D
s=$SECONDS
cmake -S .peer/nvbandwidth -B /tmp/nvb -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.peer/boost > $D/nvb.log 2>&1
cmake --build /tmp/nvb -j16 >> $D/nvb.log 2>&1 || tail -20 $D/nvb.log
echo "nvb build $((SECONDS-s)) s"
/tmp/nvb/nvbandwidth -t device_to_device_memcpy_read_sm > $D/nvb1.txt 2>&1; grep -A4 "memcpy SM" $D/nvb1.txt
.carry/p2pexp5 | tee $D/exp5.txt
/tmp/nvb/nvbandwidth -t device_to_device_memcpy_read_sm > $D/nvb2.txt 2>&1; grep -A4 "memcpy SM" $D/nvb2.txt
cp $D/*.txt $OUT/
