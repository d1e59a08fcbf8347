// The built-in `torch.nn.*` names: torch::nn modules bound by their Python signatures.
#include <torch/torch.h>

#include "argtypes/names.h"
#include "suite/modules.h"

namespace opsfuzz::suite {

void register_builtin_module(const std::string& path, Signature signature, ModuleFactory factory,
                             bool variadic);
void convert_floating(const at::Tensor& t, c10::ScalarType dtype);  // modules.cpp

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using Forward = std::function<c10::IValue(const Bound&)>;

const c10::IValue None;

c10::IValue str(const char* s) { return c10::IValue(std::string(s)); }

at::Tensor tensor(const Bound& b, const std::string& name) {
  const auto& v = b.get(name);
  if (!v.isTensor())
    throw std::invalid_argument(b.what() + ": argument '" + name + "' expects a Tensor, got " +
                                (v.isNone() ? "None" : v.tagKind()));
  return v.toTensor();
}

// An undefined tensor stands for None in the C++ frontend's forward signatures.
at::Tensor tensor_or_undefined(const Bound& b, const std::string& name) {
  return b.none(name) ? at::Tensor() : tensor(b, name);
}

template <class T>
c10::optional<T> c10_opt(const std::optional<T>& v) {
  return v ? c10::optional<T>(*v) : c10::nullopt;
}

c10::IValue tuple(std::vector<c10::IValue> items) {
  return c10::ivalue::Tuple::create(std::move(items));
}

template <size_t D>
torch::ExpandingArray<D> arr(const Bound& b, const std::string& name) {
  auto v = b.ints(name);
  if (v.size() == 1) return torch::ExpandingArray<D>(v[0]);
  if (v.size() != D)
    throw std::invalid_argument(b.what() + ": argument '" + name + "' expects an int or " +
                                std::to_string(D) + " ints");
  return torch::ExpandingArray<D>(at::ArrayRef<int64_t>(v));
}

// A module without parameters or buffers whose forward is a function of its bound forward
// arguments: a copy shares nothing that converting could change.
class FnModule : public Module {
 public:
  FnModule(std::string what, Signature signature, Forward fn)
      : what_(std::move(what)), signature_(std::move(signature)), fn_(std::move(fn)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    return fn_(Bound(what_, signature_, args, kwargs));
  }
  std::shared_ptr<Module> clone() const override { return std::make_shared<FnModule>(*this); }
  void to(c10::ScalarType) override {}

 private:
  std::string what_;
  Signature signature_;
  Forward fn_;
};

// A torch::nn module (M is its holder, e.g. nn::Linear) with a forward function of its bound
// forward arguments.
template <class M>
class NnModule : public Module {
 public:
  using Fn = std::function<c10::IValue(M&, const Bound&)>;
  NnModule(std::string what, Signature signature, M m, Fn fn)
      : what_(std::move(what)), signature_(std::move(signature)), m_(std::move(m)),
        fn_(std::move(fn)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    return fn_(m_, Bound(what_, signature_, args, kwargs));
  }
  // torch::nn's clone deep-copies parameters, buffers and submodules, and keeps eval mode.
  std::shared_ptr<Module> clone() const override {
    auto copy = std::dynamic_pointer_cast<typename M::ContainedType>(m_->clone());
    return std::make_shared<NnModule>(what_, signature_, M(std::move(copy)), fn_);
  }
  // Not torch::nn::Module::to: it would convert integral buffers (num_batches_tracked) too.
  void to(c10::ScalarType dtype) override {
    for (const at::Tensor& t : m_->parameters()) convert_floating(t, dtype);
    for (const at::Tensor& t : m_->buffers()) convert_floating(t, dtype);
  }

 private:
  std::string what_;
  Signature signature_;
  M m_;
  Fn fn_;
};

// Applies modules in turn (Sequential).
class SequentialModule : public Module {
 public:
  SequentialModule(std::string what, std::vector<std::shared_ptr<Module>> steps)
      : what_(std::move(what)), steps_(std::move(steps)) {}
  c10::IValue forward(const std::vector<c10::IValue>& args, const Kwargs& kwargs) override {
    c10::IValue x = Bound(what_, {"input"}, args, kwargs).get("input");
    for (const auto& step : steps_) x = step->forward({x}, {});
    return x;
  }
  std::shared_ptr<Module> clone() const override {
    std::vector<std::shared_ptr<Module>> copies;
    for (const auto& step : steps_) copies.push_back(step->clone());
    return std::make_shared<SequentialModule>(what_, std::move(copies));
  }
  void to(c10::ScalarType dtype) override {
    for (const auto& step : steps_) step->to(dtype);
  }

