#include "backend/cuda/chase_runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/chain.hpp"
#include "backend/cuda/chain_upload.hpp"
#include "backend/cuda/chase_kernels.hpp"
#include "backend/cuda/clock_window.hpp"
#include "backend/cuda/cuda_call.hpp"
#include "backend/cuda/support_kernels.hpp"
#include "backend/cuda/warm_progression.hpp"

namespace memtopo {

namespace {

// Every chain starts on a 2 MiB boundary (the GPU's large-page size): the set and partition
// an element maps to, and the pages it spans, then depend only on its offset in the chain,
// never on where the allocator happened to put the array.
constexpr std::uint64_t kChainAlignmentBytes = 2u << 20;
constexpr std::uint64_t kChainAlignmentWords = kChainAlignmentBytes / 4;
// A chase whose stride is a larger power of two (a TLB ladder's 16 or 32 MiB) starts on a
// multiple of its stride, up to this: element k then lies in the k-th stride-sized region of
// the address space, which a TLB entry of that size covers, and never shares it with element
// k + 1. From a 2 MiB boundary only, the seeded offsets put some pairs of elements into one
// region (how many depends on where cudaMalloc put the array).
constexpr std::uint64_t kMaxChainAlignmentBytes = 64u << 20;
// Blocks launched per SM, at most: enough that the block scheduler puts one on every SM, but
// no more than fit at once, so that the idle ones have left before a chase starts timing.
constexpr int kMaxBlocksPerSm = 4;
// Launches a job gets before its SM is declared unreachable.
constexpr int kMaxLaunchAttempts = 6;
// How long a chase waits for the launch's idle blocks to leave its SM.
constexpr std::uint64_t kQuiesceTimeoutNs = 2'000'000;
// Buffers above this size are freed after the run (whether it succeeded or threw) instead of
// being kept for the next one: an 8-16 GiB TLB chain must not stay allocated for the rest of
// the process, while the small arrays of a probe's thousands of chases are reused.
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

std::string list_sms(const std::vector<std::uint32_t>& sms) {
  std::string text;
  for (const std::uint32_t sm : sms) text += (text.empty() ? "" : ", ") + std::to_string(sm);
  return text;
}

// Allocates `buffer` for `words` words, naming what it is for when the device memory is short.
// A buffer that must grow takes `capacity` words instead where that is more and fits.
void ensure_device_words(DeviceBuffer<std::uint32_t>& buffer, std::uint64_t words,
                         const char* what, std::uint64_t capacity = 0) {
  if (capacity > words && buffer.size() < words) {
    buffer = DeviceBuffer<std::uint32_t>();
    try {
      buffer = DeviceBuffer<std::uint32_t>(capacity);
      return;
    } catch (const OutOfMemoryError&) {
      // Less is free than the plan allowed: the size needed, below.
    }
  }
  try {
    ensure_size(buffer, words);
  } catch (const OutOfMemoryError& error) {
    throw OutOfMemoryError(std::string("the launch's ") + what + " need " +
                           std::to_string(4 * words) + " bytes of device memory: " + error.what());
  }
}

// Every spec of the launch asked to keep its arrays (ChaseSpec::keep_arrays).
bool keeps_arrays(const PlannedLaunch& launch, std::span<const ChaseSpec> batch) {
  return std::all_of(launch.jobs.begin(), launch.jobs.end(),
                     [&](const PlannedJob& job) { return batch[job.spec_index].keep_arrays; });
}

// Words from `address` to the next multiple of `alignment` bytes.
std::uint64_t words_to_alignment(const std::uint32_t* address, std::uint64_t alignment) {
  const auto bytes = reinterpret_cast<std::uintptr_t>(address);
  return (alignment - bytes % alignment) % alignment / 4;
}

// Where a launch's chains start: the largest power of two that divides every chase's stride,
// within [kChainAlignmentBytes, kMaxChainAlignmentBytes].
std::uint64_t chain_alignment_bytes(const PlannedLaunch& launch, std::span<const ChaseSpec> batch) {
  std::uint64_t alignment = kMaxChainAlignmentBytes;
  for (const PlannedJob& job : launch.jobs) {
    const std::uint64_t stride = batch[job.spec_index].stride_bytes;
    if (stride > 0) alignment = std::min(alignment, stride & (~stride + 1));  // its lowest bit
  }
  return std::max(alignment, kChainAlignmentBytes);
}

// Elements [first, first + count) of `all`.
template <typename T>
std::vector<T> slice(const std::vector<T>& all, std::uint64_t first, std::size_t count) {
  const auto begin = all.begin() + static_cast<std::ptrdiff_t>(first);
  return std::vector<T>(begin, begin + static_cast<std::ptrdiff_t>(count));
}

// The warm kernel's job for `spec` (loads 0 where the chase follows its chain to warm).
WarmJob warm_job_for(const ChaseSpec& spec, const std::uint32_t* chain, std::uint64_t loads) {
  const std::optional<WarmProgression> p = warm_progression(spec);
  if (!p || loads == 0) return WarmJob{};
  return WarmJob{chain, loads, p->first_word, p->step_words, p->elements, p->start_position};
}

}  // namespace

struct ChaseRunner::Placement {
  std::uint64_t chain_base = 0;              // first aligned word of chains_ (chain_alignment)
  std::uint64_t chain_alignment_words = 0;   // every chain starts on a multiple of this
  std::vector<std::uint64_t> chain_offset;   // per job, words after chain_base
  std::uint64_t sweep_base = 0;              // first 2 MiB-aligned word of sweep_chains_
  std::vector<std::uint64_t> sweep_offset;   // per job, words after sweep_base
  std::vector<std::uint64_t> record_offset;  // per job, records into cycles_ and indices_
  std::uint64_t chain_words = 0;
  std::uint64_t sweep_words = 0;
  std::uint64_t records = 0;
};

struct ChaseRunner::UploadedJobs {
  std::vector<ChaseJob> descriptors;     // per job of the launch
  std::vector<WarmJob> warm_jobs;        // per job: the warm kernel's part (StreamedWarm)
  std::vector<TextureObject> textures;   // chases and sweeps on the tex path
  std::uint32_t shared_chain_words = 0;  // the shared path's largest chain
  std::uint32_t max_chasers = 1;
  std::uint64_t wide_chain_words = 0;  // a wide launch's one chain (ChaseLaunch)
  std::uint64_t wide_start_index = 0;
};

struct ChaseRunner::LaunchShape {
  unsigned grid_blocks = 0;
  unsigned block_threads = 0;
  std::size_t dynamic_shared_bytes = 0;  // records, shared chain and reservation
};

class ChaseRunner::ReleaseOnExit {
 public:
  explicit ReleaseOnExit(ChaseRunner& runner) : runner_(runner) {}
  ~ReleaseOnExit() {
    if (!keep_) runner_.release_large_buffers();
  }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;
  // The run succeeded and every spec asked to keep its arrays (ChaseSpec::keep_arrays).
  void keep() { keep_ = true; }

