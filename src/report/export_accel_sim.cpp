#include "report/export_accel_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "model/printable_text.hpp"
#include "model/units.hpp"
#include "report/export_accel_sim_api.hpp"
#include "report/modes_text.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

constexpr double kKiB = 1024;
// A method is one line in the JSON; in a comment it is cut to this many columns.
constexpr std::size_t kMethodWidth = 100;
constexpr int kExportConfidenceDecimals = 2;
// A table's value (l1.carveout) is cut to this many columns in a comment.
constexpr std::size_t kValueWidth = 60;

// One input of an option: element.property and what the run has for it (null when absent).
struct ExportSource {
  std::string id;
  const Property* property = nullptr;
};

// The values an option takes: a number in [min, max] (GPGPU-Sim parses each as an integer:
// banks and ways of at least 1, latencies of at least 0, nothing past 32 bits).
struct ExportRange {
  double min = 0;
  double max = 0;

  // Why `value` cannot be written ("" when it can).
  std::string problem(double value) const {
    if (std::isfinite(value) && value >= min && value <= max) return "";
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.6g", value);
    return std::string("= ") + shown + " is outside " + format_number(min, 0) + " to " +
           format_number(max, 0);
  }
  std::string problem(const nlohmann::json& value) const {
    if (!value.is_number()) return "is not a number";
    return problem(value.get<double>());
  }
};

// Cycles of a latency or an increment of one, bytes of a line, ways, sets, banks, KiB.
constexpr ExportRange kCycles{0, 1e6};
constexpr ExportRange kLineBytes{1, 1 << 20};
constexpr ExportRange kWays{1, 1 << 16};
constexpr ExportRange kSets{1, 1 << 24};
constexpr ExportRange kCacheBytes{1, 1ull << 44};
constexpr ExportRange kBanks{1, 1024};
constexpr ExportRange kCarveoutBytes{0, 1ull << 32};

bool conclusive(const Property* property) {
  return property && !property->inconclusive && !property->value.is_null();
}

class Fragment {
 public:
  explicit Fragment(const Topology& topology) : topology_(topology) {}

  // element.property, if the run measured it conclusively; else nullptr and the reason is kept
  // for the "not measured" list of the option being built.
  ExportSource need(const std::string& element, const std::string& property) {
    ExportSource source{element + "." + property, nullptr};
    const Element* found = topology_.find(element);
    const Property* value = found ? found->find(property) : nullptr;
    if (conclusive(value)) {
      source.property = value;
    } else {
      reasons_.push_back(source.id + (value ? " inconclusive" : " not in the run"));
    }
    return source;
  }
  // The same for a number, which must also lie within `range`: an option is never written
  // from a value GPGPU-Sim cannot take (a negative bank count, a ways of 0, 1e308).
  ExportSource need(const std::string& element, const std::string& property,
                    const ExportRange& range) {
    ExportSource source = need(element, property);
    if (!source.property) return source;
    if (const std::string problem = range.problem(source.property->value); !problem.empty()) {
      reasons_.push_back(source.id + " " + problem);
      source.property = nullptr;
    }
    return source;
  }
  // A value computed from the sources (a latency increment): not derivable when out of `range`.
  bool within(const std::string& what, double value, const ExportRange& range) {
    const std::string problem = range.problem(value);
    if (!problem.empty()) reasons_.push_back(what + " " + problem);
    return problem.empty();
  }
  // The number need() checked (call only when complete()).
  double number(const ExportSource& source) const { return source.property->value.get<double>(); }
  bool complete() const { return reasons_.empty(); }

  // Writes the option with one comment line per source and any notes, or, when an input was
  // missing, lists the option as not measured.
  void option(const std::string& name, const std::string& value,
              const std::vector<ExportSource>& sources,
              const std::vector<std::string>& notes = {}) {
    if (!complete()) {
      skip(name);
      return;
    }
    std::optional<double> weakest;
    for (const ExportSource& source : sources) {
      text_ << "# source: " << describe(source) << "\n";
      if (source.property->confidence)
        weakest = std::min(weakest.value_or(1.0), *source.property->confidence);
    }
    for (const std::string& note : notes) text_ << "# note: " << note << "\n";
    text_ << "# confidence: "
          << (weakest ? format_number(*weakest, kExportConfidenceDecimals) + " (the weakest source)"
                      : std::string("none given (API values or derived)"))
          << "\n"
          << name << " " << value << "\n\n";
  }
  // Lists the options as not measured, for the reasons need() gathered and `extra`.
  void skip(const std::vector<std::string>& names, const std::string& extra = "") {
    std::string why;
    for (const std::string& reason : reasons_) why += (why.empty() ? "" : ", ") + reason;
    if (!extra.empty()) why += (why.empty() ? "" : ", ") + extra;
    for (const std::string& name : names) missing_.push_back(name + " (" + why + ")");
    reasons_.clear();
  }
  void skip(const std::string& name, const std::string& extra = "") {
    skip(std::vector<std::string>{name}, extra);
  }
  // An option written elsewhere (the API facts) that could not be: "name (why)".
  void add_missing(const std::string& line) { missing_.push_back(line); }