 private:
  std::string what_;
  std::vector<std::shared_ptr<Module>> steps_;
};

// Puts a torch::nn module in eval mode and keeps it for its forward function.
template <class M>
std::shared_ptr<Module> wrap(const Bound& ctor, M m, Signature forward_signature,
                             std::function<c10::IValue(M&, const Bound&)> fn) {
  m->eval();
  return std::make_shared<NnModule<M>>(ctor.what() + ".forward", std::move(forward_signature),
                                       std::move(m), std::move(fn));
}

// The usual case: forward(input) -> Tensor.
template <class M>
std::shared_ptr<Module> unary(const Bound& ctor, M m) {
  return wrap<M>(ctor, std::move(m), {"input"}, [](M& m, const Bound& in) {
    return c10::IValue(m->forward(tensor(in, "input")));
  });
}

Signature placement(Signature s) {
  s.push_back({"device", None});
  s.push_back({"dtype", None});
  return s;
}

// Applies the `device` and `dtype` constructor arguments of parametric modules.
template <class M>
M placed(M m, const Bound& b) {
  const auto& device = b.get("device");
  if (!device.isNone() && !(device.isString() && device.toStringRef() == "cpu") &&
      !(device.isDevice() && device.toDevice().is_cpu()))
    throw std::invalid_argument(b.what() + ": only device cpu is supported here");
  const auto& dtype = b.get("dtype");
  if (dtype.isString()) {
    auto t = parse_dtype(dtype.toStringRef());
    if (!t) throw std::invalid_argument(b.what() + ": unknown dtype '" + dtype.toStringRef() + "'");
    m->to(*t);
  } else if (dtype.isInt()) {
    m->to(static_cast<c10::ScalarType>(dtype.toInt()));
  }
  return m;
}

void reg(const std::string& name, Signature signature, ModuleFactory factory,
         bool variadic = false) {
  register_builtin_module("torch.nn." + name, std::move(signature), std::move(factory), variadic);
}

nn::detail::conv_padding_mode_t padding_mode(const Bound& b) {
  std::string m = b.s("padding_mode");
  if (m == "zeros") return torch::kZeros;
  if (m == "reflect") return torch::kReflect;
  if (m == "replicate") return torch::kReplicate;
  if (m == "circular") return torch::kCircular;
  throw std::invalid_argument(b.what() + ": unknown padding_mode '" + m + "'");
}

template <size_t D>
nn::detail::conv_padding_t<D> conv_padding(const Bound& b) {
  const auto& p = b.get("padding");
  if (p.isString()) {
    if (p.toStringRef() == "same") return torch::kSame;
    if (p.toStringRef() == "valid") return torch::kValid;
    throw std::invalid_argument(b.what() + ": unknown padding '" + p.toStringRef() + "'");
  }
  return arr<D>(b, "padding");
}

template <size_t D, class Holder>
void register_conv(const std::string& name) {
  reg(name,
      placement({"in_channels",
                 "out_channels",
                 "kernel_size",
                 {"stride", 1},
                 {"padding", 0},
                 {"dilation", 1},
                 {"groups", 1},
                 {"bias", true},
                 {"padding_mode", str("zeros")}}),
      [](const Bound& b) {
        nn::ConvOptions<D> o(b.i("in_channels"), b.i("out_channels"), arr<D>(b, "kernel_size"));
        o.stride(arr<D>(b, "stride")).padding(conv_padding<D>(b)).dilation(arr<D>(b, "dilation"));
        o.groups(b.i("groups")).bias(b.b("bias")).padding_mode(padding_mode(b));
        return unary(b, placed(Holder(o), b));
      });
}

template <size_t D, class Holder>
void register_conv_transpose(const std::string& name) {
  reg(name,
      placement({"in_channels",
                 "out_channels",
                 "kernel_size",
                 {"stride", 1},
                 {"padding", 0},
                 {"output_padding", 0},
                 {"groups", 1},
                 {"bias", true},
                 {"dilation", 1},
                 {"padding_mode", str("zeros")}}),
      [](const Bound& b) {
        nn::ConvTransposeOptions<D> o(b.i("in_channels"), b.i("out_channels"),
                                      arr<D>(b, "kernel_size"));
        o.stride(arr<D>(b, "stride")).padding(arr<D>(b, "padding"));
        o.output_padding(arr<D>(b, "output_padding")).groups(b.i("groups")).bias(b.b("bias"));
        o.dilation(arr<D>(b, "dilation")).padding_mode(padding_mode(b));
        return wrap<Holder>(b, placed(Holder(o), b), {"input", {"output_size", None}},
                            [](Holder& m, const Bound& in) {
                              c10::optional<at::IntArrayRef> size;
                              std::vector<int64_t> sizes;
                              if (!in.none("output_size")) {
                                sizes = in.ints("output_size");
                                size = at::IntArrayRef(sizes);
                              }
                              return c10::IValue(m->forward(tensor(in, "input"), size));
                            });
      });
}

template <class Holder, class Options>
void register_batch_norm(const std::string& name) {
  reg(name,
      placement({"num_features",
                 {"eps", 1e-5},
                 {"momentum", 0.1},
                 {"affine", true},
                 {"track_running_stats", true}}),
      [](const Bound& b) {
        Options o(b.i("num_features"));
        o.eps(b.d("eps")).momentum(c10_opt(b.opt_d("momentum"))).affine(b.b("affine"));
        o.track_running_stats(b.b("track_running_stats"));
        return unary(b, placed(Holder(o), b));
      });
}

template <class Holder, class Options>
void register_instance_norm(const std::string& name) {
  reg(name,
      placement({"num_features",
                 {"eps", 1e-5},
                 {"momentum", 0.1},
                 {"affine", false},
                 {"track_running_stats", false}}),
      [](const Bound& b) {
        Options o(b.i("num_features"));
        o.eps(b.d("eps")).momentum(b.d("momentum")).affine(b.b("affine"));
        o.track_running_stats(b.b("track_running_stats"));
        return unary(b, placed(Holder(o), b));
      });
}

template <size_t D, class Holder>
void register_max_pool(const std::string& name) {
  reg(name,
      {"kernel_size",
       {"stride", None},
       {"padding", 0},
       {"dilation", 1},
       {"return_indices", false},
       {"ceil_mode", false}},
      [](const Bound& b) {
        nn::MaxPoolOptions<D> o(arr<D>(b, "kernel_size"));
        o.stride(b.none("stride") ? arr<D>(b, "kernel_size") : arr<D>(b, "stride"));
        o.padding(arr<D>(b, "padding")).dilation(arr<D>(b, "dilation")).ceil_mode(b.b("ceil_mode"));
        bool indices = b.b("return_indices");
        return wrap<Holder>(b, Holder(o), {"input"}, [indices](Holder& m, const Bound& in) {
          if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
          auto [out, index] = m->forward_with_indices(tensor(in, "input"));
          return tuple({out, index});
        });
      });
}

template <size_t D, class Holder>
void register_avg_pool(const std::string& name) {
  Signature s = {"kernel_size",
                 {"stride", None},
                 {"padding", 0},
                 {"ceil_mode", false},
                 {"count_include_pad", true}};
  if (D > 1) s.push_back({"divisor_override", None});
  reg(name, s, [](const Bound& b) {
    nn::AvgPoolOptions<D> o(arr<D>(b, "kernel_size"));
    o.stride(b.none("stride") ? arr<D>(b, "kernel_size") : arr<D>(b, "stride"));
    o.padding(arr<D>(b, "padding")).ceil_mode(b.b("ceil_mode"));
    o.count_include_pad(b.b("count_include_pad"));
    if (D > 1) o.divisor_override(c10_opt(b.opt_i("divisor_override")));
    return unary(b, Holder(o));
  });
}

template <class Holder>
std::shared_ptr<Module> recurrent(const Bound& b, Holder m, bool has_cell_state) {
  return wrap<Holder>(b, placed(std::move(m), b), {"input", {"hx", None}},
                      [has_cell_state](Holder& m, const Bound& in) -> c10::IValue {
                        at::Tensor input = tensor(in, "input");
                        if constexpr (std::is_same_v<Holder, nn::LSTM>) {
                          c10::optional<std::tuple<at::Tensor, at::Tensor>> hx;
                          if (!in.none("hx")) {
                            auto hc = in.get("hx").toTupleRef().elements();
                            hx = std::make_tuple(hc.at(0).toTensor(), hc.at(1).toTensor());
                          }
                          auto [out, state] = m->forward(input, hx);
                          return tuple({out, tuple({std::get<0>(state), std::get<1>(state)})});
                        } else {
                          auto [out, h] = m->forward(input, tensor_or_undefined(in, "hx"));
                          return tuple({out, h});
                        }
                      });
}

Signature rnn_signature(bool lstm) {
  Signature s = {"input_size", "hidden_size", {"num_layers", 1}};
  if (!lstm) s.push_back({"nonlinearity", str("tanh")});
  for (Param p : Signature{
           {"bias", true}, {"batch_first", false}, {"dropout", 0.0}, {"bidirectional", false}})
    s.push_back(p);
  if (lstm) s.push_back({"proj_size", 0});
  return placement(s);
}

template <class Options>
Options rnn_options(const Bound& b) {
  Options o(b.i("input_size"), b.i("hidden_size"));
  o.num_layers(b.i("num_layers")).bias(b.b("bias")).batch_first(b.b("batch_first"));
  o.dropout(b.d("dropout")).bidirectional(b.b("bidirectional"));
  return o;
}

void register_linear_and_conv() {
  reg("Linear", placement({"in_features", "out_features", {"bias", true}}), [](const Bound& b) {
    auto o = nn::LinearOptions(b.i("in_features"), b.i("out_features")).bias(b.b("bias"));
    return unary(b, placed(nn::Linear(o), b));
  });
  reg("Bilinear", placement({"in1_features", "in2_features", "out_features", {"bias", true}}),
      [](const Bound& b) {
        auto o = nn::BilinearOptions(b.i("in1_features"), b.i("in2_features"), b.i("out_features"))
                     .bias(b.b("bias"));
        return wrap<nn::Bilinear>(
            b, placed(nn::Bilinear(o), b), {"input1", "input2"},
            [](nn::Bilinear& m, const Bound& in) {
              return c10::IValue(m->forward(tensor(in, "input1"), tensor(in, "input2")));
            });
      });
  register_conv<1, nn::Conv1d>("Conv1d");
  register_conv<2, nn::Conv2d>("Conv2d");
  register_conv<3, nn::Conv3d>("Conv3d");
  register_conv_transpose<1, nn::ConvTranspose1d>("ConvTranspose1d");
  register_conv_transpose<2, nn::ConvTranspose2d>("ConvTranspose2d");
  register_conv_transpose<3, nn::ConvTranspose3d>("ConvTranspose3d");
}

void register_norms() {
  register_batch_norm<nn::BatchNorm1d, nn::BatchNorm1dOptions>("BatchNorm1d");
  register_batch_norm<nn::BatchNorm2d, nn::BatchNorm2dOptions>("BatchNorm2d");
  register_batch_norm<nn::BatchNorm3d, nn::BatchNorm3dOptions>("BatchNorm3d");
  register_instance_norm<nn::InstanceNorm1d, nn::InstanceNorm1dOptions>("InstanceNorm1d");
  register_instance_norm<nn::InstanceNorm2d, nn::InstanceNorm2dOptions>("InstanceNorm2d");
  register_instance_norm<nn::InstanceNorm3d, nn::InstanceNorm3dOptions>("InstanceNorm3d");
  reg("LayerNorm", placement({"normalized_shape", {"eps", 1e-5}, {"elementwise_affine", true}}),
      [](const Bound& b) {
        auto o = nn::LayerNormOptions(b.ints("normalized_shape"))
                     .eps(b.d("eps"))
                     .elementwise_affine(b.b("elementwise_affine"));
        return unary(b, placed(nn::LayerNorm(o), b));
      });
  reg("GroupNorm", placement({"num_groups", "num_channels", {"eps", 1e-5}, {"affine", true}}),
      [](const Bound& b) {
        auto o = nn::GroupNormOptions(b.i("num_groups"), b.i("num_channels"))
                     .eps(b.d("eps"))
                     .affine(b.b("affine"));
        return unary(b, placed(nn::GroupNorm(o), b));
      });
}

void register_embeddings() {
  reg("Embedding",
      placement({"num_embeddings",
                 "embedding_dim",
                 {"padding_idx", None},
                 {"max_norm", None},
                 {"norm_type", 2.0},
                 {"scale_grad_by_freq", false},
                 {"sparse", false}}),
      [](const Bound& b) {
        auto o = nn::EmbeddingOptions(b.i("num_embeddings"), b.i("embedding_dim"))
                     .padding_idx(c10_opt(b.opt_i("padding_idx")))
                     .max_norm(c10_opt(b.opt_d("max_norm")))
                     .norm_type(b.d("norm_type"))
                     .scale_grad_by_freq(b.b("scale_grad_by_freq"))
                     .sparse(b.b("sparse"));
        return unary(b, placed(nn::Embedding(o), b));
      });
  reg("EmbeddingBag",
      placement({"num_embeddings",
                 "embedding_dim",
                 {"max_norm", None},
                 {"norm_type", 2.0},
                 {"scale_grad_by_freq", false},
                 {"mode", str("mean")},
                 {"sparse", false},
                 {"include_last_offset", false},
                 {"padding_idx", None}}),
      [](const Bound& b) {
        auto o = nn::EmbeddingBagOptions(b.i("num_embeddings"), b.i("embedding_dim"))
                     .max_norm(c10_opt(b.opt_d("max_norm")))
                     .norm_type(b.d("norm_type"))
                     .scale_grad_by_freq(b.b("scale_grad_by_freq"))
                     .sparse(b.b("sparse"))
                     .include_last_offset(b.b("include_last_offset"))
                     .padding_idx(c10_opt(b.opt_i("padding_idx")));
        std::string mode = b.s("mode");
        if (mode == "sum")
          o.mode(torch::kSum);
        else if (mode == "mean")
          o.mode(torch::kMean);
        else if (mode == "max")
          o.mode(torch::kMax);
        else
          throw std::invalid_argument(b.what() + ": unknown mode '" + mode + "'");
        return wrap<nn::EmbeddingBag>(
            b, placed(nn::EmbeddingBag(o), b),
            {"input", {"offsets", None}, {"per_sample_weights", None}},
            [](nn::EmbeddingBag& m, const Bound& in) {
              return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "offsets"),
                                            tensor_or_undefined(in, "per_sample_weights")));
            });
      });
}