 private:
  ChaseRunner& runner_;
  bool keep_ = false;
};

ChaseRunner::ChaseRunner(ChaseRunnerConfig config) : config_(std::move(config)) {}

// Chains and sweeps on device memory each start on their own 2 MiB boundary; the constant
// path's live in the constant bank instead.
ChaseRunner::Placement ChaseRunner::place(const PlannedLaunch& launch,
                                          std::span<const ChaseSpec> batch,
                                          std::uint64_t kept_wide_bytes) {
  Placement placement;
  placement.chain_alignment_words = chain_alignment_bytes(launch, batch) / 4;
  for (const PlannedJob& job : launch.jobs) {
    const ChaseSpec& spec = batch[job.spec_index];
    placement.chain_offset.push_back(placement.chain_words);
    if (spec.path != LoadPath::constant) {
      placement.chain_words += round_up(spec.footprint_bytes / 4, placement.chain_alignment_words);
    }
    placement.sweep_offset.push_back(placement.sweep_words);
    if (spec.eviction && spec.eviction->path != LoadPath::constant) {
      placement.sweep_words += round_up(spec.eviction->footprint_bytes / 4, kChainAlignmentWords);
    }
    placement.record_offset.push_back(placement.records);
    placement.records += std::uint64_t{spec.chasers} * spec.timed_loads;
  }
  drop_unused_arrays(placement);
  if (placement.chain_words > 0) {
    // A row of wide chains that keeps its array grows it once, to the most it may plan (see
    // ChaseSpec::keep_arrays): each regrowth after a free waited ~0.37 s on an H200.
    const std::uint64_t capacity = launch.wide && keeps_arrays(launch, batch)
                                       ? kept_wide_bytes / 4 + placement.chain_alignment_words
                                       : 0;
    ensure_device_words(chains_, placement.chain_words + placement.chain_alignment_words,
                        "chase arrays", capacity);
    placement.chain_base = words_to_alignment(chains_.data(), 4 * placement.chain_alignment_words);
  }
  if (placement.sweep_words > 0) {
    ensure_device_words(sweep_chains_, placement.sweep_words + kChainAlignmentWords,
                        "eviction sweep arrays");
    placement.sweep_base = words_to_alignment(sweep_chains_.data(), kChainAlignmentBytes);
  }
  ensure_size(cycles_, placement.records);
  if (launch.wide) {
    ensure_size(wide_indices_, placement.records);
  } else {
    ensure_size(indices_, placement.records);
  }
  return placement;
}

ChaseRunner::UploadedJobs ChaseRunner::upload_jobs(const PlannedLaunch& launch,
                                                   std::span<const ChaseSpec> batch,
                                                   const Placement& placement) {
  UploadedJobs uploaded;
  uploaded.descriptors.resize(launch.jobs.size());
  uploaded.warm_jobs.resize(launch.jobs.size());
  for (std::size_t k = 0; k < launch.jobs.size(); ++k) {
    const ChaseSpec& spec = batch[launch.jobs[k].spec_index];
    ChaseJob& job = uploaded.descriptors[k];
    const std::uint64_t chain_offset = placement.chain_base + placement.chain_offset[k];
    // CudaBackend::run validated every spec of the batch (check_runnable), and the sweep of a
    // valid spec is valid (a sequential chain validate_eviction checked): each chain is built
    // without validating its spec again.
    const DeviceChain chain = put_chain(spec, chains_, chain_offset, link_scratch_,
                                        uploaded.textures, SpecCheck::validated_by_caller);
    job.chain = chain.words;
    job.texture = chain.texture;
    if (spec.eviction) {
      const DeviceChain sweep =
          put_chain(eviction_chain_spec(spec), sweep_chains_,
                    placement.sweep_base + placement.sweep_offset[k], link_scratch_,
                    uploaded.textures, SpecCheck::validated_by_caller);
      describe_sweep(spec, sweep, job);
    }
    if (spec.path == LoadPath::shared) {
      uploaded.shared_chain_words = std::max(uploaded.shared_chain_words, array_words(spec));
    }
    // chain_length is one segment's with private segments: each chaser warms its own.
    job.warm_loads = std::uint64_t{spec.warm_passes} * chain_length(spec);
    uploaded.warm_jobs[k] = warm_job_for(spec, chain.words, job.warm_loads);
    if (uploaded.warm_jobs[k].loads > 0) job.warm_loads = 0;  // the warm kernel loads them
    job.record_offset = placement.record_offset[k];
    // A wide chain's length and start go to the launch (its one job); 0 in the descriptor.
    job.chain_words = is_wide(spec) ? 0 : array_words(spec);
    job.start_index = is_wide(spec) ? 0 : spec.start_index;
    if (is_wide(spec)) {
      uploaded.wide_chain_words = spec.footprint_bytes / 4;
      uploaded.wide_start_index = spec.wide_indices.front();
    }
    job.chaser_start_step =
        spec.private_segments ? static_cast<std::uint32_t>(segment_bytes(spec) / 4) : 0;
    job.timed_loads = spec.timed_loads;
    job.chasers = spec.chasers;
    job.concurrent = spec.schedule == ChaserSchedule::concurrent ? 1 : 0;
    uploaded.max_chasers = std::max(uploaded.max_chasers, spec.chasers);
  }
  ensure_size(jobs_, uploaded.descriptors.size());
  jobs_.upload(uploaded.descriptors);
  streamed_warm_.upload(uploaded.warm_jobs);
  return uploaded;
}

// Dynamic shared memory, carveout and grid of a launch; sets the kernel's attributes.
//
// Carveout: with nothing reserved, the smallest (cudaSharedmemCarveoutMaxL1): the L1 under
// test is as large as the hardware allows. With a reservation, the smallest percentage of the
// SM's shared memory that holds one block, reservation included: the L1 is then what the
// reservation leaves, not what a generous driver default would leave.
//
// Grid: every block of the launch, with a job or without, asks for the same dynamic shared
// memory, reservation included, so the blocks that fit on an SM at once are bounded by the
// occupancy calculator and, with a reservation, by the carveout asked for (the calculator
// need not honour the carveout preference). Launching no more than fit keeps the idle blocks
// from queueing behind a chase (see wait_for_idle_blocks in the kernel).
ChaseRunner::LaunchShape ChaseRunner::configure_launch(const PlannedLaunch& launch,
                                                       const UploadedJobs& jobs) const {
  LaunchShape shape;
  shape.block_threads = 32 * jobs.max_chasers;
  const std::size_t own_dynamic = chase_dynamic_shared_bytes(jobs.shared_chain_words);
  shape.dynamic_shared_bytes = own_dynamic + launch.reserved_shared_bytes;
  if (shape.dynamic_shared_bytes > config_.max_dynamic_shared_bytes) {
    throw ExperimentError("chase needs " + std::to_string(own_dynamic) +
                          " bytes of dynamic shared memory per block plus " +
                          std::to_string(launch.reserved_shared_bytes) +
                          " reserved; the device allows " +
                          std::to_string(config_.max_dynamic_shared_bytes));
  }
  int carveout_percent = cudaSharedmemCarveoutMaxL1;
  std::uint64_t blocks_by_carveout = kMaxBlocksPerSm;
  if (launch.reserved_shared_bytes > 0) {
    if (config_.shared_per_sm_bytes == 0) {
      throw ExperimentError(
          "reserved_shared_bytes needs the shared memory per SM, which the device does not "
          "report (cudaDevAttrMaxSharedMemoryPerMultiprocessor)");
    }
    const std::uint64_t block_shared = chase_static_shared_bytes(launch.path, launch.wide) +
                                       shape.dynamic_shared_bytes +
                                       config_.system_shared_per_block_bytes;
    carveout_percent = smallest_carveout_percent(block_shared, config_.shared_per_sm_bytes);
    blocks_by_carveout =
        blocks_in_carveout(carveout_percent, block_shared, config_.shared_per_sm_bytes);
  }
  configure_chase_kernel(launch.path, shape.dynamic_shared_bytes, carveout_percent, launch.wide);
  const int resident = chase_blocks_per_sm(launch.path, shape.block_threads,
                                           shape.dynamic_shared_bytes, launch.wide);
  if (resident < 1 || blocks_by_carveout < 1) {
    throw ExperimentError("the chase kernel with " + std::to_string(shape.block_threads) +
                          " threads and " + std::to_string(shape.dynamic_shared_bytes) +
                          " bytes of dynamic shared memory fits on no SM");
  }
  const std::uint64_t blocks_per_sm = std::min<std::uint64_t>(
      {static_cast<std::uint64_t>(resident), blocks_by_carveout, kMaxBlocksPerSm});
  shape.grid_blocks = static_cast<unsigned>(blocks_per_sm * config_.sm_count);
  return shape;
}

// Launches until every job's SM got a block, a bounded number of times; the outcomes.
std::vector<ChaseOutcome> ChaseRunner::launch_until_every_job_ran(const PlannedLaunch& launch,
                                                                  const UploadedJobs& jobs,
                                                                  const LaunchShape& shape) {
  const std::size_t job_count = launch.jobs.size();
  const std::uint32_t table_size =
      *std::max_element(config_.sm_ids.begin(), config_.sm_ids.end()) + 1;
  ensure_size(outcomes_, job_count);
  outcomes_.fill_zero();
  ensure_size(job_of_sm_, table_size);
  ensure_size(claims_, job_count + 1);

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
    params.shared_chain_words = jobs.shared_chain_words;
    params.claims = claims_.data();
    params.arrived = claims_.data() + job_count;
    params.outcomes = outcomes_.data();
    params.cycles = cycles_.data();
    params.indices = indices_.data();
    params.quiesce_timeout_ns = kQuiesceTimeoutNs;
    params.wide_chain_words = jobs.wide_chain_words;
    params.wide_start_index = jobs.wide_start_index;
    params.wide_indices = wide_indices_.data();
    // The streamed warm passes first, on the same SMs and stream (StreamedWarm).
    streamed_warm_.launch(launch.path, job_of_sm_.data(), table_size,
                          kMaxBlocksPerSm * config_.sm_count);
    launch_chase(launch.path, params, shape.grid_blocks, shape.block_threads,
                 shape.dynamic_shared_bytes, launch.wide);
    CUDA_CALL(cudaDeviceSynchronize());

    outcomes_.download(std::span(outcomes));
    // A chase whose warm did not run on its SM was timed cold: it runs again.
    const std::vector<bool> warmed = streamed_warm_.ready();
    std::erase_if(pending,
                  [&](std::size_t k) { return outcomes[k].status != kChaseNotRun && warmed[k]; });
  }
  if (!pending.empty()) {
    std::vector<std::uint32_t> missed;
    for (const std::size_t k : pending) missed.push_back(launch.jobs[k].sm_id);
    throw ExperimentError("no block of the chase kernel ran on SM " + list_sms(missed) + " in " +
                          std::to_string(kMaxLaunchAttempts) +
                          " launches (is another process or MPS limiting the SMs?)");
  }
  return outcomes;
}

