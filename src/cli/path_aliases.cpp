#include "cli/path_aliases.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "model/printable_text.hpp"

namespace memtopo {
namespace {

namespace fs = std::filesystem;

// Symlinks followed before giving up (the kernel's own limit is 40).
constexpr int kMaxSymlinks = 40;

// What a path names: a file that exists (device and inode), or the place a new one would be.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string place;

  bool operator==(const FileIdentity& other) const {
    if (exists != other.exists) return false;
    return exists ? device == other.device && inode == other.inode : place == other.place;
  }
};

// A path that does not exist yet, after the symlinks on the way to it (a dangling link names
// its target's place).
std::string resolved_place(const std::string& path) {
  fs::path current = path;
  std::error_code error;
  for (int step = 0; step < kMaxSymlinks && fs::is_symlink(fs::symlink_status(current, error));
       ++step) {
    const fs::path link = fs::read_symlink(current, error);
    if (error) break;
    current = link.is_absolute() ? link : current.parent_path() / link;
  }
  const fs::path place = fs::weakly_canonical(fs::absolute(current, error), error);
  return error ? current.lexically_normal().string() : place.string();
}

// nullopt for what is never "the same file" (standard output, a character device).
std::optional<FileIdentity> identify(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) {
    if (S_ISCHR(status.st_mode)) return std::nullopt;
    return FileIdentity{true, status.st_dev, status.st_ino, ""};
  }
  return FileIdentity{false, 0, 0, resolved_place(path)};
}

std::string named(const PathUse& use) {
  return use.option + " " + printable_text(use.path);
}

}  // namespace

std::string aliased_paths(const std::vector<PathUse>& uses) {
  std::vector<std::optional<FileIdentity>> identities;
  for (const PathUse& use : uses) identities.push_back(identify(use.path));
  for (std::size_t i = 0; i < uses.size(); ++i) {
    if (!uses[i].output || !identities[i]) continue;
    for (std::size_t j = 0; j < uses.size(); ++j) {
      if (j == i || !identities[j] || !(*identities[i] == *identities[j])) continue;
      if (!uses[j].output) {
        return named(uses[i]) + " is the input " + named(uses[j]) +
               ": writing it would destroy the input; name another file";
      }
      if (j < i) {
        return named(uses[j]) + " and " + named(uses[i]) +
               " are the same file: one output would replace the other; name two files";
      }
    }
  }
  return "";
}

std::string option_given_as_path(const std::string& option, const std::string& value) {
  if (value.rfind("--", 0) != 0) return "";
  const std::string shown = printable_text(value);
  return option + " was given '" + shown + "', which is an option, not a file: name the file (./" +
         shown + " for a file of that name)";
}

}  // namespace memtopo