  std::string text() const {
    std::string out = text_.str();
    if (!missing_.empty()) {
      out += "# not measured:\n";
      for (const std::string& line : missing_) out += "#   " + line + "\n";
    }
    return out;
  }

 private:
  static std::string describe(const ExportSource& source) {
    const Property& p = *source.property;
    // A table (l1.carveout) is counted, never printed as JSON.
    const bool table = p.value.is_array() && !p.value.empty() && p.value.front().is_object();
    const std::string value = table ? std::to_string(p.value.size()) + " rows"
                                    : format_value(p.value, p.unit);
    std::string text = source.id + " = " +
                       shorten_to_width(printable_text(value), kValueWidth) + ", " +
                       to_string(p.source);
    if (!p.method.empty()) text += ", " + shorten_to_width(printable_text(p.method), kMethodWidth);
    text += ", confidence " +
            (p.confidence ? format_number(*p.confidence, kExportConfidenceDecimals) : std::string("-"));
    return text;
  }

  const Topology& topology_;
  std::ostringstream text_;
  std::vector<std::string> reasons_;
  std::vector<std::string> missing_;
};

std::string integer_text(double value) {
  return std::to_string(std::llround(value));
}

// GPGPU-Sim knows LRU (L) and FIFO (F) only.
std::optional<char> replacement_letter(const Property* policy) {
  if (!conclusive(policy) || !policy->value.is_string()) return std::nullopt;
  const std::string name = policy->value.get<std::string>();
  if (name == "lru") return 'L';
  if (name == "fifo") return 'F';
  return std::nullopt;
}

// "S" when the line is split into smaller sectors, "N" when the sector is the line; the
// Hopper config's "S" (with a note) when the sector was not measured.
char sectoring_letter(const Property* sector, double line, std::vector<std::string>& notes,
                      const std::string& subject) {
  if (!conclusive(sector) || !sector->value.is_number()) {
    notes.push_back(subject + " not measured: sectored (S) as Accel-Sim's Hopper config");
    return 'S';
  }
  return sector->value.get<double>() < line ? 'S' : 'N';
}

// The replacement letter, with a note where the policy could not be given its own.
char policy_letter(const Topology& topology, const std::string& element,
                   std::vector<std::string>& notes) {
  const Element* found = topology.find(element);
  const Property* policy = found ? found->find("policy") : nullptr;
  if (auto letter = replacement_letter(policy)) return *letter;
  notes.push_back(element + ".policy " +
                  (conclusive(policy)
                       ? "'" + format_value(policy->value, "") + "' has no GPGPU-Sim letter (L, F)"
                       : std::string("not measured")) +
                  ": L (LRU) as Accel-Sim's Hopper config");
  return 'L';
}

void add_sources_if_measured(const Topology& topology, const std::string& element,
                             const std::vector<std::string>& properties,
                             std::vector<ExportSource>& sources) {
  const Element* found = topology.find(element);
  for (const std::string& name : properties) {
    const Property* property = found ? found->find(name) : nullptr;
    if (conclusive(property)) sources.push_back({element + "." + name, property});
  }
}

struct Geometry {
  double sets = 0;
  double line = 0;
  double ways = 0;
};

