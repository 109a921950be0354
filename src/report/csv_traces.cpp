#include "report/csv_traces.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "report/output_error.hpp"

namespace memtopo {
namespace {

// Labels are probe ids ("l1.size"); anything unusual becomes '_' so the name is portable.
std::string file_safe(const std::string& label) {
  std::string out = label.empty() ? "experiment" : label;
  for (char& c : out) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return out;
}

// Whole numbers (clocks in kHz, overheads) without an exponent; others with enough digits to
// re-analyse them.
std::string number_text(double value) {
  char text[64];
  if (value == static_cast<double>(static_cast<long long>(value)) && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(text, sizeof text, "%.9g", value);
  }
  return text;
}

}  // namespace

std::string describe_experiment(const ChaseSpec& spec, const Trace& trace) {
  std::ostringstream out;
  out << "path=" << to_string(spec.path) << " footprint_bytes=" << spec.footprint_bytes
      << " stride_bytes=" << spec.stride_bytes << " order=" << to_string(spec.order)
      << " seed=" << spec.seed;
  if (spec.order == ChaseOrder::explicit_indices) out << " indices=" << chain_length(spec);
  if (is_wide(spec)) out << " wide=true";
  out << " start_index=" << spec.start_index << " warm_passes=" << spec.warm_passes
      << " timed_loads=" << spec.timed_loads << " chasers=" << spec.chasers
      << " schedule=" << (spec.schedule == ChaserSchedule::sequential ? "sequential" : "concurrent")
      << " sm=" << (spec.sm ? std::to_string(*spec.sm) : std::string("any"))
      << " flush_device_caches=" << (spec.flush_device_caches ? "true" : "false");
  out << " | ran_on_sm=" << trace.sm_id << " overhead_cycles=" << number_text(trace.overhead_cycles)
      << " clock_khz=" << number_text(trace.clock_khz);
  return out.str();
}

void write_trace_csv(std::ostream& out, const std::string& label, const ChaseSpec& spec,
                     const Trace& trace) {
  out << "# " << label << ": " << describe_experiment(spec, trace) << "\n";
  out << "access,chaser,index,cycles\n";
  const std::size_t per_chaser = spec.timed_loads ? spec.timed_loads : trace.cycles.size();
  for (std::size_t i = 0; i < trace.cycles.size(); ++i) {
    std::size_t chaser = per_chaser ? i / per_chaser : 0;
    std::size_t access = per_chaser ? i % per_chaser : i;
    out << access << "," << chaser << ",";
    if (i < trace.indices.size()) out << trace.indices[i];  // empty when the backend gave none
    if (i < trace.wide_indices.size()) out << trace.wide_indices[i];  // wide chains
    out << "," << trace.cycles[i] << "\n";
  }
}

CsvTraceWriter::CsvTraceWriter(std::filesystem::path directory) : directory_(std::move(directory)) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error || !std::filesystem::is_directory(directory_)) {
    throw OutputError("cannot create trace directory " + directory_.string() + ": " +
                      (error ? error.message() : "a file of that name exists"));
  }
}

void CsvTraceWriter::record(const std::string& label, const ChaseSpec& spec, const Trace& trace) {
  char number[32];
  std::snprintf(number, sizeof number, "%05zu_", files_written_);
  std::filesystem::path path = directory_ / (number + file_safe(label) + ".csv");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw OutputError("cannot write trace " + path.string() + ": " + std::strerror(errno));
  write_trace_csv(file, label, spec, trace);
  file.flush();
  if (!file) throw OutputError("cannot write trace " + path.string() + ": " + std::strerror(errno));
  ++files_written_;
}

}  // namespace memtopo
