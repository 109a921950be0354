#include "report_fixture.hpp"

#include "sample_topology.hpp"

namespace memtopo::testing {
namespace {

using nlohmann::json;

json step(double from, double to, double before, double after, double d, double confidence) {
  return {{"between_bytes", {from, to}},
          {"latency_before", before},
          {"latency_after", after},
          {"confidence", confidence},
          {"ks", {{"D", d}, {"critical_value", 0.06}, {"p_value", 1e-9}, {"different", true}}}};
}

json level(double from, double to, double p50) {
  return {{"from_bytes", from},
          {"to_bytes", to},
          {"latency_cycles", p50},
          {"spread", {{"p5", p50 - 4}, {"p50", p50}, {"p95", p50 + 6}, {"samples", 4096}}}};
}

void add_l2_staircase(Topology& t) {
  Property size;
  size.name = "size";
  size.value = 4194304;
  size.unit = "bytes";
  size.method = "latency staircase over footprints, change points tested with KS";
  size.confidence = 0.9;
  json footprints = json::array(), series = json::array();
  for (int i = 0; i < 8; ++i) {
    const double footprint = 1048576.0 * (1 << i);  // 1 MiB .. 128 MiB
    footprints.push_back(footprint);
    series.push_back(i < 3 ? 260.0 : (i < 6 ? 300.0 : 450.0));
  }
  size.evidence["staircase"] = {{"footprints", footprints},
                                {"reduction", "geometric"},
                                {"order", "random"},
                                {"series", {{"geometric", series}, {"mean", series}}},
                                {"levels",
                                 {level(1048576, 4194304, 260), level(8388608, 33554432, 300),
                                  level(67108864, 134217728, 450)}},
                                {"steps",
                                 {step(4194304, 8388608, 260, 300, 0.82, 0.95),
                                  step(33554432, 67108864, 300, 450, 0.31, 0.35)}}};
  t.element("l2", "cache", "device").set(size);
}

void add_l1_search(Topology& t) {
  Element& l1 = t.element("l1", "cache", "sm");
  Property size = *l1.find("size");
  json tried = json::array();
  for (double kib : {4.0, 8.0, 16.0, 32.0, 33.0, 64.0}) {
    const bool fits = kib <= 32;
    tried.push_back({{"footprint_bytes", kib * 1024},
                     {"elements", kib * 32},
                     {"passes", 2},
                     {"slow_accesses", fits ? 0.0 : kib * 16},
                     {"fits", fits},
                     {"phase", kib == 33 ? "scan" : "doubling"}});
  }
  size.evidence["footprints_tried"] = tried;
  l1.set(size);
}

void add_banks_and_segments(Topology& t) {
  Property banks;
  banks.name = "banks";
  banks.value = 32;
  banks.method = "warp access patterns, conflict degree fitted";
  banks.confidence = 0.97;
  json table = json::array();
  for (int degree : {1, 2, 4, 8, 16, 32}) {
    table.push_back({{"pattern", "stride " + std::to_string(degree) + " x 4 B"},
                     {"predicted_degree", degree},
                     {"measured_degree", degree},
                     {"p50_cycles", 29.0 * degree},
                     {"p5_cycles", 29.0 * degree},
                     {"p95_cycles", 29.0 * degree + 2},
                     {"agrees", degree != 16}});
  }
  banks.evidence["pattern_table"] = table;
  t.element("shared", "scratchpad", "sm").set(banks);

  Property segments;
  segments.name = "segments";
  segments.value = 2;
  segments.method = "pairs of concurrent chases on two SMs";
  segments.confidence = 0.8;
  segments.evidence["pairs"] = {
      {{"sm_a", 0}, {"sm_b", 1}, {"verdict", "one segment"}, {"slow_share_a", 0.5}},
      {{"sm_a", 0}, {"sm_b", 2}, {"verdict", "two segments"}, {"slow_share_a", 0.01}},
      {{"sm_a", 0}, {"sm_b", 3}, {"verdict", "unclear"}, {"slow_share_a", 0.2}}};
  t.element("l2", "cache", "device").set(segments);
}

// Two latencies with their distributions, and a DRAM bandwidth sweep with a knee.
void add_distributions_and_sweep(Topology& t) {
  Property* l1 = t.element("l1", "cache", "sm").find("latency");
  l1->evidence["histogram"] = {{"from_cycles", 31},
                               {"bin_cycles", 1},
                               {"counts", {10, 90, 800, 90, 10}},
                               {"below", 0},
                               {"above", 0}};
  Property* l2 = t.element("l2", "cache", "device").find("latency");
  l2->evidence["histogram"] = {{"from_cycles", 240},
                               {"bin_cycles", 10},
                               {"counts", {100, 400, 300, 100, 50}},
                               {"below", 2},
                               {"above", 48}};
  Property* dram = t.element("dram", "memory", "device").find("bandwidth");
  dram->evidence["sweep"] = {
      {"path", "cg"},
      {"placement", "shared_by_all"},
      {"points", {{1048576, 3e12}, {4194304, 3e12}, {16777216, 1.6e12}, {67108864, 1.6e12}}},
      {"knees",
       {{{"footprint_bytes", 8388608},
         {"last_high_bytes", 4194304},
         {"first_low_bytes", 16777216},
         {"upper_bytes_per_second", 3e12},
         {"lower_bytes_per_second", 1.6e12}}}}};
}

}  // namespace

Topology make_report_topology() {
  Topology t = make_sample_topology();
  add_l2_staircase(t);
  add_l1_search(t);
  add_banks_and_segments(t);
  add_distributions_and_sweep(t);
  return t;
}

}  // namespace memtopo::testing
