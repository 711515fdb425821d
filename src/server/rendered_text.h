// A page rendered from immutable data at most once: the first request that needs it renders it,
// concurrent ones wait for that rendering instead of repeating it, and every later one shares
// the same bytes (http::Reply::shared_body sends them without a copy). A snapshot's
// /api/overview and /api/racks bodies and the /metrics/dcgm page of one exporter refresh (54 MB
// at 10,240 GPUs; streamed instead on larger clusters) are rendered this way, so a crowd of clients
// or scrapers costs one rendering, not one each.
//
//   auto page = std::make_shared<RenderedText>();       // next to the data it renders
//   std::shared_ptr<const std::string> text = page->Get([&] { return Render(data); });
//
// Thread-safe. `render` runs once, on the thread of the first caller.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace steward::server {

class RenderedText {
 public:
  std::shared_ptr<const std::string> Get(const std::function<std::string()>& render) const {
    std::call_once(once_, [&] { text_ = std::make_shared<const std::string>(render()); });
    return text_;
  }

 private:
  mutable std::once_flag once_;
  mutable std::shared_ptr<const std::string> text_;  // Written once, under once_.
};

}  // namespace steward::server
