// The capstan binary: parse flags, start, wait for SIGTERM/SIGINT, shut down gracefully.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "cmd/app.h"
#include "cmd/etcd_stand_in.h"
#include "cmd/migrate_command.h"
#include "cmd/options.h"
#include "cmd/snapshot_command.h"
#include "util/feature_gate.h"
#include "util/log.h"
#include "util/strings.h"

int main(int argc, char** argv) {
  using namespace capstan;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "etcd-stand-in") {
    return cmd::RunEtcdStandIn(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (!args.empty() && args[0] == "migrate") {
    return cmd::RunMigrateCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (!args.empty() && args[0] == "snapshot") {
    return cmd::RunSnapshotCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  cmd::ParseOutcome parsed = cmd::ParseOptions(args);
  switch (parsed.kind) {
    case cmd::ParseOutcome::Kind::kHelp:
      std::fputs(parsed.text.c_str(), stdout);
      return 0;
    case cmd::ParseOutcome::Kind::kVersion:
      std::printf("%s\n", parsed.text.c_str());
      return 0;
    case cmd::ParseOutcome::Kind::kError:
      std::fprintf(stderr, "Error: %s\n", parsed.text.c_str());
      return 2;
    case cmd::ParseOutcome::Kind::kRun:
      break;
  }
  SetLogVerbosity(parsed.options.verbosity);
  if (parsed.options.observability.logging_format == "json") SetLogFormat(LogFormat::kJson);
  // component-base's logging validation.
  if (!parsed.options.observability.vmodule.empty() && parsed.options.observability.logging_format != "text") {
    std::fprintf(stderr, "Error: vmodule: Forbidden: Only supported for text log format\n");
    return 1;
  }
  SetLogVmodule(parsed.options.observability.vmodule);
  // As kube-apiserver: a bad gate is an error before anything starts.
  std::vector<std::string> gate_warnings;
  if (std::string err = features::MutableGates().Set(parsed.options.feature_gates, &gate_warnings); !err.empty()) {
    std::fprintf(stderr, "Error: %s\n", err.c_str());
    return 1;
  }
  for (const auto& w : gate_warnings) LogWarn(w, {});
  if (!parsed.options.feature_gates.empty()) {
    LogInfo("feature gates", {{"gates", features::Gates().String()}});
    // Gates switched away from their default that decide nothing in Capstan are named, not ignored.
    static const std::set<std::string_view> kActing = {"WatchList", "CRDValidationRatcheting", "APIServerIdentity"};
    std::vector<std::string> inert;
    for (const auto& f : features::Gates().Known()) {
      if (features::Enabled(f.name) != f.default_value && !kActing.count(f.name)) inert.emplace_back(f.name);
    }
    if (!inert.empty()) {
      LogWarn("feature gates switched from their default that Capstan does not act on", {{"gates", Join(inert, ",")}});
    }
  }
  if (!parsed.options.ignored.empty()) {
    LogWarn("flags accepted for compatibility but not acted on yet", {{"flags", Join(parsed.options.ignored, ",")}});
  }

  // Signals are taken synchronously by the main thread; every other thread inherits the block.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  cmd::App app(std::move(parsed.options));
  Status st = app.Start();
  if (!st.ok()) {
    LogError("failed to start", {{"error", st.message()}});
    std::fprintf(stderr, "Error: %s\n", st.message().c_str());
    // As kube's os.Exit(1): the loops started before the failing step (informers, caches) are still
    // running, and tearing the half-started server down under them would crash the exit.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(1);
  }
  int sig = 0;
  sigwait(&set, &sig);
  LogInfo("received signal", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
  app.Shutdown();
  return 0;
}
