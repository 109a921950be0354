#include <string>

#include "probes/core/probe.hpp"

namespace memtopo {

StreamResult ProbeContext::run_stream(const StreamSpec& spec, const std::string& label) const {
  check_interrupted();
  StreamExperiments* streams = backend.streams();
  if (!streams) throw StreamsUnsupported("streams are not supported by this backend");
  StreamResult result = streams->run_stream(spec);
  // A one-pass grid's clock is NVML's (no warp lives through the launch), not a measurement.
  if (spec.placement != StreamPlacement::one_pass) sm_clocks->add(result.sm_clock_khz);
  if (record_stream) record_stream(label, spec, result);
  return result;
}

std::vector<Trace> ProbeContext::run_warp_access(std::span<const WarpAccessSpec> batch,
                                                 const std::string& label) const {
  check_interrupted();
  WarpAccessExperiments* warp = backend.warp_access();
  if (!warp) {
    throw ProbeSkipped("the " + std::string(backend.kind()) +
                       " backend runs no warp-wide shared-memory access");
  }
  std::vector<Trace> traces = warp->run_warp_access(batch);
  for (const Trace& trace : traces) sm_clocks->add(trace.clock_khz);
  if (record_warp_access) {
    for (std::size_t i = 0; i < traces.size(); ++i) record_warp_access(label, batch[i], traces[i]);
  }
  return traces;
}

L2FirstTouchResult ProbeContext::run_l2_first_touch(const L2FirstTouchSpec& spec,
                                                    const std::string& label) const {
  check_interrupted();
  L2FirstTouchExperiments* touches = backend.l2_first_touch();
  if (!touches) {
    throw ProbeSkipped("the " + std::string(backend.kind()) +
                       " backend runs no cross-SM L2 first-touch experiment");
  }
  L2FirstTouchResult result = touches->run_l2_first_touch(spec);
  sm_clocks->add(result.clock_khz);
  if (record_first_touch) record_first_touch(label, spec, result);
  return result;
}

}  // namespace memtopo
