// server/pprof.h: /debug/pprof, installed with --profiling as kube installs Go's net/http/pprof.
//
//   /debug/pprof/                 the index
//   /debug/pprof/profile?seconds= a CPU profile in the format pprof reads (gperftools' CPU profiler,
//                                 libprofiler.so.0 from Debian's libgoogle-perftools4, loaded when the
//                                 first profile is asked for; without it the answer is a 501 saying so)
//   /debug/pprof/goroutine        the threads of the process with their state (debug=1 and 2 alike)
//   /debug/pprof/cmdline          the command line, NUL-separated as Go writes it
//   /debug/pprof/heap, allocs, block, mutex, threadcreate, trace, symbol: a 501 saying what Capstan
//                                 does not profile (the heap needs tcmalloc as the allocator)
// One CPU profile at a time, as Go. The routes are unlisted (not in "/"), as kube's.
#pragma once

#include "server/router.h"

namespace capstan::server {

void InstallProfiling(Router& router);

}  // namespace capstan::server
