// The simulated device's throughput model: what the loader accepts and rejects, which level
// serves a stream, Little's law and the issue limit, and the errors of streams that cannot run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.hpp"
#include "backend/sim/description_loader.hpp"
#include "backend/sim/sim_backend.hpp"
#include "backend/sim/stream_model.hpp"

namespace memtopo::sim {
namespace {

using nlohmann::json;

json base_description() {
  return json::parse(R"({
    "name": "streams", "sm_count": 4, "clock_khz": 1000000,
    "global_memory_bytes": 1073741824, "dram_latency": 1000,
    "caches": [
      { "name": "L1", "scope": "sm", "size_bytes": 32768, "line_bytes": 128, "ways": 4,
        "hit_latency": 100, "paths": ["ca", "nc"] },
      { "name": "L2", "scope": "device", "size_bytes": 1048576, "line_bytes": 128, "ways": 16,
        "hit_latency": 400, "partitions": 2, "far_latency_extra": 200,
        "paths": ["ca", "cg", "nc"] }
    ],
    "shared_memory": { "bytes_per_sm": 65536, "banks": 32, "bank_width_bytes": 4, "latency": 50 },
    "throughput": { "cache_bytes_per_cycle": { "L1": 128, "L2": 400 },
                    "shared_bytes_per_cycle": 128, "dram_bytes_per_cycle": 200,
                    "write_factor": 0.5, "copy_factor": 0.25,
                    "load_instructions_per_cycle": 0.5 }
  })");
}

SimDescription described(const json& document) {
  return parse_description(document.dump(), "t.json");
}

void expect_load_error(const json& document, const std::string& expected) {
  try {
    parse_description(document.dump(), "t.json");
    ADD_FAILURE() << "no DescriptionError; expected one containing: " << expected;
  } catch (const DescriptionError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
  }
}

StreamSpec stream(LoadPath path, StreamPlacement placement, std::uint64_t footprint) {
  StreamSpec spec;
  spec.path = path;
  spec.placement = placement;
  spec.footprint_bytes = footprint;
  spec.blocks_per_sm = 2;
  spec.threads_per_block = 256;
  spec.vector_bytes = 16;
  spec.unroll = 4;
  spec.bytes_per_launch = 1 << 24;
  return spec;
}

TEST(StreamModel, LoaderReadsTheModelAndOldDescriptionsHaveNone) {
  const SimDescription with = described(base_description());
  ASSERT_TRUE(with.throughput);
  EXPECT_DOUBLE_EQ(with.throughput->cache_bytes_per_cycle.at(0), 128);
  EXPECT_DOUBLE_EQ(with.throughput->cache_bytes_per_cycle.at(1), 400);
  EXPECT_DOUBLE_EQ(with.throughput->write_factor, 0.5);
  EXPECT_EQ(with.throughput->max_threads_per_sm, 2048u);  // the default
  json old = base_description();
  old.erase("throughput");
  EXPECT_FALSE(described(old).throughput);
}

TEST(StreamModel, LoaderNamesWhatIsWrong) {
  json d = base_description();
  d["throughput"]["cache_bytes_per_cycle"]["L3"] = 10;
  expect_load_error(d, "throughput.cache_bytes_per_cycle.L3: no cache is named \"L3\"");
  d = base_description();
  d["throughput"]["dram_bytes_per_cycle"] = -1;
  expect_load_error(d, "throughput.dram_bytes_per_cycle: must be a positive number");
  d = base_description();
  d["throughput"]["bandwidth"] = 1;
  expect_load_error(d, "unknown key \"bandwidth\"");
  d = base_description();
  d["throughput"]["launch_jitter"] = 0.9;
  expect_load_error(d, "throughput.launch_jitter: must lie in [0, 0.5]");
}

TEST(StreamModel, ImplausibleRatesAreRejectedNamingTheKeyAndTheLimit) {
  json d = base_description();
  d["throughput"]["cache_bytes_per_cycle"]["L1"] = 1e30;
  expect_load_error(d, "throughput.cache_bytes_per_cycle.L1: must be a positive number of at most");
  d = base_description();
  d["throughput"]["dram_bytes_per_cycle"] = 1e300;
  expect_load_error(d, "throughput.dram_bytes_per_cycle: must be a positive number of at most");
  d = base_description();
  d["throughput"]["copy_factor"] = 1000;
  expect_load_error(d, "throughput.copy_factor: must be a positive number of at most 100");
  d = base_description();
  d["throughput"]["max_threads_per_sm"] = 4294967295u;
  expect_load_error(d, "throughput.max_threads_per_sm");
  d = base_description();
  d["throughput"]["memory_bus_width_bits"] = 1u << 20;
  expect_load_error(d, "throughput.memory_bus_width_bits");
}

TEST(StreamModel, TheFirstLevelThatHoldsTheWorkingSetServes) {
  const SimDescription d = described(base_description());
  // Per block: each SM's working set is the window.
  EXPECT_EQ(serving_level(stream(LoadPath::ca, StreamPlacement::per_block, 16384), d).name, "L1");
  EXPECT_EQ(serving_level(stream(LoadPath::ca, StreamPlacement::per_block, 65536), d).name, "L2");
  // cg skips the L1; shared by all, each SM's share is what its L1 would hold.
  EXPECT_EQ(serving_level(stream(LoadPath::cg, StreamPlacement::per_block, 16384), d).name, "L2");
  EXPECT_EQ(serving_level(stream(LoadPath::ca, StreamPlacement::shared_by_all, 65536), d).name,
            "L1");
  EXPECT_EQ(serving_level(stream(LoadPath::cg, StreamPlacement::shared_by_all, 4 << 20), d).name,
            "DRAM");
  // A copy needs room for two arrays in the L2; writes never stay in the L1.
  StreamSpec copy = stream(LoadPath::cg, StreamPlacement::shared_by_all, 768 << 10);
  copy.op = StreamOp::copy;
  EXPECT_EQ(serving_level(copy, d).name, "DRAM");
  StreamSpec write = stream(LoadPath::ca, StreamPlacement::per_block, 16384);
  write.op = StreamOp::write;
  EXPECT_EQ(serving_level(write, d).name, "L2");
  EXPECT_EQ(serving_level(stream(LoadPath::shared, StreamPlacement::per_block, 8192), d).name,
            "shared memory");
}

TEST(StreamModel, LittlesLawTheIssueLimitAndThePeak) {
  const SimDescription d = described(base_description());
  // L1: 2 x 256 x 16 x 4 = 32 KiB in flight per SM over 100 cycles = 327.68 B/cycle, above
  // the issue limit 0.5 x 32 x 16 = 256, above the peak of 128: the peak, on 4 SMs.
  const StreamSpec l1 = stream(LoadPath::ca, StreamPlacement::per_block, 16384);
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(l1, d), 4 * 128.0);
  // 4-byte vectors: the issue limit, 0.5 x 32 x 4 = 64 B/cycle per SM.
  StreamSpec narrow = l1;
  narrow.vector_bytes = 4;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(narrow, d), 4 * 64.0);
  // DRAM: 4 SMs x 32 KiB over 1000 cycles = 131.072 B/cycle, below the peak of 200.
  const StreamSpec dram = stream(LoadPath::cg, StreamPlacement::shared_by_all, 64 << 20);
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(dram, d), 4 * 32768.0 / 1000);
  // L2: the far partition's extra counts half: latency 400 + 100, so 4 x 32768 / 500 B/cycle,
  // below its peak of 400; a write gets half of it (write_factor).
  const StreamSpec l2 = stream(LoadPath::cg, StreamPlacement::shared_by_all, 256 << 10);
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(l2, d), 4 * 32768.0 / 500);
  StreamSpec write = l2;
  write.op = StreamOp::write;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(write, d), 0.5 * 4 * 32768.0 / 500);
  // Twice the blocks: the L2's peak.
  StreamSpec busy = l2;
  busy.blocks_per_sm = 8;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 400);
}

