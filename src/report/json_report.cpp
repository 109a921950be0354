#include "report/json_report.hpp"

#include "model/json.hpp"
#include "report/output_file.hpp"

namespace memtopo {

std::string render_json(const Topology& topology) {
  // Every string memtopo stores from outside (arguments, paths, names) is made printable UTF-8
  // first; `replace` is the last guard, so that a finished run never fails on an encoding.
  return topology_to_json(topology).dump(2, ' ', false,
                                         nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

void write_json_file(const Topology& topology, const std::filesystem::path& path) {
  write_output(prepare_output(path.string()), render_json(topology), /*flush_to_disk=*/true);
}

}  // namespace memtopo
