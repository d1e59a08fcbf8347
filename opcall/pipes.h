// Whole reads and writes on pipes between a process and its forked workers.
#pragma once

#include <cstddef>

namespace opsfuzz::opcall {

// Writes all n bytes (retrying short writes and EINTR); false when the pipe is gone.
bool write_all(int fd, const void* data, size_t n);

enum class Read { Ok, Closed, TimedOut };

// Reads exactly n bytes, waiting at most timeout_ms (-1: forever) for each chunk.
Read read_all(int fd, void* data, size_t n, int timeout_ms = -1);

}  // namespace opsfuzz::opcall