// A cache's sets, line and ways; the sets measured, or size / (line x ways) where they are not
// (inconclusive on the H200's L1: 240 KiB / (128 B x 4 ways) = 480). A derived value's
// confidence is its weakest input's, which the option's comment lines give. nullopt: the
// reason is in `f`.
std::optional<Geometry> geometry_of(Fragment& f, const Topology& topology,
                                    const std::string& element, std::vector<ExportSource>& sources,
                                    std::vector<std::string>& notes) {
  const Element* found = topology.find(element);
  const Property* measured = found ? found->find("sets") : nullptr;
  const ExportSource line = f.need(element, "line", kLineBytes);
  const ExportSource ways = f.need(element, "ways", kWays);
  if (conclusive(measured)) {
    const ExportSource sets = f.need(element, "sets", kSets);
    if (!f.complete()) return std::nullopt;
    sources.insert(sources.end(), {sets, line, ways});
    return Geometry{f.number(sets), f.number(line), f.number(ways)};
  }
  const ExportSource size = f.need(element, "size", kCacheBytes);
  if (!f.complete()) return std::nullopt;
  const double sets = f.number(size) / (f.number(line) * f.number(ways));
  const std::string what = element + ".size / (line x ways)";
  if (sets != std::floor(sets)) {
    f.within(what + " = " + format_number(sets, 2) + " (not whole)", -1, kSets);
    return std::nullopt;
  }
  if (!f.within(what, sets, kSets)) return std::nullopt;
  sources.insert(sources.end(), {size, line, ways});
  notes.push_back("sets = " + what + " = " + integer_text(sets) + " (" + element + ".sets " +
                  (measured ? "inconclusive" : "not in the run") + ")");
  return Geometry{sets, f.number(line), f.number(ways)};
}

// -gpgpu_cache:dl1: the measured L1 geometry, Hopper's policies and queues after it.
void add_dl1(Fragment& f, const Topology& topology) {
  std::vector<ExportSource> sources;
  std::vector<std::string> notes;
  const auto geometry = geometry_of(f, topology, "l1", sources, notes);
  if (!geometry) return f.skip("-gpgpu_cache:dl1");
  const Element& l1 = *topology.find("l1");
  const char sectored = sectoring_letter(l1.find("sector"), geometry->line, notes, "l1.sector");
  const char policy = policy_letter(topology, "l1", notes);
  add_sources_if_measured(topology, "l1", {"sector", "policy"}, sources);
  notes.push_back(std::string("after the geometry as Accel-Sim's Hopper config: write, ") +
                  "allocation, set-index letters, MSHR, miss queue, data port");
  f.option("-gpgpu_cache:dl1",
           std::string(1, sectored) + ":" + integer_text(geometry->sets) + ":" +
               integer_text(geometry->line) + ":" + integer_text(geometry->ways) + "," + policy +
               ":" + kAccelSimHopperDl1Policies + "," + kAccelSimHopperDl1Rest,
           sources, notes);
}

// -gpgpu_const_cache:l1: the constant L1 (read-only, unsectored), Accel-Sim's queues after it.
void add_constant_cache(Fragment& f, const Topology& topology) {
  std::vector<ExportSource> sources;
  std::vector<std::string> notes;
  const auto geometry = geometry_of(f, topology, "constant_l1", sources, notes);
  if (!geometry) return f.skip("-gpgpu_const_cache:l1");
  const char policy = policy_letter(topology, "constant_l1", notes);
  add_sources_if_measured(topology, "constant_l1", {"policy"}, sources);
  notes.push_back("N (not sectored), then read-only, fetch on miss, MSHR and miss queue as "
                  "Accel-Sim's configs (not measured)");
  f.option("-gpgpu_const_cache:l1",
           "N:" + integer_text(geometry->sets) + ":" + integer_text(geometry->line) + ":" +
               integer_text(geometry->ways) + "," + policy + ":" + kAccelSimConstRest,
           sources, notes);
}

// -gpgpu_cache:dl2 describes one L2 slice (memory sub-partition); memtopo measures the whole L2.
void add_dl2(Fragment& f, const Topology& topology) {
  const ExportSource size = f.need("l2", "size", kCacheBytes);
  const ExportSource line = f.need("l2", "line", kLineBytes);
  const ExportSource ways = f.need("l2", "ways", kWays);
  if (!f.complete()) return f.skip("-gpgpu_cache:dl2");
  const double per_slice_set = f.number(line) * f.number(ways) * kAccelSimHopperL2Slices;
  const double sets = std::max(1.0, std::round(f.number(size) / per_slice_set));
  std::vector<std::string> notes;
  const Element& l2 = *topology.find("l2");
  // What an L2 miss fetches: less than a line means a sectored L2. Runs before the name existed
  // have it as l2.sector.
  const std::string fetch = l2.find("fetch_granularity") ? "fetch_granularity" : "sector";
  const char sectored = sectoring_letter(l2.find(fetch), f.number(line), notes, "l2." + fetch);
  const char policy = policy_letter(topology, "l2", notes);
  notes.push_back("sets per slice = l2.size / (line x ways x " +
                  std::to_string(kAccelSimHopperL2Slices) +
                  " slices: Accel-Sim's Hopper -gpgpu_n_mem 40 x 2 sub-partitions, not "
                  "measured); " +
                  format_bytes(sets * per_slice_set) + " in all");
  std::vector<ExportSource> sources{size, line, ways};
  add_sources_if_measured(topology, "l2", {fetch, "policy"}, sources);
  f.option("-gpgpu_cache:dl2",
           std::string(1, sectored) + ":" + integer_text(sets) + ":" +
               integer_text(f.number(line)) + ":" + integer_text(f.number(ways)) + "," + policy +
               ":" + kAccelSimHopperDl2Policies + "," + kAccelSimHopperDl2Rest,
           sources, notes);
}

