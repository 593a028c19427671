#include "storage/embedded/lease_table.h"

#include <algorithm>

namespace capstan::storage::embedded {

Status LeaseNotFound() { return Status::Storage(StorageCode::kKeyNotFound, "etcdserver: requested lease not found"); }

void LeaseTable::Add(int64_t id, int64_t ttl_seconds) {
  std::lock_guard lock(mu_);
  Lease& l = leases_[id];
  l.ttl = ttl_seconds;
  l.deadline = clock_.Monotonic() + std::chrono::seconds(ttl_seconds);
  l.expired = false;
}

bool LeaseTable::Remove(int64_t id) {
  std::lock_guard lock(mu_);
  return leases_.erase(id) > 0;
}

bool LeaseTable::Exists(int64_t id) const {
  std::lock_guard lock(mu_);
  return leases_.count(id) > 0;
}

std::vector<std::string> LeaseTable::Keys(int64_t id) const {
  std::lock_guard lock(mu_);
  auto it = leases_.find(id);
  if (it == leases_.end()) return {};
  return std::vector<std::string>(it->second.keys.begin(), it->second.keys.end());
}

void LeaseTable::Attach(int64_t id, const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(id);
  if (it != leases_.end()) it->second.keys.insert(key);
}

void LeaseTable::Detach(int64_t id, const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(id);
  if (it != leases_.end()) it->second.keys.erase(key);
}

StatusOr<int64_t> LeaseTable::KeepAlive(int64_t id) {
  std::lock_guard lock(mu_);
  auto it = leases_.find(id);
  auto now = clock_.Monotonic();
  if (it == leases_.end() || it->second.expired || it->second.deadline <= now) return LeaseNotFound();
  it->second.deadline = now + std::chrono::seconds(it->second.ttl);
  return it->second.ttl;
}

std::vector<int64_t> LeaseTable::TakeExpired() {
  std::lock_guard lock(mu_);
  auto now = clock_.Monotonic();
  std::vector<std::pair<std::chrono::steady_clock::time_point, int64_t>> due;
  for (auto& [id, l] : leases_) {
    if (!l.expired && l.deadline <= now) {
      l.expired = true;
      due.emplace_back(l.deadline, id);
    }
  }
  std::sort(due.begin(), due.end());
  std::vector<int64_t> out;
  out.reserve(due.size());
  for (auto& d : due) out.push_back(d.second);
  return out;
}

void LeaseTable::Clear() {
  std::lock_guard lock(mu_);
  leases_.clear();
}

size_t LeaseTable::size() const {
  std::lock_guard lock(mu_);
  return leases_.size();
}

}  // namespace capstan::storage::embedded
