#pragma once
// `memtopo fleet`: many runs of GPUs of one model (a cluster's), each property's fleet median and
// robust spread, and the GPUs that differ: outside both their own measured spread and the fleet's.
// Different models are never compared. docs/fleet.md states the rule; this is where it lives.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/topology.hpp"
#include "report/run_file.hpp"

namespace memtopo {

// The judgement's knobs, named so that the documentation and tests can quote them.
struct FleetRules {
  // A GPU is outside the fleet when its robust z-score, |value - median| / (1.4826 x MAD), is
  // above this (Iglewicz and Hoaglin's 3.5 for the modified z-score) ...
  double z_threshold = 3.5;
  // ... and |value - median| is above this fraction of the median (one quantisation step of a
  // fleet whose MAD is 0 is not a difference; compare's relative floor) ...
  double relative_floor = 0.01;
  // ... and outside its own spread: more than this many standard errors of its own median (from
  // its samples' stdev and count) from the fleet's median (or beyond its search's resolution).
  double stdev_factor = 3.0;
  // A value whose confidence is below this (analysis/confidence.hpp kLowConfidence) is weak: it
  // counts in the fleet's statistics, but a GPU is never named on a value its run doubted.
  double confidence_threshold = 0.5;
  // A model with fewer GPUs than this is too small to judge: nothing is flagged.
  std::size_t min_gpus = 3;
};

// One GPU of the fleet: what names it (docs/fleet.md, "Which GPU").
struct FleetGpu {
  std::string origin;  // the file (and " devices[i]" for a multi-device run)
  std::string label;   // host and UUID (or PCI bus id, device index, simulated file)
  std::string host;
  std::string uuid;
  std::string pci_bus_id;
  int driver_version = 0;
  std::optional<SlurmTask> slurm;
  bool simulated = false;
  std::string sim_file;
  bool complete = true;  // false: the run was killed; its values are left out
};

// One GPU's value of a property.
struct FleetValue {
  std::size_t gpu = 0;  // index into Fleet::gpus
  double value = 0;
  std::optional<double> p5;  // its own spread, where it describes the value
  std::optional<double> p95;
  std::optional<double> standard_error;  // of its own median: what it knows of its value
  std::optional<double> z;  // robust z-score; none when the MAD is 0
  bool weak = false;        // confidence below FleetRules::confidence_threshold: never an outlier
  bool outlier = false;
  std::string why;  // for an outlier: the rule's figures
};

struct FleetProperty {
  std::string element;
  std::string property;  // a mode after the headline is "latency (far mode)"
  std::string unit;
  double median = 0;
  double robust_sigma = 0;         // 1.4826 x the median absolute deviation (analysis/stats.hpp)
  double fleet_tolerance = 0;      // the largest |value - median| inside the fleet's spread
  std::vector<FleetValue> values;  // the GPUs with a conclusive number, in fleet order
  std::size_t not_conclusive = 0;  // GPUs whose value was inconclusive, absent or not a number
  std::size_t outliers() const;
};

// GPUs of one model: same name, compute capability, SM count and backend.
struct FleetGroup {
  std::string model;              // "NVIDIA H200 (cc 9.0, 132 SMs)"
  std::vector<std::size_t> gpus;  // indices into Fleet::gpus, complete runs only
  std::vector<std::size_t> incomplete;
  bool too_small = false;                 // fewer than FleetRules::min_gpus: nothing judged
  std::vector<FleetProperty> properties;  // numeric properties, first GPU's order
  std::size_t outliers() const;
};

struct Fleet {
  FleetRules rules;
  std::vector<FleetGpu> gpus;
  std::vector<FleetGroup> groups;
  std::size_t outliers() const;
};

// The fleet of these runs (one entry per GPU, read_run_entries).
Fleet analyse_fleet(const std::vector<RunEntry>& entries, const FleetRules& rules = {});

}  // namespace memtopo
