// flowcontrol/metrics.h: kube's apiserver_flowcontrol_* metric families that Capstan's dispatcher
// can give meaning to. Labels as kube's: priority_level, flow_schema (and reason, execute, type).
// Owned by whoever builds the Controller, from the registry passed in. Thread-safe (the metrics are).
#pragma once

#include <map>
#include <string>

#include "util/metrics.h"

namespace capstan::flowcontrol {

struct Metrics {
  explicit Metrics(MetricsRegistry& reg);
  CounterVec& dispatched;           // dispatched_requests_total{priority_level, flow_schema}
  CounterVec& rejected;             // rejected_requests_total{priority_level, flow_schema, reason}
  GaugeVec& inqueue;                // current_inqueue_requests{priority_level, flow_schema}
  GaugeVec& inqueue_seats;          // current_inqueue_seats{priority_level, flow_schema}
  GaugeVec& executing;              // current_executing_requests{priority_level, flow_schema}
  GaugeVec& executing_seats;        // current_executing_seats{priority_level, flow_schema}
  HistogramVec& wait_duration;      // request_wait_duration_seconds{priority_level, flow_schema, execute}
  HistogramVec& execution_seconds;  // request_execution_seconds{priority_level, flow_schema, type}
  HistogramVec& queue_length;       // request_queue_length_after_enqueue{priority_level, flow_schema}
  HistogramVec& estimated_seats;    // work_estimated_seats{priority_level, flow_schema}
  GaugeVec& concurrency_limit;      // request_concurrency_limit{priority_level} (kube: the nominal limit)
  GaugeVec& nominal_limit;          // nominal_limit_seats{priority_level}
  GaugeVec& lower_limit;            // lower_limit_seats{priority_level}
  GaugeVec& upper_limit;            // upper_limit_seats{priority_level}
  GaugeVec& current_limit;          // current_limit_seats{priority_level}
  GaugeVec& demand_high_watermark;  // demand_seats_high_watermark{priority_level}
  GaugeVec& demand_average;         // demand_seats_average{priority_level}
  GaugeVec& demand_stdev;           // demand_seats_stdev{priority_level}
  GaugeVec& demand_smoothed;        // demand_seats_smoothed{priority_level}
  GaugeVec& target_seats;           // target_seats{priority_level}
  Gauge& fair_frac;                 // seat_fair_frac
  GaugeVec& current_r;              // current_r{priority_level}
};

// The series of one (priority level, flow schema) pair, found once and then held, so the request
// path does no label lookups. Each series is created on first use: it appears in /metrics once it
// has happened, as in kube. Thread-compatible (the Controller's lock guards it).
class FlowMetrics {
 public:
  FlowMetrics(Metrics& m, const std::string& level, const std::string& schema) : m_(m), labels_{level, schema} {}
  Counter& Dispatched() { return Get(dispatched_, m_.dispatched); }
  Counter& Rejected(const std::string& reason);
  Gauge& InQueue() { return Get(inqueue_, m_.inqueue); }
  Gauge& InQueueSeats() { return Get(inqueue_seats_, m_.inqueue_seats); }
  Gauge& Executing() { return Get(executing_, m_.executing); }
  Gauge& ExecutingSeats() { return Get(executing_seats_, m_.executing_seats); }
  Histogram& QueueLength() { return Get(queue_length_, m_.queue_length); }
  Histogram& EstimatedSeats() { return Get(estimated_seats_, m_.estimated_seats); }
  Histogram& Wait(bool execute);
  Histogram& Execution(bool watch);

 private:
  template <class M>
  M& Get(M*& cached, MetricVec<M>& vec) {
    if (!cached) cached = vec.With(labels_);
    return *cached;
  }
  Metrics& m_;
  LabelValues labels_;
  Counter* dispatched_ = nullptr;
  std::map<std::string, Counter*> rejected_;
  Gauge *inqueue_ = nullptr, *inqueue_seats_ = nullptr, *executing_ = nullptr, *executing_seats_ = nullptr;
  Histogram *queue_length_ = nullptr, *estimated_seats_ = nullptr;
  Histogram* wait_[2] = {nullptr, nullptr};
  Histogram* execution_[2] = {nullptr, nullptr};
};

}  // namespace capstan::flowcontrol
