#pragma once
// Stand-ins for a backend and for probes, so the runner and CLI helpers are tested without a
// device and without the real probe set.
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "probes/core/probe.hpp"

namespace memtopo::testing {

class FakeBackend : public Backend {
 public:
  std::string_view kind() const override { return "sim"; }
  const DeviceFacts& facts() const override { return facts_; }
  BackendLimits limits() const override { return {}; }
  std::vector<Trace> run(std::span<const ChaseSpec> batch) override {
    std::vector<Trace> traces(batch.size());
    for (auto& trace : traces) trace.cycles = {30, 31};
    return traces;
  }
  // Returns the queued clocks in turn, then 0 ("cannot tell").
  double current_sm_clock_khz() override {
    if (clocks.empty()) return 0;
    double khz = clocks.front();
    clocks.pop_front();
    return khz;
  }

  std::deque<double> clocks;

 private:
  DeviceFacts facts_;
};

class FakeProbe : public Probe {
 public:
  FakeProbe(
      std::string id, std::vector<std::string> needs = {},
      std::function<void(ProbeContext&)> body = [](ProbeContext&) {})
      : id_(std::move(id)), needs_(std::move(needs)), body_(std::move(body)) {}
  std::string id() const override { return id_; }
  std::string description() const override { return "fake " + id_; }
  std::vector<std::string> needs() const override { return needs_; }
  void run(ProbeContext& ctx) override { body_(ctx); }

 private:
  std::string id_;
  std::vector<std::string> needs_;
  std::function<void(ProbeContext&)> body_;
};

}  // namespace memtopo::testing