Signature transformer_layer_signature() {
  return placement({"d_model",
                    "nhead",
                    {"dim_feedforward", 2048},
                    {"dropout", 0.1},
                    {"activation", str("relu")},
                    {"layer_norm_eps", 1e-5},
                    {"batch_first", false},
                    {"norm_first", false}});
}

// Options shared by the encoder and decoder layers. The C++ layers have a fixed eps and are
// post-norm: refuse what they cannot do.
template <class Options>
Options transformer_layer_options(const Bound& b) {
  auto o = Options(b.i("d_model"), b.i("nhead"))
               .dim_feedforward(b.i("dim_feedforward"))
               .dropout(b.d("dropout"));
  std::string act = b.s("activation");
  if (act == "relu")
    o.activation(torch::kReLU);
  else if (act == "gelu")
    o.activation(torch::kGELU);
  else
    throw std::invalid_argument(b.what() + ": unknown activation '" + act + "'");
  if (b.d("layer_norm_eps") != 1e-5 || b.b("norm_first"))
    throw std::invalid_argument(
        b.what() + ": layer_norm_eps other than 1e-5 and norm_first=True are not available");
  return o;
}

// The C++ layers are sequence-first only: batch-first inputs and outputs are transposed.
at::Tensor sequence_first(const at::Tensor& t, bool batch_first) {
  return batch_first ? t.transpose(0, 1) : t;
}

