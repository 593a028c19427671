// api/events/event_conversion.h: kube's conversion of Events between events.k8s.io/v1 and core/v1 (the
// storage form): regarding <-> involvedObject, note <-> message, reportingController <->
// reportingComponent, deprecatedSource <-> source, deprecatedFirstTimestamp/LastTimestamp/Count <->
// firstTimestamp/lastTimestamp/count; eventTime, series, action, reason, related, type and
// reportingInstance keep their names. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/status.h"

namespace capstan::api::events {

StatusOr<boost::json::object> EventV1ToCore(boost::json::object v1);
StatusOr<boost::json::object> EventCoreToV1(boost::json::object core);

}  // namespace capstan::api::events
