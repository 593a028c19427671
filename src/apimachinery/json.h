// apimachinery/json.h: the JSON toolkit in one include: parsing request bodies (json_parse.h),
// writing kube's bytes (json_write.h), nested field access (json_path.h) and Go's float forms
// (go_float.h). See each header for the contract; all are thread-safe pure functions.
#pragma once

#include "util/go_float.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_path.h"
#include "apimachinery/json_write.h"