void register_transformer_layers() {
  reg("TransformerEncoderLayer", transformer_layer_signature(), [](const Bound& b) {
    auto o = transformer_layer_options<nn::TransformerEncoderLayerOptions>(b);
    bool bf = b.b("batch_first");
    return wrap<nn::TransformerEncoderLayer>(
        b, placed(nn::TransformerEncoderLayer(o), b),
        {"src", {"src_mask", None}, {"src_key_padding_mask", None}},
        [bf](nn::TransformerEncoderLayer& m, const Bound& in) {
          at::Tensor out =
              m->forward(sequence_first(tensor(in, "src"), bf), tensor_or_undefined(in, "src_mask"),
                         tensor_or_undefined(in, "src_key_padding_mask"));
          return c10::IValue(sequence_first(out, bf));
        });
  });
  reg("TransformerDecoderLayer", transformer_layer_signature(), [](const Bound& b) {
    auto o = transformer_layer_options<nn::TransformerDecoderLayerOptions>(b);
    bool bf = b.b("batch_first");
    return wrap<nn::TransformerDecoderLayer>(
        b, placed(nn::TransformerDecoderLayer(o), b),
        {"tgt",
         "memory",
         {"tgt_mask", None},
         {"memory_mask", None},
         {"tgt_key_padding_mask", None},
         {"memory_key_padding_mask", None}},
        [bf](nn::TransformerDecoderLayer& m, const Bound& in) {
          at::Tensor out = m->forward(
              sequence_first(tensor(in, "tgt"), bf), sequence_first(tensor(in, "memory"), bf),
              tensor_or_undefined(in, "tgt_mask"), tensor_or_undefined(in, "memory_mask"),
              tensor_or_undefined(in, "tgt_key_padding_mask"),
              tensor_or_undefined(in, "memory_key_padding_mask"));
          return c10::IValue(sequence_first(out, bf));
        });
  });
}

void register_recurrent_and_attention() {
  reg("LSTM", rnn_signature(true), [](const Bound& b) {
    auto o = rnn_options<nn::LSTMOptions>(b).proj_size(b.i("proj_size"));
    return recurrent(b, nn::LSTM(o), true);
  });
  reg("GRU", rnn_signature(false), [](const Bound& b) {
    if (b.s("nonlinearity") != "tanh")
      throw std::invalid_argument(b.what() + ": unexpected keyword argument 'nonlinearity'");
    return recurrent(b, nn::GRU(rnn_options<nn::GRUOptions>(b)), false);
  });
  reg("RNN", rnn_signature(false), [](const Bound& b) {
    auto o = rnn_options<nn::RNNOptions>(b);
    std::string f = b.s("nonlinearity");
    if (f == "tanh")
      o.nonlinearity(torch::kTanh);
    else if (f == "relu")
      o.nonlinearity(torch::kReLU);
    else
      throw std::invalid_argument(b.what() + ": unknown nonlinearity '" + f + "'");
    return recurrent(b, nn::RNN(o), false);
  });
  reg("MultiheadAttention",
      placement({"embed_dim",
                 "num_heads",
                 {"dropout", 0.0},
                 {"bias", true},
                 {"add_bias_kv", false},
                 {"add_zero_attn", false},
                 {"kdim", None},
                 {"vdim", None},
                 {"batch_first", false}}),
      [](const Bound& b) {
        int64_t e = b.i("embed_dim");
        auto o = nn::MultiheadAttentionOptions(e, b.i("num_heads"))
                     .dropout(b.d("dropout"))
                     .bias(b.b("bias"))
                     .add_bias_kv(b.b("add_bias_kv"))
                     .add_zero_attn(b.b("add_zero_attn"))
                     .kdim(b.opt_i("kdim").value_or(e))
                     .vdim(b.opt_i("vdim").value_or(e));
        bool batch_first = b.b("batch_first");  // the C++ module is sequence-first only
        return wrap<nn::MultiheadAttention>(
            b, placed(nn::MultiheadAttention(o), b),
            {"query",
             "key",
             "value",
             {"key_padding_mask", None},
             {"need_weights", true},
             {"attn_mask", None},
             {"average_attn_weights", true}},
            [batch_first](nn::MultiheadAttention& m, const Bound& in) {
              auto seq = [&](const char* n) {
                at::Tensor t = tensor(in, n);
                return batch_first ? t.transpose(0, 1) : t;
              };
              auto [out, weights] =
                  m->forward(seq("query"), seq("key"), seq("value"),
                             tensor_or_undefined(in, "key_padding_mask"), in.b("need_weights"),
                             tensor_or_undefined(in, "attn_mask"), in.b("average_attn_weights"));
              return tuple({batch_first ? out.transpose(0, 1) : out,
                            weights.defined() ? c10::IValue(weights) : None});
            });
      });
  register_transformer_layers();
}

