// endpoints/handlers_watch.cpp: WATCH: a chunked stream of {"type":..., "object":...} lines.
#include <random>

#include "apimachinery/errors.h"
#include "apimachinery/json_stored.h"
#include "apimachinery/json_write.h"
#include "apimachinery/protobuf_codec.h"
#include "endpoints/handlers.h"
#include "endpoints/watch_writer.h"
#include "storage/object_store.h"
#include "util/timer.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace json = boost::json;

Task<void> HandleWatch(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto opts = ParseListOptions(s.http().request.query);
  if (!opts.ok()) {
    co_await s.WriteStatus(opts.status());
    co_return;
  }
  // Without timeoutSeconds a watch lasts a random time between the minimum request timeout and twice
  // that, as kube spreads its clients' reconnections.
  int64_t timeout = opts->timeout_seconds.value_or(0);
  if (timeout <= 0) {
    thread_local std::mt19937 rng(std::random_device{}());
    int64_t min = s.limits().min_request_timeout_seconds;
    timeout = min + std::uniform_int_distribution<int64_t>(0, min)(rng);
  }
  opts->timeout_seconds = timeout;  // storage sends a bookmark shortly before it
  // JSON events are written from the storage's shared bytes when it has them (the watch cache).
  // Protobuf events are encoded from those bytes once per object version, for every watcher
  // (storage::EncodingMemo), when the storage keeps encodings.
  opts->accept_serialized = s.output().conversion == Conversion::kNone;
  auto stream = co_await s.entry().watcher->Watch(s.ctx(), *opts);
  if (!stream.ok()) {
    co_await s.WriteStatus(stream.status());
    co_return;
  }
  std::shared_ptr<registry::WatchStream> w = std::move(*stream);
  http::Headers headers;
  const bool table = s.output().conversion == Conversion::kTable;
  const bool protobuf = s.output().format == MediaFormat::kProtobuf && s.limits().protobuf;
  headers.Set("Content-Type", table      ? s.output().ContentType()
                              : protobuf ? std::string("application/vnd.kubernetes.protobuf;stream=watch")
                                         : std::string("application/json"));
  if (!co_await s.http().writer->StartStream(200, std::move(headers))) co_return;

  auto executor = CurrentExecutor();
  auto timer = RunAfter(std::chrono::seconds(timeout), [w, executor] {
    if (executor) {
      executor->Post([w] { w->Stop(); });
    } else {
      w->Stop();
    }
  });
  size_t cancel_id = s.http().cancel.OnCancel([w] { w->Stop(); });

  bool first_table = true;
  WatchEventEncoder encode;
  if (protobuf) {
    const am::GroupVersionKind kind = s.KindGvk();
    const std::string form = "protobuf " + kind.group + "/" + kind.version + " " + kind.kind;
    const am::ProtobufCodec& codec = *s.limits().protobuf;
    encode = [&codec, kind, form](registry::WatchEvent& e, std::string& out) {
      if (e.json) {
        storage::EncodingMemo::Encode make = [&](std::string_view json) -> std::optional<std::string> {
          auto v = am::ParseStoredJson(json);
          if (!v.ok()) return std::nullopt;
          auto bytes = codec.EncodeObject(kind, *v);
          if (!bytes.ok()) return std::nullopt;
          return std::move(*bytes);
        };
        storage::SerializedObject bytes;
        if (e.encodings) {
          bytes = e.encodings->Encoded(form, make);
        } else if (auto made = make(*e.json)) {
          bytes = std::make_shared<const std::string>(std::move(*made));
        }
        if (bytes) am::ProtobufCodec::AppendWatchEventFrame(out, e.type, *bytes);
        return;
      }
      auto gvk = e.type == "ERROR" ? am::GroupVersionKind{"", "v1", "Status"} : kind;
      auto frame = codec.EncodeWatchEvent(e.type, gvk, e.object);
      if (frame.ok()) out += *frame;
    };
  } else if (table || s.output().conversion == Conversion::kPartialObjectMetadata) {
    encode = [&s, &first_table, table](registry::WatchEvent& e, std::string& out) {
      if (e.type == "ERROR" || e.type == "BOOKMARK") {
        AppendJsonWatchEvent(e, out);
        return;
      }
      out += "{\"type\":";
      am::AppendJsonString(out, e.type);
      out += ",\"object\":";
      if (table) {
        auto t = s.ToTable({&e.object}, first_table, "");
        first_table = false;
        if (t.ok()) {
          am::AppendJson(out, *t);
        } else {
          am::AppendJson(out, e.object);
        }
      } else {
        am::AppendJson(out, s.ToPartial(e.object));
      }
      out += "}\n";
    };
  } else {
    encode = [](registry::WatchEvent& e, std::string& out) { AppendJsonWatchEvent(e, out); };
  }
  // Each batch of pending events goes out in one write (see watch_writer.h).
  WatchEventCounters counters;
  if (auto* m = s.limits().watch_events) {
    auto gvk = s.KindGvk();
    LabelValues labels{gvk.group, gvk.version, gvk.kind};
    counters.events = m->events.With(labels);
    counters.sizes = m->sizes.With(labels);
  }
  co_await PumpWatch(*w, *s.http().writer, encode, counters);
  timer->Cancel();
  s.http().cancel.Remove(cancel_id);
  w->Stop();
  co_await s.http().writer->EndStream();
}

}  // namespace capstan::endpoints