TEST(StreamModel, TheBackendRunsStreamsAndTimesThemByTheModel) {
  auto backend = make_sim_backend_from_text(base_description().dump(), "t.json");
  const StreamSpec spec = stream(LoadPath::ca, StreamPlacement::per_block, 16384);
  const StreamResult result = backend->streams()->run_stream(spec);
  ASSERT_EQ(result.seconds.size(), spec.timed_launches);
  EXPECT_GE(result.bytes_moved, spec.bytes_per_launch);
  EXPECT_EQ(result.footprint_bytes, 16384u);
  EXPECT_EQ(result.sms, 4u);
  EXPECT_DOUBLE_EQ(result.sm_clock_khz, 1e6);
  for (const double s : result.seconds) {
    EXPECT_DOUBLE_EQ(s, static_cast<double>(result.bytes_moved) / (4 * 128.0 * 1e9));
  }
}

TEST(StreamModel, StreamsThatCannotRunSayWhy) {
  auto backend = make_sim_backend_from_text(base_description().dump(), "t.json");
  StreamSpec crowded = stream(LoadPath::ca, StreamPlacement::per_block, 16384);
  crowded.blocks_per_sm = 16;  // 4096 threads on an SM of 2048
  EXPECT_THROW(backend->streams()->run_stream(crowded), ExperimentError);
  StreamSpec shared = stream(LoadPath::shared, StreamPlacement::per_block, 32768);
  shared.op = StreamOp::copy;  // two 32 KiB windows per block, 2 blocks: 128 KiB of 64
  EXPECT_THROW(backend->streams()->run_stream(shared), ExperimentError);

  json old = base_description();
  old.erase("throughput");
  auto without = make_sim_backend_from_text(old.dump(), "old.json");
  try {
    without->streams()->run_stream(stream(LoadPath::ca, StreamPlacement::per_block, 16384));
    ADD_FAILURE() << "no StreamsUnsupported";
  } catch (const StreamsUnsupported& error) {
    EXPECT_NE(std::string(error.what()).find("no throughput model"), std::string::npos);
  }
  json no_shared = base_description();
  no_shared["throughput"].erase("shared_bytes_per_cycle");
  auto partial = make_sim_backend_from_text(no_shared.dump(), "partial.json");
  EXPECT_THROW(partial->streams()->run_stream(stream(LoadPath::shared, StreamPlacement::per_block, 8192)),
               StreamsUnsupported);
}

