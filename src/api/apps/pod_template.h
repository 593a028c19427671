// api/apps/pod_template.h: the core/v1 PodTemplateSpec rules the workload kinds embed (Deployment,
// ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): kube's defaulting of a pod template (its
// SetDefaults_PodSpec, _Container, _Probe, _HTTPGetAction, _Volume and volume sources, the declarative
// defaults of container ports and gRPC probes) and the subset of kube's ValidatePodTemplateSpec that
// catches the common mistakes (containers required, container names, images, pull and termination
// message policies, ports, restart and DNS policies, volume names, activeDeadlineSeconds) with kube's
// field paths and messages.
//
// TODO: use the core group's pod spec defaulting and validation once src/api/core/ has them (pods);
// until then this is the minimal subset the workload kinds need.
// Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>

#include "apimachinery/field_errors.h"

namespace capstan::api::apps {

// Defaults a PodTemplateSpec ({metadata, spec}) in place.
void DefaultPodTemplate(boost::json::object& tmpl);
// Defaults a PersistentVolumeClaim template (StatefulSet volumeClaimTemplates): volumeMode and the
// Pending phase, as kube's SetDefaults_PersistentVolumeClaim(Spec).
void DefaultClaimTemplate(boost::json::object& claim);

// kube's ValidatePodTemplateSpec (subset) for the template at `path` (e.g. spec.template); `tmpl` may
// be null (absent).
ErrorList ValidatePodTemplate(const boost::json::value* tmpl, const FieldPath& path);

// The pull policy kube defaults for an image: Always for ":latest" or no tag, else IfNotPresent.
std::string DefaultPullPolicy(std::string_view image);

}  // namespace capstan::api::apps
