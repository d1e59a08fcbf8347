// Worker processes: a crashing or hanging kernel costs one result, not the run.
#include <ATen/Parallel.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "opcall/opcall.h"
#include "opcall/pipes.h"

namespace opsfuzz::opcall {

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}

Read read_all(int fd, void* data, size_t n, int timeout_ms) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Read::TimedOut;
    if (ready < 0) return Read::Closed;
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Read::Closed;
    p += r, n -= static_cast<size_t>(r);
  }
  return Read::Ok;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status)) + " before finishing";
}

namespace {

constexpr uint32_t kMaxMessage = 1 << 16;

[[noreturn]] void worker(size_t n, const std::function<CallOutcome(size_t)>& item, size_t from,
                         bool keep_backtraces, int fd) {
  at::set_num_threads(1);  // the parent's OpenMP pool does not survive fork
  set_backtraces(keep_backtraces);
  set_kernel_warnings(false);
  for (size_t i = from; i < n; ++i) {
    CallOutcome o;
    try {
      o = item(i);
    } catch (const std::exception& e) {
      o = {CallOutcome::Crashed, std::string("the item threw: ") + e.what()};
    } catch (...) {
      o = {CallOutcome::Crashed, "the item threw a non-standard exception"};
    }
    uint8_t kind = o.kind;
    uint32_t len = static_cast<uint32_t>(std::min<size_t>(o.message.size(), kMaxMessage));
    if (!write_all(fd, &kind, 1) || !write_all(fd, &len, 4) ||
        !write_all(fd, o.message.data(), len))
      break;
  }
  ::_exit(0);
}

}  // namespace

std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item,
                                      const IsolationOptions& options) {
  std::vector<CallOutcome> out;
  out.reserve(n);
  const int timeout_ms =
      options.timeout_s > 0 ? static_cast<int>(std::min(options.timeout_s * 1000, 2e9)) : -1;
  auto add = [&](CallOutcome o) {
    out.push_back(std::move(o));
    if (options.on_result) options.on_result(out.size() - 1, out.back());
  };
  while (out.size() < n) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("run_isolated: pipe failed");
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]), ::close(fds[1]);
      throw std::runtime_error("run_isolated: fork failed");
    }
    if (pid == 0) {
      ::close(fds[0]);
      worker(n, item, out.size(), options.backtraces, fds[1]);
    }
    ::close(fds[1]);
    Read r = Read::Ok;
    while (out.size() < n) {
      uint8_t kind = 0;
      uint32_t len = 0;
      if ((r = read_all(fds[0], &kind, 1, timeout_ms)) != Read::Ok) break;
      if ((r = read_all(fds[0], &len, 4, timeout_ms)) != Read::Ok) break;
      CallOutcome o{static_cast<CallOutcome::Kind>(kind), std::string(len, '\0')};
      if (len && (r = read_all(fds[0], o.message.data(), len, timeout_ms)) != Read::Ok) break;
      add(std::move(o));
    }
    ::close(fds[0]);
    if (r == Read::TimedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (r == Read::TimedOut) {
      std::string limit = std::to_string(options.timeout_s);
      limit.erase(limit.find_last_not_of('0') + 1);  // "10.000000" -> "10."
      if (limit.ends_with('.')) limit.pop_back();
      add({CallOutcome::TimedOut, "no result within " + limit + " s"});
    } else if (r == Read::Closed) {
      add({CallOutcome::Crashed, describe_exit(status)});
    }
  }
  return out;
}

std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item,
                                      double timeout_s, bool backtraces) {
  IsolationOptions options;
  options.timeout_s = timeout_s;
  options.backtraces = backtraces;
  return run_isolated(n, item, options);
}

}  // namespace opsfuzz::opcall
