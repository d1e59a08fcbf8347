// Worker processes: a crashing or hanging kernel costs one result, not the run.
#include <ATen/Parallel.h>

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "opcall/opcall.h"
#include "opcall/pipes.h"

namespace opsfuzz::opcall {

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
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
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status)) + " before finishing";
}

std::string format_seconds(double s) {
  std::string text = std::to_string(s);
  text.erase(text.find_last_not_of('0') + 1);  // "10.000000" -> "10."
  if (text.ends_with('.')) text.pop_back();
  return text;
}

namespace {

constexpr uint64_t kFinish = ~uint64_t{0};  // the command that ends a worker
constexpr int kAloneAttempts = 3;           // runs alone, with a heap check, of a task a worker died in

// A heap check before a worker exits: glibc checks a chunk's header as it hands the chunk out,
// takes it back and consolidates it. Blocks of many sizes (16 bytes to 64 KiB) take chunks from
// every free list and split the top chunk; freed every other one first, then the rest, they
// coalesce with their neighbours; malloc_trim then consolidates and walks the free lists. A kernel
// that wrote past its buffer dies here, in its own task's check, not in a later task's (which the
// heap layout of an innocent task before it may decide).
void probe_heap() {
  constexpr size_t kBlocks = 2048;
  std::vector<void*> blocks(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) blocks[i] = std::malloc(size_t{16} << (i * 7 % 13));
  for (size_t start : {0, 1})
    for (size_t i = start; i < kBlocks; i += 2) std::free(blocks[i]);
  ::malloc_trim(0);
}

// The channel ends this process holds to its live workers. A child closes them, so that a worker
// sees the end of its input when its parent lets go of it, whatever other children it has.
std::vector<int>& held_fds() {
  static std::vector<int> fds;
  return fds;
}

void release(int fd) {
  auto& fds = held_fds();
  fds.erase(std::remove(fds.begin(), fds.end(), fd), fds.end());
  ::close(fd);
}

// A forked copy of this process that runs the tasks the parent names, one at a time: it reads a
// task's index, replies with [kind:1][length:4][bytes], and on kFinish probes the heap and exits.
class Worker {
 public:
  Worker(const std::function<std::string(size_t)>& task, bool backtraces, int timeout_ms) : timeout_ms_(timeout_ms) {
    // A socket rather than pipes: handing a task to a worker that has just died fails with
    // EPIPE instead of killing this process with SIGPIPE.
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) throw std::runtime_error("run_tasks: socketpair failed");
    // The worker's stderr, kept: what a dying worker prints (glibc's "free(): invalid next size")
    // becomes part of its crash's description instead of noise on the terminal.
    stderr_ = ::memfd_create("opsfuzz-worker-stderr", 0);
    std::fflush(nullptr);  // or the child would write the parent's buffered output again
    pid_ = ::fork();
    if (pid_ < 0) {
      ::close(ends[0]), ::close(ends[1]);
      throw std::runtime_error("run_tasks: fork failed");
    }
    if (pid_ == 0) {
      ::close(ends[0]);
      if (stderr_ >= 0) ::dup2(stderr_, STDERR_FILENO), ::close(stderr_);
      for (int fd : held_fds()) ::close(fd);
      held_fds() = {ends[1]};
      serve(task, backtraces, ends[1]);
    }
    ::close(ends[1]);
    channel_ = ends[0];
    held_fds().push_back(channel_);
    if (stderr_ >= 0) held_fds().push_back(stderr_);
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { end(false); }

  TaskResult run(size_t i) { return send(i) ? receive() : TaskResult{TaskResult::Crashed, end(false)}; }
  // Done when the worker exits cleanly after its heap check; Crashed otherwise.
  TaskResult finish() {
    if (!send(kFinish)) return {TaskResult::Crashed, end(false)};
    TaskResult r = receive();
    std::string how = end(false);
    if (r.kind == TaskResult::Done && !how.empty()) return {TaskResult::Crashed, how};
    return r;
  }

