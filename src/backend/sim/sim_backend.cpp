#include "backend/sim/sim_backend.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "backend/chain.hpp"
#include "backend/sim/carveout.hpp"
#include "backend/sim/chase_runner.hpp"
#include "backend/sim/description_loader.hpp"
#include "backend/sim/first_touch_model.hpp"
#include "backend/sim/memory_system.hpp"
#include "backend/sim/random_streams.hpp"
#include "backend/sim/stream_model.hpp"
#include "backend/sim/strided_model.hpp"
#include "backend/sim/warp_access_runner.hpp"
#include "model/startup_clock.hpp"

namespace memtopo {
namespace {

using sim::SimDescription;

constexpr std::uint64_t kConstantBankBytes = 65536;
constexpr std::uint32_t kMaxTimedLoads = 1u << 20;
constexpr std::uint32_t kMaxChasers = 32;  // one per warp of a 1024-thread block
// Warp accesses draw their noise from a stream of their own, apart from the chases' (which are
// numbered by chases_run_), so that adding them to a run changes no chase's trace.
constexpr std::uint64_t kWarpAccessSeedStream = 0x5741525041434345ull;
// Chase arrays are aligned to at least this (the large-page size GPU drivers use) and to the
// largest TLB page, so that no two arrays of a batch share a page.
constexpr std::uint64_t kMinArrayAlignment = std::uint64_t{2} << 20;
// Device memory a timed load's records take, as on a GPU: its cycles and its index.
constexpr std::uint64_t kRecordBytesPerLoad = 2 * sizeof(std::uint32_t);
// Separates the noise of streams from that of chases under one seed.
constexpr std::uint64_t kStreamNoiseSalt = 0x53545245414D53ull;   // "STREAMS"
constexpr std::uint64_t kStridedNoiseSalt = 0x5354524944454Full;  // "STRIDEO"
constexpr std::uint64_t kFirstTouchNoiseSalt = 0x4649525354544Full;  // "FIRSTTO"

DeviceFacts facts_of(const SimDescription& description) {
  DeviceFacts facts;
  facts.name = description.name;
  facts.backend = "sim";
  facts.cc_major = description.cc_major;
  facts.cc_minor = description.cc_minor;
  facts.sm_count = description.sm_count;
  facts.global_memory_bytes = description.global_memory_bytes;
  for (const sim::CacheDescription& cache : description.caches) {
    if (cache.scope == sim::CacheScope::device && cache.name == "L2") {
      facts.l2_bytes = cache.size_bytes;
    }
    const bool on_ca =
        std::find(cache.paths.begin(), cache.paths.end(), LoadPath::ca) != cache.paths.end();
    if (cache.scope == sim::CacheScope::sm && on_ca) facts.global_l1_cache_supported = true;
  }
  // The simulated device lets one block use all of its SM's shared memory, up to the largest
  // carveout where L1 and shared memory are one array.
  facts.shared_per_sm_bytes = description.shared_memory.bytes_per_sm;
  facts.shared_per_block_bytes = sim::max_block_shared_bytes(description.shared_memory);
  facts.shared_per_block_optin_bytes = sim::max_block_shared_bytes(description.shared_memory);
  facts.constant_bytes = kConstantBankBytes;
  facts.sm_clock_khz = description.clock_khz;
  facts.nvml_status = "simulated device: no NVML";
  if (description.throughput) {
    facts.memory_clock_khz = description.throughput->memory_clock_khz;
    facts.memory_bus_width_bits = description.throughput->memory_bus_width_bits;
  }
  return facts;
}

BackendLimits limits_of(const SimDescription& description) {
  BackendLimits limits;
  limits.max_footprint_bytes = description.global_memory_bytes / 2;
  limits.max_wide_footprint_bytes = description.global_memory_bytes / 2;
  limits.max_constant_footprint_bytes = kConstantBankBytes;
  limits.max_shared_footprint_bytes = sim::max_block_shared_bytes(description.shared_memory);
  limits.max_reserved_shared_bytes = sim::max_block_shared_bytes(description.shared_memory);
  limits.max_timed_loads = kMaxTimedLoads;
  limits.max_warp_access_bytes = sim::max_block_shared_bytes(description.shared_memory);
  limits.max_chasers = kMaxChasers;
  limits.concurrent_slots = description.sm_count;
  return limits;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

class SimBackend final : public Backend,
                         public StreamExperiments,
                         public WarpAccessExperiments,
                         public L2FirstTouchExperiments,
                         public StridedAccessRunner {
 public:
  explicit SimBackend(SimDescription description)
      : description_(std::move(description)),
        facts_(facts_of(description_)),
        limits_(limits_of(description_)),
        memory_(description_) {
    array_alignment_ = kMinArrayAlignment;
    for (const sim::TlbDescription& tlb : description_.tlbs) {
      array_alignment_ = std::max(array_alignment_, tlb.page_bytes);
    }
  }

  std::string_view kind() const override { return "sim"; }
  const DeviceFacts& facts() const override { return facts_; }
  BackendLimits limits() const override { return limits_; }
  double current_sm_clock_khz() override { return static_cast<double>(description_.clock_khz); }
  StreamExperiments* streams() override { return this; }
  WarpAccessExperiments* warp_access() override { return this; }
  L2FirstTouchExperiments* l2_first_touch() override { return this; }
  StridedAccessRunner* strided_access() override { return this; }

  StreamResult run_stream(const StreamSpec& spec) override {
    // Streams draw from noise streams of their own, apart from every chase's.
    const std::uint64_t seed = description_.noise.seed ^ kStreamNoiseSalt;
    return sim::simulate_stream(spec, description_, sim::derive_seed(seed, streams_run_++));
  }

  L2FirstTouchResult run_l2_first_touch(const L2FirstTouchSpec& spec) override {
    // Its own noise stream as well: the map's launches change no chase.
    const std::uint64_t call = first_touches_run_++;
    return sim::simulate_first_touch(
        spec, description_, call,
        sim::derive_seed(description_.noise.seed ^ kFirstTouchNoiseSalt, call));
  }

  StridedAccessResult run_strided(const StridedAccessSpec& spec) override {
    // Their own noise stream too: adding a study's requests changes no chase or stream.
    const std::uint64_t seed = description_.noise.seed ^ kStridedNoiseSalt;
    return sim::simulate_strided(spec, description_, memory_,
                                 sim::derive_seed(seed, strided_run_++));
  }

  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    // Every spec is checked before any runs: a bad batch runs nothing.
    for (const ChaseSpec& spec : batch) check_runnable(spec);
    const std::vector<std::uint32_t> sms = assign_sms(batch);
    std::vector<sim::ChasePlacement> placements;
    placements.reserve(batch.size());
    std::uint64_t next_base = array_alignment_;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const ChaseSpec& spec = batch[i];
      sim::ChasePlacement placement{sms[i], next_base,
                                    sim::derive_seed(description_.noise.seed, chases_run_++)};
      next_base = round_up(next_base + spec.footprint_bytes, array_alignment_);
      // The sweep's array follows its chase's, aligned alike: no page or line in common.
      if (spec.eviction) {
        placement.sweep_base_address = next_base;
        next_base = round_up(next_base + spec.eviction->footprint_bytes, array_alignment_);
      }
      placement.carveout_step =
          sim::carveout_step_for(description_.shared_memory, block_shared_bytes(spec));
      placements.push_back(placement);
    }
    if (description_.batch_shares_device_caches && batch.size() > 1) {
      return sim::run_chases_together(batch, placements, memory_, description_);
    }
    std::vector<Trace> traces;
    traces.reserve(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      traces.push_back(sim::run_chase(batch[i], placements[i], memory_, description_));
    }
    return traces;
  }

