#pragma once
// The CUDA implementation of StudyKernels (backend/study_kernels.hpp): the barrier and
// spilling experiments on one device. The CUDA backend owns one and hands it to the studies.
#include <memory>

#include "backend/study_kernels.hpp"
#include "model/device_facts.hpp"

namespace memtopo {

std::unique_ptr<StudyKernels> make_cuda_study_kernels(int device, const DeviceFacts& facts);

}  // namespace memtopo
