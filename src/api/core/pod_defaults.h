// api/core/pod_defaults.h: kube's defaulting of pod specs (SetDefaults_PodSpec, _Container, _Probe,
// _Volume and the volume sources, the HTTPGetAction and ObjectFieldSelector defaults, and the
// declarative defaults such as container port protocol TCP), applied to a pod, a pod template or
// anything embedding a PodTemplateSpec (replication controllers here; deployments, jobs, ... elsewhere).
// DefaultPod adds what only Pods get (SetDefaults_Pod: requests from limits, enableServiceLinks,
// host-network ports). Pure functions on JSON; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace capstan::api::core {

// PodSpec defaults, in place.
void DefaultPodSpec(boost::json::object& spec);
// A PodTemplateSpec ({metadata, spec}): its spec's defaults.
void DefaultPodTemplateSpec(boost::json::object& tmpl);
// A whole Pod: the spec defaults plus SetDefaults_Pod.
void DefaultPod(boost::json::object& pod);
// kube's pull policy for an image: Always for ":latest" or no tag (and no digest), else IfNotPresent.
std::string DefaultPullPolicy(std::string_view image);

}  // namespace capstan::api::core