void ChaseRunner::run(const PlannedLaunch& launch, std::span<const ChaseSpec> batch,
                      std::span<Trace> traces, std::uint64_t kept_wide_bytes) {
  if (launch.jobs.empty()) return;
  // Also when a step throws (out of memory for the sweep after the chains were allocated, a
  // stray chase): a failed 16 GiB chase must not keep its array.
  ReleaseOnExit release(*this);
  const Placement placement = place(launch, batch, kept_wide_bytes);
  // Holds the launch's texture objects until the kernel has finished with them.
  const UploadedJobs jobs = upload_jobs(launch, batch, placement);
  const LaunchShape shape = configure_launch(launch, jobs);
  const std::vector<ChaseOutcome> outcomes = launch_until_every_job_ran(launch, jobs, shape);
  // The launch's records in one copy per array: a copy per chase and array was ~0.1 s of an
  // H200 discovery (thousands of small cudaMemcpy calls).
  host_cycles_.resize(placement.records);
  cycles_.download(std::span(host_cycles_));
  if (launch.wide) {
    host_wide_indices_.resize(placement.records);
    wide_indices_.download(std::span(host_wide_indices_));
  } else {
    host_indices_.resize(placement.records);
    indices_.download(std::span(host_indices_));
  }

  for (std::size_t k = 0; k < launch.jobs.size(); ++k) {
    const PlannedJob& job = launch.jobs[k];
    const ChaseSpec& spec = batch[job.spec_index];
    const ChaseOutcome& outcome = outcomes[k];
    if (outcome.status != kChaseDone) {
      const std::uint64_t words = launch.wide ? jobs.wide_chain_words : array_words(spec);
      throw std::runtime_error(
          describe_stray(spec, job.spec_index, outcome, jobs.descriptors[k], words));
    }
    if (outcome.sm_id != job.sm_id) {
      throw std::runtime_error("chase " + std::to_string(job.spec_index) + " ran on SM " +
                               std::to_string(outcome.sm_id) + " instead of SM " +
                               std::to_string(job.sm_id) + " (internal error)");
    }
    Trace& trace = traces[job.spec_index];
    const std::size_t records = std::size_t{spec.chasers} * spec.timed_loads;
    trace.cycles = slice(host_cycles_, placement.record_offset[k], records);
    if (launch.wide) {
      trace.wide_indices = slice(host_wide_indices_, placement.record_offset[k], records);
      check_followed_wide_chain(spec, job.spec_index, trace.wide_indices);
    } else {
      trace.indices = slice(host_indices_, placement.record_offset[k], records);
    }
    trace.sm_id = outcome.sm_id;
    trace.chain_address = reinterpret_cast<std::uintptr_t>(chains_.data() + placement.chain_base +
                                                           placement.chain_offset[k]);
    trace.overhead_samples.assign(std::begin(outcome.overhead), std::end(outcome.overhead));
    trace.overhead_cycles = median_cycles(trace.overhead_samples);
    trace.clock_khz =
        clock_khz_of(outcome.clock_end - outcome.clock_start, outcome.ns_end - outcome.ns_start);
  }
  if (keeps_arrays(launch, batch)) release.keep();
}

