#include "cli/subcommands.hpp"

#include <algorithm>

#include "cli/compare_command.hpp"
#include "cli/export_command.hpp"
#include "cli/fleet_command.hpp"
#include "cli/report_command.hpp"
#include "cli/study_command.hpp"

namespace memtopo {
namespace {

// report parses argv as if it were its own program (argv[0] = "report").
int run_report(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return run_report_command(argc - 1, argv + 1, out, err);
}

}  // namespace

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> list{
      {"report", "RUN.json: render a saved run as HTML and/or markdown", run_report},
      {"compare", "A.json B.json: two saved runs, judged against their spreads",
       run_compare_command},
      {"export", "accel-sim RUN.json FILE: a saved run as a GPGPU-Sim config fragment",
       run_export_command},
      {"fleet", "DIR-or-FILE...: the GPUs that differ from their model's fleet",
       run_fleet_command},
      {"study", "ID: measure a code pattern (memtopo study --list names them)",
       run_study_command},
  };
  return list;
}

const Subcommand* find_subcommand(const std::string& name) {
  for (const Subcommand& subcommand : subcommands()) {
    if (name == subcommand.name) return &subcommand;
  }
  return nullptr;
}

std::string subcommands_help() {
  std::size_t width = 0;
  for (const Subcommand& subcommand : subcommands())
    width = std::max(width, std::string(subcommand.name).size());
  std::string text = "Subcommands (memtopo SUBCOMMAND --help shows each one's options):\n";
  for (const Subcommand& subcommand : subcommands()) {
    const std::string name = subcommand.name;
    text += "  " + name + std::string(width + 2 - name.size(), ' ') + subcommand.summary + "\n";
  }
  return text;
}

}  // namespace memtopo
