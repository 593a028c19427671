// api/core/pod_validation.h: kube's pod spec validation (pkg/apis/core/validation) for the mistakes
// people make, with kube's field paths and messages: containers (required, DNS-label names unique
// across init and regular containers, image required, ports, env, resources, probes, volume mounts,
// pull and termination-message policies), volumes (names, exactly one source, the common sources'
// required fields), restart and DNS policies, node selector, service account, hostname/subdomain,
// activeDeadlineSeconds, tolerations. Shared by pods, pod templates and everything embedding a
// PodTemplateSpec. Also the pod update rule (only images, activeDeadlineSeconds, added tolerations,
// terminationGracePeriodSeconds and scheduling-gate removal may change) with kube's message.
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>

#include "apimachinery/field_errors.h"

namespace capstan::api::core {

// spec at `path` (e.g. "spec", "spec.template.spec").
ErrorList ValidatePodSpec(const boost::json::object& spec, const FieldPath& path);
// A PodTemplateSpec ({metadata, spec}) at `path`: template labels and annotations, then its spec;
// ephemeral containers are not allowed in templates.
ErrorList ValidatePodTemplateSpec(const boost::json::object& tmpl, const FieldPath& path);
// kube's ValidatePodSpec for updates of a Pod: what may change and the Forbidden error for the rest.
ErrorList ValidatePodSpecUpdate(const boost::json::object& spec, const boost::json::object& old_spec);
// The ephemeralcontainers subresource's rule: ephemeral containers may be added, never changed or removed.
ErrorList ValidateEphemeralContainersUpdate(const boost::json::object& spec, const boost::json::object& old_spec);
// kube's ValidateTolerations at path.
ErrorList ValidateTolerations(const boost::json::value* tolerations, const FieldPath& path);
// Go's %#v of a map[string]string (sorted keys), for bad values kube prints that way.
std::string GoStringMap(const boost::json::object* m);
// kube's IsValidPortName messages.
std::vector<std::string> PortNameProblems(std::string_view name);

}  // namespace capstan::api::core
