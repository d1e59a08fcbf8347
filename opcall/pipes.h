// Talking to forked workers: whole reads and writes on their channels, and how a worker ended.
#pragma once

#include <cstddef>
#include <string>

namespace opsfuzz::opcall {

// Writes all n bytes to a socket (retrying short writes and EINTR); false when the other end is
// gone, without raising SIGPIPE.
bool write_all(int fd, const void* data, size_t n);

enum class Read { Ok, Closed, TimedOut };

// Reads exactly n bytes, waiting at most timeout_ms (-1: forever) for each chunk.
Read read_all(int fd, void* data, size_t n, int timeout_ms = -1);

// A waitpid() status of a worker that ended early: "killed by signal 6 (Aborted)", "exited with
// status 1 before finishing".
std::string describe_exit(int status);

}  // namespace opsfuzz::opcall
