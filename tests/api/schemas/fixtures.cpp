#include "api/schemas/fixtures.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace capstan::api::testing {

namespace fs = std::filesystem;

std::optional<std::string> FixtureDir() {
  if (const char* env = std::getenv("CAPSTAN_API_FIXTURES"); env != nullptr && *env != '\0') {
    if (fs::is_directory(env)) return std::string(env);
    return std::nullopt;
  }
  std::string root = CAPSTAN_TEST_SOURCE_ROOT;
  if (const char* env = std::getenv("CAPSTAN_SOURCE_DIR"); env != nullptr && *env != '\0') root = env;
  fs::path p = fs::path(root) / ".." / "shared" / "k8s-api-fixtures" / "HEAD";
  std::error_code ec;
  if (!fs::is_directory(p, ec)) return std::nullopt;
  return fs::weakly_canonical(p, ec).string();
}

std::vector<Fixture> ListFixtures(const std::string& dir) {
  std::vector<Fixture> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::string name = entry.path().stem().string();
    size_t k = name.rfind('.');
    if (k == std::string::npos || k == 0) continue;
    size_t v = name.rfind('.', k - 1);
    if (v == std::string::npos) continue;
    Fixture f;
    f.name = name;
    f.kind = name.substr(k + 1);
    f.version = name.substr(v + 1, k - v - 1);
    f.group = name.substr(0, v);
    if (f.group == "core") f.group = "";
    f.base = (fs::path(dir) / name).string();
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  return out;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace capstan::api::testing
