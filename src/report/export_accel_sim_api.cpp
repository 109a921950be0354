#include "report/export_accel_sim_api.hpp"

#include "model/units.hpp"

namespace memtopo {
namespace {

constexpr double kKhzPerMhz = 1000;

class ApiOptions {
 public:
  explicit ApiOptions(std::vector<std::string>& not_written) : not_written_(not_written) {}

  // Writes `name value` with its source, or lists it as not written when `known` is false.
  void option(const std::string& name, bool known, const std::string& value,
              const std::string& source, const std::string& note = "") {
    if (!known) {
      not_written_.push_back(name + " (" + source + " not reported by the API in this run)");
      return;
    }
    text_ += "# source: api, " + source + "\n";
    if (!note.empty()) text_ += "# note: " + note + "\n";
    text_ += "# confidence: none (an API value, not measured)\n" + name + " " + value + "\n\n";
  }
  const std::string& text() const { return text_; }

 private:
  std::vector<std::string>& not_written_;
  std::string text_;
};

std::string mhz(std::uint64_t khz) {
  return format_number(static_cast<double>(khz) / kKhzPerMhz, 1);
}

}  // namespace

std::string accel_sim_api_options(const DeviceFacts& device, std::vector<std::string>& not_written) {
  ApiOptions api(not_written);
  const std::string sms = std::to_string(device.sm_count);
  api.option("-gpgpu_n_clusters", device.sm_count > 0, sms, "device.sm_count = " + sms,
             "one SM per cluster, as Accel-Sim's configs of recent GPUs");
  api.option("-gpgpu_n_cores_per_cluster", device.sm_count > 0, "1", "device.sm_count = " + sms);
  const bool clocks = device.sm_clock_khz > 0 && device.memory_clock_khz > 0;
  const std::string core = mhz(device.sm_clock_khz);
  api.option("-gpgpu_clock_domains", clocks,
             core + ":" + core + ":" + core + ":" + mhz(device.memory_clock_khz),
             "device.sm_clock_khz = " + std::to_string(device.sm_clock_khz) +
                 ", device.memory_clock_khz = " + std::to_string(device.memory_clock_khz),
             "core:interconnect:L2:DRAM in MHz; interconnect and L2 at the SM clock as Accel-Sim's "
             "configs; DRAM at the memory clock the API reports (check -gpgpu_dram_timing_opt)");
  api.option("-gpgpu_shmem_size", device.shared_per_sm_bytes > 0,
             std::to_string(device.shared_per_sm_bytes),
             "device.shared_per_sm_bytes = " + format_bytes(double(device.shared_per_sm_bytes)));
  api.option("-gpgpu_shmem_per_block", device.shared_per_block_bytes > 0,
             std::to_string(device.shared_per_block_bytes),
             "device.shared_per_block_bytes = " +
                 format_bytes(double(device.shared_per_block_bytes)),
             "without opt-in; a block may opt in to " +
                 format_bytes(double(device.shared_per_block_optin_bytes)));
  return api.text();
}

}  // namespace memtopo
