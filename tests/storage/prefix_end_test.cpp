#include "storage/backend.h"

#include <gtest/gtest.h>

namespace capstan::storage {
namespace {

TEST(PrefixEndTest, IncrementsLastByte) { EXPECT_EQ(PrefixEnd("/registry/pods/"), "/registry/pods0"); }
TEST(PrefixEndTest, DropsTrailingFF) { EXPECT_EQ(PrefixEnd(std::string("a\xff\xff", 3)), "b"); }
TEST(PrefixEndTest, AllFFMeansEndOfKeyspace) { EXPECT_EQ(PrefixEnd(std::string("\xff", 1)), std::string(1, '\0')); }

}  // namespace
}  // namespace capstan::storage