  std::vector<Trace> run_warp_access(std::span<const WarpAccessSpec> batch) override {
    for (const WarpAccessSpec& spec : batch) check_runnable(spec);
    check_device_memory(batch);
    const std::uint64_t stream_seed =
        sim::derive_seed(description_.noise.seed, kWarpAccessSeedStream);
    std::vector<Trace> traces;
    traces.reserve(batch.size());
    for (const WarpAccessSpec& spec : batch) {
      traces.push_back(sim::run_warp_access(spec, description_, 0,
                                            sim::derive_seed(stream_seed, warp_accesses_run_++)));
    }
    return traces;
  }

 private:
  void check_runnable(const WarpAccessSpec& spec) const {
    validate(spec);
    if (area_bytes(spec) > limits_.max_warp_access_bytes) {
      throw ExperimentError("warp access spec: its " + std::to_string(area_bytes(spec)) +
                            " bytes of shared memory exceed the block's " +
                            std::to_string(limits_.max_warp_access_bytes));
    }
    if (spec.timed_accesses > limits_.max_timed_loads) {
      throw ExperimentError("warp access spec: at most " + std::to_string(limits_.max_timed_loads) +
                            " timed accesses, got " + std::to_string(spec.timed_accesses));
    }
  }

  // A GPU holds the records (cycles and index per timed access) of one launch, the batch's
  // accesses of one word size, in device memory: more than global_memory_bytes cannot be had.
  void check_device_memory(std::span<const WarpAccessSpec> batch) const {
    std::map<std::uint32_t, std::uint64_t> records_per_launch;
    for (const WarpAccessSpec& spec : batch) {
      records_per_launch[spec.word_bytes] += kRecordBytesPerLoad * spec.timed_accesses;
    }
    for (const auto& [word_bytes, records] : records_per_launch) {
      if (records <= description_.global_memory_bytes) continue;
      throw MemoryUnavailableError(
          "warp accesses of " + std::to_string(word_bytes) + " B words need " +
          std::to_string(records) + " bytes of device memory for their records; the simulated " +
          "device has " + std::to_string(description_.global_memory_bytes));
    }
  }

