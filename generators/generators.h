// Generators turn solved MetaArgs into real values: tensors, IValues, and whole samples.
#pragma once

#include "engine/engine.h"
#include "generators/diversity.h"
#include "generators/variable_generator.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <map>
#include <memory>

namespace opsfuzz {

// TensorMeta (dtype, shape, value space, profile) -> at::Tensor, in the layout the config
// asks for (contiguous, or a non-contiguous tensor holding the same values).
class TensorGenerator {
 public:
  explicit TensorGenerator(const TensorConfig& cfg) : cfg_(cfg) {}
  at::Tensor generate(const TensorMeta& meta, Rng& rng) const;

 private:
  at::Tensor relayout(const at::Tensor& t, Rng& rng) const;
  TensorConfig cfg_;  // a copy: a generator may outlive the configuration it was made from
};

// A tensor's elements as doubles (a complex one's real and imaginary parts), to check them
// against a value space.
std::vector<double> tensor_elements(const at::Tensor& t);

// MetaArg -> c10::IValue with the C++ type the schema expects.
class ArgumentGenerator {
 public:
  explicit ArgumentGenerator(const TensorConfig& cfg) : tensors_(cfg) {}
  c10::IValue generate(const MetaArg& meta, Rng& rng) const;

 private:
  TensorGenerator tensors_;
};

struct Sample {
  std::string op;                 // "add.Tensor"
  std::vector<c10::IValue> args;  // positional
  std::vector<std::pair<std::string, c10::IValue>> kwargs;
  std::vector<std::pair<std::string, c10::IValue>> outs;  // when asked for
  std::vector<MetaArg> metas;                             // every argument, positional then keyword
  bool valid = true;
  std::string violated;                 // the constraint an invalid sample violates
  std::vector<std::string> deviations;  // ids of the deviations it hits (contract configuration)
  uint64_t seed = 0;
  uint64_t index = 0;  // (op, seed, index) regenerates this sample
};

// A sample's name in suites and results: "add_Tensor__valid__0007" (op with '_' for '.', its
// validity, its index with at least four digits).
std::string sample_id(const Sample& s);

struct GenerationStats {
  uint64_t samples = 0;
  uint64_t attempts = 0;                        // solves begun, for redrawn candidates too
  uint64_t dead_ends = 0;                       // attempts that met an empty space and were retried
  std::map<DeadEnd, uint64_t> dead_end_causes;  // the dead ends by where they happened: counted
                                                // without text, which only the summary needs
  uint64_t skipped_tasks = 0;                   // tasks given up: an invalid one's constraint could not be violated,
                                                // or a valid one's joint constraints did not hold when sampled
  uint64_t rounds = 0;                          // completed passes over the task plan
  uint64_t solver_calls = 0;                    // queries to the joint-constraint solver
  uint64_t redrawn = 0;                         // valid candidates drawn again: they covered no new class
};

enum class Validity { Valid, Invalid };

// Spec -> an endless stream of samples following the engine's coverage plan: one pass over
// every task (and every variant of it) is a round; the next round continues with new values.
class ArgumentTupleGenerator {
 public:
  ArgumentTupleGenerator(const Spec& spec, Config cfg, uint64_t seed, Validity validity, bool with_out = false);
  // False once the stream has ended (see kPatience): an invalid stream of a spec with no rule the
  // configuration lets it break. Throws UnsatisfiableSpec when a valid task never solves.
  bool next(Sample& out);
  // Why the stream ended ("" while it has not): its samples, and its dead ends by cause.
  std::string why_ended() const;
  const GenerationStats& stats() const { return stats_; }
  uint64_t tuples_per_round() const;  // samples in the first round (after one round has run)
  // Whether the last sample ended a round: the next one begins another pass over the task plan.
  bool round_done() const { return task_ == tasks_.size(); }

  // A valid candidate that covers no argument class or class pair the stream has not covered
  // yet is drawn again, up to kRedraws times, so that the first samples cover more classes
  // (OPERA's parameter-setting diversity, sought while generating). Classes run out, and then
  // every candidate would be redrawn: a stream redraws at most kRedrawBudget candidates.
  static constexpr int kRedraws = 3;
  static constexpr uint64_t kRedrawBudget = 64;
  // A stream ends after three rounds in a row without a sample, and only when the attempts since
  // its last sample exceed kPatience times its attempts per sample so far (kFirstPatience before
  // its first sample): a rule that only some inputs let it break (min.dtype != bool when self is
  // bool) is broken rarely, not never, and the stream goes on breaking it.
  static constexpr uint64_t kPatience = 20;
  static constexpr uint64_t kFirstPatience = 1000;

 private:
  bool attempt(const Task& task, Sample& out);
  bool redraw(const Sample& candidate);
  bool out_of_patience() const;
  bool keeps_to_checked_inputs(DeadEnd& cause);

  const Spec& spec_;
  Config cfg_;
  uint64_t seed_;
  Validity validity_;
  bool with_out_;
  MetaArgTupleEngine engine_;
  ArgumentGenerator args_;
  std::vector<Task> tasks_;
  size_t task_ = 0;
  int variant_ = 0, variants_ = 1;
  uint64_t index_ = 0;
  uint64_t first_round_ = 0;
  uint64_t produced_this_round_ = 0;
  uint64_t misses_ = 0;       // tasks skipped and candidates redrawn since the last sample
  int redraws_ = 0;           // candidates redrawn for this sample
  DiversityCounter covered_;  // the classes of the valid candidates (until the budget is spent)
  int empty_rounds_ = 0;
  uint64_t attempts_at_last_sample_ = 0;
  bool ended_ = false;
  std::vector<c10::IValue> values_;
  MetaTuple tuple_;
  GenerationStats stats_;
};

// The first `count` samples of a stream (fewer when it ends): samples (op, seed, 0..count-1).
std::vector<Sample> generate_samples(const Spec& spec, const Config& cfg, uint64_t seed, Validity validity,
                                     size_t count);

}  // namespace opsfuzz