TEST(StreamSpecs, ValidationAndGeometry) {
  StreamSpec spec = stream(LoadPath::cg, StreamPlacement::shared_by_all, 100000);
  EXPECT_NO_THROW(validate(spec));
  const StreamGeometry g = stream_geometry(spec, 4);
  EXPECT_EQ(g.warp_tile_bytes, 32u * 16 * 4);
  EXPECT_EQ(g.footprint_bytes, 100000u / 2048 * 2048);
  EXPECT_EQ(g.warps, 4u * 2 * 8);
  EXPECT_EQ(g.bytes_moved, g.iterations * g.warps * g.warp_tile_bytes);
  EXPECT_GE(g.bytes_moved, spec.bytes_per_launch);
  spec.op = StreamOp::copy;
  EXPECT_EQ(stream_geometry(spec, 4).bytes_moved % (2 * g.warps * g.warp_tile_bytes), 0u);
  EXPECT_EQ(stream_device_bytes(spec), 200000u);

  // One pass: as many blocks as bytes_per_launch needs, one tile per warp, blocks_per_sm unused.
  StreamSpec once = stream(LoadPath::cg, StreamPlacement::one_pass, 100000);
  const StreamGeometry o = stream_geometry(once, 4);
  const std::uint64_t block_bytes = 8 * o.warp_tile_bytes;  // 256 threads: 8 warps
  EXPECT_EQ(o.iterations, 1u);
  EXPECT_EQ(o.blocks, (once.bytes_per_launch + block_bytes - 1) / block_bytes);
  EXPECT_EQ(o.warps, o.blocks * 8);
  EXPECT_EQ(o.bytes_moved, o.blocks * block_bytes);
  once.blocks_per_sm = 64;  // more than an SM holds: no matter for one pass
  EXPECT_EQ(stream_geometry(once, 4).blocks, o.blocks);
  EXPECT_EQ(stream_geometry(spec, 4).blocks, 4u * spec.blocks_per_sm);

  const auto invalid = [&](auto change) {
    StreamSpec bad = stream(LoadPath::cg, StreamPlacement::shared_by_all, 100000);
    change(bad);
    EXPECT_THROW(validate(bad), ExperimentError);
  };
  invalid([](StreamSpec& s) { s.vector_bytes = 12; });
  invalid([](StreamSpec& s) { s.unroll = 3; });
  invalid([](StreamSpec& s) { s.threads_per_block = 100; });
  invalid([](StreamSpec& s) { s.footprint_bytes = 1024; });  // less than one warp tile
  invalid([](StreamSpec& s) { s.path = LoadPath::constant; });
  invalid([](StreamSpec& s) { s.path = LoadPath::shared; });  // shared is per block
  invalid([](StreamSpec& s) {
    s.path = LoadPath::tex;
    s.op = StreamOp::write;
  });
  invalid([](StreamSpec& s) {
    s.op = StreamOp::write;
    s.vector_bytes = 8;
  });
  invalid([](StreamSpec& s) {
    s.path = LoadPath::nc;
    s.op = StreamOp::copy;
  });
  for (const LoadPath path : {LoadPath::ca, LoadPath::nc, LoadPath::tex, LoadPath::shared}) {
    invalid([path](StreamSpec& s) {  // a triad reads through cg only
      s.op = StreamOp::triad;
      s.path = path;
      if (path == LoadPath::shared) s.placement = StreamPlacement::per_block;
    });
  }
  invalid([](StreamSpec& s) {
    s.op = StreamOp::triad;
    s.vector_bytes = 8;
  });
  invalid([](StreamSpec& s) { s.array_offset_bytes = 4096; });  // not whole 2 MiB pages
  invalid([](StreamSpec& s) {
    s.path = LoadPath::shared;
    s.placement = StreamPlacement::per_block;
    s.array_offset_bytes = kStreamArrayOffsetAlignment;  // shared memory has no arrays to move
  });
}

