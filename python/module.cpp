// _opsfuzz: the SpecDB, its sample streams, classify and the command line, for the opsfuzz
// package (python/opsfuzz/__init__.py), which imports torch first.
#include <c10/util/Exception.h>
#include <pybind11/stl.h>

#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "argtypes/text.h"
#include "generators/classify.h"
#include "generators/generators.h"
#include "python/convert.h"
#include "specs/db/db.h"
#include "tools/check.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/describe.h"

namespace opsfuzz::python {

namespace {

// The spec of `op`, or a UsageError that suggests the closest names.
const Spec& spec_named(const std::string& op) {
  OpSelection one;
  one.ops = {op};
  return *select_specs(one).front();
}

// A sample as Python sees it: the arguments as the op takes them, bound by the schema's names.
struct PySample {
  std::string op, id;
  py::list args;
  py::dict kwargs, outs;
  bool valid = true;
  std::optional<std::string> violated;  // None for a valid sample
  std::vector<std::string> deviations;
  uint64_t seed = 0, index = 0;
};

// One (op, seed, validity, config) stream of samples, as `ops-fuzz generate` makes it, read a
// sample or a round at a time with the GIL released while solving.
class Stream {
 public:
  Stream(const std::string& op, uint64_t seed, bool valid, const std::string& config, bool with_out)
      : spec_(spec_named(op)),
        gen_(spec_, parse_config(config == "default" ? "" : config), seed, valid ? Validity::Valid : Validity::Invalid,
             with_out) {
    for (const ArgSpec& a : spec_.args()) names_.emplace_back(a.name);
  }

  // The next sample (in a buffer the call after overwrites), nullptr at the end.
  const Sample* next() {
    py::gil_scoped_release release;
    uint64_t round;
    return next_into(sample_, round) ? &sample_ : nullptr;
  }
  // The samples of the stream's next round (in a buffer the call after overwrites), solved with
  // the GIL released once for them all.
  std::span<const Sample> next_round() {
    py::gil_scoped_release release;
    size_t n = 0;
    std::optional<uint64_t> first;
    for (uint64_t round;; ++n) {
      if (n == round_samples_.size()) round_samples_.emplace_back();
      if (!next_into(round_samples_[n], round)) break;
      if (!first) first = round;
      if (round != *first) {  // the stream skipped the last tasks of this round: this one begins the next
        std::swap(sample_, round_samples_[n]);
        put_back_ = true;
        break;
      }
      if (gen_.round_done()) return {round_samples_.data(), n + 1};
    }
    return {round_samples_.data(), n};
  }

  PySample to_python(const Sample& s) const {
    PySample p;
    p.op = s.op, p.id = sample_id(s), p.valid = s.valid, p.deviations = s.deviations, p.seed = s.seed,
    p.index = s.index;
    if (!s.valid) p.violated = s.violated;
    bind(s, p.args, p.kwargs, p.outs);
    return p;
  }
  // Positional arguments, keywords and out= tensors, converted by their spec arguments' types.
  void bind(const Sample& s, py::list& args, py::dict& kwargs, py::dict& outs) const {
    size_t positional = 0, keyword = 0;
    for (size_t i = 0; i < spec_.args().size(); ++i) {
      const ArgSpec& a = spec_.args()[i];
      if (a.keyword) {
        kwargs[names_[i]] = python::to_python(s.kwargs.at(keyword++).second, a.type);
      } else {
        args.append(python::to_python(s.args.at(positional++), a.type));
      }
    }
    for (const auto& [name, value] : s.outs) outs[py::str(name)] = python::to_python(value, ArgType::Tensor);
  }

 private:
  // The next sample into `s`, and the round it belongs to (the first is 0); false at the end.
  bool next_into(Sample& s, uint64_t& round) {
    if (std::exchange(put_back_, false)) {
      std::swap(s, sample_);
      round = round_;
      return true;
    }
    bool ok = gen_.next(s);
    round = round_ = gen_.stats().rounds;
    return ok;
  }

  const Spec& spec_;
  std::vector<py::str> names_;  // of the spec's arguments, made once: the keys of every sample's kwargs
  ArgumentTupleGenerator gen_;
  // The buffers samples are solved into, reused so that their vectors keep their capacity: one
  // sample, or the last round's. A round's sample that belongs to the next is put back here.
  Sample sample_;
  std::vector<Sample> round_samples_;
  uint64_t round_ = 0;  // of the last sample solved
  bool put_back_ = false;
};

// opsfuzz.generate's iterator: `count` samples of a stream (all, when none is given), from the
// one numbered `first` on (the ones before it are generated and dropped).
class Samples {
 public:
  Samples(std::shared_ptr<Stream> stream, std::optional<uint64_t> count, uint64_t first)
      : stream_(std::move(stream)), count_(count), first_(first) {}
  PySample next() {
    const Sample* s = nullptr;
    do {
      if ((count_ && yielded_ == *count_) || !(s = stream_->next())) throw py::stop_iteration();
    } while (s->index < first_);
    ++yielded_;
    return stream_->to_python(*s);
  }

