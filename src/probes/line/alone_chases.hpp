#pragma once
// The chases of a device-wide cache (L2) run alone, a batch of one each, so that no other chase
// disturbs them; this runs them and counts what they cost.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/core/chase_helpers.hpp"
#include "probes/core/probe.hpp"

namespace memtopo {

class AloneChases {
 public:
  AloneChases(ProbeContext& ctx, std::string id) : ctx_(ctx), id_(std::move(id)) {}

  Trace run(const ChaseSpec& spec, const std::string& phase) {
    loads_ += loads_of(spec);
    ++batches_;
    return std::move(ctx_.run(std::vector<ChaseSpec>{spec}, id_ + "/" + phase).front());
  }
  nlohmann::json cost_evidence() const { return {{"batches", batches_}, {"loads", loads_}}; }

 private:
  ProbeContext& ctx_;
  std::string id_;
  std::uint64_t loads_ = 0, batches_ = 0;
};

}  // namespace memtopo
