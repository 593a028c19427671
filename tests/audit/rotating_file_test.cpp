#include "audit/rotating_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "audit_test_util.h"

namespace capstan::audit {
namespace {

namespace fs = std::filesystem;
using testing::Files;
using testing::TempDir;

std::string Gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  if (!f) return out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

TEST(RotatingFileTest, CreatesTheFileWithMode0600) {
  TempDir dir;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/logs/audit.log";
  auto f = RotatingFile::Open(opts);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_TRUE((*f)->Write("one\n").ok());
  struct stat st {};
  ASSERT_EQ(::stat(opts.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(st.st_size, 4);
}

TEST(RotatingFileTest, RotatesAtMaxSizeAndKeepsMaxBackups) {
  TempDir dir;
  FakeClock clock;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  opts.max_backups = 2;
  auto f = RotatingFile::Open(opts, clock);
  ASSERT_TRUE(f.ok());
  std::string chunk(600 * 1024, 'x');
  chunk.back() = '\n';
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE((*f)->Write(chunk).ok());
    (*f)->WaitMilled();
    clock.Advance(std::chrono::seconds(1));
  }
  // 5 chunks of 600 KiB in 1 MiB files: one chunk per file, four rotations, two backups kept.
  auto files = Files(dir.path());
  ASSERT_EQ(files.size(), 3u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[2], "audit.log");
  EXPECT_EQ(files[0], "audit-2023-11-14T22-13-23.000.log");
  EXPECT_EQ(files[1], "audit-2023-11-14T22-13-24.000.log");
  EXPECT_EQ(fs::file_size(opts.path), chunk.size());
}

TEST(RotatingFileTest, MaxAgeRemovesOldBackups) {
  TempDir dir;
  FakeClock clock;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  opts.max_age_days = 1;
  auto f = RotatingFile::Open(opts, clock);
  ASSERT_TRUE(f.ok());
  std::string chunk(700 * 1024, 'x');
  ASSERT_TRUE((*f)->Write(chunk).ok());
  ASSERT_TRUE((*f)->Write(chunk).ok());  // rotation 1 at day 0
  (*f)->WaitMilled();
  clock.Advance(std::chrono::hours(50));
  ASSERT_TRUE((*f)->Write(chunk).ok());  // rotation 2 at day 2: the first backup is too old
  (*f)->WaitMilled();
  auto files = Files(dir.path());
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[0], "audit-2023-11-17T00-13-20.000.log");
}

TEST(RotatingFileTest, CompressGzipsEveryBackupAndCountsItOnceAgainstMaxBackups) {
  TempDir dir;
  FakeClock clock;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  opts.max_backups = 2;
  opts.compress = true;
  auto f = RotatingFile::Open(opts, clock);
  ASSERT_TRUE(f.ok());
  std::vector<std::string> chunks;
  for (int i = 0; i < 4; ++i) {
    std::string chunk(600 * 1024, static_cast<char>('a' + i));
    chunk.back() = '\n';
    chunks.push_back(chunk);
    ASSERT_TRUE((*f)->Write(chunk).ok());
    (*f)->WaitMilled();
    clock.Advance(std::chrono::seconds(1));
  }
  auto files = Files(dir.path());
  ASSERT_EQ(files.size(), 3u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[0], "audit-2023-11-14T22-13-22.000.log.gz");
  EXPECT_EQ(files[1], "audit-2023-11-14T22-13-23.000.log.gz");
  EXPECT_EQ(files[2], "audit.log");
  EXPECT_EQ(Gunzip(dir.path() + "/" + files[0]), chunks[1]);
  EXPECT_EQ(Gunzip(dir.path() + "/" + files[1]), chunks[2]);
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() + "/" + files[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_LT(st.st_size, 10 * 1024);  // one repeated byte compresses well
}

TEST(RotatingFileTest, AWriteToAFullDeviceFails) {
  RotatingFileOptions opts;
  opts.path = "/dev/full";
  auto f = RotatingFile::Open(opts);
  ASSERT_TRUE(f.ok()) << f.status().message();
  Status st = (*f)->Write("x\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("No space left on device"), std::string::npos) << st.message();
  EXPECT_FALSE((*f)->Write("y\n").ok());
}

TEST(RotatingFileTest, WriteLargerThanMaxSizeFails) {
  TempDir dir;
  RotatingFileOptions opts;
  opts.path = dir.path() + "/audit.log";
  opts.max_size_mb = 1;
  auto f = RotatingFile::Open(opts);
  ASSERT_TRUE(f.ok());
  Status st = (*f)->Write(std::string(2 * 1024 * 1024, 'x'));
  EXPECT_EQ(st.message(), "write length 2097152 exceeds maximum file size 1048576");
}

}  // namespace
}  // namespace capstan::audit