TEST(StreamSpecs, AnArrayOffsetTakesMemoryBeforeEveryArray) {
  StreamSpec spec;
  spec.footprint_bytes = 64ull << 20;
  spec.bytes_per_launch = 1ull << 30;
  spec.array_offset_bytes = 2 * kStreamArrayOffsetAlignment;
  EXPECT_NO_THROW(validate(spec));
  EXPECT_EQ(stream_device_bytes(spec), (64ull + 4) << 20);
  spec.op = StreamOp::copy;
  EXPECT_EQ(stream_device_bytes(spec), 2 * ((64ull + 4) << 20));
  spec.array_offset_bytes = 0;
  EXPECT_EQ(stream_device_bytes(spec), 2 * (64ull << 20));
}

// gpu-stream's triad (b x d + c to a) moves four arrays' bytes per warp tile, as gpu-stream
// counts them, takes four arrays of device memory, and reads through cg only.
TEST(StreamSpecs, ATriad3MovesAndHoldsFourArraysAndReadsThroughCgOnly) {
  StreamSpec spec = stream(LoadPath::cg, StreamPlacement::shared_by_all, 100000);
  spec.op = StreamOp::triad3;
  EXPECT_NO_THROW(validate(spec));
  EXPECT_EQ(to_string(spec.op), "triad3");
  EXPECT_EQ(stream_arrays(StreamOp::triad3), 4u);
  const StreamGeometry g = stream_geometry(spec, 4);
  EXPECT_EQ(g.bytes_moved, g.iterations * g.warps * 4 * g.warp_tile_bytes);
  EXPECT_EQ(stream_device_bytes(spec), 400000u);
  EXPECT_TRUE(stream_reads_second_source(spec));
  EXPECT_TRUE(stream_reads_third_source(spec));
  spec.op = StreamOp::triad;
  EXPECT_FALSE(stream_reads_third_source(spec));
  spec.op = StreamOp::triad3;
  spec.path = LoadPath::ca;
  EXPECT_THROW(validate(spec), ExperimentError);
  EXPECT_DOUBLE_EQ(sim::triad_factor_of(0.5, 3), 4.0 / 5.0);  // 3 reads at 1, 1 write at 1/2
}