  // The two halves of run, for callers that wait on several workers (poll on reply_fd).
  bool send(uint64_t i) { return pid_ > 0 && write_all(channel_, &i, sizeof i); }
  int reply_fd() const { return channel_; }
  TaskResult receive() {
    if (pid_ <= 0) return {TaskResult::Crashed, "the worker had ended"};
    uint8_t kind = 0;
    uint32_t len = 0;
    TaskResult r;
    Read read = read_all(channel_, &kind, 1, timeout_ms_);
    if (read == Read::Ok) read = read_all(channel_, &len, 4, timeout_ms_);
    if (read == Read::Ok) {
      r = {static_cast<TaskResult::Kind>(kind), std::string(len, '\0')};
      if (len) read = read_all(channel_, r.bytes.data(), len, timeout_ms_);
    }
    if (read == Read::TimedOut) {
      end(true);
      return {TaskResult::TimedOut, "no result within " + format_seconds(timeout_ms_ / 1000.0) + " s"};
    }
    if (read == Read::Closed) return {TaskResult::Crashed, end(false)};
    return r;
  }

 private:
  [[noreturn]] static void serve(const std::function<std::string(size_t)>& task, bool backtraces, int channel) {
    at::set_num_threads(1);  // the parent's OpenMP pool does not survive fork
    set_backtraces(backtraces);
    set_kernel_warnings(false);
    uint64_t i = 0;
    while (read_all(channel, &i, sizeof i) == Read::Ok) {
      TaskResult r;
      if (i == kFinish) {
        probe_heap();
      } else {
        try {
          r.bytes = task(i);
        } catch (const std::exception& e) { r = {TaskResult::Threw, e.what()}; } catch (...) {
          r = {TaskResult::Threw, "a non-standard exception"};
        }
      }
      uint8_t kind = r.kind;
      uint32_t len = static_cast<uint32_t>(r.bytes.size());
      if (!write_all(channel, &kind, 1) || !write_all(channel, &len, 4) || !write_all(channel, r.bytes.data(), len))
        break;
      if (i == kFinish) break;
    }
    ::_exit(0);
  }

  // Closes the channel and reaps the worker (killed first when asked); how it ended if abnormally.
  std::string end(bool kill) {
    if (pid_ <= 0) return "";
    release(channel_);
    if (kill) ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::string last_words = clean ? "" : last_line(stderr_);
    if (stderr_ >= 0) release(stderr_);
    if (clean) return "";
    return describe_exit(status) + (last_words.empty() ? "" : ": " + last_words);
  }

  // The last non-empty line a worker wrote to its stderr (at most the last 4 KiB are read).
  static std::string last_line(int fd) {
    if (fd < 0) return "";
    off_t size = ::lseek(fd, 0, SEEK_END);
    off_t from = std::max<off_t>(0, size - 4096);
    std::string text(static_cast<size_t>(size - from), '\0');
    if (size <= 0 || ::pread(fd, text.data(), text.size(), from) < 0) return "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text.substr(text.find_last_of('\n') + 1);
  }

  pid_t pid_ = -1;
  int channel_ = -1, stderr_ = -1;
  int timeout_ms_;
};

// The scheduler: one live worker at a time, results held back for a window, crashes blamed.
class Tasks {
 public:
  Tasks(size_t n, const std::function<std::string(size_t)>& task, const IsolationOptions& options,
        const std::function<void(size_t, const TaskResult&)>& on_result)
      : n_(n), task_(task), options_(options), on_result_(on_result), results_(n) {
    if (options.timeout_s > 0) timeout_ms_ = static_cast<int>(std::min(options.timeout_s * 1000, 2e9));
  }

