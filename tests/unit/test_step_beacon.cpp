// The step beacon (src/env/memory_cgroup.h): the measuring process marks which step it is on, its
// parent reads it after the process was killed. The writer runs in a forked child here, as it
// does in pperf (a measuring process started with PPERF_STEP_BEACON set).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>

#include "src/env/memory_cgroup.h"

using namespace pperf;

namespace {
/// Runs `body` in a forked child whose PPERF_STEP_BEACON is `path` ("": unset); its exit status.
int in_child(const std::string& path, const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (path.empty())
      unsetenv(StepBeacon::kEnvironment);
    else
      setenv(StepBeacon::kEnvironment, path.c_str(), 1);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A writer in another process marks (warmup, index) and ends, as a killed one would.
void mark_in_child(const StepBeacon& reader, bool warmup, int64_t index) {
  ASSERT_EQ(in_child(reader.path(), [&] {
              StepBeacon* writer = StepBeacon::from_environment();
              if (!writer) return 1;
              writer->mark(warmup, index);
              return 0;
            }),
            0);
}
}  // namespace

TEST(StepBeacon, TheParentReadsWhichStepTheChildWasOnWarmUpOrMeasured) {
  const StepBeacon reader = StepBeacon::create();
  EXPECT_EQ(reader.describe(), "") << "before the first step";
  mark_in_child(reader, true, 1);
  EXPECT_EQ(reader.describe(), "warm-up step 1");
  mark_in_child(reader, true, 2);
  EXPECT_EQ(reader.describe(), "warm-up step 2");
  mark_in_child(reader, false, 1);
  EXPECT_EQ(reader.describe(), "step 1");
  mark_in_child(reader, false, 14);
  EXPECT_EQ(reader.describe(), "step 14");
}

TEST(StepBeacon, WithoutTheVariableOrItsFileTheWriterHasNone) {
  EXPECT_EQ(in_child("", [] { return StepBeacon::from_environment() == nullptr ? 0 : 1; }), 0);
  EXPECT_EQ(in_child("/nonexistent/pperf-steps", [] { return StepBeacon::from_environment() == nullptr ? 0 : 1; }), 0);
}

TEST(StepBeacon, TheReadersFileLivesAsLongAsTheReaderMovedOrNot) {
  std::string path;
  {
    StepBeacon first = StepBeacon::create();
    path = first.path();
    const StepBeacon second = StepBeacon::create();
    EXPECT_NE(second.path(), path) << "two beacons, two files";
    EXPECT_TRUE(std::filesystem::exists(path));
    {
      StepBeacon moved(std::move(first));
      EXPECT_EQ(moved.path(), path);
      mark_in_child(moved, false, 3);
      EXPECT_EQ(moved.describe(), "step 3");
    }
    EXPECT_FALSE(std::filesystem::exists(path)) << "removed with the reader it was moved to";
  }
}

TEST(StepBeacon, AMovedFromReaderLeavesTheFileToItsNewOwner) {
  std::optional<StepBeacon> owner;
  std::string path;
  {
    StepBeacon original = StepBeacon::create();
    path = original.path();
    owner.emplace(std::move(original));
  }  // the moved-from one ends here
  EXPECT_TRUE(std::filesystem::exists(path));
  mark_in_child(*owner, true, 5);
  EXPECT_EQ(owner->describe(), "warm-up step 5");
  owner.reset();
  EXPECT_FALSE(std::filesystem::exists(path));
}