// A triad (b + s x c to a) moves three arrays' bytes per warp tile, as STREAM counts them, and
// takes three arrays of device memory.
TEST(StreamSpecs, ATriadMovesAndHoldsThreeArrays) {
  StreamSpec spec = stream(LoadPath::cg, StreamPlacement::shared_by_all, 100000);
  spec.op = StreamOp::triad;
  EXPECT_NO_THROW(validate(spec));
  EXPECT_EQ(to_string(spec.op), "triad");
  EXPECT_EQ(stream_arrays(StreamOp::triad), 3u);
  const StreamGeometry g = stream_geometry(spec, 4);
  EXPECT_EQ(g.bytes_moved, g.iterations * g.warps * 3 * g.warp_tile_bytes);
  EXPECT_GE(g.bytes_moved, spec.bytes_per_launch);
  EXPECT_EQ(stream_device_bytes(spec), 300000u);
  spec.array_offset_bytes = kStreamArrayOffsetAlignment;
  EXPECT_EQ(stream_device_bytes(spec), 3 * (100000 + kStreamArrayOffsetAlignment));
  EXPECT_TRUE(stream_reads_global(spec));
  EXPECT_TRUE(stream_writes_global(spec));
  EXPECT_TRUE(stream_reads_second_source(spec));
  spec.op = StreamOp::copy;
  EXPECT_FALSE(stream_reads_second_source(spec));

  StreamSpec once = stream(LoadPath::cg, StreamPlacement::one_pass, 100000);
  once.op = StreamOp::triad;
  const StreamGeometry o = stream_geometry(once, 4);
  const std::uint64_t block_bytes = 8 * 3 * o.warp_tile_bytes;  // 8 warps, 3 arrays
  EXPECT_EQ(o.blocks, (once.bytes_per_launch + block_bytes - 1) / block_bytes);
  EXPECT_EQ(o.bytes_moved, o.blocks * block_bytes);
}

// The triad's rate: triad_factor times the level's read rate; without one in the description,
// the 2:1 mix at the read rate and write_factor times it, so that every older description runs.
TEST(StreamModel, ATriadRunsAtItsFactorOrTheMixOfReadsAndWrites) {
  const StreamSpec read = stream(LoadPath::cg, StreamPlacement::shared_by_all, 64 << 20);
  StreamSpec triad = read;
  triad.op = StreamOp::triad;
  const SimDescription derived = described(base_description());
  // write_factor 0.5: 3 bytes in 2 + 1 / 0.5 = 4 read-byte times.
  EXPECT_DOUBLE_EQ(derived.throughput->triad_factor, 0.75);
  EXPECT_DOUBLE_EQ(triad_factor_of(1), 1);
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(triad, derived),
                   0.75 * modelled_bytes_per_cycle(read, derived));
  json given = base_description();
  given["throughput"]["triad_factor"] = 0.9;
  const SimDescription d = described(given);
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(triad, d), 0.9 * modelled_bytes_per_cycle(read, d));
  // Three arrays of 256 KiB are 768 KiB: still inside the 1 MiB L2, where a read of them is.
  StreamSpec small = triad;
  small.footprint_bytes = 256 << 10;
  EXPECT_EQ(serving_level(small, d).name, "L2");
  small.footprint_bytes = 512 << 10;  // 1.5 MiB: DRAM
  EXPECT_EQ(serving_level(small, d).name, "DRAM");
  given["throughput"]["triad_factor"] = 1000;
  expect_load_error(given, "throughput.triad_factor: must be a positive number of at most 100");

  auto backend = make_sim_backend_from_text(base_description().dump(), "t.json");
  const StreamResult result = backend->streams()->run_stream(triad);
  EXPECT_EQ(result.bytes_moved, stream_geometry(triad, 4).bytes_moved);
}