// A latency as GPGPU-Sim takes it: one number for every access. Of a latency with near and far
// modes that is the typical one (typical_value: each mode's p50 weighted by its share), because
// the simulator gives every L2 access and every DRAM access the same latency, and Accel-Sim's
// tuner measures the average of a chase over both partitions; the headline (the near mode)
// would make every access a near one. The note says which modes went in.
double simulated_latency(const ExportSource& source, std::vector<std::string>& notes) {
  const Property& p = *source.property;
  const double headline = p.value.get<double>();
  if (p.modes.size() < 2) return headline;
  const double typical = typical_value(p).value_or(headline);
  notes.push_back(source.id + " has near and far modes (" + modes_text(p) +
                  "): its typical latency " + format_number(typical, 0) +
                  " cy (each mode's p50 weighted by its share) stands for every access, as "
                  "GPGPU-Sim gives all of them one latency and Accel-Sim's tuner averages a "
                  "chase over both; the near mode alone (" + format_number(headline, 0) +
                  " cy) would make every access near");
  return typical;
}

// An option Accel-Sim's tuner writes as the increment of `level`'s latency over `above`'s.
void add_increment(Fragment& f, const std::string& option, const std::string& level,
                   const std::string& above) {
  const ExportSource lower = f.need(above, "latency", kCycles);
  const ExportSource upper = f.need(level, "latency", kCycles);
  const std::string what = level + ".latency - " + above + ".latency";
  std::vector<std::string> notes{what + ", as Accel-Sim's tuner writes it"};
  double increment = 0;
  if (f.complete()) {
    increment = simulated_latency(upper, notes) - simulated_latency(lower, notes);
    f.within(what, increment, kCycles);
  }
  f.option(option, f.complete() ? integer_text(increment) : "", {upper, lower}, notes);
}

// Accel-Sim's tuner writes the L1 and shared-memory latencies as measured, and the L2 and DRAM
// ones as increments over the level above (l2_lat: L2 hit minus L1 hit).
void add_latencies(Fragment& f) {
  const ExportSource l1 = f.need("l1", "latency", kCycles);
  f.option("-gpgpu_l1_latency", f.complete() ? integer_text(f.number(l1)) : "", {l1});
  const ExportSource shared = f.need("shared", "latency", kCycles);
  f.option("-gpgpu_smem_latency", f.complete() ? integer_text(f.number(shared)) : "", {shared});
  add_increment(f, "-gpgpu_l2_rop_latency", "l2", "l1");
  add_increment(f, "-dram_latency", "dram", "l2");
}

// The carveout table's rows (reservation R, L1 size L1(R)) as GPGPU-Sim's adaptive L1, which
// gives a kernel the smallest carveout C >= its shared memory and an L1 of U - C. U is the
// largest L1(R) + R of the rows (l1.unified_size's rule: a lower bound, exact where a
// reservation is one of the device's carveout steps), in whole KiB, rounded up; each row's
// carveout is U - L1(R), rounded up to whole KiB, so the simulator's L1 for a kernel that
// reserves R is the L1 the device gave (at most 1 KiB less).
struct CarveoutRow {
  double l1_bytes = 0;
  double reserved_bytes = 0;
};

// The rows with both sizes; `problem` says which row holds a size GPGPU-Sim cannot take.
std::vector<CarveoutRow> carveout_rows(const nlohmann::json& table, std::string& problem) {
  std::vector<CarveoutRow> rows;
  if (!table.is_array()) return rows;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const nlohmann::json& row = table[i];
    if (!row.is_object()) continue;
    const auto l1 = row.find("l1_bytes");
    const auto reserved = row.find("reserved_shared_bytes");
    if (l1 == row.end() || reserved == row.end() || !l1->is_number() || !reserved->is_number())
      continue;
    for (const auto& [key, value] :
         {std::pair{"l1_bytes", l1}, {"reserved_shared_bytes", reserved}}) {
      if (const std::string bad = kCarveoutBytes.problem(*value); !bad.empty() && problem.empty())
        problem = "l1.carveout row " + std::to_string(i) + ": " + key + " " + bad;
    }
    rows.push_back({l1->get<double>(), reserved->get<double>()});
  }
  return rows;
}

