#include "backend/cuda/chase_runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "backend/cuda/chase_kernels.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/support_kernels.hpp"
#include "backend/cuda/texture_object.hpp"

namespace memtopo {

namespace {

// Every chain starts on a 2 MiB boundary (the GPU's large-page size): the set and partition
// an element maps to, and the pages it spans, then depend only on its offset in the chain,
// never on where the allocator happened to put the array.
constexpr std::uint64_t kChainAlignmentBytes = 2u << 20;
constexpr std::uint64_t kChainAlignmentWords = kChainAlignmentBytes / 4;
// Blocks launched per SM, at most: enough that the block scheduler puts one on every SM, but
// no more than fit at once, so that the idle ones have left before a chase starts timing.
constexpr int kMaxBlocksPerSm = 4;
// Launches a job gets before its SM is declared unreachable.
constexpr int kMaxLaunchAttempts = 6;
// How long a chase waits for the launch's idle blocks to leave its SM.
constexpr std::uint64_t kQuiesceTimeoutNs = 2'000'000;
// %globaltimer may advance in steps of up to a microsecond: a shorter chase gives no clock.
constexpr std::uint64_t kMinClockWindowNs = 20'000;
// Buffers above this size are freed after the run instead of being kept for the next one.
constexpr std::uint64_t kKeepBytes = 1ull << 30;
// The L2 eviction reads this many times the L2 size: enough for any replacement policy
// to have replaced every line, including hashed set mappings and partitions.
constexpr std::uint64_t kL2ScratchFactor = 4;
constexpr std::uint64_t kL2ScratchFallbackBytes = 256ull << 20;

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

template <typename T>
void ensure_size(DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() >= count) return;
  buffer = DeviceBuffer<T>();  // free first, so that the peak is the new size, not both
  buffer = DeviceBuffer<T>(count);
}

double median(std::vector<std::uint32_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  if (values.size() % 2 == 1) return values[middle];
  return (static_cast<double>(values[middle - 1]) + values[middle]) / 2;
}

std::string list_sms(const std::vector<std::uint32_t>& sms) {
  std::string text;
  for (const std::uint32_t sm : sms) text += (text.empty() ? "" : ", ") + std::to_string(sm);
  return text;
}

}  // namespace

struct ChaseRunner::Placement {
  std::uint64_t chain_base = 0;              // first 2 MiB-aligned word of chains_
  std::vector<std::uint64_t> chain_offset;   // per job, words after chain_base
  std::vector<std::uint64_t> record_offset;  // per job, records into cycles_ and indices_
  std::uint64_t chain_words = 0;
  std::uint64_t records = 0;
};

ChaseRunner::ChaseRunner(ChaseRunnerConfig config) : config_(std::move(config)) {}

ChaseRunner::Placement ChaseRunner::place(const PlannedLaunch& launch,
                                          std::span<const ChaseSpec> batch) {
  Placement placement;
  for (const PlannedJob& job : launch.jobs) {
    const ChaseSpec& spec = batch[job.spec_index];
    placement.chain_offset.push_back(placement.chain_words);
    if (spec.path != LoadPath::constant) {
      placement.chain_words += round_up(spec.footprint_bytes / 4, kChainAlignmentWords);
    }
    placement.record_offset.push_back(placement.records);
    placement.records += std::uint64_t{spec.chasers} * spec.timed_loads;
  }
  if (placement.chain_words > 0) {
    ensure_size(chains_, placement.chain_words + kChainAlignmentWords);
    const auto address = reinterpret_cast<std::uintptr_t>(chains_.data());
    placement.chain_base =
        (kChainAlignmentBytes - address % kChainAlignmentBytes) % kChainAlignmentBytes / 4;
  }
  ensure_size(cycles_, placement.records);
  ensure_size(indices_, placement.records);
  return placement;
}

