// api/batch/install.cpp: the batch group's install list.
#include "api/batch/batch.h"

namespace capstan::api::batch {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&Jobs, &CronJobs}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::batch
