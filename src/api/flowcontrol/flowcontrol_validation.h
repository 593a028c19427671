// api/flowcontrol/flowcontrol_validation.h: kube's flowcontrol v1 defaulting (pkg/apis/flowcontrol/v1/
// defaults.go) and validation (pkg/apis/flowcontrol/validation): flow schema precedence (1 only for
// "exempt", at most 10000), distinguisher method, priority level reference, rules (subjects by kind,
// verbs, groups, resources, namespaces, non-resource URLs); priority level types (Exempt if and only
// if named "exempt"), limited and exempt configurations (non-negative shares, lendable percent
// 0-100, borrowing limit), limit responses and queuing (positive queues, hand size, queue length,
// shuffle-sharding entropy); the mandatory objects' fixed specs; status condition types.
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/field_errors.h"

namespace capstan::api::flowcontrol {

void DefaultFlowSchema(boost::json::object& fs);
void DefaultPriorityLevel(boost::json::object& pl);

ErrorList ValidateFlowSchema(const boost::json::object& fs);
ErrorList ValidateFlowSchemaStatus(const boost::json::object& fs);
ErrorList ValidatePriorityLevel(const boost::json::object& pl);
ErrorList ValidatePriorityLevelStatus(const boost::json::object& pl);

// The value without its zero parts (null, false, 0, "", {}, []), as Go's omitempty writes objects:
// two specs are equal for kube's semantic equality when these are.
boost::json::value OmitZeroValues(const boost::json::value& v);

}  // namespace capstan::api::flowcontrol