  std::vector<TaskResult> run() {
    size_t next = 0;
    while (final_ < n_) {
      Worker worker = spawn();
      size_t first = next;
      TaskResult ending;
      bool during = true;  // the worker died while running task `next` (not before taking it)
      for (; next < n_; ++next) {
        if (!worker.send(next)) {
          ending = worker.receive();  // the end of a dead worker: how it ended
          during = next == first;     // a worker that never ran a task is blamed on its first
          break;
        }
        TaskResult r = worker.receive();
        if (r.kind == TaskResult::Crashed || r.kind == TaskResult::TimedOut) {
          ending = std::move(r);
          break;
        }
        results_[next] = std::move(r);
        while (next + 1 - final_ > std::max<size_t>(options_.window, 1)) confirm();
      }
      if (next == n_) {
        if (first == n_) break;  // a worker spawned after the last task has nothing to check
        ending = worker.finish();
        if (ending.kind == TaskResult::Done) break;
        during = false;
      }
      next = blame(first, next, during, std::move(ending));
    }
    confirm_until(n_);
    return std::move(results_);
  }

 private:
  Worker spawn() const { return Worker(task_, options_.backtraces, timeout_ms_); }

  void confirm() {
    if (on_result_) on_result_(final_, results_[final_]);
    ++final_;
  }
  void confirm_until(size_t k) {
    while (final_ < k) confirm();
  }
  // Settles task k's result and confirms everything up to it; the run goes on after it.
  size_t settle(size_t k, TaskResult r) {
    confirm_until(k);
    results_[k] = std::move(r);
    confirm();
    return k + 1;
  }

  // Whether running tasks m..k, then the heap check, kills a worker as it died: during task k, or
  // (not `during`) in the check after it. A death at an earlier task is another crash (damage that
  // shows elsewhere in another order, or a task of its own that crashes only now): it reproduces
  // nothing, or a task of no fault would be blamed.
  bool reproduces(size_t m, size_t k, bool during) const {
    Worker worker = spawn();
    for (size_t i = m; i <= k; ++i)
      if (worker.run(i).kind == TaskResult::Crashed) return during && i == k;
    return worker.finish().kind == TaskResult::Crashed;
  }

  // The worker that started at `first` died during task k, or (not `during`) after task k - 1:
  // before taking task k, or in the heap check after the last task (k == n). Finds the task to
  // blame, records it, and returns where to carry on.
  size_t blame(size_t first, size_t k, bool during, TaskResult ending) {
    if (ending.kind == TaskResult::TimedOut) return settle(k, std::move(ending));
    if (during) {
      Worker worker = spawn();
      TaskResult alone = worker.run(k);
      if (alone.kind == TaskResult::Crashed || alone.kind == TaskResult::TimedOut) return settle(k, std::move(alone));
      if (options_.crashes_by_itself && options_.crashes_by_itself(k))
        return settle(k, {TaskResult::Crashed, ending.bytes + " (a task known to crash now and then: its own crash)"});
      // Damage that kills only in a heap check, or not on every run (where a kernel writes past
      // its buffer may vary): a few more runs alone, each with the check, before a task before it
      // is blamed, which may only have shaped the heap the damage then hit.
      for (int attempt = 0; attempt < kAloneAttempts; ++attempt)
        if (reproduces(k, k, true))
          return settle(k,
                        {TaskResult::Crashed, ending.bytes + " (run again alone, this task kills its worker again)"});
      results_[k] = std::move(alone);  // it survives alone: the damage came from before it
    }
    const std::string where = during   ? "during the later task #" + std::to_string(k)
                              : k < n_ ? "before the later task #" + std::to_string(k)
                                       : "when its worker exited";
    size_t good = std::max(first, final_);  // a crashing suffix starts here, or none does
    size_t last = during ? k : k - 1;       // the suffix ends with this task and a heap check
    if (good >= k || !reproduces(good, last, during)) {
      if (!during) return k;  // damage that does not show again: nothing to blame it on
      return settle(k, {TaskResult::Crashed, ending.bytes + " (the worker died during this task, which runs alone "
                                                            "without crashing; no earlier task reproduces it)"});
    }
    // The latest crashing suffix start lies in [good, bad). Task k itself is a candidate: its run
    // alone had no heap check, and its damage may not kill at once.
    size_t bad = last + 1;
    while (bad - good > 1) {
      size_t mid = good + (bad - good) / 2;
      (reproduces(mid, last, during) ? good : bad) = mid;
    }
    if (good == k)
      return settle(k, {TaskResult::Crashed, ending.bytes + " (run again alone, this task kills its worker again)"});
    return settle(good, {TaskResult::Crashed, ending.bytes + " (found " + where +
                                                  "; run again from this task the "
                                                  "tasks crash again, from the next one they do not)"});
  }

