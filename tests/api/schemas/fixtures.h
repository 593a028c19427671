#pragma once

// The upstream API round-trip fixtures (../shared/k8s-api-fixtures/HEAD): where they are and
// which kinds they hold. Files are named <group>.<version>.<Kind>.{json,yaml,pb}, with "core" for
// the core group. Pure functions over the file system; thread-safe.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace capstan::api::testing {

struct Fixture {
  std::string name;     // "apps.v1.Deployment"
  std::string group;    // "apps"; "" for core
  std::string version;  // "v1"
  std::string kind;     // "Deployment"
  std::string base;     // path without extension
};

// For GoogleTest's messages.
inline void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

// $CAPSTAN_API_FIXTURES, else <source root>/../shared/k8s-api-fixtures/HEAD (the source root is
// $CAPSTAN_SOURCE_DIR, else the one this file was compiled from). nullopt when the folder is absent.
std::optional<std::string> FixtureDir();

// Every fixture in dir that has a .json file, sorted by name.
std::vector<Fixture> ListFixtures(const std::string& dir);

// Whole file contents; nullopt when unreadable.
std::optional<std::string> ReadFile(const std::string& path);

}  // namespace capstan::api::testing