// Each launch of a device-wide stream begins where the one before it ended, so that a byte comes
// back only after the whole footprint, however the launch's bytes compare with it.
TEST(StreamSpecs, EveryLaunchBeginsWhereTheOneBeforeEnded) {
  for (const StreamPlacement placement :
       {StreamPlacement::shared_by_all, StreamPlacement::one_pass}) {
    for (const std::uint64_t footprint : {100000ull, 1ull << 20, 8ull << 30}) {
      StreamSpec spec = stream(LoadPath::cg, placement, footprint);
      const StreamGeometry g = stream_geometry(spec, 4);
      const std::uint64_t per_launch = g.iterations * g.warps * g.warp_tile_bytes;
      EXPECT_EQ(stream_launch_start_bytes(spec, g, 0), 0u);
      for (std::uint64_t i = 1; i < 5; ++i) {
        const std::uint64_t start = stream_launch_start_bytes(spec, g, i);
        EXPECT_EQ(start, i * per_launch % g.footprint_bytes);
        EXPECT_EQ(start % g.warp_tile_bytes, 0u);
      }
      // A copy walks each array once per tile, though it moves twice the bytes.
      spec.op = StreamOp::copy;
      const StreamGeometry c = stream_geometry(spec, 4);
      EXPECT_EQ(stream_launch_start_bytes(spec, c, 1), c.bytes_moved / 2 % c.footprint_bytes);
    }
  }
  // No overflow far beyond 64 bits of index x bytes.
  StreamSpec huge = stream(LoadPath::cg, StreamPlacement::shared_by_all, (1ull << 40) + 2048);
  const StreamGeometry h = stream_geometry(huge, 4);
  EXPECT_LT(stream_launch_start_bytes(huge, h, ~0ull), h.footprint_bytes);
  // A window per block re-reads itself: no rotation.
  const StreamSpec window = stream(LoadPath::ca, StreamPlacement::per_block, 16384);
  EXPECT_EQ(stream_launch_start_bytes(window, stream_geometry(window, 4), 3), 0u);
}

// A shorter warm-up (a long final series) moves the timed launches' starts by what it walked:
// still each launch begins where the one before it ended.
TEST(StreamSpecs, AShortWarmUpLaunchIsFollowedWhereItEnded) {
  for (const StreamPlacement placement :
       {StreamPlacement::shared_by_all, StreamPlacement::one_pass}) {
    StreamSpec spec = stream(LoadPath::cg, placement, 8ull << 30);
    spec.warmup_launches = 2;
    spec.warmup_bytes_per_launch = spec.bytes_per_launch / 4;
    const StreamGeometry timed = stream_geometry(spec, 4);
    const StreamGeometry warmup = stream_warmup_geometry(spec, 4);
    EXPECT_LT(warmup.bytes_moved, timed.bytes_moved);
    const std::uint64_t warm_walk = warmup.iterations * warmup.warps * warmup.warp_tile_bytes;
    const std::uint64_t walk = timed.iterations * timed.warps * timed.warp_tile_bytes;
    const std::uint64_t f = timed.footprint_bytes;
    EXPECT_EQ(stream_launch_start_bytes(spec, warmup, timed, 0), 0u);
    EXPECT_EQ(stream_launch_start_bytes(spec, warmup, timed, 1), warm_walk % f);
    EXPECT_EQ(stream_launch_start_bytes(spec, warmup, timed, 2), 2 * warm_walk % f);
    EXPECT_EQ(stream_launch_start_bytes(spec, warmup, timed, 4), (2 * warm_walk + 2 * walk) % f);
  }
  // 0 is as long as the timed launches; longer is refused.
  StreamSpec spec = stream(LoadPath::cg, StreamPlacement::shared_by_all, 1ull << 20);
  EXPECT_EQ(stream_warmup_geometry(spec, 4).bytes_moved, stream_geometry(spec, 4).bytes_moved);
  spec.warmup_bytes_per_launch = spec.bytes_per_launch + 1;
  EXPECT_THROW(validate(spec), ExperimentError);
}