  size_t n_;
  const std::function<std::string(size_t)>& task_;
  const IsolationOptions& options_;
  const std::function<void(size_t, const TaskResult&)>& on_result_;
  int timeout_ms_ = -1;
  std::vector<TaskResult> results_;
  size_t final_ = 0;  // results before this index are final and reported
};

// A call outcome as a task's bytes: [kind:1][message].
std::string encode(const CallOutcome& o) { return static_cast<char>(o.kind) + o.message; }
CallOutcome decode(const TaskResult& r) {
  switch (r.kind) {
    case TaskResult::Done: return {static_cast<CallOutcome::Kind>(r.bytes.at(0)), r.bytes.substr(1)};
    case TaskResult::Threw: return {CallOutcome::Crashed, "the item threw: " + r.bytes};
    case TaskResult::Crashed: return {CallOutcome::Crashed, r.bytes};
    case TaskResult::TimedOut: break;
  }
  return {CallOutcome::TimedOut, r.bytes};
}

}  // namespace

std::vector<TaskResult> run_tasks(size_t n, const std::function<std::string(size_t)>& task,
                                  const IsolationOptions& options,
                                  const std::function<void(size_t, const TaskResult&)>& on_result) {
  return Tasks(n, task, options, on_result).run();
}

void run_jobs(size_t n, unsigned jobs, const std::function<std::string(size_t)>& work,
              const std::function<void(size_t, const TaskResult&)>& done) {
  struct Job {
    std::unique_ptr<Worker> worker;
    size_t item = 0;
  };
  std::vector<Job> running;
  size_t next = 0;
  auto spawn = [&] { return std::make_unique<Worker>(work, backtraces(), -1); };
  // A worker that died after its last job (its heap check failing at exit, say) is replaced.
  auto hand = [&](Job& job, size_t item) {
    job.item = item;
    if (!job.worker->send(item)) (job.worker = spawn())->send(item);
  };
  auto start = [&] {
    Job job{spawn(), 0};
    hand(job, next++);
    running.push_back(std::move(job));
  };
  while (running.size() < std::max(jobs, 1u) && next < n) start();
  while (!running.empty()) {
    std::vector<pollfd> fds;
    for (const Job& j : running) fds.push_back(pollfd{j.worker->reply_fd(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) throw std::runtime_error("run_jobs: poll failed");
    for (size_t k = running.size(); k-- > 0;) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Job& job = running[k];
      TaskResult r = job.worker->receive();
      done(job.item, r);
      if (r.kind == TaskResult::Crashed) job.worker = spawn();
      if (next < n) {
        hand(job, next++);
      } else {
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
}

std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item,
                                      const IsolationOptions& options) {
  std::function<void(size_t, const TaskResult&)> report;
  if (options.on_result) report = [&](size_t i, const TaskResult& r) { options.on_result(i, decode(r)); };
  std::vector<TaskResult> results = run_tasks(
      n, [&](size_t i) { return encode(item(i)); }, options, report);
  std::vector<CallOutcome> out;
  out.reserve(n);
  for (const TaskResult& r : results) out.push_back(decode(r));
  return out;
}

std::vector<CallOutcome> run_isolated(size_t n, const std::function<CallOutcome(size_t)>& item, double timeout_s,
                                      bool backtraces) {
  IsolationOptions options;
  options.timeout_s = timeout_s;
  options.backtraces = backtraces;
  return run_isolated(n, item, options);
}

}  // namespace opsfuzz::opcall