 private:
  std::shared_ptr<Stream> stream_;
  std::optional<uint64_t> count_;
  uint64_t first_, yielded_ = 0;
};

// FACTO's gen(): the next round of a stream, as (posargs, inkwargs, outargs) tuples. Made in
// one call, so that a loop over the round pays no call into the module per tuple.
py::list next_round(Stream& stream) {
  std::span<const Sample> samples = stream.next_round();
  py::list tuples(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    py::list args;
    py::dict kwargs, outs;
    stream.bind(samples[i], args, kwargs, outs);
    tuples[i] = py::make_tuple(std::move(args), std::move(kwargs), std::move(outs));
  }
  return tuples;
}

struct PyClassification {
  bool valid = true;
  std::vector<std::string> violated, deviations, outside_scope, unevaluated;
};

PyClassification classify_inputs(const std::string& op, const py::args& args, const py::kwargs& kwargs) {
  const Spec& spec = spec_named(op);
  opcall::Stack stack;
  opcall::Kwargs named;
  for (py::handle a : args) stack.push_back(from_python(a));
  for (auto [name, value] : kwargs) named.emplace_back(name.cast<std::string>(), from_python(value));
  SpecInputs inputs = bind_to_spec(spec.op(), stack, named);
  Classification c = classify(spec, inputs.values);
  return {c.valid(), c.broken, c.deviations, c.outside_scope, c.unevaluated};
}

// The command line in this process (ops-fuzz's output on this process's stdout and stderr): its
// exit code.
int run_command_line(const std::vector<std::string>& args) {
  py::gil_scoped_release release;
  return run_cli(args, std::cout, std::cerr);
}

void register_exceptions() {
  // A wrong op name, config word or option is the caller's value; wrong arguments its types.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UsageError& e) { PyErr_SetString(PyExc_ValueError, e.what()); } catch (const opcall::BindError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ObserveError& e) { PyErr_SetString(PyExc_TypeError, e.what()); } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    }
  });
}

}  // namespace

PYBIND11_MODULE(_opsfuzz, m) {
  register_exceptions();
  m.def("specs", [] {
    std::vector<std::string> ops;
    for (const Spec& s : spec_db()) ops.push_back(s.op());
    return ops;
  });
  m.def(
      "describe", [](const std::string& op) { return describe_spec(spec_named(op)); }, py::arg("op"));

  py::class_<PySample>(m, "Sample")
      .def_readonly("op", &PySample::op)
      .def_readonly("id", &PySample::id)
      .def_readonly("args", &PySample::args)
      .def_readonly("kwargs", &PySample::kwargs)
      .def_readonly("outs", &PySample::outs)
      .def_readonly("valid", &PySample::valid)
      .def_readonly("violated", &PySample::violated)
      .def_readonly("deviations", &PySample::deviations)
      .def_readonly("seed", &PySample::seed)
      .def_readonly("index", &PySample::index)
      .def("__repr__", [](const PySample& s) {
        return "<opsfuzz.Sample " + s.id + (s.violated ? " violating '" + *s.violated + "'" : "") + ">";
      });

  py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream")
      .def(py::init<std::string, uint64_t, bool, std::string, bool>(), py::arg("op"), py::arg("seed"), py::arg("valid"),
           py::arg("config"), py::arg("with_out"))
      .def("next_round", &next_round);
  py::class_<Samples>(m, "Samples")
      .def(py::init<std::shared_ptr<Stream>, std::optional<uint64_t>, uint64_t>())
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Samples::next);

  py::class_<PyClassification>(m, "Classification")
      .def_readonly("valid", &PyClassification::valid)
      .def_readonly("violated", &PyClassification::violated)
      .def_readonly("deviations", &PyClassification::deviations)
      .def_readonly("outside_scope", &PyClassification::outside_scope)
      .def_readonly("unevaluated", &PyClassification::unevaluated)
      .def("__bool__", [](const PyClassification& c) { return c.valid; })
      .def("__repr__", [](const PyClassification& c) {
        return std::string("<opsfuzz.Classification ") +
               (c.valid ? "valid" : "invalid: " + join(c.violated.empty() ? c.unevaluated : c.violated, "; ")) + ">";
      });
  m.def("classify", &classify_inputs, py::arg("op"));
  m.def("run_cli", &run_command_line, py::arg("args"));
}

}  // namespace opsfuzz::python
