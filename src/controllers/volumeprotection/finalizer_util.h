// controllers/volumeprotection/finalizer_util.h: the read-modify-write mutations the volume protection
// loops use to add or remove their finalizer (nothing is written when it is already as wanted; an
// object being deleted never gets one added). Pure; thread-safe.
#pragma once

#include <string_view>

#include "controllers/api_client.h"

namespace capstan::controllers {

Mutation AddFinalizerMutation(std::string_view finalizer);
Mutation RemoveFinalizerMutation(std::string_view finalizer);

}  // namespace capstan::controllers