void add_carveout(Fragment& f, const Topology& topology) {
  const ExportSource carveout = f.need("l1", "carveout");
  std::string problem;
  const std::vector<CarveoutRow> rows =
      f.complete() ? carveout_rows(carveout.property->value, problem) : std::vector<CarveoutRow>{};
  if (rows.empty() || !problem.empty()) {
    if (problem.empty() && f.complete()) problem = "l1.carveout has no rows";
    return f.skip(std::vector<std::string>{"-gpgpu_unified_l1d_size", "-gpgpu_shmem_option"},
                  problem);
  }
  double unified_bytes = 0;
  for (const CarveoutRow& row : rows)
    unified_bytes = std::max(unified_bytes, row.l1_bytes + row.reserved_bytes);
  const double unified_kib = std::ceil(unified_bytes / kKiB);
  // The options from what each row asked for, never from its measured L1 (two identical H200s
  // whose L1 rows differ by a KiB gave 5,61,... and 4,60,...): 0, each reservation plus the
  // shared memory the system keeps per block (the API's per-SM minus per-block opt-in limit),
  // in KiB rounded up, and the API's shared memory per SM, the largest carveout.
  const DeviceFacts& device = topology.device;
  const double system_bytes =
      device.shared_per_block_optin_bytes > 0 &&
              device.shared_per_sm_bytes > device.shared_per_block_optin_bytes
          ? static_cast<double>(device.shared_per_sm_bytes - device.shared_per_block_optin_bytes)
          : 0;
  std::set<long long> options_kib{0};
  for (const CarveoutRow& row : rows) {
    if (row.reserved_bytes > 0)
      options_kib.insert(static_cast<long long>(std::ceil((row.reserved_bytes + system_bytes) / kKiB)));
  }
  if (device.shared_per_sm_bytes > 0)
    options_kib.insert(static_cast<long long>(device.shared_per_sm_bytes / 1024));
  std::string list;
  for (long long kib : options_kib) list += (list.empty() ? "" : ",") + std::to_string(kib);
  f.option("-gpgpu_unified_l1d_size", integer_text(unified_kib), {carveout},
           {"the largest L1 + reservation of l1.carveout's rows (" + format_bytes(unified_bytes) +
            "), in KiB rounded up: a lower bound, exact where a reservation is a carveout step"});
  f.option("-gpgpu_shmem_option", list, {carveout},
           {"0, each l1.carveout row's reservation + " + format_bytes(system_bytes) +
            " the system keeps per block (API), in KiB rounded up, and the API's shared memory "
            "per SM (" + format_bytes(static_cast<double>(device.shared_per_sm_bytes)) +
            "): from what was asked, not from the measured L1"});
}

}  // namespace

std::string render_accel_sim_config(const Topology& topology) {
  std::ostringstream header;
  header << "# GPGPU-Sim / Accel-Sim config fragment (gpgpusim.config options) written by memtopo "
         << printable_text(topology.run.git_describe) << "\n"
         << "# from a run on " << printable_text(topology.device.name) << " at "
         << printable_text(topology.run.timestamp_utc) << "\n";
  if (topology.run.simulated) {
    header << "# SIMULATED DEVICE (" << printable_text(topology.run.sim_file)
           << "): not a measurement of real hardware\n";
  }
  header << "# Latencies are memtopo's overhead-corrected p50 in SM cycles, rounded.\n"
         << "# Paste the options over the same ones of a tested config (e.g. SM90_H100).\n\n";

  Fragment f(topology);
  std::vector<std::string> api_missing;
  header << accel_sim_api_options(topology.device, api_missing);
  for (const std::string& line : api_missing) f.add_missing(line);
  add_dl1(f, topology);
  add_dl2(f, topology);
  add_latencies(f);
  add_carveout(f, topology);
  add_constant_cache(f, topology);
  const ExportSource banks = f.need("shared", "banks", kBanks);
  f.option("-gpgpu_shmem_num_banks", f.complete() ? integer_text(f.number(banks)) : "", {banks});
  return header.str() + f.text();
}

}  // namespace memtopo
