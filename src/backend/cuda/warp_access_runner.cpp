#include "backend/cuda/warp_access_runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backend/cuda/clock_window.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/device_buffer.hpp"
#include "backend/cuda/warp_access_kernels.hpp"

namespace memtopo {
namespace {



std::uint32_t area_words_of(const WarpAccessSpec& spec) {
  return static_cast<std::uint32_t>((area_bytes(spec) + 3) / 4);
}

std::string describe_stray(std::size_t index, const WarpAccessSpec& spec,
                           const WarpAccessOutcome& outcome) {
  const std::string access = "warp access " + std::to_string(index);
  if (outcome.status != kChaseLeftChain) {
    return access + ": outcome status " + std::to_string(outcome.status) + " (internal error)";
  }
  return access + ": lane " + std::to_string(outcome.stray_lane) + " loaded " +
         std::to_string(outcome.stray_value) + " instead of its offset " +
         std::to_string(spec.lane_offsets[outcome.stray_lane % kWarpLanes]) +
         ": the device did not run the accesses the host planned";
}

// The specs of `batch` with this word size, as one launch; fills their traces.
void run_launch(std::span<const WarpAccessSpec> batch, std::uint32_t word_bytes,
                std::vector<Trace>& traces) {
  std::vector<std::size_t> members;
  std::vector<WarpAccessJob> jobs;
  std::uint64_t records = 0;
  std::uint32_t area_words = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const WarpAccessSpec& spec = batch[i];
    if (spec.word_bytes != word_bytes) continue;
    WarpAccessJob job{};
    std::copy(spec.lane_offsets.begin(), spec.lane_offsets.end(), job.lane_offsets);
    job.record_offset = records;
    job.area_words = area_words_of(spec);
    job.warm_accesses = spec.warm_accesses;
    job.timed_accesses = spec.timed_accesses;
    records += spec.timed_accesses;
    area_words = std::max(area_words, job.area_words);
    members.push_back(i);
    jobs.push_back(job);
  }
  if (jobs.empty()) return;
  area_words = (area_words + 3) / 4 * 4;

  DeviceBuffer<WarpAccessJob> device_jobs(jobs.size());
  device_jobs.upload(jobs);
  DeviceBuffer<WarpAccessOutcome> outcomes(jobs.size());
  outcomes.fill_zero();
  DeviceBuffer<std::uint32_t> cycles(records);
  DeviceBuffer<std::uint32_t> indices(records);
  DeviceBuffer<std::uint64_t> clock_window(4);
  clock_window.fill_zero();
  const WarpAccessLaunch launch{device_jobs.data(),  outcomes.data(),
                                cycles.data(),       indices.data(),
                                clock_window.data(), static_cast<std::uint32_t>(jobs.size()),
                                area_words};
  launch_warp_access(word_bytes, launch, warp_access_dynamic_shared_bytes(area_words));
  CUDA_CALL(cudaDeviceSynchronize());

  std::vector<WarpAccessOutcome> reported(jobs.size());
  outcomes.download(reported);
  std::vector<std::uint64_t> window(4);
  clock_window.download(window);
  const double clock_khz = clock_khz_of(window[1] - window[0], window[3] - window[2]);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const WarpAccessSpec& spec = batch[members[k]];
    if (reported[k].status != kChaseDone) {
      throw std::runtime_error(describe_stray(members[k], spec, reported[k]));
    }
    Trace& trace = traces[members[k]];
    trace.cycles.resize(spec.timed_accesses);
    trace.indices.resize(spec.timed_accesses);
    cycles.download(std::span(trace.cycles), jobs[k].record_offset);
    indices.download(std::span(trace.indices), jobs[k].record_offset);
    trace.sm_id = reported[k].sm_id;
    trace.overhead_samples.assign(std::begin(reported[k].overhead), std::end(reported[k].overhead));
    trace.overhead_cycles = median_cycles(trace.overhead_samples);
    trace.clock_khz = clock_khz;
  }
}

}  // namespace

std::size_t max_warp_access_area_bytes(std::size_t max_dynamic_shared_bytes) {
  const std::size_t records = warp_access_dynamic_shared_bytes(0);
  return max_dynamic_shared_bytes > records ? (max_dynamic_shared_bytes - records) / 16 * 16 : 0;
}

std::vector<Trace> run_warp_accesses(std::span<const WarpAccessSpec> batch) {
  std::vector<Trace> traces(batch.size());
  for (const std::uint32_t word_bytes : kWarpWordSizes) run_launch(batch, word_bytes, traces);
  return traces;
}

}  // namespace memtopo
