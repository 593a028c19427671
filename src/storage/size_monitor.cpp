#include "storage/size_monitor.h"

#include "util/task.h"

namespace capstan::storage {

SizeMonitor::SizeMonitor(Backend& backend, MetricsRegistry& metrics, std::chrono::milliseconds interval)
    : backend_(backend), interval_(interval), bytes_(std::make_shared<std::atomic<int64_t>>(-1)) {
  constexpr std::string_view kName = "apiserver_storage_size_bytes";
  const std::string help =
      MetricsRegistry::AnnotatedHelp(kName, "Size of the storage database file physically allocated in bytes.");
  metrics.AddCollector(
      [bytes = bytes_, help](std::string& out) {
        const int64_t v = bytes->load();
        if (v < 0) return;
        out += "# HELP apiserver_storage_size_bytes " + help + "\n";
        out += "# TYPE apiserver_storage_size_bytes gauge\n";
        out += "apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} " + std::to_string(v) + "\n";
      },
      std::string(kName));
  thread_ = std::thread([this] { Run(); });
}

SizeMonitor::~SizeMonitor() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void SizeMonitor::Run() {
  for (;;) {
    auto st = SyncWait(backend_.GetStatus());
    if (st.ok()) bytes_->store(st->db_size);
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, interval_, [this] { return stop_; })) return;
  }
}

}  // namespace capstan::storage