// An activation computed by an ATen function (for modules the C++ frontend lacks, or whose
// Python arguments it does not take).
void reg_fn(const std::string& name, Signature ctor,
            std::function<at::Tensor(const Bound&, const at::Tensor&)> fn) {
  reg(name, ctor, [name, fn](const Bound& b) -> std::shared_ptr<Module> {
    return std::make_shared<FnModule>(
        b.what() + ".forward", Signature{"input"},
        [b, fn](const Bound& in) { return c10::IValue(fn(b, tensor(in, "input"))); });
  });
}

// Python's implicit softmax dim, used when dim is None.
int64_t implicit_softmax_dim(const at::Tensor& x) {
  int64_t n = x.dim();
  return (n == 0 || n == 1 || n == 3) ? 0 : 1;
}

void register_activations() {
  reg("ReLU", {{"inplace", false}},
      [](const Bound& b) { return unary(b, nn::ReLU(nn::ReLUOptions(b.b("inplace")))); });
  reg("ReLU6", {{"inplace", false}},
      [](const Bound& b) { return unary(b, nn::ReLU6(nn::ReLU6Options(b.b("inplace")))); });
  reg("LeakyReLU", {{"negative_slope", 0.01}, {"inplace", false}}, [](const Bound& b) {
    return unary(
        b,
        nn::LeakyReLU(
            nn::LeakyReLUOptions().negative_slope(b.d("negative_slope")).inplace(b.b("inplace"))));
  });
  reg("PReLU", placement({{"num_parameters", 1}, {"init", 0.25}}), [](const Bound& b) {
    return unary(
        b, placed(nn::PReLU(
                      nn::PReLUOptions().num_parameters(b.i("num_parameters")).init(b.d("init"))),
                  b));
  });
  reg("ELU", {{"alpha", 1.0}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::ELU(nn::ELUOptions().alpha(b.d("alpha")).inplace(b.b("inplace"))));
  });
  reg("SELU", {{"inplace", false}},
      [](const Bound& b) { return unary(b, nn::SELU(nn::SELUOptions(b.b("inplace")))); });
  reg("GELU", {{"approximate", str("none")}}, [](const Bound& b) {
    return unary(b, nn::GELU(nn::GELUOptions().approximate(b.s("approximate"))));
  });
  // The C++ SiLU and Mish modules take no inplace flag; the values are the same either way.
  reg("SiLU", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::SiLU()); });
  reg("Mish", {{"inplace", false}}, [](const Bound& b) { return unary(b, nn::Mish()); });
  reg("Sigmoid", {}, [](const Bound& b) { return unary(b, nn::Sigmoid()); });
  reg("Tanh", {}, [](const Bound& b) { return unary(b, nn::Tanh()); });
  reg("Hardtanh", {{"min_val", -1.0}, {"max_val", 1.0}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::Hardtanh(nn::HardtanhOptions()
                                     .min_val(b.d("min_val"))
                                     .max_val(b.d("max_val"))
                                     .inplace(b.b("inplace"))));
  });
  reg_fn("Hardswish", {{"inplace", false}},
         [](const Bound&, const at::Tensor& x) { return at::hardswish(x); });
  reg_fn("Hardsigmoid", {{"inplace", false}},
         [](const Bound&, const at::Tensor& x) { return at::hardsigmoid(x); });
  reg("Softplus", {{"beta", 1.0}, {"threshold", 20.0}}, [](const Bound& b) {
    return unary(b,
                 nn::Softplus(nn::SoftplusOptions().beta(b.d("beta")).threshold(b.d("threshold"))));
  });
  reg_fn("Softmax", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::softmax(x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg_fn("LogSoftmax", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::log_softmax(x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg("LogSigmoid", {}, [](const Bound& b) { return unary(b, nn::LogSigmoid()); });
  reg("Softsign", {}, [](const Bound& b) { return unary(b, nn::Softsign()); });
  reg("Tanhshrink", {}, [](const Bound& b) { return unary(b, nn::Tanhshrink()); });
  reg("Dropout", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::Dropout(nn::DropoutOptions(b.d("p")).inplace(b.b("inplace"))));
  });
}

void register_pooling() {
  register_max_pool<1, nn::MaxPool1d>("MaxPool1d");
  register_max_pool<2, nn::MaxPool2d>("MaxPool2d");
  register_max_pool<3, nn::MaxPool3d>("MaxPool3d");
  register_avg_pool<1, nn::AvgPool1d>("AvgPool1d");
  register_avg_pool<2, nn::AvgPool2d>("AvgPool2d");
  register_avg_pool<3, nn::AvgPool3d>("AvgPool3d");
  reg("AdaptiveAvgPool1d", {"output_size"}, [](const Bound& b) {
    return unary(b, nn::AdaptiveAvgPool1d(nn::AdaptiveAvgPool1dOptions(arr<1>(b, "output_size"))));
  });
  reg("AdaptiveAvgPool2d", {"output_size"}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes.push_back(sizes[0]);
    return unary(b, nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(sizes)));
  });
  reg("AdaptiveAvgPool3d", {"output_size"}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes = {sizes[0], sizes[0], sizes[0]};
    return unary(b, nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions(sizes)));
  });
  reg("AdaptiveMaxPool2d", {"output_size", {"return_indices", false}}, [](const Bound& b) {
    auto sizes = b.ints("output_size");
    if (sizes.size() == 1) sizes.push_back(sizes[0]);
    bool indices = b.b("return_indices");
    return wrap<nn::AdaptiveMaxPool2d>(
        b, nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions(sizes)), {"input"},
        [indices](nn::AdaptiveMaxPool2d& m, const Bound& in) {
          if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
          auto [out, index] = m->forward_with_indices(tensor(in, "input"));
          return tuple({out, index});
        });
  });
}

