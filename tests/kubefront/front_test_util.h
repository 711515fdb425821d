// Fixtures for tests of the twin's Kubernetes API front: calls answered in-process.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kubefront/kube_front.h"

namespace steward::kubefront::testing {

// GET `path` from the front; expects 200 and returns the parsed body.
inline nlohmann::json GetJson(KubeFront& front, const std::string& path) {
  http::Request r;
  r.method = "GET";
  r.path = path;
  const http::Reply reply = front.Handle(r);
  EXPECT_EQ(reply.status, 200) << reply.body;
  return nlohmann::json::parse(reply.body);
}

}  // namespace steward::kubefront::testing
