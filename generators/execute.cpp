#include "generators/execute.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/Parallel.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace opsfuzz {

std::string_view name(Outcome::Kind k) {
  static constexpr std::string_view names[] = {"accepted", "rejected", "crashed", "timed out"};
  return names[k];
}

namespace {

const c10::OperatorHandle& find_op(const std::string& op) {
  auto dot = op.find('.');
  std::string base = "aten::" + op.substr(0, dot);
  std::string overload = dot == std::string::npos ? "" : op.substr(dot + 1);
  if (overload == "default") overload.clear();
  static thread_local std::unordered_map<std::string, c10::OperatorHandle> cache;
  auto it = cache.find(op);
  if (it == cache.end()) it = cache.emplace(op, c10::Dispatcher::singleton().findSchemaOrThrow(base.c_str(), overload.c_str())).first;
  return it->second;
}

// Positional arguments, then keywords by name, then defaults. Types are left to the kernel, as
// Python leaves them: a bool passed for a Scalar is a valid Scalar.
torch::jit::Stack bind(const c10::FunctionSchema& schema, const Sample& s) {
  const auto& params = schema.arguments();
  if (s.args.size() > params.size())
    throw std::invalid_argument(schema.name() + "() takes " + std::to_string(params.size()) + " arguments, got " +
                                std::to_string(s.args.size()));
  torch::jit::Stack stack(s.args.begin(), s.args.end());
  size_t used = 0;
  for (size_t i = s.args.size(); i < params.size(); ++i) {
    auto kw = std::find_if(s.kwargs.begin(), s.kwargs.end(), [&](const auto& p) { return p.first == params[i].name(); });
    if (kw != s.kwargs.end()) stack.push_back(kw->second), ++used;
    else if (params[i].default_value()) stack.push_back(*params[i].default_value());
    else throw std::invalid_argument(schema.name() + "() is missing argument '" + params[i].name() + "'");
  }
  if (used != s.kwargs.size()) throw std::invalid_argument(schema.name() + "() got an unknown keyword argument");
  return stack;
}

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w, n -= static_cast<size_t>(w);
  }
  return true;
}

enum class Read { Ok, Closed, TimedOut };

// Reads exactly n bytes, waiting at most timeout_ms for each chunk.
Read read_all(int fd, void* data, size_t n, int timeout_ms) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, timeout_ms) <= 0) return Read::TimedOut;
    ssize_t r = ::read(fd, p, n);
    if (r <= 0) return Read::Closed;
    p += r, n -= static_cast<size_t>(r);
  }
  return Read::Ok;
}

[[noreturn]] void child(const std::vector<Sample>& samples, size_t from, int fd) {
  at::set_num_threads(1);  // the parent's OpenMP pool does not survive fork
  for (size_t i = from; i < samples.size(); ++i) {
    Outcome o = execute(samples[i]);
    uint32_t len = static_cast<uint32_t>(std::min<size_t>(o.message.size(), 4096));
    if (!write_all(fd, &o.kind, 1) || !write_all(fd, &len, 4) || !write_all(fd, o.message.data(), len)) break;
  }
  ::_exit(0);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

Outcome execute(const Sample& sample) {
  try {
    const auto& op = find_op(sample.op);
    auto stack = bind(op.schema(), sample);
    op.callBoxed(&stack);
    return {Outcome::Accepted, {}};
  } catch (const c10::Error& e) {
    return {Outcome::Rejected, e.what_without_backtrace()};
  } catch (const std::exception& e) {
    return {Outcome::Rejected, e.what()};
  }
}

std::vector<Outcome> execute_isolated(const std::vector<Sample>& samples, double timeout_s) {
  std::vector<Outcome> out;
  out.reserve(samples.size());
  const int timeout_ms = static_cast<int>(timeout_s * 1000);
  while (out.size() < samples.size()) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::close(fds[0]);
      child(samples, out.size(), fds[1]);
    }
    ::close(fds[1]);
    Read r = Read::Ok;
    while (out.size() < samples.size()) {
      Outcome o;
      uint32_t len = 0;
      if ((r = read_all(fds[0], &o.kind, 1, timeout_ms)) != Read::Ok) break;
      if ((r = read_all(fds[0], &len, 4, timeout_ms)) != Read::Ok) break;
      o.message.resize(len);
      if (len && (r = read_all(fds[0], o.message.data(), len, timeout_ms)) != Read::Ok) break;
      out.push_back(std::move(o));
    }
    ::close(fds[0]);
    if (r == Read::TimedOut) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (r == Read::TimedOut)
      out.push_back({Outcome::TimedOut, "no result within " + std::to_string(timeout_s) + " s"});
    else if (r == Read::Closed)
      out.push_back({Outcome::Crashed, describe_status(status)});
  }
  return out;
}

}  // namespace opsfuzz