// Upsample's int size or float scale apply to every spatial dim, known only from the input.
at::Tensor upsample(const Bound& b, const at::Tensor& x) {
  int64_t spatial = x.dim() - 2;
  auto o = F::InterpolateFuncOptions();
  if (!b.none("size")) {
    auto sizes = b.ints("size");
    if (sizes.size() == 1) sizes.assign(spatial, sizes[0]);
    o.size(sizes);
  }
  if (!b.none("scale_factor")) {
    const auto& s = b.get("scale_factor");
    std::vector<double> scales;
    if (s.isList() || s.isTuple()) {
      for (const auto& e : s.isList() ? s.toListRef().vec() : s.toTupleRef().elements().vec())
        scales.push_back(e.isInt() ? double(e.toInt()) : e.toDouble());
    } else {
      scales.assign(spatial, b.d("scale_factor"));
    }
    o.scale_factor(scales);
  }
  std::string mode = b.s("mode");
  if (mode == "nearest")
    o.mode(torch::kNearest);
  else if (mode == "linear")
    o.mode(torch::kLinear);
  else if (mode == "bilinear")
    o.mode(torch::kBilinear);
  else if (mode == "bicubic")
    o.mode(torch::kBicubic);
  else if (mode == "trilinear")
    o.mode(torch::kTrilinear);
  else
    throw std::invalid_argument(b.what() + ": unknown mode '" + mode + "'");
  o.align_corners(c10_opt(b.opt_b("align_corners")));
  o.recompute_scale_factor(c10_opt(b.opt_b("recompute_scale_factor")));
  return F::interpolate(x, o);
}

Signature upsample_signature() {
  return {{"size", None},
          {"scale_factor", None},
          {"mode", str("nearest")},
          {"align_corners", None},
          {"recompute_scale_factor", None}};
}

std::shared_ptr<Module> upsample_module(const Bound& b) {
  return std::make_shared<FnModule>(
      b.what() + ".forward", Signature{"input"},
      [b](const Bound& in) { return c10::IValue(upsample(b, tensor(in, "input"))); });
}

void register_shapes() {
  reg("Flatten", {{"start_dim", 1}, {"end_dim", -1}}, [](const Bound& b) {
    return unary(
        b, nn::Flatten(nn::FlattenOptions().start_dim(b.i("start_dim")).end_dim(b.i("end_dim"))));
  });
  reg("Unflatten", {"dim", "unflattened_size"}, [](const Bound& b) {
    return unary(b, nn::Unflatten(nn::UnflattenOptions(b.i("dim"), b.ints("unflattened_size"))));
  });
  reg(
      "Identity", {}, [](const Bound& b) { return unary(b, nn::Identity()); }, true);
  reg("Upsample", upsample_signature(), upsample_module);
  // The deprecated fixed-mode forms of Upsample.
  for (auto [name, mode, corners] : {std::tuple{"UpsamplingNearest2d", "nearest", false},
                                     std::tuple{"UpsamplingBilinear2d", "bilinear", true}}) {
    std::string m = mode;
    bool align = corners;
    reg(name, {{"size", None}, {"scale_factor", None}}, [m, align](const Bound& b) {
      Bound full(b.what(), upsample_signature(), {b.get("size"), b.get("scale_factor"), m},
                 align ? Kwargs{{"align_corners", true}} : Kwargs{});
      return upsample_module(full);
    });
  }
  reg("PixelShuffle", {"upscale_factor"}, [](const Bound& b) {
    return unary(b, nn::PixelShuffle(nn::PixelShuffleOptions(b.i("upscale_factor"))));
  });
  reg("ZeroPad2d", {"padding"}, [](const Bound& b) {
    return unary(b, nn::ZeroPad2d(nn::ZeroPad2dOptions(arr<4>(b, "padding"))));
  });
  reg("ReflectionPad2d", {"padding"}, [](const Bound& b) {
    return unary(b, nn::ReflectionPad2d(nn::ReflectionPad2dOptions(arr<4>(b, "padding"))));
  });
  reg("CosineSimilarity", {{"dim", 1}, {"eps", 1e-8}}, [](const Bound& b) {
    auto m = nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(b.i("dim")).eps(b.d("eps")));
    return wrap<nn::CosineSimilarity>(
        b, m, {"x1", "x2"}, [](nn::CosineSimilarity& m, const Bound& in) {
          return c10::IValue(m->forward(tensor(in, "x1"), tensor(in, "x2")));
        });
  });
  reg("PairwiseDistance", {{"p", 2.0}, {"eps", 1e-6}, {"keepdim", false}}, [](const Bound& b) {
    auto m = nn::PairwiseDistance(
        nn::PairwiseDistanceOptions().p(b.d("p")).eps(b.d("eps")).keepdim(b.b("keepdim")));
    return wrap<nn::PairwiseDistance>(
        b, m, {"x1", "x2"}, [](nn::PairwiseDistance& m, const Bound& in) {
          return c10::IValue(m->forward(tensor(in, "x1"), tensor(in, "x2")));
        });
  });
  // Sequential(*modules): its arguments are modules built by construct nodes.
  reg(
      "Sequential", {},
      [](const Bound& b) -> std::shared_ptr<Module> {
        std::vector<std::shared_ptr<Module>> steps;
        for (const auto& arg : b.rest()) {
          auto m = module_from_ivalue(arg);
          if (!m)
            throw std::invalid_argument(b.what() + ": arguments must be modules (construct nodes)");
          steps.push_back(m);
        }
        return std::make_shared<SequentialModule>(b.what() + ".forward", std::move(steps));
      },
      true);
}

// Python's deprecated size_average/reduce arguments: accepted only as None.
void no_legacy_reduction(const Bound& b) {
  if (!b.none("size_average") || !b.none("reduce"))
    throw std::invalid_argument(b.what() +
                                ": size_average and reduce are deprecated; use reduction");
}

template <class Options>
Options with_reduction(Options o, const Bound& b) {
  std::string r = b.s("reduction");
  if (r == "mean")
    o.reduction(torch::kMean);
  else if (r == "sum")
    o.reduction(torch::kSum);
  else if (r == "none")
    o.reduction(torch::kNone);
  else
    throw std::invalid_argument(b.what() + ": unknown reduction '" + r + "'");
  return o;
}

