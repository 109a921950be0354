#include "sample_topology.hpp"

#include "analysis/confidence.hpp"

namespace memtopo::testing {
namespace {

Spread spread(double p50, double stdev, std::size_t samples) {
  Spread s;
  s.p50 = p50;
  s.mean = p50 + stdev / 4;
  s.stdev = stdev;
  s.p5 = p50 - 2 * stdev;
  s.p95 = p50 + 2 * stdev;
  s.min = p50 - 3 * stdev;
  s.max = p50 + 10 * stdev;
  s.samples = samples;
  return s;
}

Property measured(const std::string& name, nlohmann::json value, const std::string& unit,
                  const std::string& method, double confidence) {
  return measured_property(name, std::move(value), unit, confidence, method);
}

// A confidence as probes write it (core/findings' set_confidence): the value, and its factors
// in the evidence for the console's notes.
Property with_confidence(Property p, const Confidence& confidence) {
  p.confidence = confidence.value();
  p.evidence["confidence_factors"] = confidence.evidence();
  return p;
}

Property latency(double p50, double stdev, double overhead, double clock_khz) {
  Property p =
      measured("latency", p50, "cycles", "fine-grained p-chase, overhead-corrected p50", 0.99);
  p.spread = spread(p50, stdev, 4096);
  p.raw = spread(p50 + overhead, stdev, 4096);
  p.seconds_value = p50 / (clock_khz * 1000);
  p.evidence = {{"overhead_cycles", overhead}, {"clock_khz", clock_khz}};
  return p;
}

// A latency of two modes (near and far L2 partitions): the headline is the near mode, the mix
// every load; each mode with its share and its own confidence.
Property two_mode_latency(double near, double far, double far_share, double clock_khz) {
  Property p = latency(near, 11, 12, clock_khz);
  const Confidence near_confidence{mode_separation(0.02, "between the near and far modes"),
                                   share_within(std::vector<double>(20, near), near, 0.1, "")};
  // The far mode's loads spread out to a tail: its p50 describes only some of them.
  const Confidence far_confidence{mode_separation(0.02, "between the near and far modes"),
                                  share(0.53, "of the far-mode loads within 10 % of its p50")};
  Mode near_mode{"near", near, 1 - far_share, spread(near, 11, 1802), near_confidence.value(),
                 near_confidence.evidence()};
  Mode far_mode{"far", far, far_share, spread(far, 40, 2294), far_confidence.value(),
                far_confidence.evidence()};
  p.spread->samples = 1802;
  p.raw->samples = 1802;
  p.modes = {near_mode, far_mode};
  p.mix = spread(far - 40, 95, 4096);
  p = with_confidence(std::move(p), near_confidence);
  p.note = "the near mode; 56 % of the loads answered at 640 cycles (lines behind the far L2 "
           "partitions)";
  return p;
}

Property api(const std::string& name, nlohmann::json value, const std::string& unit,
             const std::string& method) {
  Property p;
  p.name = name;
  p.value = std::move(value);
  p.unit = unit;
  p.source = Source::api;
  p.method = method;
  return p;
}

void add_run(Topology& t) {
  RunInfo& run = t.run;
  run.tool_version = "0.1.0";
  run.git_describe = "v0.1.0-7-gabcdef0";
  run.timestamp_utc = "2025-03-01T10:00:00Z";
  run.host = "testhost";
  run.arguments = {"--sim", "tests/sims/tiny.json", "--json", "out.json"};
  run.duration_seconds = 3.25;
  run.simulated = true;
  run.sim_file = "tests/sims/tiny.json";
  run.phases = {{"setup", 0.05, std::nullopt, 1500000.0},
                {"l1.size", 1.5, 1500000.0, 1500000.0},
                {"l1.latency", 0.25, 1500000.0, 1200000.0},
                {"tex.size", 0.75, std::nullopt, std::nullopt},
                {"dram.bandwidth", 0.5, 1500000.0, 1500000.0}};
  run.probes = {{"l1.size", "ok", ""},
                {"l1.latency", "ok", ""},
                {"tex.size", "ok", ""},
                {"constant_l1.size", "skipped", "the simulated device has no constant cache"},
                {"l2.partitions", "failed", "no stable near/far split across 4 SMs"},
                {"dram.bandwidth", "ok", ""}};
}

void add_device(Topology& t) {
  DeviceFacts& d = t.device;
  d.name = "tiny";
  d.backend = "sim";
  d.device_index = 0;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 4;
  d.global_memory_bytes = 4294967296;
  d.l2_bytes = 4194304;
  d.shared_per_sm_bytes = 233472;
  d.shared_per_block_bytes = 49152;
  d.shared_per_block_optin_bytes = 232448;
  d.constant_bytes = 65536;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.sm_clock_khz = 1500000;
  d.global_l1_cache_supported = true;
  d.local_l1_cache_supported = true;
}

void add_l1(Topology& t) {
  Element& l1 = t.element("l1", "cache", "sm");
  l1.load_paths = {"ca", "nc", "tex"};
  Property l1_size =
      measured("size", 32768, "bytes", "doubling, bisection, change point (KS)", 0.98);
  l1_size.evidence = {{"change_point_bytes", 32768}, {"ks_d", 0.91}, {"ks_p", 1e-12}};
  l1.set(l1_size);
  // Low, with the factors that say why: one of two methods, one clean check (0.5 x 0.67).
  l1.set(with_confidence(
      measured("line", 128, "bytes", "stride sweep above the cache size", 1),
      Confidence{agreement(1, 1, "stride beyond the line"), methods_agreeing(1, 2, "methods")}));
  l1.set(measured("sector", 32, "bytes", "miss count per line", 0.9));
  l1.set(latency(33, 1.25, 12, 1500000));
  l1.set(measured("miss_penalty", 227, "cycles", "L2 latency minus L1 latency", 0.9));
  l1.set(measured("shared_with", nlohmann::json::array({"tex"}), "", "eviction by the other path",
                  0.97));
  l1.set(measured("count_per_sm", 1, "", "concurrent warps on one SM", 0.9));
  l1.set(measured("ways", 4, "",
                  "one sequential chase over C + k lines at stride b (C measured size, b line) "
                  "overfills k sets: its missing lines form ways + 1 runs spaced by the sets; "
                  "256 sampled sets verify the ways",
                  0.8));
  // Low in a section with a Source column (0.9 x 0.5).
  l1.set(with_confidence(
      measured("policy", "lru", "", "eviction order of a set", 1),
      Confidence{agreement(8, 8, "passes"), share(0.5, "of the victims in the predicted order")}));
  l1.set(measured(
      "carveout",
      nlohmann::json::array(
          {{{"reserved_shared_bytes", 0}, {"l1_bytes", 32768}, {"confidence", 1.0}},
           {{"reserved_shared_bytes", 16384}, {"l1_bytes", 16384}, {"confidence", 0.5}},
           {{"reserved_shared_bytes", 24576},
            {"l1_bytes", 8192},
            {"confidence", 0.25},
            {"confidence_factors", Confidence{edge(0.25, "edge of the size search")}.evidence()}}}),
      "", "size search at each reservation", 0.25));
}

void add_tex(Topology& t) {
  Element& tex = t.element("tex", "cache", "sm");
  tex.load_paths = {"tex"};
  Property tex_size =
      measured("size", 16384, "bytes", "doubling, bisection, change point (KS)", 0.4);
  tex_size.inconclusive = true;
  tex_size.bound = Bound::lower;
  tex_size.note = "no significant change point above 16 KiB (KS p = 0.21); value is a lower bound";
  tex.set(tex_size);
  Property tex_line = measured("line", nullptr, "bytes", "stride sweep", 0.1);
  tex_line.inconclusive = true;
  tex_line.note = "size unknown";
  tex.set(tex_line);
  // Low without factors, as older JSON has it.
  tex.set(measured("shared_with", nlohmann::json::array({"l1"}), "", "eviction by the other path",
                   0.31));
}

void add_l2_and_dram(Topology& t) {
  Element& l2 = t.element("l2", "cache", "device");
  l2.load_paths = {"ca", "cg", "nc", "tex", "const"};
  l2.set(api("size", 4194304, "bytes", "cudaDevAttrL2CacheSize"));
  l2.set(latency(260, 6.5, 12, 1500000));

  Element& dram = t.element("dram", "memory", "device");
  dram.load_paths = {"ca", "cg", "cv", "nc", "tex", "const"};
  dram.set(api("size", 4294967296, "bytes", "cudaDeviceProp::totalGlobalMem"));
  dram.set(two_mode_latency(450, 640, 0.56, 1500000));
  Property bandwidth =
      measured("bandwidth", 1.6e12, "bytes/second", "streaming read, all SMs", 0.95);
  bandwidth.spread = spread(1.6e12, 2.5e9, 20);
  dram.set(bandwidth);
}

}  // namespace

Topology make_sample_topology() {
  Topology t;
  add_run(t);
  add_device(t);
  add_l1(t);
  add_tex(t);
  add_l2_and_dram(t);

  t.warnings = {"SM clock moved from 1500 MHz to 1200 MHz (-20%) during l1.latency",
                "probe l2.partitions failed: no stable near/far split across 4 SMs"};
  return t;
}

Topology make_hardware_topology() {
  Topology t = make_sample_topology();
  t.run.simulated = false;
  t.run.sim_file.clear();
  t.run.arguments = {"--json", "out.json"};
  t.device.name = "NVIDIA H100 80GB HBM3";
  t.device.backend = "cuda";
  t.device.pci_bus_id = "00000000:01:00.0";
  t.device.driver_version = 13000;
  t.device.runtime_version = 12080;
  t.device.memory_clock_khz = 2619000;
  t.device.memory_bus_width_bits = 5120;
  t.device.nvml_sm_clock_mhz = 1755;
  t.device.nvml_max_sm_clock_mhz = 1980;
  t.device.nvml_memory_clock_mhz = 2619;
  t.run.interrupted = true;
  t.run.probes.push_back({"tlb_l1.entries", "not_run", "interrupted before it started"});
  return t;
}

Property measured_property(const std::string& name, nlohmann::json value, const std::string& unit,
                           std::optional<double> confidence, const std::string& method) {
  Property p;
  p.name = name;
  p.value = std::move(value);
  p.unit = unit;
  p.source = Source::measured;
  p.method = method;
  p.confidence = confidence;
  return p;
}

}  // namespace memtopo::testing