void ChaseRunner::run(const PlannedLaunch& launch, std::span<const ChaseSpec> batch,
                      std::span<Trace> traces) {
  const std::size_t job_count = launch.jobs.size();
  if (job_count == 0) return;
  const Placement placement = place(launch, batch);

  // Chains, texture objects and the descriptors the kernel reads.
  std::vector<TextureObject> textures(job_count);
  std::vector<ChaseJob> descriptors(job_count);
  std::uint32_t shared_chain_words = 0;
  std::uint32_t max_chasers = 1;
  for (std::size_t k = 0; k < job_count; ++k) {
    const ChaseSpec& spec = batch[launch.jobs[k].spec_index];
    const std::vector<std::uint32_t> words = build_chain(spec);
    ChaseJob& job = descriptors[k];
    if (spec.path == LoadPath::constant) {
      upload_constant_chain(words);
    } else {
      const std::uint64_t offset = placement.chain_base + placement.chain_offset[k];
      chains_.upload(words, offset);
      job.chain = chains_.data() + offset;
    }
    if (spec.path == LoadPath::tex) {
      textures[k] = TextureObject(job.chain, words.size());
      job.texture = textures[k].handle();
    }
    if (spec.path == LoadPath::shared) {
      shared_chain_words = std::max(shared_chain_words, static_cast<std::uint32_t>(words.size()));
    }
    job.warm_loads = std::uint64_t{spec.warm_passes} * chain_length(spec);
    job.record_offset = placement.record_offset[k];
    job.chain_words = static_cast<std::uint32_t>(words.size());
    job.start_index = spec.start_index;
    job.timed_loads = spec.timed_loads;
    job.chasers = spec.chasers;
    job.concurrent = spec.schedule == ChaserSchedule::concurrent ? 1 : 0;
    max_chasers = std::max(max_chasers, spec.chasers);
  }
  ensure_size(jobs_, job_count);
  jobs_.upload(descriptors);
  ensure_size(outcomes_, job_count);
  outcomes_.fill_zero();

  const std::size_t dynamic_shared = chase_dynamic_shared_bytes(shared_chain_words);
  if (dynamic_shared > config_.max_dynamic_shared_bytes) {
    throw ExperimentError("chase needs " + std::to_string(dynamic_shared) +
                          " bytes of shared memory per block; the device allows " +
                          std::to_string(config_.max_dynamic_shared_bytes));
  }
  const std::uint32_t table_size =
      *std::max_element(config_.sm_ids.begin(), config_.sm_ids.end()) + 1;
  const unsigned block_threads = 32 * max_chasers;
  const int resident = chase_blocks_per_sm(launch.path, block_threads, dynamic_shared);
  if (resident < 1) {
    throw ExperimentError("the chase kernel with " + std::to_string(block_threads) +
                          " threads and " + std::to_string(dynamic_shared) +
                          " bytes of dynamic shared memory fits on no SM");
  }
  const unsigned grid_blocks =
      static_cast<unsigned>(std::min(resident, kMaxBlocksPerSm)) * config_.sm_count;
  ensure_size(job_of_sm_, table_size);
  ensure_size(claims_, job_count + 1);

  // Launch; relaunch the jobs whose SM got no block.
  std::vector<ChaseOutcome> outcomes(job_count);
  std::vector<std::size_t> pending(job_count);
  for (std::size_t k = 0; k < job_count; ++k) pending[k] = k;
  for (int attempt = 0; attempt < kMaxLaunchAttempts && !pending.empty(); ++attempt) {
    std::vector<std::int32_t> job_of_sm(table_size, kNoJob);
    for (const std::size_t k : pending) {
      job_of_sm[launch.jobs[k].sm_id] = static_cast<std::int32_t>(k);
    }
    job_of_sm_.upload(job_of_sm);
    claims_.fill_zero();
    if (launch.flush_device_caches) evict_l2_cache();

    ChaseLaunch params{};
    params.jobs = jobs_.data();
    params.job_of_sm = job_of_sm_.data();
    params.job_of_sm_count = table_size;
    params.shared_chain_words = shared_chain_words;
    params.claims = claims_.data();
    params.arrived = claims_.data() + job_count;
    params.outcomes = outcomes_.data();
    params.cycles = cycles_.data();
    params.indices = indices_.data();
    params.quiesce_timeout_ns = kQuiesceTimeoutNs;
    launch_chase(launch.path, params, grid_blocks, block_threads, dynamic_shared);
    CUDA_CALL(cudaDeviceSynchronize());

    outcomes_.download(std::span(outcomes));
    std::erase_if(pending, [&](std::size_t k) { return outcomes[k].status != kChaseNotRun; });
  }
  if (!pending.empty()) {
    std::vector<std::uint32_t> missed;
    for (const std::size_t k : pending) missed.push_back(launch.jobs[k].sm_id);
    throw ExperimentError("no block of the chase kernel ran on SM " + list_sms(missed) + " in " +
                          std::to_string(kMaxLaunchAttempts) +
                          " launches (is another process or MPS limiting the SMs?)");
  }

  for (std::size_t k = 0; k < job_count; ++k) {
    const PlannedJob& job = launch.jobs[k];
    const ChaseSpec& spec = batch[job.spec_index];
    const ChaseOutcome& outcome = outcomes[k];
    if (outcome.status == kChaseLeftChain) {
      throw std::runtime_error("chase " + std::to_string(job.spec_index) + " (path " +
                               std::string(to_string(spec.path)) + ") loaded index " +
                               std::to_string(outcome.stray_index) + ", outside its array of " +
                               std::to_string(descriptors[k].chain_words) +
                               " words: the device did not follow the chain the host built");
    }
    if (outcome.sm_id != job.sm_id) {
      throw std::runtime_error("chase " + std::to_string(job.spec_index) + " ran on SM " +
                               std::to_string(outcome.sm_id) + " instead of SM " +
                               std::to_string(job.sm_id) + " (internal error)");
    }
    Trace& trace = traces[job.spec_index];
    const std::size_t records = std::size_t{spec.chasers} * spec.timed_loads;
    trace.cycles.resize(records);
    trace.indices.resize(records);
    cycles_.download(std::span(trace.cycles), placement.record_offset[k]);
    indices_.download(std::span(trace.indices), placement.record_offset[k]);
    trace.sm_id = outcome.sm_id;
    trace.overhead_samples.assign(std::begin(outcome.overhead), std::end(outcome.overhead));
    trace.overhead_cycles = median(trace.overhead_samples);
    const std::uint64_t elapsed_ns = outcome.ns_end - outcome.ns_start;
    const std::uint64_t elapsed_cycles = outcome.clock_end - outcome.clock_start;
    // cycles per ns is GHz; times 1e6 gives kHz.
    trace.clock_khz = elapsed_ns >= kMinClockWindowNs ? static_cast<double>(elapsed_cycles) /
                                                            static_cast<double>(elapsed_ns) * 1e6
                                                      : 0.0;
  }
  release_large_buffers();
}

