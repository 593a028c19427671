// The messages the protobuf fuzz target decodes, chosen by an input's first byte (shared with the
// seed generator). Byte 0 means: the whole rest is an enveloped object of any kind ("k8s\0" + Unknown).
#pragma once

#include <string_view>

namespace capstan::fuzz {

inline constexpr std::string_view kProtobufFuzzMessages[] = {
    "",  // enveloped object: the kind comes from typeMeta
    "io.k8s.api.core.v1.ConfigMap",
    "io.k8s.api.core.v1.Pod",
    "io.k8s.api.apps.v1.Deployment",
    "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
};
inline constexpr size_t kProtobufFuzzMessageCount = sizeof(kProtobufFuzzMessages) / sizeof(kProtobufFuzzMessages[0]);

}  // namespace capstan::fuzz
