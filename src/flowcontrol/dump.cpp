// The /debug/api_priority_and_fairness dumps (kube's apf_controller_debug.go): rows of cells joined
// by ",\t" and aligned as Go's text/tabwriter does with minwidth 8, padding 1, spaces.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "flowcontrol/controller.h"
#include "util/duration.h"

namespace capstan::flowcontrol {

namespace {

using Row = std::vector<std::string>;

// Every cell but a row's last is aligned: width max(len)+1, at least 8.
std::string Tabulate(const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    for (size_t i = 0; i + 1 < row.size(); ++i) {
      size_t w = row[i].size() + 1;  // the cell text is "<value>,"
      if (widths.size() <= i) widths.resize(i + 1, 8);
      widths[i] = std::max(widths[i], w + 1);
    }
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 < row.size()) {
        std::string cell = row[i] + ",";
        cell.resize(std::max(widths[i], cell.size()), ' ');
        out += cell;
      } else {
        out += row[i];
      }
    }
    out += "\n";
  }
  return out;
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// Go's time.RFC3339Nano in UTC (trailing zeros of the fraction dropped).
std::string Rfc3339Nano(std::chrono::system_clock::time_point t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  long frac = static_cast<long>(ns % 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (frac) {
    char f[16];
    std::snprintf(f, sizeof f, ".%09ld", frac);
    std::string fs = f;
    while (fs.back() == '0') fs.pop_back();
    out += fs;
  }
  return out + "Z";
}

// kube's SeatSeconds.String: "<int>.<8 digits>ss".
std::string SeatSeconds(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8fss", v);
  return buf;
}

}  // namespace

std::string Controller::DumpPriorityLevels() const {
  std::lock_guard lock(mu_);
  std::vector<Row> rows{{"PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests",
                         "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests",
                         "CancelledRequests"}};
  for (const auto& [name, s] : levels_) {  // sorted by name
    int active = 0;
    for (const auto& q : s->queues->queues()) {
      if (!q->waiting.empty()) ++active;
    }
    QueueSetCounters c = s->queues->Counters();
    rows.push_back({name, std::to_string(active), Bool(s->queues->IsIdle()), Bool(s->quiescing), std::to_string(c.waiting),
                    std::to_string(c.executing), std::to_string(c.dispatched), std::to_string(c.rejected),
                    std::to_string(c.timed_out), std::to_string(c.cancelled)});
  }
  return Tabulate(rows);
}

std::string Controller::DumpQueues() const {
  std::lock_guard lock(mu_);
  std::vector<Row> rows{{"PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse",
                         "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"}};
  for (const auto& [name, s] : levels_) {
    const auto& queues = s->queues->queues();
    for (size_t i = 0; i < queues.size(); ++i) {
      const Queue& q = *queues[i];
      rows.push_back({name, std::to_string(i), std::to_string(q.waiting.size()), std::to_string(q.executing),
                      std::to_string(q.seats_in_use), SeatSeconds(q.next_dispatch_r), std::to_string(q.initial_seats_sum),
                      std::to_string(q.max_seats_sum), SeatSeconds(q.total_work_sum)});
    }
  }
  return Tabulate(rows);
}

std::string Controller::DumpRequests(bool include_details) const {
  std::lock_guard lock(mu_);
  Row header{"PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher",
             "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime"};
  if (include_details) {
    for (const char* h : {"UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource"}) {
      header.push_back(h);
    }
  }
  std::vector<Row> rows{header};
  auto wall_of = [&](std::chrono::steady_clock::time_point mono) {
    return clock_.Now() - std::chrono::duration_cast<std::chrono::system_clock::duration>(clock_.Monotonic() - mono);
  };
  for (const auto& [level_name, s] : levels_) {
    const std::string& name = level_name;
    auto add = [&](int iq, int ir, const Request& r) {
      Row row{name, r.flow_schema, std::to_string(iq), std::to_string(ir), r.distinguisher, Rfc3339Nano(r.arrival_wall),
              std::to_string(r.work.initial_seats), std::to_string(r.work.final_seats),
              FormatGoDuration(r.work.additional_latency),
              r.decision == Decision::kExecute ? Rfc3339Nano(wall_of(r.start)) : "0001-01-01T00:00:00Z"};
      if (include_details) {
        for (const std::string* v : {&r.user, &r.verb, &r.path, &r.namespace_, &r.name, &r.api_version, &r.resource, &r.subresource}) {
          row.push_back(*v);
        }
      }
      rows.push_back(std::move(row));
    };
    const auto& queues = s->queues->queues();
    for (size_t iq = 0; iq < queues.size(); ++iq) {
      int ir = 0;
      for (const auto& r : queues[iq]->waiting) add(static_cast<int>(iq), ir++, *r);
      for (const auto& r : queues[iq]->running) add(static_cast<int>(iq), -1, *r);
    }
    for (const auto& r : s->queues->queueless_executing()) add(-1, -1, *r);
  }
  return Tabulate(rows);
}

}  // namespace capstan::flowcontrol
