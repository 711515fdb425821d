#include "http/message.h"

#include <strings.h>

#include <algorithm>

namespace steward::http {

bool HeaderNameLess::operator()(std::string_view a, std::string_view b) const {
  const size_t n = std::min(a.size(), b.size());
  const int c = strncasecmp(a.data(), b.data(), n);
  return c != 0 ? c < 0 : a.size() < b.size();
}

std::string_view Request::Header(std::string_view name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string_view() : std::string_view(it->second);
}

std::string Request::Param(const std::string& name, std::string fallback) const {
  auto it = params.find(name);
  return it == params.end() ? std::move(fallback) : it->second;
}

Reply Reply::Json(int status, std::string body) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Reply Reply::Text(int status, std::string body) {
  Reply r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

std::string_view Reply::Header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  return {};
}

}  // namespace steward::http
