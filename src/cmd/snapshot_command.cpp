#include "cmd/snapshot_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "storage/embedded/snapshot.h"

namespace capstan::cmd {

namespace {

constexpr char kUsage[] =
    "Usage:\n"
    "  capstan snapshot save FILE [--data-dir DIR]\n"
    "  capstan snapshot restore FILE --data-dir NEW\n"
    "  capstan snapshot status FILE [--write-out=simple|table|json]\n";

int UsageError(const std::string& msg) {
  std::fprintf(stderr, "Error: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

int Failure(const Status& st) {
  std::fprintf(stderr, "Error: %s\n", st.message().c_str());
  return 1;
}

// go-humanize's Bytes (SI units), as etcdctl prints TOTAL SIZE.
std::string HumanBytes(int64_t n) {
  if (n < 10) return std::to_string(n) + " B";
  static const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  const double s = static_cast<double>(n);
  int e = static_cast<int>(std::floor(std::log(s) / std::log(1000.0)));
  e = std::min(e, 6);
  double val = std::floor(s / std::pow(1000.0, e) * 10 + 0.5) / 10;
  char buf[64];
  std::snprintf(buf, sizeof(buf), val < 10 ? "%.1f %s" : "%.0f %s", val, kUnits[e]);
  return buf;
}

void PrintStatus(const storage::embedded::SnapshotStatus& s, const std::string& format) {
  char hash[16];
  std::snprintf(hash, sizeof(hash), "%x", s.hash);
  const std::string size = HumanBytes(s.total_size);
  if (format == "json") {
    std::printf("{\"hash\":%u,\"revision\":%lld,\"totalKey\":%lld,\"totalSize\":%lld}\n", s.hash,
                static_cast<long long>(s.revision), static_cast<long long>(s.total_keys),
                static_cast<long long>(s.total_size));
  } else if (format == "table") {
    std::vector<std::string> cells = {hash, std::to_string(s.revision), std::to_string(s.total_keys), size};
    std::vector<std::string> heads = {"HASH", "REVISION", "TOTAL KEYS", "TOTAL SIZE"};
    std::vector<size_t> w;
    for (size_t i = 0; i < 4; ++i) w.push_back(std::max(cells[i].size(), heads[i].size()));
    auto rule = [&] {
      std::string r = "+";
      for (size_t x : w) r += std::string(x + 2, '-') + "+";
      std::printf("%s\n", r.c_str());
    };
    rule();
    std::string line = "|";
    for (size_t i = 0; i < 4; ++i) {  // headers centred, as tablewriter does
      size_t pad = w[i] - heads[i].size();
      line += " " + std::string(pad / 2, ' ') + heads[i] + std::string(pad - pad / 2, ' ') + " |";
    }
    std::printf("%s\n", line.c_str());
    rule();
    line = "|";
    for (size_t i = 0; i < 4; ++i) {  // numbers right-aligned, text left
      size_t pad = w[i] - cells[i].size();
      bool right = i == 1 || i == 2;
      line += " " + (right ? std::string(pad, ' ') + cells[i] : cells[i] + std::string(pad, ' ')) + " |";
    }
    std::printf("%s\n", line.c_str());
    rule();
  } else {
    std::printf("%s, %lld, %lld, %s\n", hash, static_cast<long long>(s.revision), static_cast<long long>(s.total_keys),
                size.c_str());
  }
}

}  // namespace

int RunSnapshotCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string verb = args[0];
  std::vector<std::string> positional;
  std::string data_dir = "./capstan-data";
  bool data_dir_set = false;
  std::string write_out = "simple";
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& name, std::string& out) {
      if (a == name) {
        if (i + 1 >= args.size()) return false;
        out = args[++i];
        return true;
      }
      out = a.substr(name.size() + 1);
      return true;
    };
    if (a == "--data-dir" || a.rfind("--data-dir=", 0) == 0) {
      if (!value("--data-dir", data_dir)) return UsageError("flag needs an argument: --data-dir");
      data_dir_set = true;
    } else if (a == "--write-out" || a.rfind("--write-out=", 0) == 0 || a == "-w" || a.rfind("-w=", 0) == 0) {
      if (!value(a[1] == 'w' ? "-w" : "--write-out", write_out)) return UsageError("flag needs an argument: --write-out");
      if (write_out != "simple" && write_out != "table" && write_out != "json") {
        return UsageError("unsupported output format " + write_out + " (simple, table or json)");
      }
    } else if (!a.empty() && a[0] == '-') {
      return UsageError("unknown flag: " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 1) return UsageError("snapshot " + verb + " takes one FILE argument");
  const std::string& file = positional[0];
  const std::string store = data_dir + "/store";
  const auto start = std::chrono::steady_clock::now();
  auto took = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (verb == "save") {
    auto s = storage::embedded::SaveSnapshot(store, file);
    if (!s.ok()) return Failure(s.status());
    std::fprintf(stderr, "saved revision %lld (%lld keys, %s) in %.3fs\n", static_cast<long long>(s->revision),
                 static_cast<long long>(s->total_keys), HumanBytes(s->total_size).c_str(), took());
    std::printf("Snapshot saved at %s\n", file.c_str());
    return 0;
  }
  if (verb == "restore") {
    if (!data_dir_set) return UsageError("snapshot restore needs --data-dir (a new data dir)");
    auto s = storage::embedded::RestoreSnapshot(file, store);
    if (!s.ok()) return Failure(s.status());
    std::printf("Snapshot restored to %s: revision %lld, %lld keys (%.3fs)\n", data_dir.c_str(),
                static_cast<long long>(s->revision), static_cast<long long>(s->total_keys), took());
    return 0;
  }
  if (verb == "status") {
    auto s = storage::embedded::ReadSnapshotStatus(file);
    if (!s.ok()) return Failure(s.status());
    PrintStatus(*s, write_out);
    return 0;
  }
  return UsageError("unknown snapshot command \"" + verb + "\" (save, restore or status)");
}

}  // namespace capstan::cmd