  void check_runnable(const ChaseSpec& spec) const {
    validate(spec);
    const auto fail = [](const std::string& what) { throw ExperimentError("chase spec: " + what); };
    if (spec.sm && *spec.sm >= description_.sm_count) {
      fail("sm " + std::to_string(*spec.sm) + " does not exist; the device has " +
           std::to_string(description_.sm_count) + " SMs");
    }
    if (spec.chasers > limits_.max_chasers) {
      fail("at most " + std::to_string(limits_.max_chasers) + " chasers, got " +
           std::to_string(spec.chasers));
    }
    if (spec.timed_loads > limits_.max_timed_loads) {
      fail("at most " + std::to_string(limits_.max_timed_loads) + " timed loads, got " +
           std::to_string(spec.timed_loads));
    }
    check_footprint("footprint_bytes", spec.path, spec.footprint_bytes);
    if (spec.eviction) {
      check_footprint("eviction footprint_bytes", spec.eviction->path,
                      spec.eviction->footprint_bytes);
    }
    check_device_memory(spec);
    // Throws when the block's shared memory exceeds the largest carveout.
    sim::carveout_step_for(description_.shared_memory, block_shared_bytes(spec));
  }

  void check_footprint(const std::string& what, LoadPath path, std::uint64_t bytes) const {
    std::uint64_t max_footprint = limits_.max_footprint_bytes;
    if (path == LoadPath::constant) max_footprint = limits_.max_constant_footprint_bytes;
    if (path == LoadPath::shared) max_footprint = limits_.max_shared_footprint_bytes;
    if (bytes <= max_footprint) return;
    const std::string message = "chase spec: " + what + " " + std::to_string(bytes) +
                                " exceeds the " + std::string(to_string(path)) +
                                " path's limit of " + std::to_string(max_footprint) + " bytes";
    // The constant bank and shared memory are fixed sizes; global memory is what runs out.
    if (path != LoadPath::constant && path != LoadPath::shared) {
      throw MemoryUnavailableError(message + " (half the simulated device's global memory)");
    }
    throw ExperimentError(message);
  }

  // The simulated device's memory holds a chase's arrays and its records at once, as a GPU's
  // does: more than global_memory_bytes cannot be had.
  void check_device_memory(const ChaseSpec& spec) const {
    const auto in_global = [](LoadPath path, std::uint64_t bytes) {
      return path == LoadPath::constant || path == LoadPath::shared ? 0 : bytes;
    };
    std::uint64_t arrays = in_global(spec.path, spec.footprint_bytes);
    if (spec.eviction) arrays += in_global(spec.eviction->path, spec.eviction->footprint_bytes);
    const std::uint64_t records =
        kRecordBytesPerLoad * std::uint64_t{spec.timed_loads} * spec.chasers;
    if (arrays + records <= description_.global_memory_bytes) return;
    throw MemoryUnavailableError("chase spec needs " + std::to_string(arrays + records) +
                                 " bytes of device memory (" + std::to_string(arrays) +
                                 " for its arrays, " + std::to_string(records) +
                                 " for its records); the simulated device has " +
                                 std::to_string(description_.global_memory_bytes));
  }

  // Shared memory the chase's block uses: its reservation, plus its array on the shared path.
  static std::uint64_t block_shared_bytes(const ChaseSpec& spec) {
    const std::uint64_t own = spec.path == LoadPath::shared ? spec.footprint_bytes : 0;
    return std::uint64_t{spec.reserved_shared_bytes} + own;
  }

  // A spec's own SM when it names one; otherwise the next SM no spec of the batch has claimed,
  // round-robin from SM 0, starting over once every SM is taken.
  std::vector<std::uint32_t> assign_sms(std::span<const ChaseSpec> batch) const {
    std::vector<bool> taken(description_.sm_count, false);
    for (const ChaseSpec& spec : batch) {
      if (spec.sm) taken[*spec.sm] = true;
    }
    std::vector<std::uint32_t> sms;
    std::uint32_t cursor = 0;
    for (const ChaseSpec& spec : batch) {
      if (spec.sm) {
        sms.push_back(*spec.sm);
        continue;
      }
      if (std::find(taken.begin(), taken.end(), false) == taken.end()) {
        std::fill(taken.begin(), taken.end(), false);
      }
      while (taken[cursor]) cursor = (cursor + 1) % description_.sm_count;
      taken[cursor] = true;
      sms.push_back(cursor);
      cursor = (cursor + 1) % description_.sm_count;
    }
    return sms;
  }

  SimDescription description_;
  DeviceFacts facts_;
  BackendLimits limits_;
  sim::MemorySystem memory_;
  std::uint64_t array_alignment_;
  std::uint64_t chases_run_ = 0;         // numbers every chase, so that each gets its own noise
  std::uint64_t warp_accesses_run_ = 0;  // the same for warp accesses
  std::uint64_t streams_run_ = 0;        // the same for streams
  std::uint64_t strided_run_ = 0;        // the same for strided requests
  std::uint64_t first_touches_run_ = 0;  // the same for L2 first-touch launches
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend_from_file(const std::string& path) {
  auto backend = std::make_unique<SimBackend>(sim::load_description_file(path));
  mark_startup("description");
  return backend;
}

std::unique_ptr<Backend> make_sim_backend_from_text(const std::string& json_text,
                                                    const std::string& origin) {
  return std::make_unique<SimBackend>(sim::parse_description(json_text, origin));
}

}  // namespace memtopo
