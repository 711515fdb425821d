// A CTest-friendly name for a value-parameterized case whose parameter has a `text` field: the
// case's index and text, non-alphanumerics as '_' (gtest would otherwise print the bytes).
//   INSTANTIATE_TEST_SUITE_P(Forms, MyTest, ::testing::Values(...), CaseName<MyCase>);
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace steward::cost {

template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::to_string(info.index) + "_";
  for (const char* c = info.param.text; *c != 0; ++c) {
    name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  }
  return name;
}

}  // namespace steward::cost
