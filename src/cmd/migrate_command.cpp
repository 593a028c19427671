#include "cmd/migrate_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "storage/backend_copy.h"
#include "storage/embedded/embedded_backend.h"
#include "storage/etcd3/etcd3_backend.h"
#include "util/strings.h"

namespace capstan::cmd {

namespace {

constexpr char kUsage[] =
    "Usage:\n"
    "  capstan migrate --from-data-dir DIR --to-etcd URLS [--etcd-prefix P] [--etcd-cafile F --etcd-certfile F --etcd-keyfile F]\n"
    "  capstan migrate --from-etcd URLS --to-data-dir NEW [--etcd-prefix P] [the same TLS flags]\n";

int UsageError(const std::string& msg) {
  std::fprintf(stderr, "Error: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

int Failure(const std::string& msg) {
  std::fprintf(stderr, "Error: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int RunMigrateCommand(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::map<std::string, std::string> flags;
  static const char* kFlags[] = {"--from-data-dir", "--to-etcd", "--from-etcd", "--to-data-dir", "--etcd-prefix",
                                 "--etcd-cafile",   "--etcd-certfile", "--etcd-keyfile"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string name = a, value;
    bool inline_value = false;
    if (auto eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    bool known = false;
    for (const char* f : kFlags) known = known || name == f;
    if (!known) return UsageError("unknown argument: " + a);
    if (!inline_value) {
      if (i + 1 >= args.size()) return UsageError("flag needs an argument: " + name);
      value = args[++i];
    }
    flags[name] = value;
  }
  const bool to_etcd = flags.count("--from-data-dir") && flags.count("--to-etcd");
  const bool from_etcd = flags.count("--from-etcd") && flags.count("--to-data-dir");
  if (to_etcd == from_etcd || flags.count("--from-data-dir") + flags.count("--to-data-dir") != 1) {
    return UsageError("give either --from-data-dir and --to-etcd, or --from-etcd and --to-data-dir");
  }
  const std::string prefix = flags.count("--etcd-prefix") ? flags["--etcd-prefix"] : "/registry";

  storage::EmbeddedOptions eo;
  eo.dir = (to_etcd ? flags["--from-data-dir"] : flags["--to-data-dir"]) + "/store";
  std::error_code ec;
  const bool store_exists = std::filesystem::exists(eo.dir + "/data.mdb", ec);
  if (to_etcd && !store_exists) return Failure("no embedded store in " + eo.dir + " (" + eo.dir + "/data.mdb does not exist)");
  if (from_etcd && store_exists) {
    return Failure("refusing to migrate into " + flags["--to-data-dir"] + ": it already holds a store (" + eo.dir +
                   "/data.mdb); use a new data dir");
  }
  auto embedded = storage::OpenEmbeddedBackend(eo);
  if (!embedded.ok()) return Failure(embedded.status().message());

  storage::etcd3::EtcdOptions xo;
  for (auto& e : Split(to_etcd ? flags["--to-etcd"] : flags["--from-etcd"], ',')) {
    if (!e.empty()) xo.endpoints.push_back(e);
  }
  xo.ca_file = flags["--etcd-cafile"];
  xo.cert_file = flags["--etcd-certfile"];
  xo.key_file = flags["--etcd-keyfile"];
  auto etcd = storage::etcd3::OpenEtcd3Backend(xo);
  if (!etcd.ok()) return Failure(etcd.status().message());
  if (Status st = (*etcd)->WaitForConnected(std::chrono::seconds(30)); !st.ok()) {
    return Failure("etcd is not reachable at " + Join(xo.endpoints, ",") + ": " + st.message());
  }

  const auto start = std::chrono::steady_clock::now();
  storage::Backend& from = to_etcd ? static_cast<storage::Backend&>(**embedded) : static_cast<storage::Backend&>(**etcd);
  storage::Backend& to = to_etcd ? static_cast<storage::Backend&>(**etcd) : static_cast<storage::Backend&>(**embedded);
  auto copied = storage::CopyKeys(from, to, prefix + "/");
  if (!copied.ok()) return Failure(copied.status().message());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("migrated %lld keys (%lld bytes, %lld leases) under %s/ from %s at revision %lld to %s at revision %lld "
              "in %.3fs\n",
              static_cast<long long>(copied->keys), static_cast<long long>(copied->bytes),
              static_cast<long long>(copied->leases), prefix.c_str(),
              to_etcd ? eo.dir.c_str() : Join(xo.endpoints, ",").c_str(), static_cast<long long>(copied->source_revision),
              to_etcd ? Join(xo.endpoints, ",").c_str() : eo.dir.c_str(), static_cast<long long>(copied->target_revision),
              secs);
  if (copied->expired_keys > 0) {
    std::printf("left out %lld keys whose lease had expired\n", static_cast<long long>(copied->expired_keys));
  }
  return 0;
}

}  // namespace capstan::cmd
