// api/batch/cron_schedule.h: validation of CronJob schedules as kube does it, with the parser kube
// uses (robfig/cron v3's ParseStandard: five fields, or a descriptor such as @hourly or @every 1h, an
// optional TZ=/CRON_TZ= prefix) and its error texts, e.g.
//   expected exactly 5 fields, found 1: [bad]
//   end of range (60) above maximum (59): 60
//   failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace capstan::api::batch {

// The parser's error for `spec`, nullopt when it parses.
std::optional<std::string> CronScheduleError(std::string_view spec);

// Go's time.LoadLocation error for a time zone name (from the system time zone database), nullopt
// when the zone exists.
std::optional<std::string> LoadLocationError(std::string_view name);

}  // namespace capstan::api::batch
