#include "report/fleet_render.hpp"

#include <cmath>
#include <sstream>

#include "model/printable_text.hpp"
#include "model/units.hpp"
#include "report/property_values.hpp"
#include "report/text_table.hpp"

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kFleetTableWidth = 140;

std::string z_text(const FleetValue& value) {
  if (!value.z) return "inf";  // the fleet's MAD is 0: every other value is infinitely far
  return (*value.z > 0 ? "+" : "") + format_number(*value.z, 1);
}

std::string outliers_text(const Fleet& fleet) {
  TextTable table({{"GPU", TextTable::Align::left, TextTable::Overflow::shorten},
                   {"element.property"},
                   {"value", TextTable::Align::right},
                   {"fleet median", TextTable::Align::right},
                   {"robust z", TextTable::Align::right},
                   {"own ± SE", TextTable::Align::right},
                   {"file", TextTable::Align::left, TextTable::Overflow::shorten}});
  std::size_t rows = 0;
  for (const FleetGroup& group : fleet.groups) {
    for (const FleetProperty& p : group.properties) {
      for (const FleetValue& v : p.values) {
        if (!v.outlier) continue;
        const FleetGpu& gpu = fleet.gpus[v.gpu];
        // What the GPU knows of its own value: its median's standard error (FleetValue).
        const std::string own =
            v.standard_error ? "± " + format_value(*v.standard_error, p.unit) : "-";
        table.add_row({printable_text(gpu.label), printable_text(p.element + "." + p.property),
                       format_value(v.value, p.unit), format_value(p.median, p.unit), z_text(v),
                       own, printable_text(gpu.origin)});
        ++rows;
      }
    }
  }
  if (rows == 0) return "No GPU differs from its model's fleet.\n";
  return "Outliers (" + std::to_string(rows) + "):\n" + table.render(2, kFleetTableWidth);
}

std::string group_text(const Fleet& fleet, const FleetGroup& group) {
  std::ostringstream out;
  out << "  " << printable_text(group.model) << ": " << group.gpus.size()
      << (group.gpus.size() == 1 ? " GPU" : " GPUs");
  if (group.too_small) {
    out << ", too small to judge (at least " << fleet.rules.min_gpus
        << " GPUs of a model are needed); nothing flagged\n";
  } else {
    out << ", " << group.properties.size() << " properties judged, " << group.outliers()
        << (group.outliers() == 1 ? " value" : " values") << " outside\n";
  }
  for (const std::size_t index : group.incomplete) {
    out << "    left out, incomplete (the run was killed): "
        << printable_text(fleet.gpus[index].origin) << "\n";
  }
  return out.str();
}

ojson gpu_to_json(const FleetGpu& gpu) {
  ojson slurm = nullptr;
  if (gpu.slurm) {
    slurm = ojson{{"job_id", gpu.slurm->job_id},
                  {"proc_id", gpu.slurm->proc_id ? ojson(*gpu.slurm->proc_id) : ojson(nullptr)},
                  {"local_id", gpu.slurm->local_id ? ojson(*gpu.slurm->local_id) : ojson(nullptr)}};
  }
  return ojson{{"file", printable_text(gpu.origin)},
               {"label", printable_text(gpu.label)},
               {"host", gpu.host},
               {"uuid", gpu.uuid},
               {"pci_bus_id", gpu.pci_bus_id},
               {"driver_version", gpu.driver_version},
               {"slurm", slurm},
               {"simulated", gpu.simulated},
               {"sim_file", gpu.sim_file},
               {"complete", gpu.complete}};
}

ojson property_to_json(const FleetProperty& p) {
  ojson values = ojson::array();
  for (const FleetValue& v : p.values) {
    values.push_back(ojson{{"gpu", v.gpu},
                           {"value", v.value},
                           {"p5", optional_number(v.p5)},
                           {"p95", optional_number(v.p95)},
                           {"standard_error", optional_number(v.standard_error)},
                           {"robust_z", optional_number(v.z)},
                           {"weak", v.weak},
                           {"outlier", v.outlier},
                           {"why", v.why}});
  }
  return ojson{{"element", p.element},
               {"property", p.property},
               {"unit", p.unit},
               {"median", p.median},
               {"robust_sigma", p.robust_sigma},
               {"fleet_tolerance", p.fleet_tolerance},
               {"outliers", p.outliers()},
               {"not_conclusive", p.not_conclusive},
               {"values", std::move(values)}};
}

ojson group_to_json(const FleetGroup& group) {
  ojson properties = ojson::array();
  for (const FleetProperty& p : group.properties) properties.push_back(property_to_json(p));
  return ojson{{"model", group.model},           {"gpus", group.gpus},
               {"incomplete", group.incomplete}, {"too_small", group.too_small},
               {"outliers", group.outliers()},   {"properties", std::move(properties)}};
}

}  // namespace

std::string render_fleet_text(const Fleet& fleet) {
  std::string text = outliers_text(fleet) + "\nModels (" + std::to_string(fleet.gpus.size()) +
                     (fleet.gpus.size() == 1 ? " GPU" : " GPUs") + " read):\n";
  for (const FleetGroup& group : fleet.groups) text += group_text(fleet, group);
  text += fleet.outliers() == 0
              ? "The fleet agrees: no GPU is outside both its own spread and its fleet's.\n"
              : std::to_string(fleet.outliers()) +
                    (fleet.outliers() == 1 ? " value is" : " values are") +
                    " outside both their own spread and their fleet's.\n";
  return text;
}

nlohmann::ordered_json fleet_to_json(const Fleet& fleet) {
  ojson out;
  out["schema"] = kFleetSchema;
  out["rules"] = ojson{{"z_threshold", fleet.rules.z_threshold},
                       {"relative_floor", fleet.rules.relative_floor},
                       {"stdev_factor", fleet.rules.stdev_factor},
                       {"confidence_threshold", fleet.rules.confidence_threshold},
                       {"min_gpus", fleet.rules.min_gpus}};
  out["outliers"] = fleet.outliers();
  ojson gpus = ojson::array();
  for (const FleetGpu& gpu : fleet.gpus) gpus.push_back(gpu_to_json(gpu));
  out["gpus"] = std::move(gpus);
  ojson groups = ojson::array();
  for (const FleetGroup& group : fleet.groups) groups.push_back(group_to_json(group));
  out["models"] = std::move(groups);
  return out;
}

}  // namespace memtopo