// A loss module: forward(input, target).
template <class M>
std::shared_ptr<Module> loss(const Bound& b, M m) {
  return wrap<M>(b, std::move(m), {"input", "target"}, [](M& m, const Bound& in) {
    return c10::IValue(m->forward(tensor(in, "input"), tensor(in, "target")));
  });
}

void register_losses() {
  const Signature legacy = {{"size_average", None}, {"reduce", None}, {"reduction", str("mean")}};
  reg("MSELoss", legacy, [](const Bound& b) {
    no_legacy_reduction(b);
    return loss(b, nn::MSELoss(with_reduction(nn::MSELossOptions(), b)));
  });
  reg("L1Loss", legacy, [](const Bound& b) {
    no_legacy_reduction(b);
    return loss(b, nn::L1Loss(with_reduction(nn::L1LossOptions(), b)));
  });
  Signature smooth = legacy;
  smooth.push_back({"beta", 1.0});
  reg("SmoothL1Loss", smooth, [](const Bound& b) {
    no_legacy_reduction(b);
    auto o = with_reduction(nn::SmoothL1LossOptions(), b).beta(b.d("beta"));
    return loss(b, nn::SmoothL1Loss(o));
  });
  reg("HuberLoss", {{"reduction", str("mean")}, {"delta", 1.0}}, [](const Bound& b) {
    return loss(b, nn::HuberLoss(with_reduction(nn::HuberLossOptions(), b).delta(b.d("delta"))));
  });
  reg("CrossEntropyLoss",
      {{"weight", None},
       {"size_average", None},
       {"ignore_index", -100},
       {"reduce", None},
       {"reduction", str("mean")},
       {"label_smoothing", 0.0}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::CrossEntropyLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .ignore_index(b.i("ignore_index"))
                     .label_smoothing(b.d("label_smoothing"));
        return loss(b, nn::CrossEntropyLoss(o));
      });
  reg("NLLLoss",
      {{"weight", None},
       {"size_average", None},
       {"ignore_index", -100},
       {"reduce", None},
       {"reduction", str("mean")}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::NLLLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .ignore_index(b.i("ignore_index"));
        return loss(b, nn::NLLLoss(o));
      });
  reg("BCELoss",
      {{"weight", None}, {"size_average", None}, {"reduce", None}, {"reduction", str("mean")}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::BCELossOptions(), b).weight(tensor_or_undefined(b, "weight"));
        return loss(b, nn::BCELoss(o));
      });
  reg("BCEWithLogitsLoss",
      {{"weight", None},
       {"size_average", None},
       {"reduce", None},
       {"reduction", str("mean")},
       {"pos_weight", None}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = with_reduction(nn::BCEWithLogitsLossOptions(), b)
                     .weight(tensor_or_undefined(b, "weight"))
                     .pos_weight(tensor_or_undefined(b, "pos_weight"));
        return loss(b, nn::BCEWithLogitsLoss(o));
      });
  reg("KLDivLoss",
      {{"size_average", None}, {"reduce", None}, {"reduction", str("mean")}, {"log_target", false}},
      [](const Bound& b) {
        no_legacy_reduction(b);
        auto o = nn::KLDivLossOptions().log_target(b.b("log_target"));
        std::string r = b.s("reduction");
        if (r == "batchmean")
          o.reduction(torch::kBatchMean);
        else
          o = with_reduction(o, b);
        return loss(b, nn::KLDivLoss(o));
      });
}

template <class Holder, class Options, size_t D>
void register_pad(const std::string& name, bool has_value) {
  Signature s = {"padding"};
  if (has_value) s.push_back("value");
  reg(name, s, [has_value](const Bound& b) {
    if constexpr (std::is_constructible_v<Options, torch::ExpandingArray<D>, double>) {
      if (has_value) return unary(b, Holder(Options(arr<D>(b, "padding"), b.d("value"))));
    }
    if constexpr (std::is_constructible_v<Options, torch::ExpandingArray<D>>)
      return unary(b, Holder(Options(arr<D>(b, "padding"))));
    throw std::logic_error("unreachable");
  });
}

