// flowcontrol/metrics.h: kube's apiserver_flowcontrol_* metric families that Capstan's dispatcher
// can give meaning to. Labels as kube's: priority_level, flow_schema (and reason, execute, type).
// Owned by whoever builds the Controller, from the registry passed in. Thread-safe (the metrics are).
#pragma once

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

}  // namespace capstan::flowcontrol
