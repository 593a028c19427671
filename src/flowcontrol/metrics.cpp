#include "flowcontrol/metrics.h"

namespace capstan::flowcontrol {

namespace {
const std::vector<double> kDurationBuckets = {0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30};
std::string Name(const char* n) { return std::string("apiserver_flowcontrol_") + n; }
}  // namespace

Metrics::Metrics(MetricsRegistry& reg)
    : dispatched(reg.NewCounterVec(Name("dispatched_requests_total"), "Number of requests executed by API Priority and Fairness subsystem",
                                   {"priority_level", "flow_schema"})),
      rejected(reg.NewCounterVec(Name("rejected_requests_total"), "Number of requests rejected by API Priority and Fairness subsystem",
                                 {"priority_level", "flow_schema", "reason"})),
      inqueue(reg.NewGaugeVec(Name("current_inqueue_requests"), "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
                              {"priority_level", "flow_schema"})),
      inqueue_seats(reg.NewGaugeVec(Name("current_inqueue_seats"), "Number of seats currently pending in queues of the API Priority and Fairness subsystem",
                                    {"priority_level", "flow_schema"})),
      executing(reg.NewGaugeVec(Name("current_executing_requests"), "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
                                {"priority_level", "flow_schema"})),
      executing_seats(reg.NewGaugeVec(Name("current_executing_seats"), "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem",
                                      {"priority_level", "flow_schema"})),
      wait_duration(reg.NewHistogramVec(Name("request_wait_duration_seconds"), "Length of time a request spent waiting in its queue",
                                        {"priority_level", "flow_schema", "execute"}, kDurationBuckets)),
      execution_seconds(reg.NewHistogramVec(Name("request_execution_seconds"), "Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
                                            {"priority_level", "flow_schema", "type"}, kDurationBuckets)),
      queue_length(reg.NewHistogramVec(Name("request_queue_length_after_enqueue"), "Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued",
                                       {"priority_level", "flow_schema"}, {0, 10, 25, 50, 100, 250, 500, 1000})),
      estimated_seats(reg.NewHistogramVec(Name("work_estimated_seats"), "Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness",
                                          {"priority_level", "flow_schema"}, {1, 2, 4, 10})),
      concurrency_limit(reg.NewGaugeVec(Name("request_concurrency_limit"), "Nominal number of execution seats configured for each priority level", {"priority_level"})),
      nominal_limit(reg.NewGaugeVec(Name("nominal_limit_seats"), "Nominal number of execution seats configured for each priority level", {"priority_level"})),
      lower_limit(reg.NewGaugeVec(Name("lower_limit_seats"), "Configured lower bound on number of execution seats available to each priority level", {"priority_level"})),
      upper_limit(reg.NewGaugeVec(Name("upper_limit_seats"), "Configured upper bound on number of execution seats available to each priority level", {"priority_level"})),
      current_limit(reg.NewGaugeVec(Name("current_limit_seats"), "current derived number of execution seats available to each priority level", {"priority_level"})),
      demand_high_watermark(reg.NewGaugeVec(Name("demand_seats_high_watermark"), "High watermark, over last adjustment period, of demand_seats", {"priority_level"})),
      demand_average(reg.NewGaugeVec(Name("demand_seats_average"), "Time-weighted average, over last adjustment period, of demand_seats", {"priority_level"})),
      demand_stdev(reg.NewGaugeVec(Name("demand_seats_stdev"), "Time-weighted standard deviation, over last adjustment period, of demand_seats", {"priority_level"})),
      demand_smoothed(reg.NewGaugeVec(Name("demand_seats_smoothed"), "Smoothed seat demands", {"priority_level"})),
      target_seats(reg.NewGaugeVec(Name("target_seats"), "Seat allocation targets", {"priority_level"})),
      fair_frac(reg.NewGauge(Name("seat_fair_frac"), "Fair fraction of server's concurrency to allocate to each priority level that can use it")),
      current_r(reg.NewGaugeVec(Name("current_r"), "R(time of last change)", {"priority_level"})) {}

Counter& FlowMetrics::Rejected(const std::string& reason) {
  Counter*& c = rejected_[reason];
  if (!c) c = m_.rejected.With({labels_[0], labels_[1], reason});
  return *c;
}

Histogram& FlowMetrics::Wait(bool execute) {
  Histogram*& h = wait_[execute ? 1 : 0];
  if (!h) h = m_.wait_duration.With({labels_[0], labels_[1], execute ? "true" : "false"});
  return *h;
}

Histogram& FlowMetrics::Execution(bool watch) {
  Histogram*& h = execution_[watch ? 1 : 0];
  if (!h) h = m_.execution_seconds.With({labels_[0], labels_[1], watch ? "watch" : "regular"});
  return *h;
}

}  // namespace capstan::flowcontrol