void register_more_layers() {
  register_pad<nn::ConstantPad1d, nn::ConstantPad1dOptions, 2>("ConstantPad1d", true);
  register_pad<nn::ConstantPad2d, nn::ConstantPad2dOptions, 4>("ConstantPad2d", true);
  register_pad<nn::ConstantPad3d, nn::ConstantPad3dOptions, 6>("ConstantPad3d", true);
  register_pad<nn::ReplicationPad1d, nn::ReplicationPad1dOptions, 2>("ReplicationPad1d", false);
  register_pad<nn::ReplicationPad2d, nn::ReplicationPad2dOptions, 4>("ReplicationPad2d", false);
  register_pad<nn::ReplicationPad3d, nn::ReplicationPad3dOptions, 6>("ReplicationPad3d", false);
  register_pad<nn::ReflectionPad1d, nn::ReflectionPad1dOptions, 2>("ReflectionPad1d", false);
  register_pad<nn::ReflectionPad3d, nn::ReflectionPad3dOptions, 6>("ReflectionPad3d", false);
  reg("PixelUnshuffle", {"downscale_factor"}, [](const Bound& b) {
    return unary(b, nn::PixelUnshuffle(nn::PixelUnshuffleOptions(b.i("downscale_factor"))));
  });
  // Dropouts are the identity in eval mode.
  reg("Dropout1d", {{"p", 0.5}, {"inplace", false}},
      [](const Bound& b) { return unary(b, nn::Identity()); });
  reg("Dropout2d", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::Dropout2d(nn::Dropout2dOptions(b.d("p")).inplace(b.b("inplace"))));
  });
  reg("Dropout3d", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::Dropout3d(nn::Dropout3dOptions(b.d("p")).inplace(b.b("inplace"))));
  });
  reg("AlphaDropout", {{"p", 0.5}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::AlphaDropout(nn::AlphaDropoutOptions(b.d("p")).inplace(b.b("inplace"))));
  });
  reg("LPPool1d", {"norm_type", "kernel_size", {"stride", None}, {"ceil_mode", false}},
      [](const Bound& b) {
        nn::LPPool1dOptions o(b.d("norm_type"), arr<1>(b, "kernel_size"));
        o.stride(b.none("stride") ? arr<1>(b, "kernel_size") : arr<1>(b, "stride"))
            .ceil_mode(b.b("ceil_mode"));
        return unary(b, nn::LPPool1d(o));
      });
  reg("LPPool2d", {"norm_type", "kernel_size", {"stride", None}, {"ceil_mode", false}},
      [](const Bound& b) {
        nn::LPPool2dOptions o(b.d("norm_type"), arr<2>(b, "kernel_size"));
        o.stride(b.none("stride") ? arr<2>(b, "kernel_size") : arr<2>(b, "stride"))
            .ceil_mode(b.b("ceil_mode"));
        return unary(b, nn::LPPool2d(o));
      });
  reg("AdaptiveMaxPool1d", {"output_size", {"return_indices", false}}, [](const Bound& b) {
    bool indices = b.b("return_indices");
    return wrap<nn::AdaptiveMaxPool1d>(
        b, nn::AdaptiveMaxPool1d(nn::AdaptiveMaxPool1dOptions(arr<1>(b, "output_size"))), {"input"},
        [indices](nn::AdaptiveMaxPool1d& m, const Bound& in) {
          if (!indices) return c10::IValue(m->forward(tensor(in, "input")));
          auto [out, index] = m->forward_with_indices(tensor(in, "input"));
          return tuple({out, index});
        });
  });
  reg("LocalResponseNorm", {"size", {"alpha", 1e-4}, {"beta", 0.75}, {"k", 1.0}},
      [](const Bound& b) {
        auto o = nn::LocalResponseNormOptions(b.i("size"))
                     .alpha(b.d("alpha"))
                     .beta(b.d("beta"))
                     .k(b.d("k"));
        return unary(b, nn::LocalResponseNorm(o));
      });
  reg("Fold", {"output_size", "kernel_size", {"dilation", 1}, {"padding", 0}, {"stride", 1}},
      [](const Bound& b) {
        auto o = nn::FoldOptions(arr<2>(b, "output_size"), arr<2>(b, "kernel_size"))
                     .dilation(arr<2>(b, "dilation"))
                     .padding(arr<2>(b, "padding"))
                     .stride(arr<2>(b, "stride"));
        return unary(b, nn::Fold(o));
      });
  reg("Unfold", {"kernel_size", {"dilation", 1}, {"padding", 0}, {"stride", 1}},
      [](const Bound& b) {
        auto o = nn::UnfoldOptions(arr<2>(b, "kernel_size"))
                     .dilation(arr<2>(b, "dilation"))
                     .padding(arr<2>(b, "padding"))
                     .stride(arr<2>(b, "stride"));
        return unary(b, nn::Unfold(o));
      });
}

void register_more_activations() {
  reg("CELU", {{"alpha", 1.0}, {"inplace", false}}, [](const Bound& b) {
    return unary(b, nn::CELU(nn::CELUOptions().alpha(b.d("alpha")).inplace(b.b("inplace"))));
  });
  reg("GLU", {{"dim", -1}},
      [](const Bound& b) { return unary(b, nn::GLU(nn::GLUOptions(b.i("dim")))); });
  reg("Hardshrink", {{"lambd", 0.5}},
      [](const Bound& b) { return unary(b, nn::Hardshrink(nn::HardshrinkOptions(b.d("lambd")))); });
  reg("Softshrink", {{"lambd", 0.5}},
      [](const Bound& b) { return unary(b, nn::Softshrink(nn::SoftshrinkOptions(b.d("lambd")))); });
  reg("Threshold", {"threshold", "value", {"inplace", false}}, [](const Bound& b) {
    return unary(b,
                 nn::Threshold(
                     nn::ThresholdOptions(b.d("threshold"), b.d("value")).inplace(b.b("inplace"))));
  });
  reg_fn("Softmin", {{"dim", None}}, [](const Bound& b, const at::Tensor& x) {
    return at::softmax(-x, b.opt_i("dim").value_or(implicit_softmax_dim(x)));
  });
  reg("Softmax2d", {}, [](const Bound& b) { return unary(b, nn::Softmax2d()); });
}

void register_cells() {
  reg("LSTMCell", placement({"input_size", "hidden_size", {"bias", true}}), [](const Bound& b) {
    auto o = nn::LSTMCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
    return wrap<nn::LSTMCell>(b, placed(nn::LSTMCell(o), b), {"input", {"hx", None}},
                              [](nn::LSTMCell& m, const Bound& in) {
                                c10::optional<std::tuple<at::Tensor, at::Tensor>> hx;
                                if (!in.none("hx")) {
                                  auto hc = in.get("hx").toTupleRef().elements();
                                  hx = std::make_tuple(hc.at(0).toTensor(), hc.at(1).toTensor());
                                }
                                auto [h, c] = m->forward(tensor(in, "input"), hx);
                                return tuple({h, c});
                              });
  });
  reg("GRUCell", placement({"input_size", "hidden_size", {"bias", true}}), [](const Bound& b) {
    auto o = nn::GRUCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
    return wrap<nn::GRUCell>(
        b, placed(nn::GRUCell(o), b), {"input", {"hx", None}}, [](nn::GRUCell& m, const Bound& in) {
          return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "hx")));
        });
  });
  reg("RNNCell",
      placement({"input_size", "hidden_size", {"bias", true}, {"nonlinearity", str("tanh")}}),
      [](const Bound& b) {
        auto o = nn::RNNCellOptions(b.i("input_size"), b.i("hidden_size")).bias(b.b("bias"));
        std::string f = b.s("nonlinearity");
        if (f == "tanh")
          o.nonlinearity(torch::kTanh);
        else if (f == "relu")
          o.nonlinearity(torch::kReLU);
        else
          throw std::invalid_argument(b.what() + ": unknown nonlinearity '" + f + "'");
        return wrap<nn::RNNCell>(
            b, placed(nn::RNNCell(o), b), {"input", {"hx", None}},
            [](nn::RNNCell& m, const Bound& in) {
              return c10::IValue(m->forward(tensor(in, "input"), tensor_or_undefined(in, "hx")));
            });
      });
}

}  // namespace

void register_builtin_modules() {
  register_linear_and_conv();
  register_norms();
  register_embeddings();
  register_recurrent_and_attention();
  register_cells();
  register_activations();
  register_more_activations();
  register_pooling();
  register_shapes();
  register_more_layers();
  register_losses();
}

}  // namespace opsfuzz::suite
