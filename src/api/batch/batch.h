// api/batch/batch.h: batch/v1 (jobs, cronjobs) and the group's install list.
#pragma once

#include <vector>

#include "apimachinery/field_errors.h"
#include "registry/rest_resource.h"

namespace capstan::api::batch {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

std::vector<registry::RestResource> Jobs(const registry::GroupDeps& deps);
std::vector<registry::RestResource> CronJobs(const registry::GroupDeps& deps);

// kube's validateJobSpec: what a Job's spec and a CronJob's jobTemplate.spec share (counts, completion
// mode, pod failure and replacement policies, the pod template and its restart policy).
ErrorList ValidateJobSpecCommon(const registry::Object& spec, const FieldPath& path);

}  // namespace capstan::api::batch