// limits() and the launch budget count held buffers as free memory. Before a larger array is
// allocated, a held array this launch does not use goes first, so that the new one can take
// its room (the ones it does use are freed by ensure_size before they grow).
void ChaseRunner::drop_unused_arrays(const Placement& placement) {
  const auto must_grow = [](const DeviceBuffer<std::uint32_t>& buffer, std::uint64_t words,
                            std::uint64_t alignment_words) {
    return words > 0 && buffer.size() < words + alignment_words;
  };
  if (!must_grow(chains_, placement.chain_words, placement.chain_alignment_words) &&
      !must_grow(sweep_chains_, placement.sweep_words, kChainAlignmentWords)) {
    return;
  }
  if (placement.chain_words == 0) chains_ = DeviceBuffer<std::uint32_t>();
  if (placement.sweep_words == 0) sweep_chains_ = DeviceBuffer<std::uint32_t>();
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
  return chains_.bytes() + sweep_chains_.bytes() + link_scratch_.bytes() + cycles_.bytes() +
         indices_.bytes() + wide_indices_.bytes() + jobs_.bytes() + outcomes_.bytes() +
         job_of_sm_.bytes() + claims_.bytes() + l2_scratch_.bytes();
}

// Freeing only: no CUDA call here can throw (DeviceBuffer's release ignores cudaFree's status),
// so the destructor of ReleaseOnExit may call it.
void ChaseRunner::release_large_buffers() noexcept {
  if (chains_.bytes() > kKeepBytes) chains_ = DeviceBuffer<std::uint32_t>();
  if (sweep_chains_.bytes() > kKeepBytes) sweep_chains_ = DeviceBuffer<std::uint32_t>();
  if (cycles_.bytes() > kKeepBytes) cycles_ = DeviceBuffer<std::uint32_t>();
  if (indices_.bytes() > kKeepBytes) indices_ = DeviceBuffer<std::uint32_t>();
  if (wide_indices_.bytes() > kKeepBytes) wide_indices_ = DeviceBuffer<std::uint64_t>();
}

}  // namespace memtopo
