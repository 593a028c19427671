// api/autoscaling/install.cpp: the autoscaling group's install list.
#include "api/autoscaling/autoscaling.h"

namespace capstan::api::autoscaling {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return HorizontalPodAutoscalers(deps); }

}  // namespace capstan::api::autoscaling