// An L2 that keeps a share of its lines against a stream (not LRU) answers that many bytes of
// every pass over a larger footprint: the "DRAM" rate rises by 1 / (1 - L2 kept / footprint),
// up to the L2's own rate, and falls back towards DRAM's as the footprint grows.
TEST(StreamModel, AnL2ThatKeepsLinesAnswersPartOfEveryPass) {
  json keeps = base_description();
  keeps["throughput"]["loop_retained_share"] = {{"L2", 0.5}};
  keeps["throughput"]["dram_bytes_per_cycle"] = 100;
  const SimDescription d = described(keeps);
  StreamSpec busy = stream(LoadPath::cg, StreamPlacement::shared_by_all, 8 << 20);
  busy.blocks_per_sm = 8;  // beyond Little's law's limit: the level's rate
  // 512 KiB of 8 MiB kept: 1/16 of every pass.
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 100 / (1 - 1.0 / 16));
  busy.footprint_bytes = 512 << 20;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 100 / (1 - 1.0 / 1024));
  // A copy's two arrays both pass through the L2.
  busy.footprint_bytes = 8 << 20;
  busy.op = StreamOp::copy;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 0.25 * 100 / (1 - 1.0 / 32));
  // Without the key, nothing is kept (every pass misses, as under LRU).
  busy.op = StreamOp::read;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, described(base_description())), 200);

  json bad = base_description();
  bad["throughput"]["loop_retained_share"] = {{"L1", 0.5}};
  expect_load_error(bad, "throughput.loop_retained_share.L1: only a device-scope cache");
  bad["throughput"]["loop_retained_share"] = {{"L2", 1.5}};
  expect_load_error(bad, "throughput.loop_retained_share.L2: must lie in [0, 1]");
  bad["throughput"]["loop_retained_share"] = {{"L3", 0.5}};
  expect_load_error(bad, "no cache is named \"L3\"");
}


// Looping warps whose DRAM rate moves with the footprint (looping_dram: faster up to the bound,
// slower beyond, as an H200's were); a one-pass grid keeps DRAM's rate, as does every stream of
// a description without the key.
TEST(StreamModel, LoopingWarpsReadDramAtTheirFactorWithinAndBeyondTheBound) {
  json looping = base_description();
  looping["throughput"]["looping_dram"] = {
      {"beyond_bytes", 64 << 20}, {"factor_within", 1.01}, {"factor_beyond", 0.96}};
  const SimDescription d = described(looping);
  StreamSpec busy = stream(LoadPath::cg, StreamPlacement::shared_by_all, 32 << 20);
  busy.blocks_per_sm = 8;  // beyond Little's law's limit: the level's rate
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 200 * 1.01);
  busy.footprint_bytes = 128 << 20;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 200 * 0.96);
  // A copy's two arrays of 32 MiB span the bound exactly: within it.
  busy.footprint_bytes = 32 << 20;
  busy.op = StreamOp::copy;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 200 * 1.01 * 0.25);
  busy.op = StreamOp::read;
  busy.footprint_bytes = 128 << 20;
  busy.placement = StreamPlacement::one_pass;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d), 200);
  busy.placement = StreamPlacement::shared_by_all;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, described(base_description())), 200);
  // Inside the L2 the factor does not apply.
  busy.footprint_bytes = 256 << 10;
  EXPECT_DOUBLE_EQ(modelled_bytes_per_cycle(busy, d),
                   modelled_bytes_per_cycle(busy, described(base_description())));

  json bad = base_description();
  bad["throughput"]["looping_dram"] = {{"factor_beyond", 0.9}};
  expect_load_error(bad, "throughput.looping_dram: missing required key \"beyond_bytes\"");
  bad["throughput"]["looping_dram"] = {{"beyond_bytes", 1}, {"factor_beyond", 0}};
  expect_load_error(bad, "throughput.looping_dram.factor_beyond: must be a positive number");
  bad["throughput"]["looping_dram"] = {{"beyond_bytes", 1}, {"loss", 0.1}};
  expect_load_error(bad, "unknown key \"loss\"");
}

}  // namespace
}  // namespace memtopo::sim