std::uint64_t ChaseRunner::flush_scratch_bytes() const {
  const std::uint64_t wanted =
      config_.l2_bytes > 0 ? kL2ScratchFactor * config_.l2_bytes : kL2ScratchFallbackBytes;
  return l2_scratch_.bytes() >= wanted ? 0 : round_up(wanted, 1u << 20);
}

// The L2 size from the runtime is a planning input here, not a reported value: it only
// sizes the buffer whose reading replaces every L2 line, with a wide margin (the factor
// above), so a wrong or missing API value costs time, never correctness. What the L2
// really holds is for the probes to measure. Reading (rather than writing) leaves the L2
// full of clean lines, so the cold chase that follows pays no write-backs.
void ChaseRunner::evict_l2_cache() {
  if (const std::uint64_t bytes = flush_scratch_bytes(); bytes > 0) {
    l2_scratch_ = DeviceBuffer<std::uint32_t>();
    l2_scratch_ = DeviceBuffer<std::uint32_t>(bytes / 4);
    l2_scratch_.fill_zero();
  }
  evict_l2(l2_scratch_.data(), l2_scratch_.bytes(), l2_scratch_.data());
}

std::uint64_t ChaseRunner::held_bytes() const {
  return chains_.bytes() + cycles_.bytes() + indices_.bytes() + jobs_.bytes() + outcomes_.bytes() +
         job_of_sm_.bytes() + claims_.bytes() + l2_scratch_.bytes();
}

void ChaseRunner::release_large_buffers() {
  if (chains_.bytes() > kKeepBytes) chains_ = DeviceBuffer<std::uint32_t>();
  if (cycles_.bytes() > kKeepBytes) cycles_ = DeviceBuffer<std::uint32_t>();
  if (indices_.bytes() > kKeepBytes) indices_ = DeviceBuffer<std::uint32_t>();
}

}  // namespace memtopo
